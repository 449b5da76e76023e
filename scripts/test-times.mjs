// The slowest test files of a run, as a Markdown table for docs/benchmarks.md:
//
//   npx vitest run --reporter=dot --reporter=./scripts/module-times-reporter.mjs
//   node scripts/test-times.mjs test-module-times.json [N]
//   node scripts/test-times.mjs test-module-times.json --durations test/durations.json
//
// Reads what scripts/module-times-reporter.mjs wrote: for each file its
// set-up, its import (collect) and its tests *with their hooks* (a site built
// in beforeAll counts). Prints the N slowest files (default 25) by that total,
// then the totals and how many files ran at once on average (the sum of the
// files' times over the wall time). With --durations FILE it writes each
// file's total instead, the list test/sequencer.ts starts the longest files
// from (an explicit command: no test or CI run writes it).
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const at = args.indexOf('--durations');
const durationsOut = at === -1 ? undefined : args.splice(at, 2)[1];
const [file, count = '25'] = args;
if (file === undefined || (at !== -1 && durationsOut === undefined)) {
  process.stderr.write('usage: node scripts/test-times.mjs <test-module-times.json> [N | --durations FILE]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
if (!Array.isArray(report.files)) {
  process.stderr.write(`${file}: not written by scripts/module-times-reporter.mjs (no "files")\n`);
  process.exit(2);
}
const files = report.files
  .map((f) => ({ ...f, total: f.setup_s + f.collect_s + f.run_s }))
  .sort((a, b) => b.total - a.total || (a.file < b.file ? -1 : 1));
if (durationsOut !== undefined) {
  const byName = Object.fromEntries([...files].sort((a, b) => (a.file < b.file ? -1 : 1)).map((f) => [f.file, Math.round(f.total * 10) / 10]));
  const note = 'Seconds per test file, hooks included, from one full run (scripts/module-times-reporter.mjs); test/sequencer.ts starts the longest first. Rewrite with: node scripts/test-times.mjs <run> --durations test/durations.json';
  writeFileSync(durationsOut, JSON.stringify({ note, wall_s: report.wall_s, files: byName }, null, 1) + '\n');
  process.stdout.write(`${durationsOut}: ${files.length} files\n`);
  process.exit(0);
}
const sum = (key) => files.reduce((s, f) => s + f[key], 0);
const total = sum('total');
const lines = ['| file | total s | import s | tests and hooks s | tests | share |', '|---|---:|---:|---:|---:|---:|'];
for (const f of files.slice(0, Number(count))) {
  lines.push(`| \`${f.file}\` | ${f.total.toFixed(1)} | ${f.collect_s.toFixed(1)} | ${f.run_s.toFixed(1)} | ${f.tests} | ${((100 * f.total) / total).toFixed(1)}% |`);
}
const tests = files.reduce((s, f) => s + f.tests, 0);
lines.push(
  '',
  `${files.length} files, ${tests} tests. The files' times sum to ${total.toFixed(0)} s ` +
    `(set-up ${sum('setup_s').toFixed(0)} s, import ${sum('collect_s').toFixed(0)} s, tests and hooks ${sum('run_s').toFixed(0)} s); ` +
    `the run took ${report.wall_s.toFixed(0)} s of wall time, ${(total / report.wall_s).toFixed(2)} files at once on average.`,
);
process.stdout.write(lines.join('\n') + '\n');
