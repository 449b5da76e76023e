/**
 * verifyBundle: a pure function from a bundle's read bytes to its status and
 * findings (FORMAT.md sections 1-6, and assessments.json of 11.2). It runs
 * every step in order and collects every finding; it never stops at the
 * first, and never touches the disk.
 */
import { LIMIT_DEFAULTS, type Limits } from '../evidence/limits.ts';
import type { BundleSnapshot } from '../evidence/read-bundle.ts';
import { checkAssessments } from './check-assessments.ts';
import { checkAttempts } from './check-attempts.ts';
import { checkAnchors } from './check-anchors.ts';
import { checkEntries, checkFiles, checkManifestList, checkNameCollisions, readManifest } from './check-files.ts';
import { checkGrades } from './check-grades.ts';
import { checkGrant } from './check-grant.ts';
import { checkLedger } from './check-ledger.ts';
import { checkTotals } from './check-totals.ts';
import { checkMoney, checkOrigin, checkSubjects, readPlan } from './check-plan.ts';
import type { VerifyContext } from './context.ts';
import { evidence, type BundleEvidence } from '../bundle/evidence.ts';
import { DIGEST_PATTERN } from '../json/canonical.ts';
import { statusOf, type BundleStatus, type Finding } from './findings.ts';
import type { PinnedRoot } from '../anchor/check.ts';
import type { BundleAnchor } from '../anchor/times.ts';

export type { BundleEvidence } from '../bundle/evidence.ts';

/** The verification of one bundle. Ids are as read from the bundle (null when unreadable). `evidence` holds only what passed its schema. */
export interface BundleVerification {
  bundle_id: string | null;
  plan_id: string | null;
  status: BundleStatus;
  findings: Finding[];
  evidence: BundleEvidence;
  /** The bundle's anchor (FORMAT.md 12): the earliest time-stamp token that checks, or null (none, or none checks). */
  anchor: BundleAnchor | null;
}

/** What the reader brings to verification besides the bundle. */
export interface VerifyBundleOptions {
  /** The time-stamp authorities' root certificates the reader pins (the config's `timestamp_roots`; default none): an anchor whose signer chains to one is `pinned` (FORMAT.md 12). */
  readonly timestampRoots?: readonly PinnedRoot[];
}

/** The ordered steps; each checks one thing and records findings in the context. */
const STEPS: readonly { name: string; run: (ctx: VerifyContext) => void }[] = [
  // Symlinks, FIFOs, sockets, devices: never followed or opened.
  { name: 'entries', run: checkEntries },
  // No two names are one after Unicode normalisation or case folding (a warning: they collide on macOS and Windows).
  { name: 'names', run: checkNameCollisions },
  // manifest.json parses strictly, fits its schema, and its bundle_id re-derives.
  { name: 'manifest', run: readManifest },
  // The file list is sorted, unique, never names manifest.json, and every path is safe.
  { name: 'manifest-list', run: checkManifestList },
  // Every listed file is on disk with its size and digest; every file on disk is listed; required files exist.
  { name: 'files', run: checkFiles },
  // plan.json parses, fits its schema, its plan_id re-derives, and the manifest names it.
  { name: 'plan', run: readPlan },
  // Subjects are distinct identities; wiki paths are safe.
  { name: 'subjects', run: checkSubjects },
  // A null budget only for imported evidence; an imported original is in the bundle.
  { name: 'origin', run: checkOrigin },
  // per_attempt_micros is floor(aggregate / dispatches) and at least 1.
  { name: 'money', run: checkMoney },
  // The ledger is the one the plan pins, with unique tasks labelled before the freeze.
  { name: 'ledger', run: checkLedger },
  // Attempts fill the plan's matrix once each, as planned, after the freeze, within the ceiling.
  { name: 'attempts', run: checkAttempts },
  // Time-stamp tokens anchors/<name>.tsr: each over this plan, signed by the certificate it carries; the anchor before the first attempt and not before created_at.
  { name: 'anchors', run: checkAnchors },
  // The attempts' totals (tokens, retries, cost, wall time) are numbers a report holds exactly.
  { name: 'totals', run: checkTotals },
  // Grading generations are numbered 1..n, generation 1 uses the pinned grader, results name real attempts.
  { name: 'grades', run: checkGrades },
  // The grant echoes the plan and had not expired when attempts started.
  { name: 'grant', run: checkGrant },
  // assessments.json, when listed (FORMAT.md 11.2): each subject is the plan's, each basis is listed, one per indicator and subject.
  { name: 'assessments', run: checkAssessments },
];

/**
 * Verifies a bundle snapshot under the limits that apply while parsing
 * (`string_bytes`; default LIMIT_DEFAULTS) with the reader's pinned
 * time-stamp roots (`options.timestampRoots`; default none). Never throws for
 * bad evidence; a throw is a bug.
 */
export function verifyBundle(snapshot: BundleSnapshot, limits: Pick<Limits, 'string_bytes'> = LIMIT_DEFAULTS, options: VerifyBundleOptions = {}): BundleVerification {
  const ctx: VerifyContext = {
    snapshot,
    stringBytes: limits.string_bytes,
    timestampRoots: options.timestampRoots ?? [],
    disk: new Map(snapshot.entries.map((e) => [e.path, e])),
    findings: [],
    listed: new Map(),
    unsafeListed: new Set(),
    presentDigests: new Set(),
    ceilingBroken: false,
    ledgerComplete: false,
    attemptsComplete: false,
    grades: [],
  };
  for (const step of STEPS) step.run(ctx);
  const notes = ctx.disk.get('NOTES.md');
  const verified = evidence({
    manifest: ctx.manifest ?? null,
    plan: ctx.plan ?? null,
    ledger: ctx.ledger ?? [],
    attempts: ctx.attempts,
    grades: ctx.grades,
    grant: ctx.grant ?? null,
    assessments: ctx.assessments ?? [],
    notes: notes?.kind === 'file' && notes.content ? notes.content : null,
  });
  return {
    bundle_id: readId(ctx.bundleIdRead),
    // As read from plan.json; null when plan.json could not be read (FORMAT.md 6), even if the manifest names one.
    plan_id: readId(ctx.planIdRead),
    status: statusOf(ctx.findings),
    findings: ctx.findings,
    evidence: verified,
    anchor: ctx.anchor ?? null,
  };
}

function readId(id: string | undefined): string | null {
  return id !== undefined && DIGEST_PATTERN.test(id) ? id : null;
}
