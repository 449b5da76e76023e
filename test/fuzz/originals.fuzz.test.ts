/**
 * Fuzzing the originals of imported bundles (issue 25): a seeded generator of
 * hostile kept originals (the demo Inspect import's `source/` log replaced,
 * its plan's origin.source and manifest re-derived) run through verification
 * (the import re-derived under the import limits) and through everything the
 * site model reads of originals (the plan page's own figure, the transcript
 * index, then every transcript page's text). The originals are:
 * sparse files past import_limits.file_bytes (never written), JSON nested
 * thousands deep, duplicate members, numbers past 2^53 and past a double,
 * invalid UTF-8, cut logs, a symbolic link (to /dev/zero, to a file outside)
 * and a FIFO in place of the original.
 *
 * For every case: nothing throws past the bundle (verification gives a
 * result, the model is built, every transcript page reads), no original past
 * a limit is read (every blob the model asks for of a source/ file is within
 * file_bytes), and the case takes bounded time. Fixed seed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { manifestBytesOf, prettyJson, withSelfId } from '../../src/evidence/seal.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import { importLimitsOf } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf, type Published } from '../../src/site/build/publish.ts';
import { siteTasks } from '../../src/site/model/tasks.ts';
import { attemptIndexOf, evidenceOf } from '../../src/facts/attempt-index.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { bundleFiles, DEMO_INSPECT } from '../helpers/imported-bundle.ts';

const SEED = 20_261_207;
const ORIGINAL = 'source/inspect-log.json';
const LIMIT = 64 * 1024;
const config = Config.parse({ import_limits: { file_bytes: LIMIT } });
const limits = importLimitsOf(config);

afterAll(removeTempDirs);

/** One hostile original: its bytes (or a sparse size, or a link or FIFO in its place) and a name for messages. */
type Original =
  | { kind: 'bytes'; name: string; bytes: Uint8Array }
  | { kind: 'sparse'; name: string; size: number }
  | { kind: 'link'; name: string; target: string }
  | { kind: 'fifo'; name: string };

function zerosDigest(size: number): string {
  const hash = createHash('sha256');
  const mib = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= mib.length) hash.update(left >= mib.length ? mib : mib.subarray(0, left));
  return `sha256:${hash.digest('hex')}`;
}

const LOG = await readFile(join(DEMO_INSPECT, ORIGINAL));
const LOG_TEXT = LOG.toString('utf8');

