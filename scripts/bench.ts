/**
 * ledgerboard benchmark (docs/benchmarks.md): generates valid evidence
 * bundles at scale, checks they verify, then measures
 *   (a) end-to-end verify time per size, attempts/s and MB/s,
 *   (b) the floor: `openssl dgst -sha256` over the same files,
 *   (c) the strict JSONL parser against JSON.parse,
 *   (d) hashHandle against openssl on a big file, with the peak RSS of hashing,
 *   (e) the CLI over the demo bundles, when content/bundles exists,
 *   (h) scale: verify + analysis (the `report` pipeline) over 10^4 to 10^6
 *       attempts split across 10 bundles, with the peak RSS of a child process.
 *
 *   npx tsx scripts/bench.ts [--quick] [--sizes 1e4,1e5] [--hash-gib 1] [--runs 5]
 *                            [--keep DIR] [--json] [--seed N] [--demo PATH | --no-demo]
 *                            [--scale 1e4,1e5,1e6 | --no-scale] [--scale-runs N]
 *                            [--scale-bundles N] [--only-scale]
 *
 * Exit 1 when a generated bundle does not verify or digests disagree; a ratio
 * above its target is printed as "ABOVE TARGET" but is not a failure (the
 * machine may be shared). Exit 2 on a usage error.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateBundle, type GeneratedBundle } from './bench/generate.ts';
import { machineFacts } from './bench/machine.ts';
import { formatReport, ms, type BenchResults } from './bench/report.ts';
import { benchScale } from './bench/scale.ts';
import { benchDemo, benchHashing, benchParser, benchVerify } from './bench/suites.ts';

const USAGE = `Usage: npx tsx scripts/bench.ts [options]

  --quick          sizes 1e3,1e4, a 0.25 GiB hashing file, scale 1e4 only
  --sizes LIST     attempts per generated bundle, comma-separated (default 1e4,1e5)
  --hash-gib N     size of the hashing file in GiB (default 1; 0 skips it)
  --runs N         timed runs per measurement, after one warm-up (default 5)
  --keep DIR       generate under DIR and keep the files (default: a temp dir, removed)
  --seed N         PRNG seed of the synthetic evidence (default 20261129)
  --demo PATH      demo bundles to time the CLI on (default content/bundles, if present)
  --no-demo        do not time the demo
  --scale LIST     (h) total attempts per scale run, comma-separated (default 1e4,1e5,1e6)
  --no-scale       skip (h)
  --only-scale     run (h) alone (skip a-e)
  --scale-runs N   timed child runs per scale size after a check run
                   (default: --runs below 1e6 attempts, at most 3 from 1e6)
  --scale-bundles N  bundles the scale evidence is split across (default 10)
  --json           print the results as JSON on stdout (the table goes to stderr)
  --help           this text`;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

class UsageError extends Error {}

interface Options {
  sizes: number[];
  hashGiB: number;
  runs: number;
  keep: string | null;
  seed: number;
  demo: string | null;
  json: boolean;
  scale: number[];
  scaleRuns: number | null;
  scaleBundles: number;
  onlyScale: boolean;
}

function positiveInteger(text: string, what: string): number {
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      sizes: { type: 'string' },
      'hash-gib': { type: 'string' },
      runs: { type: 'string' },
      keep: { type: 'string' },
      seed: { type: 'string' },
      demo: { type: 'string' },
      'no-demo': { type: 'boolean' },
      scale: { type: 'string' },
      'no-scale': { type: 'boolean' },
      'only-scale': { type: 'boolean' },
      'scale-runs': { type: 'string' },
      'scale-bundles': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return null;
  const quick = values.quick === true;
  const sizes = (values.sizes ?? (quick ? '1e3,1e4' : '1e4,1e5')).split(',').map((s) => positiveInteger(s, '--sizes'));
  const hashGiB = Number(values['hash-gib'] ?? (quick ? '0.25' : '1'));
  if (!Number.isFinite(hashGiB) || hashGiB < 0 || hashGiB > 64) throw new UsageError('--hash-gib must be a number from 0 to 64');
  if (values.demo !== undefined && values['no-demo']) throw new UsageError('--demo and --no-demo contradict each other');
  const seed = values.seed === undefined ? 20261129 : Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError('--seed must be an integer');
  if (values.scale !== undefined && values['no-scale']) throw new UsageError('--scale and --no-scale contradict each other');
  if (values['only-scale'] && values['no-scale']) throw new UsageError('--only-scale and --no-scale contradict each other');
  const scale = values['no-scale']
    ? []
    : (values.scale ?? (quick ? '1e4' : '1e4,1e5,1e6')).split(',').map((s) => positiveInteger(s, '--scale'));
  return {
    sizes,
    hashGiB,
    runs: values.runs === undefined ? 5 : positiveInteger(values.runs, '--runs'),
    keep: values.keep ?? null,
    seed,
    demo: values['no-demo'] ? null : (values.demo ?? join('content', 'bundles')),
    json: values.json === true,
    scale,
    scaleRuns: values['scale-runs'] === undefined ? null : positiveInteger(values['scale-runs'], '--scale-runs'),
    scaleBundles: values['scale-bundles'] === undefined ? 10 : positiveInteger(values['scale-bundles'], '--scale-bundles'),
    onlyScale: values['only-scale'] === true,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main(): Promise<number> {
  let options: Options | null;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError) && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') !== true) throw error;
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const parent = options.keep === null ? tmpdir() : resolve(options.keep);
  await mkdir(parent, { recursive: true });
  const work = await mkdtemp(join(parent, 'ledgerboard-bench-'));
  const cleanUp = (): void => {
    if (options.keep === null) rmSync(work, { recursive: true, force: true });
  };
  const onSignal = (): void => {
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: BenchResults = {
    machine: await machineFacts(),
    options: {
      sizes: options.onlyScale ? [] : options.sizes,
      runs: options.runs,
      hashGiB: options.onlyScale ? 0 : options.hashGiB,
      seed: options.seed,
      scale: options.scale,
      scaleBundles: options.scaleBundles,
      onlyScale: options.onlyScale,
    },
    verify: [],
    parser: [],
    hashing: null,
    demo: null,
    scale: [],
    failures: [],
  };
  log(`working in ${work}${options.keep === null ? ' (removed at the end)' : ' (kept)'}`);
  try {
    for (const size of options.onlyScale ? [] : options.sizes) {
      log(`generating a bundle with ${size} attempts`);
      const start = performance.now();
      const bundle: GeneratedBundle = await generateBundle(join(work, `bundle-${size}`), size, options.seed);
      log(`  ${bundle.files} files, ${(bundle.bytes / 1e6).toFixed(1)} MB in ${ms(performance.now() - start)} ms; bundle_id ${bundle.bundleId}`);
      log(`timing verify vs openssl on ${size} attempts`);
      const verified = await benchVerify(bundle, options.runs, log, results.failures);
      results.verify.push(verified);
      log(`  verify median ${ms(verified.verify.median)} ms, openssl ${ms(verified.openssl.median)} ms (${verified.status})`);
      log(`timing the parser on ${size} lines`);
      const parsed = await benchParser(bundle, options.runs, log, results.failures);
      results.parser.push(parsed);
      log(`  strict ${ms(parsed.strict.median)} ms, JSON.parse ${ms(parsed.jsonParse.median)} ms`);
      if (options.keep === null) await rm(bundle.dir, { recursive: true, force: true });
    }
    if (options.hashGiB > 0 && !options.onlyScale) {
      log(`writing and hashing a ${options.hashGiB} GiB file`);
      results.hashing = await benchHashing(root, work, options.hashGiB, options.runs, options.seed, log, results.failures);
      if (options.keep === null) await rm(join(work, 'big-artifact.bin'), { force: true });
    }
    if (options.demo !== null && !options.onlyScale) {
      log(`timing \`node bin/ledgerboard.mjs verify ${options.demo}\``);
      results.demo = await benchDemo(root, options.demo, options.runs, log);
      if (results.demo === null) log(`  ${options.demo} does not exist: skipped`);
    }
    if (options.scale.length > 0) {
      const scaleRuns = options.scaleRuns;
      const runs = (requested: number): number => scaleRuns ?? (requested >= 1e6 ? Math.min(3, options.runs) : options.runs);
      results.scale = await benchScale(
        root,
        work,
        options.scale,
        { runs, bundles: options.scaleBundles, seed: options.seed, keep: options.keep !== null },
        log,
        results.failures,
      );
    }
  } finally {
    cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const report = formatReport(results);
  if (options.json) {
    process.stderr.write(report);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    process.stdout.write(report);
  }
  return results.failures.length === 0 ? 0 : 1;
}

process.exitCode = await main();
