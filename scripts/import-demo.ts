/**
 * Imports the real public logs under content/imported/ into
 * content/imported/bundles/<slug>-<hex12>/, exactly as `ledgerboard import
 * <format> <input> -o content/imported/bundles --license <license> [flags]`
 * would, one table entry per format (DEMO_IMPORTS below; each format's
 * sources, licenses and provenance are in the SOURCES.md beside its inputs).
 * Deterministic: running it twice gives the same bytes (test/import/demo.test.ts
 * compares the committed bundles with a fresh import). It removes and rewrites
 * only bundles/ under the output directory. An input listed as an expected
 * failure must fail with that reason; every other input must import and verify.
 *
 * Usage: npx tsx scripts/import-demo.ts [--out DIR]   (default: the repo's content/imported/)
 */
import { realpathSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareUtf8 } from '../src/json/compare.ts';
import { ImportError } from '../src/import/errors.ts';
import { importPath } from '../src/import/import-input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../src/import/limits.ts';
import { importerNamed } from '../src/import/registry.ts';
import { shortDigest } from '../src/json/canonical.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** content/imported/ of this repository. */
export const IMPORTED_DIR = join(HERE, '..', 'content', 'imported');

/** The demo inputs of one format. */
export interface DemoImport {
  /** The importer (`ledgerboard import <format>`). */
  format: string;
  /** The directory under content/imported/ that holds the inputs. */
  dir: string;
  /** Which entries of `dir` are inputs (the rest: SOURCES.md, LICENSE files). */
  select: (name: string, isDirectory: boolean) => boolean;
  /** The license every imported task carries (--license). */
  license: string;
  /** Format flags, as given on the command line. */
  flags?: Record<string, string | boolean>;
  /** Inputs that must fail, and the start of the reason they must fail with. */
  expectedFailures?: Record<string, string>;
  /** Inputs imported by the tests but left out of the demo bundles, with why. */
  leftOut?: Record<string, string>;
}

export const DEMO_IMPORTS: readonly DemoImport[] = [
  {
    format: 'inspect',
    dir: 'logs',
    select: (name, isDirectory) => !isDirectory && /\.(eval|json)$/.test(name),
    // The logs and their tasks are MIT-licensed: content/imported/SOURCES.md.
    license: 'MIT',
    expectedFailures: { '2025-05-12T20-28-13-04-00_no-samples.json': 'the log holds no samples' },
    // log_formats.json is the same run as log_formats.eval (the format parity pair): both import to the same board, so
    // the demo site would pool one run twice. test/import/real-logs.test.ts still imports and compares both.
    leftOut: { 'log_formats.json': 'the same run as log_formats.eval (the parity pair); both on the demo board would count that run twice' },
  },
  {
    format: 'lm-eval',
    dir: 'lm-eval',
    // Each run directory is one input; the runs and their licenses: content/imported/lm-eval/SOURCES.md (MIT).
    select: (_name, isDirectory) => isDirectory,
    license: 'MIT',
    expectedFailures: { 'mmlu-aggregate-only': 'results_2025-01-21T00-40-03.356274.json has no samples files' },
  },
  {
    format: 'helm',
    dir: 'helm',
    select: (name, isDirectory) => isDirectory,
    // Stanford CRFM HELM's own benchmark output (Apache-2.0): content/imported/helm/SOURCES.md. harm_bench_score is a
    // continuous safety score (1 = the model refused, per both annotators), so a pass needs a threshold.
    license: 'Apache-2.0',
    flags: { metric: 'harm_bench_score', 'pass-threshold': '1' },
  },
  {
    format: 'swe-bench',
    dir: 'swe-bench',
    select: (_name, isDirectory) => isDirectory,
    // MIT (m1o0/swe-bench-lite-37): content/imported/swe-bench/SOURCES.md.
    license: 'MIT',
    expectedFailures: { 'tonight-v2c': 'the directory holds a run report but neither predictions nor per-instance reports' },
  },
  {
    format: 'terminal-bench',
    dir: 'terminal-bench',
    select: (name, isDirectory) => isDirectory,
    // Three real TB1 runs (MIT, declared in the source's package.json) and one synthetic Harbor job: terminal-bench/SOURCES.md.
    license: 'MIT',
  },
  {
    format: 'eee',
    dir: 'eee',
    select: (_name, isDirectory) => isDirectory,
    // The EEE datastore is MIT (content/imported/eee/SOURCES.md); both metrics are continuous accuracies: 1 passes.
    license: 'MIT',
    flags: { 'pass-threshold': '1' },
    expectedFailures: { 'geneval-sdxl-aggregate-only': 'the aggregate holds no instance-level data' },
  },
];

/** The inputs of one demo entry, sorted by name (byte order). */
export async function demoInputs(demo: DemoImport): Promise<string[]> {
  const entries = await readdir(join(IMPORTED_DIR, demo.dir), { withFileTypes: true });
  return entries
    .filter((e) => demo.select(e.name, e.isDirectory()))
    .map((e) => e.name)
    .sort(compareUtf8);
}

/** Imports every demo input into <outDir>/bundles (replaced); returns one line per input. Throws on any unexpected result. */
export async function importDemo(outDir: string): Promise<string[]> {
  const bundles = join(outDir, 'bundles');
  await rm(bundles, { recursive: true, force: true });
  const lines: string[] = [];
  for (const demo of DEMO_IMPORTS) {
    const importer = importerNamed(demo.format);
    if (importer === undefined) throw new Error(`no importer named ${demo.format}`);
    for (const name of await demoInputs(demo)) {
      const label = `${demo.format} ${demo.dir}/${name}`;
      const leftOut = demo.leftOut?.[name];
      if (leftOut !== undefined) {
        lines.push(`${label}: left out of the demo: ${leftOut}`);
        continue;
      }
      const expectedFailure = demo.expectedFailures?.[name];
      try {
        const r = await importPath(importer, join(IMPORTED_DIR, demo.dir, name), bundles, { license: demo.license, flags: demo.flags ?? {}, limits: DEFAULT_IMPORT_LIMITS });
        if (expectedFailure !== undefined) throw new Error(`${label} imported although it must fail (${expectedFailure})`);
        if (r.status !== 'verified') throw new Error(`${label}: the imported bundle is ${r.status}`);
        lines.push(`${label}: bundle ${shortDigest(r.bundleId)}, ${r.summary.attempts} attempts, ${r.status} -> ${r.dir.slice(outDir.length + 1)}`);
      } catch (error) {
        if (!(error instanceof ImportError) || expectedFailure === undefined || !error.message.startsWith(expectedFailure)) throw error;
        lines.push(`${label}: not imported, as expected: ${error.message}`);
      }
    }
  }
  return lines;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = resolve(values.out ?? IMPORTED_DIR);
  for (const line of await importDemo(out)) console.log(line);
}
