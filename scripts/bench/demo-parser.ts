/**
 * The strict JSONL parser against JSON.parse on the demo's own JSONL files
 * (every attempts.jsonl and ledger.jsonl under content/bundles), the figure
 * issue 2 asks for: `npx tsx scripts/bench/demo-parser.ts [--rounds 41]`.
 * Each round parses all files once with each parser, interleaved; prints the
 * median per round and the ratio.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import fg from 'fast-glob';
import { parseStrictJsonl } from '../../src/json/jsonl.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '41' } } });
const rounds = Number(values.rounds);
const files = (await fg(['content/bundles/**/attempts.jsonl', 'content/bundles/**/ledger.jsonl'])).sort();
const blobs = await Promise.all(files.map((f) => readFile(f)));
const bytes = blobs.reduce((n, b) => n + b.length, 0);
const decoder = new TextDecoder('utf-8', { fatal: true });

function strict(): number {
  let n = 0;
  for (const blob of blobs) n += parseStrictJsonl(blob).length;
  return n;
}
function baseline(): number {
  let n = 0;
  for (const blob of blobs) for (const line of decoder.decode(blob).split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
  return n;
}
if (strict() !== baseline()) throw new Error('the parsers disagree on the line count');
const times = { strict: [] as number[], baseline: [] as number[] };
for (let r = 0; r < rounds + 5; r++) {
  for (const [name, fn] of [['strict', strict], ['baseline', baseline]] as const) {
    const start = performance.now();
    for (let k = 0; k < 10; k++) fn();
    if (r >= 5) times[name].push((performance.now() - start) / 10);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const s = median(times.strict);
const b = median(times.baseline);
console.log(`${files.length} files, ${(bytes / 1e6).toFixed(2)} MB, ${strict()} lines; median of ${rounds} rounds`);
console.log(`parseStrictJsonl ${s.toFixed(2)} ms, decode+split+JSON.parse ${b.toFixed(2)} ms, ratio ${(s / b).toFixed(2)}x (target 3x)`);
