/**
 * The demo's freeze log (content/history/freeze-log.jsonl; issue 30): the
 * append-only log `freeze` keeps, one RFC 8785 object a line, `\n` after
 * each:
 *
 *   {"anchor_digest":null|"sha256:<hex of the .tsr bytes>","created_at":...,
 *    "ledger_digest":...,"plan_id":...,"schema":"ledgerboard.freeze-log.v1","title":...}
 *
 * Lines are in the order they were appended: a line per plan at its freeze
 * (created_at; with the digest of the token got at freeze, if any), and a
 * line more when a token is got later (`freeze --anchor-only`, at its
 * genTime). The published plans and those frozen and never published
 * (plans.ts UNPUBLISHED_PLANS) are in it alike.
 */
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import type { Plan } from '../../src/schema/index.ts';
import type { DemoAnchor } from './anchors.ts';
import { toDeci } from './time.ts';

/** The freeze log line's schema name. */
export const FREEZE_LOG_SCHEMA = 'ledgerboard.freeze-log.v1';

/** One line of the log: RFC 8785 text and its newline. */
export function freezeLogLine(plan: Plan, anchorDigest: string | null): string {
  return `${canonicalJson({
    anchor_digest: anchorDigest,
    created_at: plan.created_at,
    ledger_digest: plan.ledger.digest,
    plan_id: plan.plan_id,
    schema: FREEZE_LOG_SCHEMA,
    title: plan.title,
  })}\n`;
}

/** A published plan and the tokens its bundle holds. */
export interface LoggedPlan {
  readonly plan: Plan;
  readonly anchors: readonly DemoAnchor[];
}

/** The log's bytes: every plan's freeze, and each token got later, in time order (a freeze before a later token at the same second). */
export function freezeLogBytes(published: readonly LoggedPlan[], unpublished: readonly Plan[]): Buffer {
  const events: { at: number; order: number; line: string }[] = [];
  for (const { plan, anchors } of [...published, ...unpublished.map((plan) => ({ plan, anchors: [] }))]) {
    const atFreeze = anchors.filter((a) => a.spec.obtained === 'at_freeze');
    if (atFreeze.length > 1) throw new Error(`demo bug: ${plan.title} has ${atFreeze.length} tokens got at freeze; freeze --anchor asks one authority`);
    events.push({ at: toDeci(plan.created_at), order: 0, line: freezeLogLine(plan, atFreeze[0] === undefined ? null : digestBytes(atFreeze[0].bytes)) });
    for (const a of anchors) if (a.spec.obtained === 'later') events.push({ at: toDeci(a.spec.genTime), order: 1, line: freezeLogLine(plan, digestBytes(a.bytes)) });
  }
  events.sort((a, b) => a.at - b.at || a.order - b.order || (a.line < b.line ? -1 : a.line > b.line ? 1 : 0));
  return Buffer.from(events.map((e) => e.line).join(''), 'utf8');
}
