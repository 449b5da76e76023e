/**
 * Board and cohort keys (FORMAT.md 7.1): the board key is exactly ledger
 * digest, environment (tool_policy, wiki sorted by path, isolation,
 * session_topology), harness (name, version, commit), budget (currency,
 * per_attempt_micros, timeout_seconds; or null), grading layer (id, version,
 * executable) and origin kind ('frozen' when absent); a cohort key adds the
 * subject. Ids are the RFC 8785 digests of the key objects.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { boardKeyOf, cohortKeyOf, keyDifferences, keyId, type BoardKey } from '../../src/analysis/keys.ts';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import type { Plan } from '../../src/schema/index.ts';
import { GRADER, validBundle } from '../helpers/bundle-builder.ts';
import { REGRADER } from '../helpers/report-fixtures.ts';

const sha = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;

function planWithWiki(): Plan {
  const plan = validBundle().plan;
  plan.ledger.digest = digestBytes('a ledger');
  plan.environment.wiki = [
    { path: 'docs/z.md', sha256: digestBytes('z') },
    { path: 'docs/B.md', sha256: digestBytes('B') },
    { path: 'docs/a.md', sha256: digestBytes('a') },
    { path: 'README.md', sha256: digestBytes('readme') },
  ];
  return plan;
}

describe('boardKeyOf', () => {
  it('holds exactly the FORMAT.md 7.1 components, wiki sorted by path (byte order)', () => {
    const plan = planWithWiki();
    const key = boardKeyOf(plan, REGRADER);
    expect(key).toStrictEqual({
      ledger_digest: digestBytes('a ledger'),
      environment: {
        tool_policy: digestBytes('tool policy'),
        // Byte order: 'R' (0x52) < 'd' (0x64); 'B' (0x42) < 'a' (0x61) < 'z' (0x7a).
        wiki: [
          { path: 'README.md', sha256: digestBytes('readme') },
          { path: 'docs/B.md', sha256: digestBytes('B') },
          { path: 'docs/a.md', sha256: digestBytes('a') },
          { path: 'docs/z.md', sha256: digestBytes('z') },
        ],
        isolation: 'isolated-git-objects; same-user host; no container',
        session_topology: 'single-session',
      },
      harness: { name: 'yylo-benchmark', version: '0.1.0-rc.7', commit: '0123456789abcdef0123456789abcdef01234567' },
      // aggregate_micros is not part of the key.
      budget: { currency: 'USD', per_attempt_micros: 3_333_333, timeout_seconds: 1800 },
      // The grading layer's grader, not the plan's.
      grading: { id: 'oracle', version: '2.0.0', executable: REGRADER.executable },
      origin: 'frozen',
    });
    // The plan's wiki is not reordered in place.
    expect(plan.environment.wiki[0]!.path).toBe('docs/z.md');
  });

  it('budget null stays null (imported evidence without a ceiling)', () => {
    const plan = validBundle().plan;
    plan.budget = null;
    expect(boardKeyOf(plan, GRADER).budget).toBeNull();
  });

  it("origin: 'frozen' when absent or frozen, 'imported' when imported", () => {
    const plan = validBundle().plan;
    expect(boardKeyOf(plan, GRADER).origin).toBe('frozen');
    plan.origin = { kind: 'frozen' };
    expect(boardKeyOf(plan, GRADER).origin).toBe('frozen');
    plan.origin = { kind: 'imported', format: 'inspect-eval-log', source: digestBytes('log'), tool: { name: 'ledgerboard', version: '0.3.0' } };
    expect(boardKeyOf(plan, GRADER).origin).toBe('imported');
  });

  it('members outside the key (title, seed, created_at, subjects, attempts, aggregate, grader profile, wiki order) leave the board id alone', () => {
    const base = planWithWiki();
    const other = planWithWiki();
    other.title = 'another title';
    other.seed = 99;
    other.created_at = '2027-01-01T00:00:00Z';
    other.access_tier = 'white_box';
    other.attempts = 5;
    other.subjects = other.subjects.slice(0, 1);
    other.budget!.aggregate_micros = 1;
    other.grader.profile = 'other-profile';
    other.environment.wiki.reverse();
    expect(keyId(boardKeyOf(other, GRADER))).toBe(keyId(boardKeyOf(base, GRADER)));
  });

  it('every key component changes the board id', () => {
    const id = (edit: (p: Plan) => void, grader = GRADER) => {
      const p = planWithWiki();
      edit(p);
      return keyId(boardKeyOf(p, grader));
    };
    const ids = [
      id(() => {}),
      id((p) => (p.ledger.digest = digestBytes('another ledger'))),
      id((p) => (p.environment.tool_policy = digestBytes('policy 2'))),
      id((p) => (p.environment.wiki[0]!.sha256 = digestBytes('z2'))),
      id((p) => (p.environment.isolation = 'container')),
      id((p) => (p.environment.session_topology = 'multi-session')),
      id((p) => (p.harness.name = 'other-harness')),
      id((p) => (p.harness.version = '0.2.0')),
      id((p) => (p.harness.commit = 'f'.repeat(40))),
      id((p) => (p.budget!.currency = 'EUR')),
      id((p) => (p.budget!.per_attempt_micros = 3_333_332)),
      id((p) => (p.budget!.timeout_seconds = 1799)),
      id((p) => (p.budget = null)),
      id(() => {}, REGRADER),
      id(() => {}, { ...GRADER, executable: digestBytes('other executable') }),
      id((p) => (p.origin = { kind: 'imported', format: 'f', source: digestBytes('s'), tool: { name: 't', version: '1' } })),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('keyId: the RFC 8785 digest of the key object', () => {
  it('board id = sha256 of the canonical JSON of the board key', () => {
    const key = boardKeyOf(planWithWiki(), GRADER);
    expect(keyId(key)).toBe(sha(canonicalJson(key)));
  });

  it('the canonical form is sorted members, no whitespace (checked against a hand-written text)', () => {
    const key: BoardKey = {
      ledger_digest: `sha256:${'1'.repeat(64)}`,
      environment: { tool_policy: `sha256:${'2'.repeat(64)}`, wiki: [], isolation: 'i', session_topology: 's' },
      harness: { name: 'h', version: 'v', commit: 'c'.repeat(40) },
      budget: { currency: 'USD', per_attempt_micros: 5, timeout_seconds: 60 },
      grading: { id: 'g', version: '1', executable: `sha256:${'3'.repeat(64)}` },
      origin: 'frozen',
    };
    const text =
      `{"budget":{"currency":"USD","per_attempt_micros":5,"timeout_seconds":60},` +
      `"environment":{"isolation":"i","session_topology":"s","tool_policy":"sha256:${'2'.repeat(64)}","wiki":[]},` +
      `"grading":{"executable":"sha256:${'3'.repeat(64)}","id":"g","version":"1"},` +
      `"harness":{"commit":"${'c'.repeat(40)}","name":"h","version":"v"},` +
      `"ledger_digest":"sha256:${'1'.repeat(64)}","origin":"frozen"}`;
    expect(canonicalJson(key)).toBe(text);
    expect(keyId(key)).toBe(sha(text));
  });

  it('cohort key = board key + subject (model, agent name and version); cohort id = its digest', () => {
    const board = boardKeyOf(planWithWiki(), GRADER);
    const subject = { model: 'acme/mini-2026-08-01', agent: { name: 'loop', version: '3.1.0' } };
    const cohort = cohortKeyOf(board, subject);
    expect(cohort).toStrictEqual({ ...board, subject: { model: 'acme/mini-2026-08-01', agent: { name: 'loop', version: '3.1.0' } } });
    expect(keyId(cohort)).toBe(sha(canonicalJson(cohort)));
    expect(keyId(cohort)).not.toBe(keyId(board));
    // Extra members on the subject (selector, role) are not part of the key.
    const withExtras = cohortKeyOf(board, { ...subject, selector: ':mini', role: 'candidate' } as typeof subject);
    expect(keyId(withExtras)).toBe(keyId(cohort));
    // Agent version is part of it.
    expect(keyId(cohortKeyOf(board, { ...subject, agent: { name: 'loop', version: '3.1.1' } }))).not.toBe(keyId(cohort));
  });
});

describe('keyDifferences', () => {
  it('lists every differing leaf component with both values, the wiki list as one component', () => {
    const a = boardKeyOf(planWithWiki(), GRADER);
    const planB = planWithWiki();
    planB.harness.commit = 'f'.repeat(40);
    planB.environment.wiki = [{ path: 'README.md', sha256: digestBytes('readme') }];
    planB.budget = null;
    planB.origin = { kind: 'imported', format: 'f', source: digestBytes('s'), tool: { name: 't', version: '1' } };
    const b = boardKeyOf(planB, REGRADER);
    expect(keyDifferences(a, b)).toEqual([
      { component: 'budget', a: { currency: 'USD', per_attempt_micros: 3_333_333, timeout_seconds: 1800 }, b: null },
      { component: 'environment.wiki', a: a.environment.wiki, b: [{ path: 'README.md', sha256: digestBytes('readme') }] },
      // REGRADER shares the id "oracle"; its version and executable differ.
      { component: 'grading.executable', a: GRADER.executable, b: REGRADER.executable },
      { component: 'grading.version', a: '1.2.0', b: '2.0.0' },
      { component: 'harness.commit', a: '0123456789abcdef0123456789abcdef01234567', b: 'f'.repeat(40) },
      { component: 'origin', a: 'frozen', b: 'imported' },
    ]);
  });

  it('one differing component: exactly that one, in both directions', () => {
    const a = boardKeyOf(planWithWiki(), GRADER);
    const planB = planWithWiki();
    planB.environment.tool_policy = digestBytes('policy 2');
    const b = boardKeyOf(planB, GRADER);
    expect(keyDifferences(a, b)).toEqual([{ component: 'environment.tool_policy', a: digestBytes('tool policy'), b: digestBytes('policy 2') }]);
    expect(keyDifferences(b, a)).toEqual([{ component: 'environment.tool_policy', a: digestBytes('policy 2'), b: digestBytes('tool policy') }]);
  });

  it('equal keys have no difference; keys equal up to wiki order neither', () => {
    const a = boardKeyOf(planWithWiki(), GRADER);
    const p = planWithWiki();
    p.environment.wiki.reverse();
    expect(keyDifferences(a, boardKeyOf(p, GRADER))).toEqual([]);
  });

  it('a null budget against another null budget is no difference; a budget leaf change is named by its path', () => {
    const p1 = validBundle().plan;
    const p2 = validBundle().plan;
    p2.budget!.timeout_seconds = 60;
    expect(keyDifferences(boardKeyOf(p1, GRADER), boardKeyOf(p2, GRADER))).toEqual([{ component: 'budget.timeout_seconds', a: 1800, b: 60 }]);
    p1.budget = null;
    p2.budget = null;
    expect(keyDifferences(boardKeyOf(p1, GRADER), boardKeyOf(p2, GRADER))).toEqual([]);
  });
});
