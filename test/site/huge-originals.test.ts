/**
 * Issue 25, High 1: an imported bundle whose kept original is huge verifies
 * (IMPORT_NOT_REPRODUCED: past the import limits, the import is not
 * re-derived) and used to take the build down when the plan page and the
 * transcript pages read the original whole (a 2.1 GiB file: exit 3,
 * ERR_FS_FILE_TOO_LARGE; 400 MB of JSON: gigabytes of heap). The build now
 * holds the originals to the same import limits (src/site/model/originals.ts):
 * judged by size before a byte is read, never read past them, and the page
 * says which limit kept them unread.
 *
 * One build of three copies of a demo Inspect import, under a config whose
 * import_limits.file_bytes is 64 KiB:
 * - the original as imported (42 KB): read, its figure and transcripts shown;
 * - the same log padded with JSON whitespace to 70 KiB, just past the limit:
 *   a log that reads perfectly well, so anything the page shows of it (its
 *   figure, a transcript page) would prove it was read;
 * - a sparse 2.1 GiB original (truncate, never written).
 * The build runs as a child process: exit 0, its peak RSS and time bounded.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestBytesOf, prettyJson, withSelfId } from '../../src/evidence/seal.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { bundleFiles, DEMO_INSPECT } from '../helpers/imported-bundle.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';
import { textOf } from '../helpers/page-text.ts';

const ORIGINAL = 'source/inspect-log.json';
const LIMIT = 64 * 1024;
/** 2150 MiB: "2.1 GiB", past 2^31 (what readFile refuses) and past V8's longest string. */
const HUGE = 2150 * 1024 * 1024;

let out = '';
let run: { code: number | null; stderr: string; seconds: number; maxRssMiB: number };
let report: Report;
const plans: Record<'asImported' | 'padded' | 'huge', string> = {} as never;

const page = async (path: string) => textOf(await readFile(join(out, path, 'index.html'), 'utf8'));

/** SHA-256 of `size` zero bytes, in 1 MiB steps (the sparse file's digest, without writing it). */
function zerosDigest(size: number): string {
  const hash = createHash('sha256');
  const mib = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= mib.length) hash.update(left >= mib.length ? mib : mib.subarray(0, left));
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Writes the demo import with its original replaced: plan.origin.source names
 * the new digest (plan id re-derived), the manifest lists the original by the
 * digest and size given; `write` puts the original's bytes in place. Returns the plan id.
 */
async function writeWithOriginal(dir: string, original: { sha256: string; bytes: number; write: (path: string) => Promise<void> }): Promise<string> {
  const files = await bundleFiles(DEMO_INSPECT);
  files.delete(ORIGINAL);
  const plan = JSON.parse(Buffer.from(files.get('plan.json')!).toString('utf8')) as { origin: { source: string } };
  plan.origin.source = original.sha256;
  const sealed = withSelfId(plan as unknown as Record<string, unknown>, 'plan_id');
  files.set('plan.json', prettyJson(sealed));
  for (const [path, bytes] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), bytes);
  }
  await mkdir(join(dir, 'source'), { recursive: true });
  await original.write(join(dir, ORIGINAL));
  const listed = [...files].map(([path, bytes]) => ({ path, sha256: digestBytes(bytes), bytes: bytes.length }));
  listed.push({ path: ORIGINAL, sha256: original.sha256, bytes: original.bytes });
  await writeFile(join(dir, 'manifest.json'), manifestBytesOf(listed, sealed.plan_id as string));
  return sealed.plan_id as string;
}

/** Runs `ledgerboard build` in a child process, with its peak RSS (getrusage at exit) and wall time. */
async function build(args: string[]): Promise<typeof run> {
  const work = await makeTempDir('ledgerboard-huge-rss-');
  const probe = join(work, 'rss.mjs');
  await writeFile(probe, "import { writeSync } from 'node:fs';\nprocess.on('exit', () => writeSync(2, `\\nmax-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', probe, 'bin/ledgerboard.mjs', 'build', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, TZ: 'UTC', NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' }, maxBuffer: 1 << 26, timeout: 280_000, killSignal: 'SIGKILL' },
      (error, _stdout, stderr) => {
        const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null;
        const kib = Number(/max-rss-kib (\d+)/.exec(stderr)?.[1] ?? NaN);
        resolve({ code, stderr, seconds: (performance.now() - started) / 1000, maxRssMiB: kib / 1024 });
      },
    );
  });
}

