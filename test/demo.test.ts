/**
 * The committed demo (content/bundles, content/examples) is exactly what
 * scripts/make-demo.ts writes, every demo bundle verifies with no finding at
 * all, each example fails the way its README says, and the evidence covers
 * what the site must be able to show; the demo's score card caps a claim
 * (FORMAT.md 11), with a red team's assessment in one bundle; two bundles
 * hold time-stamp anchors (FORMAT.md 12) and the freeze log lists every
 * demo plan and two frozen and never published (issue 30).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../scripts/make-demo.ts';
import { INTENDED_VERDICTS, mainBoard } from '../scripts/demo/design.ts';
import { baselineRates, cohortVerdicts, type VerdictEvidence } from '../scripts/demo/verdicts.ts';
import { DEMO_ANCHORS } from '../scripts/demo/anchors.ts';
import { RED_TEAM, RED_TEAM_BASIS } from '../scripts/demo/assessments.ts';
import { freezePlan } from '../scripts/demo/bundle.ts';
import { FREEZE_LOG_SCHEMA } from '../scripts/demo/freeze-log.ts';
import { DEMO_PLANS, UNPUBLISHED_PLANS } from '../scripts/demo/plans.ts';
import { parsePinnedRoots, type PinnedRoot } from '../src/anchor/check.ts';
import type { BundleAnchor } from '../src/anchor/times.ts';
import { Scorecard } from '../src/claims/scorecard.ts';
import { loadConfigFile } from '../src/config/config.ts';
import { LIMIT_DEFAULTS } from '../src/evidence/limits.ts';
import { readBundle, type BundleSnapshot } from '../src/evidence/read-bundle.ts';
import { canonicalJson, digestBytes, selfId } from '../src/json/canonical.ts';
import { verifyPaths } from '../src/pipeline/verify-paths.ts';
import { buildReport } from '../src/report/build-report.ts';
import { verifyBundle, type BundleVerification } from '../src/verify/verify-bundle.ts';

const CONTENT = join(dirname(fileURLToPath(import.meta.url)), '..', 'content');
/** The directories the generator owns (and replaces) under content/. */
const OWNED = ['bundles', 'examples'];

