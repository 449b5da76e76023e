/**
 * Pages built from hostile evidence (issue 10, items 6 and 8), with the CLI:
 *
 * - a rejected bundle claiming a counted plan and the bundle id
 *   sha256:000...0 does not take that plan's page (its title, notes and files
 *   stay on /rejected/, under its content digest);
 * - a manifest listing 200,000 absent files and a rejected bundle of 40,000
 *   files build within a bounded time, and each page lists a bounded number
 *   of rows and states how many more there are.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestBytes } from '../../src/json/canonical.ts';
import { MAX_ROWS, REJECTED_ROWS } from '../../src/site/views/rows.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** A generous wall-clock bound for one build of this site (before the fix it did not finish at all). */
const BUILD_BOUND_MS = 90_000;
const ABSENT = 200_000;
const MANY = 40_000;
const ZERO = `sha256:${'0'.repeat(64)}`;

/** Two sites, each built once: the 200,000 absent files alone, and the rest. */
let outAbsent: string;
let out: string;
const buildMs: number[] = [];
let planHex: string;
let realTitle: string;
let realId: string;
let bigPlanHex: string;
let bigFiles: number;
const BIG = 1_500;

interface Listed {
  report: { bundles: { content_digest: string; bundle_id: string | null; status: string; counted: boolean; findings: unknown[] }[] };
}
let report: Listed['report'];
let reportAbsent: Listed['report'];

/** Builds the bundles under `<work>/<name>` into `<work>/<name>-site` with the CLI, killed past the bound; records the wall time. */
async function build(work: string, name: string): Promise<string> {
  const site = join(work, `${name}-site`);
  const config = join(work, `${name}.json`);
  await writeFile(config, JSON.stringify({ title: 'hostile pages', bundles_dir: name, retained_reports_dir: 'history' }));
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'ledgerboard.mjs'), 'build', '--config', config, '--out', site],
      { cwd: work, env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' }, maxBuffer: 1 << 28, timeout: BUILD_BOUND_MS, killSignal: 'SIGKILL' },
      (error, _stdout, stderr) => (error ? reject(new Error(`build of ${name} failed or took over ${BUILD_BOUND_MS} ms: ${error.message}\n${stderr}`)) : resolve()),
    );
  });
  buildMs.push(Date.now() - started);
  return site;
}

beforeAll(async () => {
  const work = await makeTempDir('lb-hostile-pages-');
  const bundles = join(work, 'evidence');
  await mkdir(bundles);
  await mkdir(join(work, 'absent'));

  // The real, counted bundle of plan P.
  const real = validBundle();
  real.plan.title = 'the real plan';
  const realDir = await writeModel(real);
  await cp(realDir, join(bundles, 'real'), { recursive: true });
  const plan = JSON.parse(await readFile(join(realDir, 'plan.json'), 'utf8')) as { plan_id: string; title: string };
  planHex = plan.plan_id.slice(7);
  realTitle = plan.title;
  realId = (JSON.parse(await readFile(join(realDir, 'manifest.json'), 'utf8')) as { bundle_id: string }).bundle_id;

  // A verified bundle with more files than a page lists.
  const big = validBundle();
  big.plan.title = 'many files';
  for (let i = 0; i < BIG; i++) big.extra.set(`logs/${String(i).padStart(4, '0')}.txt`, new TextEncoder().encode(`line ${i}\n`));
  const bigDir = await writeModel(big);
  await cp(bigDir, join(bundles, 'big'), { recursive: true });
  bigPlanHex = (JSON.parse(await readFile(join(bigDir, 'plan.json'), 'utf8')) as { plan_id: string }).plan_id.slice(7);
  bigFiles = (JSON.parse(await readFile(join(bigDir, 'manifest.json'), 'utf8')) as { files: unknown[] }).files.length + 1;

  // A forgery: claims plan P and bundle id 000...0, with its own title, notes and files.
  const forged = validBundle();
  forged.plan.title = 'FORGED TITLE';
  forged.plan.plan_id = plan.plan_id;
  forged.notes = 'FORGED NOTES\n';
  forged.extra.set('forged-file.txt', new TextEncoder().encode('forged\n'));
  await cp(await writeModel(forged, { keepPlanId: true, editManifest: (m) => void (m.bundle_id = ZERO), keepBundleId: true }), join(bundles, 'forged'), {
    recursive: true,
  });

  // A manifest listing 200,000 files that are not there.
  const absent = validBundle();
  absent.plan.title = 'absent files';
  await cp(
    await writeModel(absent, {
      editManifest: (m) => {
        for (let i = 0; i < ABSENT; i++) m.files.push({ path: `absent/${String(i).padStart(6, '0')}.txt`, sha256: digestBytes(`absent ${i}`), bytes: 8 });
      },
    }),
    join(work, 'absent', 'absent'),
    { recursive: true },
  );

  // A rejected junk directory of 40,000 unlisted files (plan.json is {}).
  const junk = join(bundles, 'junk');
  await mkdir(join(junk, 'many'), { recursive: true });
  await writeFile(join(junk, 'plan.json'), '{}');
  for (let i = 0; i < MANY; i += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, j) => writeFile(join(junk, 'many', `f${String(i + j).padStart(5, '0')}.txt`), `${i + j}\n`)));
  }

  outAbsent = await build(work, 'absent');
  out = await build(work, 'evidence');
  report = (JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { bundles: Listed['report']['bundles'] }) as Listed['report'];
  reportAbsent = (JSON.parse(await readFile(join(outAbsent, 'report.json'), 'utf8')) as { bundles: Listed['report']['bundles'] }) as Listed['report'];
}, 400_000);

