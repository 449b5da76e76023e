/**
 * The demo's time-stamp anchors (FORMAT.md 12): which bundles hold a token,
 * from which authority, at what genTime, and when the publisher got it.
 *
 * - The November 16 plan was anchored at freeze (`freeze --anchor`), a few
 *   minutes after its created_at and well before its first attempt (its
 *   attempts start 40 minutes after created_at: simulate.ts): anchored
 *   before it ran.
 * - The November 2 plan's authority did not answer at freeze; the token was
 *   got later (`freeze --anchor-only`), after the first attempts had
 *   started: ANCHOR_AFTER_ATTEMPT, a warning (the plan is shown to exist
 *   then, not to be frozen before it ran); the bundle still verifies and
 *   counts.
 * - The September and October plans are not anchored.
 *
 * The tokens themselves are committed inputs (content/anchors/<dir>/
 * <authority>.tsr, with the authority's root certificate in
 * content/timestamp-roots/), made once by scripts/make-demo-anchors.ts with
 * keys it discards; make-demo checks them here and copies them into the
 * bundles.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkAnchorToken, parsePinnedRoots } from '../../src/anchor/check.ts';
import { digestHex } from '../../src/json/canonical.ts';
import type { Plan } from '../../src/schema/index.ts';

/** One token a demo bundle holds. */
export interface DemoAnchorSpec {
  /** The bundle directory (a DEMO_PLANS dir). */
  readonly dir: string;
  /** The token's file name without `.tsr`, under the bundle's `anchors/`. */
  readonly authority: string;
  /** The genTime the token carries (whole seconds, UTC). */
  readonly genTime: string;
  /** The TSTInfo's serial number. */
  readonly serial: number;
  /** When the publisher got it: at freeze (`freeze --anchor`) or later (`freeze --anchor-only`, a freeze log line of its own). */
  readonly obtained: 'at_freeze' | 'later';
}

/** The demo authority's file name (content/anchors/<dir>/demo-tsa.tsr) and its root's (content/timestamp-roots/demo-tsa-root.pem). */
export const DEMO_AUTHORITY = 'demo-tsa';
export const DEMO_ROOT_FILE = 'demo-tsa-root.pem';

/** The demo's anchors, in the order the authority issued them (serial order). */
export const DEMO_ANCHORS: readonly DemoAnchorSpec[] = [
  { dir: '2026-11-02-widget-bugs', authority: DEMO_AUTHORITY, genTime: '2026-11-02T16:12:37Z', serial: 1, obtained: 'later' },
  { dir: '2026-11-16-widget-bugs-offline-tools', authority: DEMO_AUTHORITY, genTime: '2026-11-16T10:03:52Z', serial: 2, obtained: 'at_freeze' },
];

/** A committed token, checked, with what the bundle and the freeze log need. */
export interface DemoAnchor {
  readonly spec: DemoAnchorSpec;
  /** The path in the bundle: `anchors/<authority>.tsr`. */
  readonly path: string;
  readonly bytes: Buffer;
}

const REMAKE = 'remake them with: npx tsx scripts/make-demo-anchors.ts (content/anchors/README.md)';

/**
 * Reads the committed tokens (`anchorsDir/<dir>/<authority>.tsr`) and checks each against its plan with the
 * repository's own checker: it verifies, is pinned to the committed demo root (`rootsDir/demo-tsa-root.pem`),
 * and carries the genTime DEMO_ANCHORS says. Throws when one does not, or when anchorsDir holds any other
 * token (a stale one of a bundle no longer anchored).
 */
export async function loadDemoAnchors(anchorsDir: string, rootsDir: string, plans: ReadonlyMap<string, Plan>): Promise<DemoAnchor[]> {
  const roots = parsePinnedRoots(await readFile(join(rootsDir, DEMO_ROOT_FILE), 'utf8'));
  const expected = new Set(DEMO_ANCHORS.map((a) => `${a.dir}/${a.authority}.tsr`));
  for (const entry of await readdir(anchorsDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'README.md') continue;
    const relative = join(entry.parentPath, entry.name).slice(anchorsDir.length + 1).split('\\').join('/');
    if (!expected.has(relative)) throw new Error(`content/anchors/${relative} is not one of the demo's anchors (scripts/demo/anchors.ts): ${REMAKE}`);
  }
  const anchors: DemoAnchor[] = [];
  for (const spec of DEMO_ANCHORS) {
    const plan = plans.get(spec.dir);
    if (plan === undefined) throw new Error(`demo bug: the anchor of ${spec.dir} names no demo plan`);
    const bytes = await readFile(join(anchorsDir, spec.dir, `${spec.authority}.tsr`));
    const check = checkAnchorToken(bytes, digestHex(plan.plan_id), roots);
    if (!check.ok) throw new Error(`content/anchors/${spec.dir}/${spec.authority}.tsr: ${check.code}: ${check.detail}; ${REMAKE}`);
    if (!check.pinned || check.genTime !== spec.genTime) {
      throw new Error(`content/anchors/${spec.dir}/${spec.authority}.tsr: ${check.pinned ? '' : 'not pinned to the demo root, '}genTime ${check.genTime} (want ${spec.genTime}); ${REMAKE}`);
    }
    anchors.push({ spec, path: `anchors/${spec.authority}.tsr`, bytes });
  }
  return anchors;
}
