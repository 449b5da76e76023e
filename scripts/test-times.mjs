// The slowest test files of a run, as a Markdown table for docs/benchmarks.md:
//
//   npx vitest run --reporter=default --reporter=json --outputFile=test-times.json
//   node scripts/test-times.mjs test-times.json [N]
//
// Reads vitest's JSON report (each file's start and end), prints the N
// slowest files (default 25) with their seconds, tests and share of the
// summed file time, then the totals. A documentation tool: no test runs it.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, count = '25'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node scripts/test-times.mjs <vitest-json-report> [N]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const files = report.testResults
  .map((r) => ({ name: relative(process.cwd(), r.name), seconds: (r.endTime - r.startTime) / 1000, tests: r.assertionResults.length }))
  .sort((a, b) => b.seconds - a.seconds || (a.name < b.name ? -1 : 1));
const sum = files.reduce((s, f) => s + f.seconds, 0);
const lines = ['| file | seconds | tests | share |', '|---|---:|---:|---:|'];
for (const f of files.slice(0, Number(count))) lines.push(`| \`${f.name}\` | ${f.seconds.toFixed(1)} | ${f.tests} | ${((100 * f.seconds) / sum).toFixed(1)}% |`);
const wall = (Math.max(...report.testResults.map((r) => r.endTime)) - report.startTime) / 1000;
lines.push('', `${files.length} files, ${report.numTotalTests} tests; the files' own times sum to ${sum.toFixed(0)} s; the run took ${wall.toFixed(0)} s of wall time.`);
process.stdout.write(lines.join('\n') + '\n');
