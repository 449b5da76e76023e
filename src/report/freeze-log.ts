/**
 * The report's `freeze_log` member (ReportFreezeLog, issue 30) from the log
 * as read and checked (src/history/freeze-log.ts): each plan once, with its
 * first line's created_at, title and ledger, the anchor digest of its latest
 * line that has one, and whether a bundle of the report holds it. Pure.
 */
import type { FreezeLogLine } from '../schema/freeze-log.ts';
import { compareValidTimestamps } from '../schema/timestamp.ts';
import type { Finding } from '../verify/findings.ts';
import type { Report, ReportFreezeLog as ReportFreezeLogSchema } from './schema.ts';
import type { z } from 'zod';

type ReportFreezeLog = z.infer<typeof ReportFreezeLogSchema>;

/** The freeze log as the report takes it: the digest of its bytes, its line count, the lines that parse (in order) and its findings. */
export interface FreezeLogInput {
  digest: string;
  lines: number;
  entries: readonly FreezeLogLine[];
  findings: readonly Finding[];
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The report's freeze_log: null without a log; otherwise each plan once, sorted by created_at then plan id. */
export function reportFreezeLog(log: FreezeLogInput | null, bundles: Report['bundles']): ReportFreezeLog | null {
  if (log === null) return null;
  const published = new Set(bundles.flatMap((b) => (b.plan_id === null ? [] : [b.plan_id])));
  const plans = new Map<string, ReportFreezeLog['plans'][number]>();
  for (const line of log.entries) {
    const known = plans.get(line.plan_id);
    if (known === undefined) {
      plans.set(line.plan_id, {
        plan_id: line.plan_id,
        created_at: line.created_at,
        ledger_digest: line.ledger_digest,
        title: line.title,
        anchor_digest: line.anchor_digest,
        published: published.has(line.plan_id),
      });
    } else if (line.anchor_digest !== null) known.anchor_digest = line.anchor_digest;
  }
  return {
    digest: log.digest,
    lines: log.lines,
    plans: [...plans.values()].sort((a, b) => compareValidTimestamps(a.created_at, b.created_at) || byString(a.created_at, b.created_at) || byString(a.plan_id, b.plan_id)),
    findings: log.findings.map((f) => ({ ...f })),
  };
}
