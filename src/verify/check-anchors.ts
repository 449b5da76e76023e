/**
 * The bundle's time-stamp anchors (FORMAT.md 12): every manifest-listed
 * `anchors/<name>.tsr` (evidence/paths.ts isAnchorTokenPath; any other file
 * under anchors/ is an ordinary file), in path order, checked by
 * checkAnchorToken over the plan id read from plan.json and the reader's
 * pinned roots:
 * - a token that cannot be read, or whose signature does not check with the
 *   certificate it carries, is ANCHOR_UNREADABLE; one over another plan or
 *   hash is ANCHOR_MISMATCH (file: the token, message: the check's reason);
 * - the bundle's anchor is the earliest genTime of the tokens that check
 *   (anchor/times.ts bundleAnchor), `before_first_attempt` against the
 *   attempts that passed their schema; when it is not, ANCHOR_AFTER_ATTEMPT
 *   (file: the anchoring token), naming both times;
 * - each token that checks with a genTime before plan.created_at is
 *   ANCHOR_BEFORE_CREATED.
 * Silent, never guessed (docs/format-decisions.md "Anchors"): without a plan
 * id read from plan.json no token is checked (the plan's own findings say
 * why) and the anchor is null; without a plan that passed its schema there
 * is no created_at to compare; a token whose bytes were not read (missing,
 * unreadable, over a reader's limit) already has its finding. A
 * NotInBrowserError from the check goes through: the browser's verifier
 * handles it.
 */
import type { BundleAnchor } from '../anchor/times.ts';
import { beforeCreated, bundleAnchor, earliestAnchor } from '../anchor/times.ts';
import { checkAnchorToken, type AnchorCheck } from '../anchor/check.ts';
import { compareUtf8 } from '../json/compare.ts';
import { DIGEST_PATTERN } from '../json/canonical.ts';
import { isAnchorTokenPath, quotePath } from '../evidence/paths.ts';
import { compareTimes } from '../bundle/times.ts';
import { addFinding, contentOf, type VerifyContext } from './context.ts';

/** Checks the listed time-stamp tokens and sets `ctx.anchor` (null when none checks, or none was checked). */
export function checkAnchors(ctx: VerifyContext): void {
  ctx.anchor = null;
  const paths = [...ctx.listed.keys()].filter(isAnchorTokenPath).sort(compareUtf8);
  if (paths.length === 0) return;
  const planId = ctx.planIdRead;
  if (planId === undefined || !DIGEST_PATTERN.test(planId)) return;
  const planHex = planId.slice('sha256:'.length);

  const checked: { path: string; check: AnchorCheck }[] = [];
  for (const path of paths) {
    const bytes = contentOf(ctx, path);
    if (bytes === undefined) continue; // MISSING_FILE, NOT_REGULAR_FILE or LIMIT_EXCEEDED already says why.
    // Untrusted DER: checkAnchorToken parses it bounded and strictly, and never throws for its bytes.
    const check = checkAnchorToken(bytes, planHex, ctx.timestampRoots);
    if (!check.ok) addFinding(ctx, check.code, path, `time-stamp token ${quotePath(path)}: ${check.detail}`);
    checked.push({ path, check });
  }

  // Strictly before every start is strictly before the earliest one.
  const first = firstStart(ctx);
  const anchor: BundleAnchor | null = bundleAnchor(
    checked.map((c) => c.check),
    first === undefined ? [] : [first],
  );
  ctx.anchor = anchor;
  if (anchor !== null && !anchor.before_first_attempt) {
    const best = earliestAnchor(checked.map((c) => c.check))!;
    const path = checked.find((c) => c.check === best)!.path;
    addFinding(
      ctx,
      'ANCHOR_AFTER_ATTEMPT',
      path,
      `the plan is anchored at ${anchor.gen_time} (by ${JSON.stringify(anchor.authority)}), not before the first attempt, which started at ${first}: the anchor shows the plan existed then, not that it was frozen before it ran`,
    );
  }

  const createdAt = ctx.plan?.created_at;
  if (createdAt === undefined) return;
  for (const { path, check } of checked) {
    if (check.ok && beforeCreated(check.genTime, createdAt)) {
      addFinding(ctx, 'ANCHOR_BEFORE_CREATED', path, `time-stamp token ${quotePath(path)} has genTime ${check.genTime}, before the plan's created_at ${createdAt}: the plan's own clock is wrong`);
    }
  }
}

/** The earliest started_at of the attempts that passed their schema (undefined: none, or attempts.jsonl could not be read). */
function firstStart(ctx: VerifyContext): string | undefined {
  const table = ctx.attempts;
  if (table === undefined) return undefined;
  let first: string | undefined;
  for (let row = 0; row < table.count; row++) {
    const started = table.startedAt(row);
    if (first === undefined || compareTimes(started, first) < 0) first = started;
  }
  return first;
}
