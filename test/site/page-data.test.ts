/**
 * The task pages' data on its way through the render (src/site/build/render.ts):
 * writePageData writes each page's JSON and, for a page with `html`, those
 * strings concatenated in `<n>.html`; the module pageDataPlugin serves gives
 * each page exactly the data it was given (astral, combining and NUL
 * characters, quotes and markup included), one page at a time.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pageDataPlugin, writePageData } from '../../src/site/build/render.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

describe('writePageData and pageDataPlugin', () => {
  it('give each page back exactly its data, its html kept out of the JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-page-data-'));
    scratch.push(dir);
    const pages = [
      { key: 'a', cohorts: [{ n: 1 }, { n: 2 }], html: ['<tr data-x="1"> <td>é 😀 \u0000 &amp;</td> </tr>', '', '<tr><td>"q" \'s\' e\u0301</td></tr>'] },
      { key: 'b', cohorts: [], html: [] },
      { key: 'c', plain: ['no html here', { deep: true }] },
    ];
    await writePageData({ pages, detail: async (n) => pages[n] }, dir);
    expect((await readdir(dir)).sort()).toEqual(['0.html', '0.json', '1.html', '1.json', '2.json']);
    expect(await readFile(join(dir, '0.json'), 'utf8')).not.toContain('<tr');
    const plugin = pageDataPlugin('virtual:ledgerboard/test-pages', 'pageOf', dir);
    const code = plugin.load(plugin.resolveId('virtual:ledgerboard/test-pages')!)!;
    const module = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as { pageOf(n: number): unknown };
    for (const [n, page] of pages.entries()) expect(module.pageOf(n)).toEqual(page);
  });
});
