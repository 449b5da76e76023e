/**
 * Imports the real Inspect AI logs of content/imported/logs/ into
 * content/imported/bundles/<slug>-<hex12>/, exactly as
 *
 *   ledgerboard import inspect content/imported/logs/*.eval content/imported/logs/*.json \
 *     -o content/imported/bundles --license MIT
 *
 * would (the logs and their tasks are MIT-licensed: content/imported/SOURCES.md).
 * Except log_formats.json (LEFT_OUT_OF_DEMO: the same run as log_formats.eval).
 * Deterministic: running it twice gives the same bytes (test/import/demo.test.ts
 * compares the committed bundles with a fresh import). It removes and rewrites
 * only bundles/ under the output directory. The log without samples fails to
 * import, as it must; every other log must import and verify.
 *
 * Usage: npx tsx scripts/import-demo.ts [--out DIR]   (default: the repo's content/imported/)
 */
import { realpathSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ImportError } from '../src/import/errors.ts';
import { importLogFile } from '../src/import/import-log.ts';
import { shortDigest } from '../src/json/canonical.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The committed logs. */
export const LOGS_DIR = join(HERE, '..', 'content', 'imported', 'logs');
/** The license every imported task carries. */
export const DEMO_LICENSE = 'MIT';
/** Logs that must fail, and the start of the reason they must fail with. */
export const EXPECTED_FAILURES: Record<string, string> = {
  '2025-05-12T20-28-13-04-00_no-samples.json': 'the log holds no samples',
};

/**
 * Logs imported by the tests but left out of the demo bundles, with why.
 * log_formats.json is the same run as log_formats.eval (the format parity
 * pair): both import to the same board, so the demo site would pool one run
 * twice. test/import/real-logs.test.ts still imports and compares both.
 */
export const LEFT_OUT_OF_DEMO: Record<string, string> = {
  'log_formats.json': 'the same run as log_formats.eval (the parity pair); both on the demo board would count that run twice',
};

/** The log files, sorted by name (byte order). */
export async function demoLogs(): Promise<string[]> {
  return (await readdir(LOGS_DIR)).filter((f) => /\.(eval|json)$/.test(f)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Imports every log into <outDir>/bundles (replaced); returns one line per log. Throws on any unexpected result. */
export async function importDemo(outDir: string): Promise<string[]> {
  const bundles = join(outDir, 'bundles');
  await rm(bundles, { recursive: true, force: true });
  const lines: string[] = [];
  for (const file of await demoLogs()) {
    if (LEFT_OUT_OF_DEMO[file] !== undefined) {
      lines.push(`${file}: left out of the demo: ${LEFT_OUT_OF_DEMO[file]}`);
      continue;
    }
    const expectedFailure = EXPECTED_FAILURES[file];
    try {
      const r = await importLogFile(join(LOGS_DIR, file), bundles, { license: DEMO_LICENSE, passThreshold: 1, scorer: null });
      if (expectedFailure !== undefined) throw new Error(`${file} imported although it must fail (${expectedFailure})`);
      if (r.status !== 'verified') throw new Error(`${file}: the imported bundle is ${r.status}`);
      lines.push(`${file}: bundle ${shortDigest(r.bundleId)}, ${r.summary.attempts} attempts, ${r.status} -> ${r.dir.slice(outDir.length + 1)}`);
    } catch (error) {
      if (!(error instanceof ImportError) || expectedFailure === undefined || !error.message.startsWith(expectedFailure)) throw error;
      lines.push(`${file}: not imported, as expected: ${error.message}`);
    }
  }
  return lines;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = resolve(values.out ?? join(HERE, '..', 'content', 'imported'));
  for (const line of await importDemo(out)) console.log(line);
}
