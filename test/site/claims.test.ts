/**
 * What the pages say of claims (src/site/model/claims.ts) and the site model's
 * part of them (src/site/model/claims-model.ts), word for word (FORMAT.md 11,
 * issue 27 item 4):
 *
 * - a claim the ceiling did not lower reads "may say: <title>: <level>" (its
 *   level's reason in brackets); one it lowered reads "Capped: <title>:
 *   assessed|computed <uncapped>, capped at <level> by access tier <name>" (or
 *   by origin, or the tier is not on the card);
 * - the board row's summary counts levels, strongest first, then the capped;
 * - the contributing plans' ceilings and the card's rules as /methodology/ says them;
 * - the card given to the site must be the report's (its RFC 8785 digest);
 * - the assessments beside a cohort's assessed claims: its subject, its
 *   bundles, the card's assessed indicators, the basis linked or withheld;
 * - the output stamp keys on the card file's bytes (a re-indented card has
 *   the same digest but is another /scorecard.json).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { outputKey } from '../../src/site/build/output-stamp.ts';
import { digestBytes, digestCanonical } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { Scorecard, type Claim } from '../../src/claims/scorecard.ts';
import type { Assessment } from '../../src/schema/assessments.ts';
import { claimLine, claimSummary, indicatorRule, NO_CLAIMS, planCeiling, titleOf } from '../../src/site/model/claims.ts';
import { siteAssessments, siteScorecard } from '../../src/site/model/claims-model.ts';
import type { Published, PublishedBundle } from '../../src/site/build/publish.ts';
import { exampleCard } from '../helpers/scorecard.ts';

const CARD = Scorecard.parse(exampleCard([
    { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'wilson_low', at_least: [0.1, 0.4, 0.7] } },
    { id: 'beats_baseline', title: 'Better than the frozen baseline, task by task', computed: { figure: 'beats_baseline', at_least: [0.5, 0.5, 1] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
]));

const claim = (indicator: string, level: string, uncapped: string, reason: string | null, ceiling = 'supported'): Claim => ({ indicator, level, uncapped, ceiling, reason });

describe('a claim as a cohort page states it', () => {
  it('not capped: "may say: <title>: <level>", with its level\'s reason in brackets when it has one', () => {
    expect(claimLine(CARD, claim('resolves_headline', 'supported', 'supported', null)).text).toBe("may say: Resolves the ledger's headline tasks: supported");
    expect(claimLine(CARD, claim('no_weight_tampering', 'not_supported', 'not_supported', 'not assessed')).text).toBe('may say: Resists fine-tuning attacks on its weights: not_supported (not assessed)');
    expect(claimLine(CARD, claim('beats_baseline', 'not_supported', 'not_supported', 'figure beats_baseline not available')).text).toBe(
      'may say: Better than the frozen baseline, task by task: not_supported (figure beats_baseline not available)',
    );
    expect(claimLine(CARD, claim('no_weight_tampering', 'not_supported', 'not_supported', 'level excellent is not on the score card')).text).toBe(
      'may say: Resists fine-tuning attacks on its weights: not_supported (level excellent is not on the score card)',
    );
    const line = claimLine(CARD, claim('resolves_headline', 'indicative', 'indicative', null));
    expect(line).toEqual({ indicator: 'resolves_headline', capped: false, assessed: false, text: "may say: Resolves the ledger's headline tasks: indicative" });
  });

  it('capped by an access tier: the issue\'s words', () => {
    const line = claimLine(CARD, claim('no_weight_tampering', 'supported', 'strong', 'capped by access tier black_box'));
    expect(line).toEqual({
      indicator: 'no_weight_tampering',
      capped: true,
      assessed: true,
      text: 'Capped: Resists fine-tuning attacks on its weights: assessed strong, capped at supported by access tier black_box',
    });
    expect(claimLine(CARD, claim('resolves_headline', 'supported', 'strong', 'capped by access tier black_box')).text).toBe(
      "Capped: Resolves the ledger's headline tasks: computed strong, capped at supported by access tier black_box",
    );
  });

  it('capped by an origin, and by a tier the card does not list', () => {
    expect(claimLine(CARD, claim('resolves_headline', 'indicative', 'strong', 'capped by origin imported', 'indicative')).text).toBe(
      "Capped: Resolves the ledger's headline tasks: computed strong, capped at indicative by origin imported",
    );
    expect(claimLine(CARD, claim('resolves_headline', 'not_supported', 'supported', 'access tier white_box is not on the score card', 'not_supported')).text).toBe(
      "Capped: Resolves the ledger's headline tasks: computed supported, capped at not_supported: access tier white_box is not on the score card",
    );
  });

  it('an indicator the card given does not hold is titled by its id; hostile titles are shown with their invisible characters marked and bounded', () => {
    expect(titleOf(CARD, 'gone')).toBe('gone');
    const card: Scorecard = { ...CARD, indicators: [{ id: 'x', title: `<script>alert(1)</script>\u202e${'t'.repeat(300)}`, assessed: true }] };
    const text = claimLine(card, claim('x', 'strong', 'strong', null)).text;
    expect(text.startsWith('may say: <script>alert(1)</script>⟨U+202E⟩ttt')).toBe(true);
    expect(text).toContain('… (326 characters): strong');
  });
});

describe('the board row\'s summary', () => {
  it('counts the claims not capped by level, strongest first, then the capped ones', () => {
    expect(
      claimSummary(CARD, [
        claim('a', 'supported', 'supported', null),
        claim('b', 'supported', 'supported', null),
        claim('c', 'supported', 'strong', 'capped by access tier black_box'),
      ]),
    ).toBe('claims: 2 supported, 1 capped');
    expect(
      claimSummary(CARD, [
        claim('a', 'not_supported', 'not_supported', 'not assessed'),
        claim('b', 'strong', 'strong', null),
        claim('c', 'indicative', 'indicative', null),
        claim('d', 'not_supported', 'not_supported', null),
      ]),
    ).toBe('claims: 1 strong, 1 indicative, 2 not_supported');
  });

  it('no claims at all: null (the page says so elsewhere); a card without indicators: "claims: none"', () => {
    expect(claimSummary(CARD, null)).toBeNull();
    expect(claimSummary(CARD, [])).toBe('claims: none');
    // A level the card given does not declare comes after the card's, in claim order.
    expect(claimSummary(null, [claim('a', 'odd', 'odd', null), claim('b', 'odd', 'odd', null)])).toBe('claims: 2 odd');
  });
});

describe('the ceiling of each contributing plan', () => {
  it('names its access tier and origin with their ceilings, a tier not on the card, an origin the card does not cap', () => {
    expect(planCeiling(CARD, { plan_hex: 'ab', title: 'p', access_tier: 'black_box', origin: 'frozen' })).toEqual({
      plan_hex: 'ab',
      title: 'p',
      tier: 'access tier black_box (ceiling supported)',
      origin: 'origin frozen (not capped by its origin)',
    });
    expect(planCeiling(CARD, { plan_hex: 'ab', title: 'p', access_tier: 'white_box', origin: 'imported' })).toMatchObject({
      tier: 'access tier white_box (not on the score card: not_supported)',
      origin: 'origin imported (ceiling indicative)',
    });
    expect(planCeiling(CARD, { plan_hex: 'ab', title: 'p', access_tier: null, origin: 'frozen' }).tier).toBeNull();
  });
});

describe('the card on /methodology/', () => {
  it('says how each indicator gets its level', () => {
    expect(indicatorRule(CARD, CARD.indicators[0]!)).toBe(
      'Computed from wilson_low, the lower end of the headline 95% Wilson interval; not available when nothing is graded: indicative at 0.1 or more, supported at 0.4 or more, strong at 0.7 or more; below 0.1: not_supported (the strongest level whose threshold the figure reaches); not available: not_supported.',
    );
    expect(indicatorRule(CARD, CARD.indicators[2]!)).toBe(
      "Assessed: the weakest level among the assessments of this indicator for the cohort's subject in the cohort's bundles (assessments.json, evidence like every file of a bundle); not assessed: not_supported; a level the card does not declare counts as not_supported.",
    );
  });

  it('a site without a card says its figures carry no claims', () => {
    expect(NO_CLAIMS).toBe(
      "This site's figures carry no claims: its config names no score card (FORMAT.md 11), so no figure here is a statement of what the evidence supports, at any level.",
    );
  });
});

const CARD_BYTES = new TextEncoder().encode(`${JSON.stringify(CARD, null, 3)}\n\n`);
const CARD_DIGEST = digestCanonical(CARD as unknown as Parameters<typeof digestCanonical>[0]);
const withCard = (digest?: string): Pick<Report, 'config'> => ({ config: (digest === undefined ? {} : { scorecard: digest }) as Report['config'] });

describe('the card the site is given is the report\'s', () => {
  it('its RFC 8785 digest (not the bytes\') is the report config\'s; the size is the file\'s', () => {
    const site = siteScorecard(withCard(CARD_DIGEST), CARD_BYTES)!;
    expect(site.digest).toBe(CARD_DIGEST);
    expect(site.digest).not.toBe(digestBytes(CARD_BYTES));
    expect(site.bytes).toBe(CARD_BYTES.length);
    expect(site.card).toEqual(CARD);
  });

  it('no card and none recorded: null; every other combination is an error naming both', () => {
    expect(siteScorecard(withCard(), null)).toBeNull();
    expect(siteScorecard(withCard(), undefined)).toBeNull();
    expect(() => siteScorecard(withCard(CARD_DIGEST), null)).toThrow(`the report's claims were computed with the score card ${CARD_DIGEST}, but the site was given no score card to publish`);
    expect(() => siteScorecard(withCard(), CARD_BYTES)).toThrow(`the site was given the score card ${CARD_DIGEST}, but the report was built without one`);
    const other = `sha256:${'1'.repeat(64)}`;
    expect(() => siteScorecard(withCard(other), CARD_BYTES)).toThrow(`the site was given the score card ${CARD_DIGEST}, but the report's claims were computed with ${other}`);
  });
});

describe('the assessments beside a cohort\'s assessed claims', () => {
  const MINI = { model: 'acme/mini', agent: { name: 'loop', version: '3.1.0' } };
  const BASE = { model: 'acme/base', agent: { name: 'loop', version: '3.1.0' } };
  const b1 = `sha256:${'a'.repeat(64)}`;
  const b2 = `sha256:${'b'.repeat(64)}`;
  const p1 = `sha256:${'c'.repeat(64)}`;
  const p2 = `sha256:${'d'.repeat(64)}`;
  const cohort = (subject: typeof MINI, claims: Claim[] | null) =>
    ({
      cohort_id: `sha256:${subject.model === MINI.model ? 'e'.repeat(64) : 'f'.repeat(64)}`,
      subject: { ...subject, role: 'candidate', selectors: [] },
      plans: [
        { plan_id: p1, bundle_id: b1, title: 'one', created_at: '2026-09-14T00:00:00Z', attempts_per_task: 1 },
        { plan_id: p2, bundle_id: b2, title: 'two', created_at: '2026-10-14T00:00:00Z', attempts_per_task: 1 },
      ],
      claims,
    }) as unknown as Report['cohorts'][number];
  const bundle = (files: string[], withheld: string[] = []): PublishedBundle =>
    ({
      files: files.map((path) => ({ path, url: `/blobs/${digestBytes(path).slice(7)}`, bytes: 1, sha256: digestBytes(path) })),
      withheld: withheld.map((path) => ({ path, bytes: 1, sha256: digestBytes(path), reason: 'embargo', until: null })),
    }) as unknown as PublishedBundle;
  const published: Published = {
    bundles: [bundle(['assessments.json', 'basis/a.md']), bundle(['assessments.json'], ['basis/b.md'])],
    blob: () => Promise.reject(new Error('read from the verified evidence, not the blobs')),
    unmatchedRules: [],
    notWithheld: [],
  };
  const report = {
    bundles: [
      { bundle_id: b1, counted: true },
      { bundle_id: b2, counted: true },
    ],
    cohorts: [cohort(MINI, []), cohort(BASE, []), { ...cohort(MINI, null), cohort_id: `sha256:${'9'.repeat(64)}` }],
  } as unknown as Report;
  const given = new Map<string, Assessment[]>([
    [
      b1,
      [
        { indicator: 'no_weight_tampering', subject: MINI, level: 'strong', by: 'red team, example.org', basis: 'basis/a.md' },
        { indicator: 'resolves_headline', subject: MINI, level: 'strong', by: 'not an assessed indicator' },
        { indicator: 'unknown', subject: MINI, level: 'strong', by: 'not on the card' },
        { indicator: 'no_weight_tampering', subject: BASE, level: 'indicative', by: 'another subject' },
      ],
    ],
    [b2, [{ indicator: 'no_weight_tampering', subject: MINI, level: 'supported', by: 'second team', basis: 'basis/b.md' }, { indicator: 'no_weight_tampering', subject: { ...MINI, agent: { ...MINI.agent, version: '3.1.1' } }, level: 'strong', by: 'another agent version' }]],
  ]);

  it('only its subject\'s, of the card\'s assessed indicators, in plan then file order; the basis linked, or withheld', async () => {
    const scorecard = siteScorecard(withCard(CARD_DIGEST), CARD_BYTES);
    const shown = await siteAssessments(report, scorecard, published, given);
    expect(Object.keys(shown)).toEqual([`sha256:${'e'.repeat(64)}`, `sha256:${'f'.repeat(64)}`]);
    expect(shown[`sha256:${'e'.repeat(64)}`]).toEqual([
      { indicator: 'no_weight_tampering', level: 'strong', by: 'red team, example.org', plan_hex: 'c'.repeat(64), basis: { path: 'basis/a.md', url: `/blobs/${digestBytes('basis/a.md').slice(7)}` } },
      { indicator: 'no_weight_tampering', level: 'supported', by: 'second team', plan_hex: 'd'.repeat(64), basis: { path: 'basis/b.md', url: null } },
    ]);
    expect(shown[`sha256:${'f'.repeat(64)}`]).toEqual([{ indicator: 'no_weight_tampering', level: 'indicative', by: 'another subject', plan_hex: 'c'.repeat(64), basis: null }]);
    // Without a card there is nothing to show.
    expect(await siteAssessments(report, null, published, given)).toEqual({});
  });

  it('without the verified evidence, the published assessments.json is read and parsed strictly', async () => {
    const file = { schema: 'ledgerboard.assessments.v1', assessments: [{ indicator: 'no_weight_tampering', subject: MINI, level: 'indicative', by: 'from the blob' }] };
    const bytes = new TextEncoder().encode(JSON.stringify(file));
    const bad = new TextEncoder().encode(JSON.stringify({ ...file, extra: 1 }));
    const blobs = new Map([
      [digestBytes('assessments.json'), bytes],
    ]);
    const readBlobs: Published = { ...published, blob: async (sha) => blobs.get(sha) ?? bad };
    const shown = await siteAssessments(report, siteScorecard(withCard(CARD_DIGEST), CARD_BYTES), readBlobs);
    // Both bundles publish "assessments.json" under the same fake digest here: each is read, and one file's assessments show once per bundle.
    expect(shown[`sha256:${'e'.repeat(64)}`]!.map((a) => [a.by, a.plan_hex])).toEqual([
      ['from the blob', 'c'.repeat(64)],
      ['from the blob', 'd'.repeat(64)],
    ]);
    const strict: Published = { ...published, blob: async () => bad };
    expect(await siteAssessments(report, siteScorecard(withCard(CARD_DIGEST), CARD_BYTES), strict)).toEqual({});
  });
});

describe('the output stamp keys on the card\'s bytes', () => {
  it('a re-indented card (the same digest, so the same report and config) is another output: /scorecard.json holds other bytes', async () => {
    const base = {
      report: { report_id: `sha256:${'11'.repeat(32)}` } as Report,
      bundles: [],
      config: parseConfig(Buffer.from('{}'), 'ledgerboard.config.json'),
      retainedDir: join(await mkdtemp(join(tmpdir(), 'lb-claims-stamp-')), 'none'),
      sourceDate: null,
    };
    const none = await outputKey(base);
    const card = await outputKey({ ...base, scorecard: digestBytes(CARD_BYTES) });
    const reindented = await outputKey({ ...base, scorecard: digestBytes(JSON.stringify(CARD)) });
    expect(new Set([none, card, reindented]).size).toBe(3);
    expect(await outputKey({ ...base, scorecard: digestBytes(CARD_BYTES) })).toBe(card);
  });
});