beforeAll(async () => {
  const work = await makeTempDir('ledgerboard-huge-originals-');
  const bundles = join(work, 'bundles');
  await cp(DEMO_INSPECT, join(bundles, 'as-imported'), { recursive: true });
  plans.asImported = (JSON.parse(await readFile(join(DEMO_INSPECT, 'plan.json'), 'utf8')) as { plan_id: string }).plan_id;
  // The same log, valid JSON still: whitespace after its last member, to 70 KiB.
  const log = await readFile(join(DEMO_INSPECT, ORIGINAL));
  const padded = Buffer.concat([log.subarray(0, log.lastIndexOf('}')), Buffer.alloc(70 * 1024 - log.length, ' '), log.subarray(log.lastIndexOf('}'))]);
  expect(padded.length).toBe(70 * 1024);
  plans.padded = await writeWithOriginal(join(bundles, 'padded'), { sha256: digestBytes(padded), bytes: padded.length, write: (path) => writeFile(path, padded) });
  plans.huge = await writeWithOriginal(join(bundles, 'huge'), { sha256: zerosDigest(HUGE), bytes: HUGE, write: (path) => truncate(path, HUGE).catch(async () => { await writeFile(path, ''); await truncate(path, HUGE); }) });
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ import_limits: { file_bytes: LIMIT } }));
  out = join(work, 'site');
  run = await build(['--bundles', bundles, '--out', out, '--config', config]);
  if (run.code === 0) report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
}, 300_000);

afterAll(removeTempDirs);

const hexOf = (id: string) => id.slice('sha256:'.length);

describe('originals past the import limits at build time', () => {
  it('builds (exit 0) within bounded memory and time', () => {
    expect(run.code, run.stderr).toBe(0);
    // Astro's render is most of it; reading the 2.1 GiB whole would need more than 2 GiB (or fail outright).
    expect(run.maxRssMiB).toBeLessThan(1536);
    expect(run.seconds).toBeLessThan(240);
    console.log(`huge originals build: ${run.seconds.toFixed(1)} s, peak RSS ${run.maxRssMiB.toFixed(0)} MiB`);
  });

  it('verifies both (the import not re-derived past the limit) and counts them', () => {
    for (const plan of [plans.padded, plans.huge]) {
      const entry = report.bundles.find((b) => b.plan_id === plan)!;
      expect(entry.status).toBe('verified');
      expect(entry.counted).toBe(true);
      expect(entry.findings.map((f) => f.code)).toContain('IMPORT_NOT_REPRODUCED');
    }
  });

  it('says on the plan page which limit kept the 2.1 GiB original unread', async () => {
    const text = await page(`plans/${hexOf(plans.huge)}`);
    expect(text).toContain(`the original ${ORIGINAL} is 2.1 GiB, past import_limits.file_bytes (64 KiB): not read for this page`);
    expect(text).not.toContain("The log's metrics for the graded score");
  });

  it('never reads an original just past the limit: no figure of its own, no transcript page', async () => {
    const text = await page(`plans/${hexOf(plans.padded)}`);
    expect(text).toContain(`the original ${ORIGINAL} is 70 KiB, past import_limits.file_bytes (64 KiB): not read for this page`);
    expect(text).not.toContain("The log's metrics for the graded score");
    const bundleHexes = (id: string) => report.bundles.filter((b) => b.plan_id === id).map((b) => hexOf(b.bundle_id!));
    const transcripts = await readdir(join(out, 'transcripts'));
    for (const hex of [...bundleHexes(plans.padded), ...bundleHexes(plans.huge)]) expect(transcripts).not.toContain(hex);
  });

  it('still reads the original within the limit: its figure and its transcripts', async () => {
    const text = await page(`plans/${hexOf(plans.asImported)}`);
    expect(text).toContain("The log's metrics for the graded score");
    expect(text).not.toContain('not read for this page');
    const hex = hexOf(report.bundles.find((b) => b.plan_id === plans.asImported)!.bundle_id!);
    expect(await readdir(join(out, 'transcripts', hex))).toHaveLength(3);
  });
});