/** Every regular file under a directory, as sorted '/'-separated relative paths. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1).split('\\').join('/'))
    .sort();
}

async function verify(dir: string): Promise<BundleVerification> {
  return verifyBundle(await readBundle(dir));
}

function evidenceOf(v: BundleVerification): VerdictEvidence {
  return {
    plan: v.evidence.plan!,
    ledger: v.evidence.ledger,
    attempts: v.evidence.attempts.lines().map((a) => a.attempt),
    grades: v.evidence.grades.map((g) => g.file().grades),
  };
}

describe('the committed demo is what make-demo writes', () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'ledgerboard-demo-'));
    await generateDemo(out);
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it.each(OWNED)('content/%s has the same files, byte for byte', async (dir) => {
    const generated = await listFiles(join(out, dir));
    const committed = await listFiles(join(CONTENT, dir));
    expect(committed).toEqual(generated);
    const differing: string[] = [];
    for (const path of generated) {
      const [a, b] = await Promise.all([readFile(join(out, dir, path)), readFile(join(CONTENT, dir, path))]);
      if (!a.equals(b)) differing.push(path);
    }
    expect(differing, 'regenerate with: npx tsx scripts/make-demo.ts').toEqual([]);
  });

  it('content/history/freeze-log.jsonl is the same, byte for byte', async () => {
    const [a, b] = await Promise.all([readFile(join(out, 'history', 'freeze-log.jsonl')), readFile(join(CONTENT, 'history', 'freeze-log.jsonl'))]);
    expect(a.equals(b), 'regenerate with: npx tsx scripts/make-demo.ts').toBe(true);
  });

  it('writes only bundles/, examples/ and history/freeze-log.jsonl', async () => {
    expect((await readdir(out)).sort()).toEqual([...OWNED, 'history']);
    expect(await readdir(join(out, 'history'))).toEqual(['freeze-log.jsonl']);
  });
});

describe('verification of the committed demo', () => {
  const bundles = new Map<string, BundleVerification>();
  beforeAll(async () => {
    for (const name of (await readdir(join(CONTENT, 'bundles'))).sort()) bundles.set(name, await verify(join(CONTENT, 'bundles', name)));
  });

  it('has four demo bundles', () => {
    expect(bundles.size).toBe(4);
  });

  it('verifies every demo bundle with no finding, not even a warning, but the November 2 anchor\'s ANCHOR_AFTER_ATTEMPT', () => {
    for (const [name, v] of bundles) {
      const findings = v.findings.filter((f) => !(name === '2026-11-02-widget-bugs' && (f.code as string) === 'ANCHOR_AFTER_ATTEMPT' && f.severity === 'warning'));
      expect({ name, status: v.status, findings }).toEqual({ name, status: 'verified', findings: [] });
    }
  });

  it('reports the example invalid/ as invalid: UNKNOWN_MEMBER and DUPLICATE_SLOT', async () => {
    const v = await verify(join(CONTENT, 'examples', 'invalid'));
    expect(v.status).toBe('invalid');
    expect(v.findings.map((f) => [f.code, f.file, f.line ?? null])).toEqual([
      ['UNKNOWN_MEMBER', 'plan.json', null],
      ['DUPLICATE_SLOT', 'attempts.jsonl', 9],
    ]);
  });

  it('reports the example no_verdict/ as no_verdict: one MISSING_FILE and four MISSING_ARTIFACT', async () => {
    const v = await verify(join(CONTENT, 'examples', 'no_verdict'));
    expect(v.status).toBe('no_verdict');
    const codes = v.findings.map((f) => f.code);
    expect(codes.sort()).toEqual(['MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_FILE']);
    expect(v.findings.filter((f) => f.code === 'MISSING_ARTIFACT').map((f) => f.file).sort()).toEqual([
      'attempts.jsonl',
      'attempts.jsonl',
      'grades/1.json',
      'grades/1.json',
    ]);
    expect(v.findings.find((f) => f.code === 'MISSING_FILE')?.file).toMatch(/^artifacts\/patches\/[0-9a-f]{64}\.diff$/);
  });

  it('covers every outcome, cost state and the other facts the site must show', () => {
    const all = [...bundles.values()];
    const attempts = all.flatMap((v) => v.evidence.attempts.lines().map((a) => a.attempt));
    expect(new Set(attempts.map((a) => a.outcome))).toEqual(
      new Set(['completed', 'model_failure', 'safety_failure', 'harness_failure', 'environment_failure', 'invalid_case', 'timeout', 'cancelled']),
    );
    expect(new Set(attempts.map((a) => a.cost.state))).toEqual(new Set(['complete', 'partial', 'unavailable', 'not_applicable', 'zero']));
    expect(attempts.some((a) => a.tokens === null)).toBe(true);
    expect(attempts.some((a) => a.retries > 0)).toBe(true);

    const plans = all.map((v) => v.evidence.plan!);
    expect(new Set(plans.map((p) => p.created_at.slice(0, 10))).size).toBeGreaterThanOrEqual(3);
    expect(new Set(plans.map((p) => p.environment.tool_policy)).size).toBeGreaterThanOrEqual(2);
    expect(all.some((v) => v.evidence.grades.some((g) => g.path === 'grades/2.json'))).toBe(true);
    expect(all.some((v) => v.evidence.grant !== null)).toBe(true);
    expect(all.every((v) => v.evidence.notes !== null)).toBe(true);
    for (const v of all) expect(v.evidence.ledger).toHaveLength(24);

    const verdicts = all.flatMap((v) => v.evidence.grades.flatMap((g) => g.file().grades.results.map((r) => r.verdict)));
    expect(verdicts).toContain('error');
    const ungraded = all.some((v) => {
      const graded = new Set(v.evidence.grades.flatMap((g) => g.file().grades.results.map((r) => r.attempt_id)));
      return v.evidence.attempts.lines().some(({ attempt }) => attempt.outcome === 'completed' && !graded.has(attempt.attempt_id));
    });
    expect(ungraded).toBe(true);
  });

  it('gives the main board its intended verdict variety and a drifting baseline', () => {
    const main = mainBoard([...bundles.values()].map(evidenceOf));
    expect(main).toHaveLength(3);
    const seen: Record<string, string | null> = {};
    for (const c of cohortVerdicts(main)) if (c.role === 'candidate') seen[`${c.model} ${c.agent}`] = c.verdict;
    expect(seen).toEqual(INTENDED_VERDICTS);
    const rates = baselineRates(main).map((r) => r.resolved / r.graded);
    expect(new Set(rates).size).toBeGreaterThan(1);
  });
});

/**
 * verifyBundle with the reader's pinned roots and its `anchor`, as agreed for issue 30 (the verifier's part
 * adds both): typed here so that this file compiles before and after that part is merged.
 */
