/** One line of ledger.jsonl (FORMAT.md section 4). */
import { z } from 'zod';
import { Digest, Name, Timestamp } from './common.ts';

/** A task of the ledger. Repository facts are nullable (a question-answer task has none). */
export const LedgerRecord = z.strictObject({
  task_id: Name,
  repo: z.string().nullable(),
  base_sha: z.string().nullable(),
  prompt_sha256: Digest,
  failing_tests: z.array(z.string()).nullable(),
  failing_assertion: z.string().nullable(),
  oracle_sha256: Digest.nullable(),
  license: z.string(),
  difficulty: z.string().nullable(),
  holdout: z.boolean(),
  cluster_id: Name,
  created_at: Timestamp,
});
export type LedgerRecord = z.infer<typeof LedgerRecord>;
