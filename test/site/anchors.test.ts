/**
 * Anchored freezes and the freeze log in the site model (issue 30, FORMAT.md
 * 12): the plan page's sentence in each of its forms, the first attempt read
 * from the published attempts.jsonl (as instants), the leaderboard's count,
 * and /freeze-log/'s per-ledger sentences, over hand-made report entries; then
 * one model built from real bundles (a real RFC 3161 token, a report whose
 * anchor and freeze log are set by hand until the pipeline emits them).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { AFTER_FIRST_ATTEMPT, anchorCount, anchorSentence, firstAttemptStart, isTokenPath, NOT_ANCHORED, NOT_PINNED, PINNED, planAnchor } from '../../src/site/model/anchors.ts';
import { freezeLedgerText, siteFreezeLog } from '../../src/site/model/freeze-log.ts';
import type { SiteModel } from '../../src/site/model/model-types.ts';
import { sitePagePaths } from '../../src/site/model/page-paths.ts';
import { planBundle } from '../../src/site/model/view.ts';
import { modelOf } from '../helpers/site-model.ts';
import { makeTsa, type Tsa } from '../helpers/tsa-tokens.ts';
import { PLAN_CREATED_AT, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const ID = (c: string): string => `sha256:${c.repeat(64)}`;
const AUTHORITY = 'CN=Test TSA,OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';
const anchor = (over: Partial<{ gen_time: string; authority: string; pinned: boolean; before_first_attempt: boolean }> = {}) => ({
  gen_time: '2026-09-14T12:00:05Z',
  authority: AUTHORITY,
  pinned: true,
  before_first_attempt: true,
  ...over,
});
const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
const file = (path: string, c: string) => ({ path, url: `/blobs/${c.repeat(64)}`, bytes: 10, sha256: ID(c) });

describe('the plan page sentence (FORMAT.md 12)', () => {
  const created = { at: '2026-09-14T12:00:00Z', imported: false };
  it('anchored before the first attempt, with its time', () => {
    expect(anchorSentence(anchor(), created, { time: '2026-09-15T08:00:02Z' })).toBe(
      `frozen 2026-09-14T12:00:00Z; anchored by ${AUTHORITY} at 2026-09-14T12:00:05Z, before the first attempt at 2026-09-15T08:00:02Z`,
    );
  });
  it('anchored, and the bundle has no attempt', () => {
    expect(anchorSentence(anchor(), created, { time: null })).toBe(`frozen 2026-09-14T12:00:00Z; anchored by ${AUTHORITY} at 2026-09-14T12:00:05Z, before any attempt: the bundle records none`);
  });
  it('anchored after the first attempt: what it shows and what it does not', () => {
    expect(anchorSentence(anchor({ before_first_attempt: false, gen_time: '2026-09-16T00:00:00Z' }), created, { time: '2026-09-15T08:00:02Z' })).toBe(
      `frozen 2026-09-14T12:00:00Z; anchored by ${AUTHORITY} at 2026-09-16T00:00:00Z, after the first attempt at 2026-09-15T08:00:02Z: the anchor shows the plan existed then, not that it was frozen before it ran`,
    );
    expect(AFTER_FIRST_ATTEMPT).toBe('the anchor shows the plan existed then, not that it was frozen before it ran');
  });
  it('attempts.jsonl withheld: the page says where the time is and never reads it', () => {
    expect(anchorSentence(anchor(), created, 'withheld')).toBe(`frozen 2026-09-14T12:00:00Z; anchored by ${AUTHORITY} at 2026-09-14T12:00:05Z, before the first attempt (its time is in attempts.jsonl, whose bytes are withheld)`);
  });
  it('not anchored', () => {
    expect(anchorSentence(null, created, { time: null })).toBe("not anchored: the freeze time is the publisher's own clock");
    expect(NOT_ANCHORED).toBe("not anchored: the freeze time is the publisher's own clock");
  });
  it("an authority's name is shown with invisible characters marked and cut when long", () => {
    const sentence = anchorSentence(anchor({ authority: `CN=Evil\u202e<script>${'x'.repeat(500)}` }), created, { time: null });
    expect(sentence).toContain('CN=Evil⟨U+202E⟩<script>');
    expect(sentence).not.toContain('\u202e');
    expect(sentence.length).toBeLessThan(300);
  });
});

describe('the first attempt: the earliest started_at of attempts.jsonl, as instants', () => {
  it('compares fractions of any length, whatever the line order', () => {
    const lines = ['2026-09-15T08:00:02Z', '2026-09-15T08:00:01.75Z', '2026-09-15T08:00:01.7500001Z', '2026-09-16T00:00:00Z'].map((t, i) => JSON.stringify({ attempt_id: `a${i}`, started_at: t }));
    expect(firstAttemptStart(encode(`${lines.join('\n')}\n`))).toBe('2026-09-15T08:00:01.75Z');
    expect(firstAttemptStart(encode(`${[...lines].reverse().join('\n')}`))).toBe('2026-09-15T08:00:01.75Z');
  });
  it('an empty file has no first attempt; a line without a started_at is a bug', () => {
    expect(firstAttemptStart(encode(''))).toBeNull();
    expect(() => firstAttemptStart(encode('{"attempt_id":"a"}\n'))).toThrow(/started_at/);
  });
});

describe('planAnchor: what a plan page is handed', () => {
  const entry = (a: ReturnType<typeof anchor> | null | undefined) => ({ plan_id: ID('a'), ...(a === undefined ? {} : { anchor: a }) });
  const plan = { created_at: '2026-09-14T12:00:00Z', imported: false };
  const files = { published: [file('plan.json', '1'), file('anchors/b.tsr', '2'), file('anchors/a.tsr', '3'), file('anchors/x/c.tsr', '4'), file('anchors/d.der', '5')], withheld: [{ path: 'anchors/e.tsr', bytes: 9, sha256: ID('6'), reason: 'r', until: null }] };
  const log = (ids: string[]): NonNullable<Report['freeze_log']> => ({
    digest: ID('f'),
    lines: ids.length,
    plans: ids.map((id) => ({ plan_id: id, created_at: '2026-09-14T12:00:00Z', ledger_digest: ID('1'), title: 't', anchor_digest: null, published: true })),
    findings: [],
  });

  it('a report before issue 30 (no anchor member): nothing is said; the tokens are still linked', () => {
    const a = planAnchor(entry(undefined), plan, files, null, undefined);
    expect(a).toEqual({ state: null, sentence: null, pinned: null, tokens: [files.published[1], files.published[2]], tokenCount: 2, tokensWithheld: 1, inFreezeLog: null });
  });
  it('anchored before, pinned; after, not pinned; none', () => {
    expect(planAnchor(entry(anchor()), plan, files, { time: '2026-09-15T08:00:02Z' }, null)).toMatchObject({ state: 'before', pinned: PINNED, sentence: expect.stringContaining('before the first attempt at 2026-09-15T08:00:02Z') });
    expect(planAnchor(entry(anchor({ pinned: false, before_first_attempt: false })), plan, files, { time: '2026-09-15T08:00:02Z' }, null)).toMatchObject({ state: 'after', pinned: NOT_PINNED });
    expect(planAnchor(entry(null), plan, files, null, null)).toMatchObject({ state: 'none', pinned: null, sentence: NOT_ANCHORED });
    // An imported run was never frozen: not anchored, it says nothing; anchored, its start stands where the freeze would.
    expect(planAnchor(entry(null), { ...plan, imported: true }, files, null, null)).toMatchObject({ state: 'none', sentence: null });
    expect(planAnchor(entry(anchor()), { created_at: '1970-01-01T00:00:00Z', imported: true }, files, { time: null }, null).sentence).toBe(
      `run started not recorded; anchored by ${AUTHORITY} at 2026-09-14T12:00:05Z, before any attempt: the bundle records none`,
    );
    expect(PINNED).toBe('(a pinned authority)');
    expect(NOT_PINNED).toBe('(an authority this site does not pin)');
  });
  it('the freeze log: listed, not listed, no log (nothing said), an imported plan (never frozen: nothing said)', () => {
    expect(planAnchor(entry(null), plan, files, null, log([ID('a')])).inFreezeLog).toBe(true);
    expect(planAnchor(entry(null), plan, files, null, log([ID('b')])).inFreezeLog).toBe(false);
    expect(planAnchor(entry(null), plan, files, null, null).inFreezeLog).toBeNull();
    expect(planAnchor(entry(null), { ...plan, imported: true }, files, null, log([ID('b')])).inFreezeLog).toBeNull();
  });
  it('token paths: anchors/<name>.tsr only', () => {
    expect(['anchors/a.tsr', 'anchors/x/c.tsr', 'anchors/d.der', 'x/anchors/a.tsr', 'anchors.tsr'].map(isTokenPath)).toEqual([true, false, false, false, false]);
  });
});

describe("the leaderboard's count", () => {
  const bundle = (plan: string, counted: boolean, a: ReturnType<typeof anchor> | null | undefined) => ({ plan_id: ID(plan), counted, ...(a === undefined ? {} : { anchor: a }) }) as unknown as Report['bundles'][number];
  it('counts distinct counted plans, anchored before their first attempt, and the pinned ones', () => {
    const report = { bundles: [bundle('a', true, anchor()), bundle('b', true, anchor({ pinned: false })), bundle('c', true, anchor({ before_first_attempt: false })), bundle('d', true, null), bundle('e', false, anchor())] };
    expect(anchorCount(report)).toEqual({ counted: 4, before: 2, pinned: 1, imported: 0, text: '2 of 4 counted plans anchored before their first attempt, 1 by a pinned authority' });
    expect(anchorCount({ bundles: [bundle('a', true, anchor()), bundle('b', true, anchor())] })!.text).toBe('2 of 2 counted plans anchored before their first attempt, all by a pinned authority');
    expect(anchorCount({ bundles: [bundle('a', true, anchor())] })!.text).toBe('1 of 1 counted plan anchored before their first attempt, by a pinned authority');
    expect(anchorCount({ bundles: [bundle('a', true, null)] })!.text).toBe('0 of 1 counted plan anchored before their first attempt');
    // Imported plans had no freeze: said apart, never counted as unanchored; none but imported: no line.
    const imported = (plan: string) => ({ ...bundle(plan, true, null), plan: { origin: 'imported' } }) as unknown as Report['bundles'][number];
    expect(anchorCount({ bundles: [bundle('a', true, anchor()), imported('i'), imported('j')] })).toEqual({ counted: 1, before: 1, pinned: 1, imported: 2, text: '1 of 1 counted plan anchored before their first attempt, by a pinned authority (and 2 imported plans, which had no freeze to anchor)' });
    expect(anchorCount({ bundles: [imported('i')] })).toBeNull();
  });
  it('says nothing for a report that records no anchors, or counts nothing', () => {
    expect(anchorCount({ bundles: [bundle('a', true, undefined)] })).toBeNull();
    expect(anchorCount({ bundles: [bundle('a', false, anchor())] })).toBeNull();
  });
});

describe('/freeze-log/', () => {
  const plan = (id: string, ledger: string, created_at: string, published: boolean, anchored = false) => ({
    plan_id: ID(id),
    created_at,
    ledger_digest: ID(ledger),
    title: `plan ${id}\u200b`,
    anchor_digest: anchored ? ID('9') : null,
    published,
  });
  it("each ledger's sentence", () => {
    const p = (created_at: string, published: boolean) => ({ created_at, published });
    expect(freezeLedgerText([p('2026-11-01T00:00:00Z', true), p('2026-11-02T23:59:59Z', false), p('2026-11-05T00:00:00Z', false), p('2026-11-02T01:00:00Z', false)])).toBe(
      '4 plans frozen, 1 published, 3 frozen on 2026-11-02 and 2026-11-05 and never published',
    );
    expect(freezeLedgerText([p('2026-11-01T00:00:00Z', true)])).toBe('1 plan frozen, 1 published');
    expect(freezeLedgerText([p('2026-11-01T00:00:00Z', false)])).toBe('1 plan frozen, 0 published, 1 frozen on 2026-11-01 and never published');
    const many = Array.from({ length: 7 }, (_, i) => p(`2026-11-0${i + 1}T00:00:00Z`, false));
    expect(freezeLedgerText(many)).toBe('7 plans frozen, 0 published, 7 frozen on 2026-11-01, 2026-11-02, 2026-11-03, 2026-11-04, 2026-11-05 and 2 other days and never published');
  });
  it('groups by ledger, names each as the site does, links the published plans that have a page', () => {
    const plans = [plan('a', '1', '2026-11-01T00:00:00Z', true), plan('b', '2', '2026-11-02T00:00:00Z', false, true), plan('c', '1', '2026-11-03T00:00:00Z', false), plan('d', '1', '2026-11-04T00:00:00Z', true)];
    const report = {
      freeze_log: { digest: ID('f'), lines: 6, plans, findings: [{ code: 'FREEZE_LOG_REWRITTEN', severity: 'error' as const, file: 'freeze-log.jsonl', message: 'm' }] },
      boards: [{ ledger: { name: 'widget-bugs', digest: ID('1') } }],
      bundles: [],
    } as unknown as Pick<Report, 'freeze_log' | 'boards' | 'bundles'>;
    const log = siteFreezeLog(report, { ['a'.repeat(64)]: 0 })!;
    expect(log).toMatchObject({ digest: ID('f'), lines: 6, frozen: 4, published: 2, unpublished: 2, text: '4 plans frozen, 2 published, 2 never published' });
    expect(log.findings.map((f) => f.code)).toEqual(['FREEZE_LOG_REWRITTEN']);
    expect(log.ledgers.map((l) => [l.ledger_digest, l.name, l.text])).toEqual([
      [ID('1'), 'widget-bugs', '3 plans frozen, 2 published, 1 frozen on 2026-11-03 and never published'],
      [ID('2'), null, '1 plan frozen, 0 published, 1 frozen on 2026-11-02 and never published'],
    ]);
    expect(log.ledgers[0]!.unpublished).toEqual([{ plan_id: ID('c'), created_at: '2026-11-03T00:00:00Z', title: 'plan c⟨U+200B⟩', anchor_digest: null, page: null }]);
    expect(log.ledgers[0]!.publishedPlans.map((p) => p.page)).toEqual([`/plans/${'a'.repeat(64)}/`, null]);
    expect(log.ledgers[1]!.unpublished[0]!.anchor_digest).toBe(ID('9'));
    expect(siteFreezeLog({ ...report, freeze_log: null }, {})).toBeNull();
    expect(siteFreezeLog({ boards: [], bundles: [] } as unknown as Pick<Report, 'freeze_log' | 'boards' | 'bundles'>, {})).toBeNull();
  });
  it('the page exists only on a site whose report carries a log', () => {
    const model = (freezeLog: unknown) =>
      ({ report: { cohorts: [] }, boardOrder: [], compare: {}, tasks: {}, transcripts: [], plans: {}, subjects: { models: [], agents: [] }, retained: [], freezeLog }) as unknown as SiteModel;
    expect(sitePagePaths(model(null))).not.toContain('/freeze-log/');
    expect(sitePagePaths(model({}))).toContain('/freeze-log/');
  });
});

describe('a site model from real bundles', () => {
  let tsa: Tsa;
  beforeAll(() => {
    tsa = makeTsa();
  }, 60_000);
  afterAll(async () => {
    tsa?.remove();
    await removeTempDirs();
  });

  it('the plan page gets the earliest start from the published attempts.jsonl, its token linked, and "not in the freeze log"', async () => {
    const model = validBundle();
    // The earliest start is on the fourth line, with a fraction (compared as instants, not as strings).
    model.attempts[3]!.started_at = '2026-09-15T08:00:01.75Z';
    model.attempts[3]!.ended_at = '2026-09-15T08:00:44Z';
    const first = await writeModel(model);
    const planId = (JSON.parse(await readFile(join(first, 'plan.json'), 'utf8')) as { plan_id: string }).plan_id;
    model.extra.set('anchors/tsa.tsr', tsa.reply(tsa.query(planId.slice('sha256:'.length))).bytes);
    const dir = await writeModel(model);
    const results = await verifyPaths([dir]);
    const config = Config.parse({});
    const built = buildReport(results, config);
    expect(built.bundles[0]!.status).toBe('verified');
    // Until the pipeline emits them (parts V and L of issue 30), the anchor and the log are set here as the report schema declares them.
    const report: Report = {
      ...built,
      bundles: built.bundles.map((b) => ({ ...b, anchor: { gen_time: '2026-09-14T12:00:05Z', authority: AUTHORITY, pinned: false, before_first_attempt: true } })),
      freeze_log: { digest: ID('f'), lines: 1, plans: [{ plan_id: ID('e'), created_at: PLAN_CREATED_AT, ledger_digest: built.bundles[0]!.plan!.ledger.digest, title: 'never published', anchor_digest: null, published: false }], findings: [] },
    };
    const site = await modelOf(report, results, publishedOf(report, results), config);
    const page = planBundle(site, planId.slice(7))!.page!;
    expect(page.anchor.sentence).toBe(`frozen ${PLAN_CREATED_AT}; anchored by ${AUTHORITY} at 2026-09-14T12:00:05Z, before the first attempt at 2026-09-15T08:00:01.75Z`);
    expect(page.anchor.pinned).toBe(NOT_PINNED);
    expect(page.anchor.tokens.map((t) => t.path)).toEqual(['anchors/tsa.tsr']);
    expect(page.anchor.tokens[0]!.url).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
    expect(page.anchor.inFreezeLog).toBe(false);
    expect(site.anchors?.text).toBe('1 of 1 counted plan anchored before their first attempt, 0 by a pinned authority');
    expect(site.freezeLog?.ledgers.map((l) => [l.name, l.text])).toEqual([['widget-bugs', '1 plan frozen, 0 published, 1 frozen on 2026-09-14 and never published']]);
    expect(sitePagePaths(site)).toContain('/freeze-log/');
    // The model is plain data.
    expect(JSON.parse(JSON.stringify(site.freezeLog))).toEqual(site.freezeLog);
  }, 120_000);
});
