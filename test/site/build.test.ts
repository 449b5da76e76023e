/**
 * The site build: every page of the URL contract exists, raw evidence is
 * published byte for byte, data files match the report, and two builds from
 * the same evidence are identical byte for byte (whatever the time zone).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outA = join(tmpdir(), `lb-site-a-${process.pid}`);
const outB = join(tmpdir(), `lb-site-b-${process.pid}`);

async function build(out: string, tz: string): Promise<void> {
  await promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', 'build', '--out', out], {
    cwd: root,
    env: { ...process.env, TZ: tz, LANG: 'de_DE.UTF-8', NO_COLOR: '1' },
    maxBuffer: 1 << 26,
  });
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  await build(outA, 'UTC');
  await build(outB, 'Pacific/Chatham');
}, 180_000);

afterAll(async () => {
  for (const dir of [outA, outB]) await rm(dir, { recursive: true, force: true });
});

describe('ledgerboard build', () => {
  it('writes every page and file of the URL contract', async () => {
    const report = JSON.parse(await readFile(join(outA, 'report.json'), 'utf8')) as {
      boards: { board_id: string }[];
      cohorts: { cohort_id: string }[];
      bundles: { plan_id: string }[];
    };
    const hex = (d: string) => d.slice(7);
    const files = new Set(await listFiles(outA));
    const expected = [
      'index.html',
      'report.json',
      'rejected/index.html',
      'incompatibilities/index.html',
      'verify/index.html',
      'leaderboard.csv',
      'sitemap.xml',
      'feed.xml',
      'reports/index.html',
      'schema/report.json',
      'schema/plan.json',
      ...report.boards.map((b) => `boards/${hex(b.board_id)}/index.html`),
      ...report.cohorts.flatMap((c) => [`cohorts/${hex(c.cohort_id)}/index.html`, `cohorts/${hex(c.cohort_id)}.json`]),
      ...report.bundles.map((b) => `plans/${hex(b.plan_id)}/index.html`),
    ];
    for (const file of expected) expect(files, file).toContain(file);
  });

  it('report.json is the golden report, byte for byte', async () => {
    expect(await readFile(join(outA, 'report.json'), 'utf8')).toBe(await readFile(join(root, 'test', 'golden', 'demo-report.json'), 'utf8'));
  });

  it('publishes every bundle file byte for byte under its bundle id', async () => {
    for (const bundle of await readdir(join(root, 'content', 'bundles'))) {
      const source = join(root, 'content', 'bundles', bundle);
      const manifest = JSON.parse(await readFile(join(source, 'manifest.json'), 'utf8')) as { bundle_id: string };
      const published = join(outA, 'bundles', manifest.bundle_id.slice(7));
      const sourceFiles = await listFiles(source);
      expect(await listFiles(published)).toEqual(sourceFiles);
      for (const file of sourceFiles) expect(sha(await readFile(join(published, file))), file).toBe(sha(await readFile(join(source, file))));
    }
  });

  it('is reproducible: two builds (different time zone, locale, output dir) are identical byte for byte', async () => {
    const a = await listFiles(outA);
    expect(await listFiles(outB)).toEqual(a);
    for (const file of a) expect(sha(await readFile(join(outB, file))), file).toBe(sha(await readFile(join(outA, file))));
  });

  it('pages carry a canonical URL from the config and citation meta with the evidence date', async () => {
    const html = await readFile(join(outA, 'index.html'), 'utf8');
    expect(html).toContain('<link rel="canonical" href="https://ledgerboard.example/">');
    expect(html).toMatch(/<meta name="citation_publication_date" content="2026\/11\/18">/);
    expect(html).toContain('Cite this');
  });

  it('`node dist/verify.mjs dist` re-derives everything: exit 0, and exit 1 after one published byte changes', async () => {
    const run = (dir: string) => promisify(execFile)(process.execPath, [join(outA, 'verify.mjs'), dir], { maxBuffer: 1 << 24 }).then(() => 0, (e: { code: number }) => e.code);
    expect(await run(outA)).toBe(0);
    const file = join(outB, 'bundles', (await readdir(join(outB, 'bundles')))[0]!, 'attempts.jsonl');
    const bytes = await readFile(file);
    bytes[10] = bytes[10]! ^ 1;
    await writeFile(file, bytes);
    expect(await run(outB)).toBe(1);
  });

  it('the leaderboard page stays under 150 KB of HTML + CSS', async () => {
    const bytes = (await readFile(join(outA, 'index.html'))).length + (await readFile(join(outA, 'site.css'))).length;
    expect(bytes).toBeLessThan(150 * 1024);
  });
});