const verifyWithRoots = verifyBundle as unknown as (
  snapshot: BundleSnapshot,
  limits: typeof LIMIT_DEFAULTS,
  options: { timestampRoots: readonly PinnedRoot[] },
) => BundleVerification & { anchor?: BundleAnchor | null };

describe('the demo\'s anchors and freeze log (FORMAT.md 12, issue 30)', () => {
  const ROOT = join(CONTENT, '..');
  const NOV2 = '2026-11-02-widget-bugs';
  const NOV16 = '2026-11-16-widget-bugs-offline-tools';
  const published = DEMO_PLANS.map((spec) => ({ dir: spec.dir, plan: freezePlan(spec) }));
  const unpublished = UNPUBLISHED_PLANS.map(freezePlan);
  interface Line {
    anchor_digest: string | null;
    created_at: string;
    ledger_digest: string;
    plan_id: string;
    schema: string;
    title: string;
  }
  let text: string;
  let lines: Line[];
  beforeAll(async () => {
    text = await readFile(join(CONTENT, 'history', 'freeze-log.jsonl'), 'utf8');
    lines = text.split('\n').slice(0, -1).map((l) => JSON.parse(l) as Line);
  });

  it('the November 2 and November 16 bundles list anchors/demo-tsa.tsr in their manifests, the committed token\'s bytes; the others hold no anchor', async () => {
    const anchored: Record<string, string[]> = {};
    for (const { dir } of published) {
      const manifest = JSON.parse(await readFile(join(CONTENT, 'bundles', dir, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
      const files = manifest.files.filter((f) => f.path.startsWith('anchors/'));
      anchored[dir] = files.map((f) => f.path);
      for (const f of files) {
        const bytes = await readFile(join(CONTENT, 'bundles', dir, ...f.path.split('/')));
        expect(bytes.equals(await readFile(join(CONTENT, 'anchors', dir, 'demo-tsa.tsr')))).toBe(true);
        expect(f.sha256).toBe(digestBytes(bytes));
      }
    }
    expect(anchored).toEqual({
      '2026-09-14-widget-bugs': [],
      '2026-10-05-widget-bugs': [],
      [NOV2]: ['anchors/demo-tsa.tsr'],
      [NOV16]: ['anchors/demo-tsa.tsr'],
    });
    expect(DEMO_ANCHORS.map((a) => a.dir).sort()).toEqual([NOV2, NOV16]);
  });

  it('the demo config pins the demo root and names the freeze log', async () => {
    const config = JSON.parse(await readFile(join(ROOT, 'ledgerboard.config.json'), 'utf8')) as { timestamp_roots?: string[]; freeze_log?: string };
    expect(config.timestamp_roots).toEqual(['content/timestamp-roots/demo-tsa-root.pem']);
    expect(config.freeze_log).toBe('content/history/freeze-log.jsonl');
    expect(parsePinnedRoots(await readFile(join(ROOT, config.timestamp_roots![0]!), 'utf8'))).toHaveLength(1);
  });

  it('the freeze log: RFC 8785 lines, each with a newline, in created_at order, of the demo ledger', () => {
    expect(text.endsWith('\n')).toBe(true);
    const raw = text.split('\n').slice(0, -1);
    expect(raw).toHaveLength(7);
    for (const [i, line] of raw.entries()) {
      expect(canonicalJson(JSON.parse(line)), `line ${i + 1}`).toBe(line);
      expect(Object.keys(lines[i]!)).toEqual(['anchor_digest', 'created_at', 'ledger_digest', 'plan_id', 'schema', 'title']);
      expect(lines[i]!.schema).toBe(FREEZE_LOG_SCHEMA);
      expect(lines[i]!.ledger_digest).toBe(published[0]!.plan.ledger.digest);
    }
    expect(FREEZE_LOG_SCHEMA).toBe('ledgerboard.freeze-log.v1');
    const created = lines.map((l) => l.created_at);
    expect(created).toEqual([...created].sort());
  });

  it('lists every demo plan and exactly two that are not published, frozen between the published ones, with real plan ids', () => {
    const ids = new Set(lines.map((l) => l.plan_id));
    const publishedIds = new Set(published.map((p) => p.plan.plan_id));
    for (const id of publishedIds) expect(ids.has(id), id).toBe(true);
    const never = [...ids].filter((id) => !publishedIds.has(id));
    expect(never).toEqual(unpublished.map((p) => p.plan_id));
    expect(never).toHaveLength(2);
    for (const plan of unpublished) {
      // A real plan: its id is the digest of the plan without its id (FORMAT.md 3), and of the demo's ledger.
      expect(selfId(plan as unknown as Record<string, unknown>, 'plan_id')).toBe(plan.plan_id);
      expect(plan.ledger).toEqual(published[0]!.plan.ledger);
      const line = lines.find((l) => l.plan_id === plan.plan_id)!;
      expect(line).toEqual({ anchor_digest: null, created_at: plan.created_at, ledger_digest: plan.ledger.digest, plan_id: plan.plan_id, schema: FREEZE_LOG_SCHEMA, title: plan.title });
    }
    expect(unpublished.map((p) => p.created_at)).toEqual(['2026-10-02T16:45:00Z', '2026-11-09T11:20:00Z']);
    const first = published.map((p) => p.plan.created_at).sort()[0]!;
    const last = published.map((p) => p.plan.created_at).sort().at(-1)!;
    for (const p of unpublished) expect(p.created_at > first && p.created_at < last).toBe(true);
  });

  it('anchor digests: November 16 frozen with its token; November 2 frozen without and anchored on a later line; the others never', async () => {
    const tokenDigest = async (dir: string) => digestBytes(await readFile(join(CONTENT, 'bundles', dir, 'anchors', 'demo-tsa.tsr')));
    const byDir = (dir: string) => lines.filter((l) => l.plan_id === published.find((p) => p.dir === dir)!.plan.plan_id).map((l) => l.anchor_digest);
    expect(byDir(NOV16)).toEqual([await tokenDigest(NOV16)]);
    expect(byDir(NOV2)).toEqual([null, await tokenDigest(NOV2)]);
    expect(byDir('2026-09-14-widget-bugs')).toEqual([null]);
    expect(byDir('2026-10-05-widget-bugs')).toEqual([null]);
    // The order the lines were appended: the November 2 token came before the November 9 freeze.
    expect(lines.map((l) => `${l.created_at.slice(0, 10)} ${l.anchor_digest === null ? '-' : 'anchored'}`)).toEqual([
      '2026-09-14 -',
      '2026-10-02 -',
      '2026-10-05 -',
      '2026-11-02 -',
      '2026-11-02 anchored',
      '2026-11-09 -',
      '2026-11-16 anchored',
    ]);
  });

  it('verification with the demo root: November 16 anchored before its first attempt, November 2 after it (ANCHOR_AFTER_ATTEMPT, still verified), the others not anchored', async () => {
    const roots = parsePinnedRoots(await readFile(join(CONTENT, 'timestamp-roots', 'demo-tsa-root.pem'), 'utf8'));
    const seen: Record<string, unknown> = {};
    for (const { dir } of published) {
      const v = verifyWithRoots(await readBundle(join(CONTENT, 'bundles', dir)), LIMIT_DEFAULTS, { timestampRoots: roots });
      seen[dir] = { status: v.status, codes: v.findings.map((f) => `${f.code} ${f.severity}`), anchor: v.anchor };
    }
    const authority = 'CN=Ledgerboard Demo TSA,O=Ledgerboard Demo,C=XX';
    expect(seen).toEqual({
      '2026-09-14-widget-bugs': { status: 'verified', codes: [], anchor: null },
      '2026-10-05-widget-bugs': { status: 'verified', codes: [], anchor: null },
      [NOV2]: { status: 'verified', codes: ['ANCHOR_AFTER_ATTEMPT warning'], anchor: { gen_time: '2026-11-02T16:12:37Z', authority, pinned: true, before_first_attempt: false } },
      [NOV16]: { status: 'verified', codes: [], anchor: { gen_time: '2026-11-16T10:03:52Z', authority, pinned: true, before_first_attempt: true } },
    });
  });
});

describe('the demo score card and its assessed indicator (FORMAT.md 11)', () => {
  const ROOT = join(CONTENT, '..');
  const NOVEMBER = '2026-11-02-widget-bugs';

  it('the demo config names content/scorecard.json: two tiers, an origin ceiling, computed and assessed indicators, every demo plan\'s tier on it', async () => {
    const config = JSON.parse(await readFile(join(ROOT, 'ledgerboard.config.json'), 'utf8')) as { scorecard?: string };
    expect(config.scorecard).toBe('content/scorecard.json');
    const card = Scorecard.parse(JSON.parse(await readFile(join(ROOT, config.scorecard!), 'utf8')));
    expect(card.levels).toEqual(['not_supported', 'indicative', 'supported', 'strong']);
    expect(card.tiers).toEqual([
      { name: 'black_box', ceiling: 'supported' },
      { name: 'grey_box', ceiling: 'strong' },
    ]);
    expect(card.origins).toEqual([{ kind: 'imported', ceiling: 'indicative' }]);
    expect(card.indicators.map((i) => [i.id, 'assessed' in i ? 'assessed' : i.computed.figure])).toEqual([
      ['resolves_headline', 'wilson_low'],
      ['beats_baseline', 'beats_baseline'],
      ['stable_across_attempts', 'stability'],
      ['no_weight_tampering', 'assessed'],
    ]);
    // Every demo plan is black_box, whose ceiling is below the card's strongest level: so a claim can be capped.
    expect(new Set(DEMO_PLANS.map((spec) => freezePlan(spec).access_tier))).toEqual(new Set(['black_box']));
  });

  it('one demo bundle carries a red team\'s assessments.json, manifest-listed with its basis, parsed by verification', async () => {
    const withAssessments = DEMO_PLANS.filter((p) => p.assessments !== undefined).map((p) => p.dir);
    expect(withAssessments).toEqual([NOVEMBER]);
    const dir = join(CONTENT, 'bundles', NOVEMBER);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(['assessments.json', RED_TEAM_BASIS]));
    const v = await verify(dir);
    expect(v.status).toBe('verified');
    expect(v.evidence.assessments).toEqual([
      { indicator: 'no_weight_tampering', subject: { model: 'acme/mini-2026-08-01', agent: { name: 'loop', version: '3.1.0' } }, level: 'strong', by: RED_TEAM, basis: RED_TEAM_BASIS },
      { indicator: 'no_weight_tampering', subject: { model: 'lumen/sage-2026-10-15', agent: { name: 'loop', version: '3.1.0' } }, level: 'indicative', by: RED_TEAM, basis: RED_TEAM_BASIS },
    ]);
    for (const name of (await readdir(join(CONTENT, 'bundles'))).filter((n) => n !== NOVEMBER)) {
      expect((await verify(join(CONTENT, 'bundles', name))).evidence.assessments, name).toEqual([]);
    }
  });

  it('the demo report shows claims capped by access tier black_box beside uncapped ones (hand-computed from the figures)', async () => {
    const { config } = await loadConfigFile(join(ROOT, 'ledgerboard.config.json'));
    const results = await verifyPaths([join(CONTENT, 'bundles')]);
    const report = buildReport(results, config);
    const november = results.find((r) => basename(r.path) === NOVEMBER)!.verification.evidence.plan!.plan_id;
    // The monthly board: the one the November plan feeds (the offline plan is on a board of its own).
    const monthly = new Set(report.cohorts.filter((c) => c.plans.some((p) => p.plan_id === november)).map((c) => c.board_id));
    expect(monthly.size).toBe(1);
    const main = report.cohorts.filter((c) => monthly.has(c.board_id));
    const cohort = (model: string, version: string) => main.find((c) => c.subject.model === model && c.subject.agent.version === version)!;
    const capped = (uncapped: string) => ({ level: 'supported', uncapped, ceiling: 'supported', reason: 'capped by access tier black_box' });
    const own = (level: string, reason: string | null = null) => ({ level, uncapped: level, ceiling: 'supported', reason });

    // acme/mini on the main board, pooled over the three monthly plans: wilson_low 0.755 >= 0.7 (strong), no pair with the
    // baseline told apart (beats_baseline 0), every attempt of a headline task agrees (stability 1), assessed strong.
    expect(cohort('acme/mini-2026-08-01', '3.1.0').claims).toEqual([
      { indicator: 'resolves_headline', ...capped('strong') },
      { indicator: 'beats_baseline', ...own('not_supported') },
      { indicator: 'stable_across_attempts', ...capped('strong') },
      { indicator: 'no_weight_tampering', ...capped('strong') },
    ]);
    // lumen/sage of October (the November plan only): wilson_low 0.510 (supported, not lowered), assessed indicative.
    expect(cohort('lumen/sage-2026-10-15', '3.1.0').claims).toEqual([
      { indicator: 'resolves_headline', ...own('supported') },
      { indicator: 'beats_baseline', ...own('not_supported') },
      { indicator: 'stable_across_attempts', ...capped('strong') },
      { indicator: 'no_weight_tampering', ...own('indicative') },
    ]);
    // The same model under loop 3.2.0 is another subject: the red team did not assess it.
    expect(cohort('acme/mini-2026-08-01', '3.2.0').claims![3]).toEqual({ indicator: 'no_weight_tampering', ...own('not_supported', 'not assessed') });
    // The baseline has no pair with itself.
    expect(cohort('acme/base-2025-01-01', '3.1.0').claims![1]).toEqual({ indicator: 'beats_baseline', ...own('not_supported', 'figure beats_baseline not available') });

    // Everywhere: no claim above its ceiling, and both capped and uncapped claims at the ceiling are shown.
    const order = ['not_supported', 'indicative', 'supported', 'strong'];
    const all = report.cohorts.flatMap((c) => c.claims ?? []);
    expect(all).toHaveLength(report.cohorts.length * 4);
    for (const claim of all) expect(order.indexOf(claim.level)).toBeLessThanOrEqual(order.indexOf(claim.ceiling));
    expect(all.some((c) => c.reason === 'capped by access tier black_box')).toBe(true);
    expect(all.some((c) => c.level === 'supported' && c.uncapped === 'supported' && c.reason === null)).toBe(true);
  });
});