afterAll(removeTempDirs);

const page = (path: string, site = out): Promise<string> => readFile(join(site, ...path.split('/').filter(Boolean), 'index.html'), 'utf8');
/** The rows a page states it left out (data-more-rows), in page order. */
const moreRows = (html: string): number[] => [...html.matchAll(/data-more-rows="(\d+)"/g)].map((m) => Number(m[1]));

describe('a forged bundle claiming a counted plan (item 8)', () => {
  it('the forgery is rejected and the real bundle counted', () => {
    const forged = report.bundles.find((b) => b.bundle_id === ZERO)!;
    expect(forged.status).toBe('invalid');
    expect(forged.counted).toBe(false);
    expect(report.bundles.find((b) => b.bundle_id === realId)?.counted).toBe(true);
  });

  it('/plans/<P>/ shows the real bundle: its title, never the forged title, notes or files', async () => {
    const html = await page(`/plans/${planHex}/`);
    expect(html).toContain(`<h1>${realTitle}</h1>`);
    expect(html).not.toContain('FORGED TITLE');
    expect(html).not.toContain('FORGED NOTES');
    expect(html).not.toContain('forged-file.txt');
    expect(html).toContain(realId);
  });

  it('the plan page links the forgery to /rejected/, where it is listed under its content digest', async () => {
    const forged = report.bundles.find((b) => b.bundle_id === ZERO)!;
    const hex = forged.content_digest.slice(7);
    expect(await page(`/plans/${planHex}/`)).toContain(`href="/rejected/#b-${hex}"`);
    const rejected = await page('/rejected/');
    expect(rejected).toContain(`id="b-${hex}"`);
    expect(rejected).toContain('FORGED TITLE');
  });
});

describe('long lists (item 6)', () => {
  it(`each site builds within ${BUILD_BOUND_MS / 1000} s`, () => {
    expect(buildMs).toHaveLength(2);
    for (const ms of buildMs) expect(ms).toBeLessThan(BUILD_BOUND_MS);
  });

  it('200,000 absent files: the rejected page lists REJECTED_ROWS findings and counts the rest', async () => {
    const html = await page('/rejected/', outAbsent);
    const [absent] = reportAbsent.bundles;
    expect(absent!.findings.length).toBeGreaterThanOrEqual(ABSENT);
    expect(moreRows(html)).toEqual([absent!.findings.length - REJECTED_ROWS]);
    expect((html.match(/<dd class="(error|warning|info)"/g) ?? []).length).toBe(REJECTED_ROWS);
  });

  it('40,000 files: the rejected page links REJECTED_ROWS of them and counts the rest', async () => {
    const html = await page('/rejected/');
    const junk = report.bundles.find((b) => b.bundle_id === null)!;
    expect(html).toContain(`id="b-${junk.content_digest.slice(7)}"`);
    // 40,001 files (plan.json too): REJECTED_ROWS linked, the rest counted.
    expect(moreRows(html)).toContain(MANY + 1 - REJECTED_ROWS);
    const rejected = report.bundles.filter((b) => !b.counted).length;
    expect((html.match(/href="\/blobs\/[0-9a-f]{64}"/g) ?? []).length).toBeLessThanOrEqual(REJECTED_ROWS * rejected);
    expect((html.match(/<dd class="(error|warning|info)"/g) ?? []).length).toBeLessThanOrEqual(REJECTED_ROWS * rejected);
  });

  it(`a verified bundle's plan page lists ${MAX_ROWS} files and counts the rest`, async () => {
    const html = await page(`/plans/${bigPlanHex}/`);
    expect(bigFiles).toBeGreaterThan(MAX_ROWS);
    expect((html.match(/<tr><td><a href="\/blobs\/[0-9a-f]{64}"/g) ?? []).length).toBe(MAX_ROWS);
    expect(moreRows(html)).toEqual([bigFiles - MAX_ROWS]);
  });

  it('every row limit is MAX_ROWS or less', () => {
    expect(REJECTED_ROWS).toBeLessThanOrEqual(MAX_ROWS);
  });
});