/** The generator: each draw is one hostile original. */
function originals(): fc.Arbitrary<Original> {
  const text = (name: string, make: fc.Arbitrary<string>) => make.map((t): Original => ({ kind: 'bytes', name, bytes: Buffer.from(t, 'utf8') }));
  return fc.oneof(
    // Past the limit, never written: one byte past it up to 8 MiB.
    fc.integer({ min: LIMIT + 1, max: 8 * 1024 * 1024 }).map((size): Original => ({ kind: 'sparse', name: `sparse ${size}`, size })),
    // Deep nesting: arrays or objects, within the byte limit or past it.
    fc.tuple(fc.integer({ min: 65, max: 40_000 }), fc.boolean()).map(([depth, objects]) =>
      ({ kind: 'bytes', name: `nesting ${depth}`, bytes: Buffer.from(objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`) }) as Original,
    ),
    // Duplicate members at the top and deep in the results.
    text('duplicate version', fc.constant(LOG_TEXT.replace('{', '{"version": 1, '))),
    text('duplicate metric', fc.constant(LOG_TEXT.replace('"accuracy"', '"accuracy": {"name": "x", "value": 1}, "accuracy"'))),
    // Numbers past 2^53 and past a double wherever a number is.
    fc.constantFrom('9007199254740993', '1e400', '-1e400', '123456789012345678901234567890', '1e-400').map((n): Original => ({ kind: 'bytes', name: `number ${n}`, bytes: Buffer.from(LOG_TEXT.replace(/(?<=[:[,]\s*)-?\d+(\.\d+)?(?=[,}\]\s])/g, n), 'utf8') })),
    // Invalid UTF-8 spliced into the log at a random offset.
    fc.tuple(fc.nat({ max: LOG.length - 1 }), fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])).map(
      ([at, bad]): Original => ({ kind: 'bytes', name: `invalid UTF-8 at ${at}`, bytes: Buffer.concat([LOG.subarray(0, at), Buffer.from(bad), LOG.subarray(at)]) }),
    ),
    // The log cut short.
    fc.nat({ max: LOG.length - 1 }).map((at): Original => ({ kind: 'bytes', name: `cut at ${at}`, bytes: LOG.subarray(0, at) })),
    // Not a file: a link out of the bundle, a FIFO.
    fc.constantFrom('/dev/zero', '/etc/passwd', '../plan.json').map((target): Original => ({ kind: 'link', name: `link to ${target}`, target })),
    fc.constant<Original>({ kind: 'fifo', name: 'FIFO' }),
  );
}

/** Writes the demo import with `original` as its kept original; returns the bundle directory. */
async function writeCase(original: Original): Promise<string> {
  const dir = join(await makeTempDir('ledgerboard-originals-fuzz-'), 'bundle');
  const files = await bundleFiles(DEMO_INSPECT);
  files.delete(ORIGINAL);
  const listed =
    original.kind === 'bytes' ? { sha256: digestBytes(original.bytes), bytes: original.bytes.length } : original.kind === 'sparse' ? { sha256: zerosDigest(original.size), bytes: original.size } : { sha256: digestBytes(LOG), bytes: LOG.length };
  const plan = JSON.parse(Buffer.from(files.get('plan.json')!).toString('utf8')) as { origin: { source: string } };
  plan.origin.source = listed.sha256;
  const sealed = withSelfId(plan as unknown as Record<string, unknown>, 'plan_id');
  files.set('plan.json', prettyJson(sealed));
  for (const [path, bytes] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), bytes);
  }
  const at = join(dir, ORIGINAL);
  await mkdir(dirname(at), { recursive: true });
  if (original.kind === 'bytes') await writeFile(at, original.bytes);
  else if (original.kind === 'sparse') {
    await writeFile(at, '');
    await truncate(at, original.size);
  } else if (original.kind === 'link') await symlink(original.target, at);
  else execFileSync('mkfifo', [at]);
  const manifest = [...files].map(([path, bytes]) => ({ path, sha256: digestBytes(bytes), bytes: bytes.length }));
  manifest.push({ path: ORIGINAL, ...listed });
  await writeFile(join(dir, 'manifest.json'), manifestBytesOf(manifest, sealed.plan_id as string));
  return dir;
}

/** Verifies the bundle, builds the site model and reads every transcript page; returns the sizes of the source/ blobs read. */
async function run(dir: string): Promise<number[]> {
  const results = await verifyPaths([dir], undefined, { importLimits: limits, workers: 0 });
  expect(results).toHaveLength(1);
  expect(results[0]!.verification.findings.map((f) => f.code)).not.toContain('INTERNAL_ERROR');
  const report = buildReport(results, config);
  const real = publishedOf(report, results);
  const sizes = new Map(real.bundles.flatMap((b) => b.files.filter((f) => f.path.startsWith('source/')).map((f) => [f.sha256, f.bytes] as const)));
  const read: number[] = [];
  const published: Published = {
    ...real,
    blob: (sha256) => {
      if (sizes.has(sha256)) read.push(sizes.get(sha256)!);
      return real.blob(sha256);
    },
  };
  const tasks = await siteTasks(report, published, attemptIndexOf(report, evidenceOf(results)));
  await modelOf(report, results, published, config, { tasks: tasks.boards, transcripts: tasks.transcripts.pages });
  for (let n = 0; n < tasks.transcripts.pages.length; n++) await tasks.transcripts.detail(n);
  return read;
}

describe('hostile originals of imported bundles', () => {
  it('never throw past the bundle, are never read past a limit, and take bounded time', async () => {
    const cases = fc.sample(originals(), { seed: SEED, numRuns: 24 });
    // Every kind at least once, whatever the draw.
    cases.push({ kind: 'sparse', name: 'sparse just past', size: LIMIT + 1 }, { kind: 'link', name: 'link to /dev/zero', target: '/dev/zero' }, { kind: 'fifo', name: 'FIFO' });
    const started = performance.now();
    for (const original of cases) {
      const dir = await writeCase(original);
      const t = performance.now();
      const read = await run(dir).catch((error: unknown) => {
        throw new Error(`${original.name}: ${error instanceof Error ? error.stack : String(error)}`);
      });
      expect(read.filter((bytes) => bytes > LIMIT), original.name).toEqual([]);
      expect(performance.now() - t, original.name).toBeLessThan(10_000);
    }
    expect(performance.now() - started).toBeLessThan(50_000);
  }, 60_000);
});
