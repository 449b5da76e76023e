/**
 * The bundle's totals over its attempts (issue 10, item 3): the report sums
 * wall seconds, tokens, retries and cost per cohort, so a bundle whose own
 * totals a double cannot hold exactly (an integer sum over 2^53 - 1, a wall
 * time sum that overflows to Infinity) would put an unsafe or non-finite
 * number into report.json. Such a bundle is not judged: LIMIT_EXCEEDED
 * (no_verdict) on it alone, naming the total; every other bundle is counted
 * as usual. Each value alone is already within its schema (a safe integer,
 * a finite number).
 */
import { COST_STATE_CODES } from '../bundle/tables.ts';
import { addFinding, type VerifyContext } from './context.ts';

const FILE = 'attempts.jsonl';
const COMPLETE = COST_STATE_CODES.indexOf('complete');
const PARTIAL = COST_STATE_CODES.indexOf('partial');

/** The totals of one bundle's attempts, as the report names them. */
export type TotalName = 'tokens.input' | 'tokens.output' | 'tokens.total' | 'retries' | 'cost.micros' | 'wall_seconds.sum';

/**
 * LIMIT_EXCEEDED for every total of the bundle's attempts that is not
 * exactly representable: the integer sums (tokens input, output and their
 * total; retries; complete and partial cost micros, as the report sums cost)
 * over 2^53 - 1, and the wall time sum when it is not finite. Skipped
 * without attempts.
 */
export function checkTotals(ctx: VerifyContext): void {
  const table = ctx.attempts;
  if (!table) return;
  const n = table.count;
  // Every value is a safe integer >= 0, so a number sum is exact while it stays <= 2^53 - 1, and once over it
  // stays over (rounding is monotone): comparing the number sum with 2^53 - 1 decides exactly.
  let input = 0;
  let output = 0;
  let retries = 0;
  let micros = 0;
  let wall = 0;
  for (let row = 0; row < n; row++) {
    const i = table.tokensInput[row]!;
    if (i === i) {
      input += i;
      output += table.tokensOutput[row]!;
    }
    retries += table.retries[row]!;
    const state = table.costState[row]!;
    const m = table.costMicros[row]!;
    if ((state === COMPLETE || state === PARTIAL) && m === m) micros += m;
    wall += table.wallSeconds[row]!;
  }
  const exact = (name: TotalName, column: (row: number) => bigint) => {
    // Only for a message: the exact sum, as a bigint.
    let sum = 0n;
    for (let row = 0; row < n; row++) sum += column(row);
    addFinding(
      ctx,
      'LIMIT_EXCEEDED',
      FILE,
      `the attempts' total ${name} is ${sum}, over 2^53 - 1 (${Number.MAX_SAFE_INTEGER}), the largest integer a report holds exactly: the bundle is not judged and not counted`,
    );
  };
  // A NaN (unknown tokens, null micros) adds nothing.
  const big = (v: number) => (v === v ? BigInt(v) : 0n);
  const max = Number.MAX_SAFE_INTEGER;
  if (input > max) exact('tokens.input', (row) => big(table.tokensInput[row]!));
  if (output > max) exact('tokens.output', (row) => big(table.tokensOutput[row]!));
  if (input <= max && output <= max && input + output > max) {
    exact('tokens.total', (row) => big(table.tokensInput[row]!) + big(table.tokensOutput[row]!));
  }
  if (retries > max) exact('retries', (row) => BigInt(table.retries[row]!));
  if (micros > max) {
    exact('cost.micros', (row) => {
      const state = table.costState[row]!;
      return state === COMPLETE || state === PARTIAL ? big(table.costMicros[row]!) : 0n;
    });
  }
  if (!Number.isFinite(wall)) {
    addFinding(
      ctx,
      'LIMIT_EXCEEDED',
      FILE,
      `the attempts' total wall_seconds.sum overflows (over ${Number.MAX_VALUE}, not a finite number): the bundle is not judged and not counted`,
    );
  }
}
