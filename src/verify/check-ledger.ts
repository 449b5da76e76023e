/** Steps over ledger.jsonl (FORMAT.md section 4). */
import { LedgerRecord } from '../schema/index.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import { contentOf, isImported, addFinding, type VerifyContext } from './context.ts';
import { parseJsonlFile } from './parse-evidence.ts';
import { digestBytes } from '../json/canonical.ts';

/** ledger.jsonl: the plan's pin (digest, line count), unique task ids, labels before the freeze, licenses. */
export function checkLedger(ctx: VerifyContext): void {
  const bytes = contentOf(ctx, 'ledger.jsonl');
  if (bytes === undefined) return;
  const plan = ctx.plan;
  if (plan) {
    const digest = digestBytes(bytes);
    if (digest !== plan.ledger.digest) {
      addFinding(ctx, 'LEDGER_DIGEST_MISMATCH', 'ledger.jsonl', `ledger.jsonl hashes to ${digest}; the plan pins ${plan.ledger.digest}`);
    }
  }
  const { lines, complete, lineCount } = parseJsonlFile(ctx, 'ledger.jsonl', bytes, LedgerRecord);
  if (plan && lineCount !== plan.ledger.tasks) {
    addFinding(ctx, 'LEDGER_TASK_COUNT', 'ledger.jsonl', `ledger.jsonl has ${lineCount} lines; the plan declares ${plan.ledger.tasks} tasks`);
  }
  const firstLine = new Map<string, number>();
  const checkFreeze = plan !== undefined && !isImported(plan);
  for (const { line, data } of lines) {
    const seen = firstLine.get(data.task_id);
    if (seen !== undefined) {
      addFinding(ctx, 'DUPLICATE_TASK', 'ledger.jsonl', `line ${line}: task ${JSON.stringify(data.task_id)} is already on line ${seen}`, line);
    } else {
      firstLine.set(data.task_id, line);
    }
    if (checkFreeze && compareTimestamps(data.created_at, plan.created_at) > 0) {
      addFinding(
        ctx,
        'LABELLED_AFTER_FREEZE',
        'ledger.jsonl',
        `line ${line}: task ${JSON.stringify(data.task_id)} was created at ${data.created_at}, after the plan was frozen at ${plan.created_at}`,
        line,
      );
    }
    if (data.license.trim() === '') {
      addFinding(ctx, 'MISSING_LICENSE', 'ledger.jsonl', `line ${line}: task ${JSON.stringify(data.task_id)} has no license`, line);
    }
  }
  ctx.ledger = lines.map((l) => l.data);
  ctx.ledgerComplete = complete;
}
