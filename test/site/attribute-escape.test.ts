/**
 * Astro 5.18 writes an attribute value unescaped when it contains `&` and
 * parses as an http(s) URL (src/site/build/escape-attributes.ts). A plan
 * title that is such a URL and closes the attribute must reach every page
 * escaped: no element of the bundle's making appears in any page.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { escapeEveryAttribute, UNESCAPED_URL_CONDITION } from '../../src/site/build/escape-attributes.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => join(e.parentPath, e.name)).sort();
}

describe("Astro's unescaped URL attributes", () => {
  it('the runtime condition is rewritten, and a runtime without it stops the build', async () => {
    const runtime = await readFile(new URL('../../node_modules/astro/dist/runtime/server/render/util.js', import.meta.url), 'utf8');
    expect(runtime.split(UNESCAPED_URL_CONDITION).length).toBe(2);
    const rewritten = escapeEveryAttribute(runtime);
    expect(rewritten).not.toContain(UNESCAPED_URL_CONDITION);
    expect(rewritten.length).toBeGreaterThan(runtime.length - 200);
    expect(() => escapeEveryAttribute('export function addAttribute() {}')).toThrow(/no longer holds the unescaped-URL branch/);
  });

  it('a plan title that is an http URL with & and a quote never breaks out of an attribute', async () => {
    const work = await makeTempDir('lb-attr-escape-');
    const hostile = validBundle();
    const payload = 'http://x.example/"><img src=x onerror=alert(1) data-pwned=1>&a=1';
    hostile.plan.title = payload;
    hostile.ledger[0]!.failing_assertion = payload;
    const results = await verifyPaths([await writeModel(hostile)]);
    const config = Config.parse({ title: 'Attribute board', site_url: 'https://example.org/' });
    const out = join(work, 'out');
    await buildSiteOf(buildReport(results, config), results, config, { retainedDir: join(work, 'no-retained'), outDir: out, sourceDate: null, log: () => undefined });
    const pages = await htmlFiles(out);
    expect(pages.length).toBeGreaterThan(5);
    let shown = 0;
    for (const page of pages) {
      const html = await readFile(page, 'utf8');
      // Astro escapes & and " in attribute values (not < or >): the quote that would close the attribute must never be raw.
      expect(html.includes('x.example/">'), page).toBe(false);
      // In text, < is escaped: no element of the bundle's making.
      expect(html.replace(/="[^"]*"/g, '=""').includes('<img src=x'), page).toBe(false);
      if (html.includes('http://x.example/&#34;&gt;&lt;img') || html.includes('http://x.example/&quot;&gt;&lt;img') || html.includes('http://x.example/&#34;>&lt;img')) shown++;
    }
    // The title is shown (escaped) on the plan page at least, in text and in attributes.
    expect(shown).toBeGreaterThan(0);
    const planPage = pages.find((p) => p.includes(`${join('out', 'plans')}`));
    expect(planPage).toBeDefined();
    const plan = await readFile(planPage!, 'utf8');
    expect(plan).toMatch(/property="og:title" content="[^"]*http:\/\/x\.example\/&#34;><img src=x onerror=alert\(1\) data-pwned=1>&#38;a=1/);
  }, 300_000);
});
