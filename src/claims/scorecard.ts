/**
 * The score card (FORMAT.md 11.1): the levels a claim may take, the strongest
 * level each access tier (and, optionally, each origin kind) may reach, and
 * the indicators, computed from a cohort's figures or assessed by people.
 * Strict like the plan: an unknown member, a duplicate name, a threshold list
 * of the wrong length or not non-decreasing, a ceiling that is not a declared
 * level each fail with the member named. Pure: no disk (the config loader
 * reads the file; the report's config carries its RFC 8785 digest).
 */
import { z } from 'zod';

/** The figures a computed indicator may read (FORMAT.md 11.2). */
export const FIGURES = ['rate', 'wilson_low', 'beats_baseline', 'stability'] as const;
export type Figure = (typeof FIGURES)[number];

const IndicatorId = z.string().regex(/^[a-z0-9_]{1,64}$/, 'an indicator id is 1 to 64 of a-z, 0-9 and _');
const LevelName = z.string().min(1);

const Computed = z.strictObject({
  figure: z.enum(FIGURES),
  at_least: z.array(z.number()),
});

const Indicator = z.union([
  z.strictObject({ id: IndicatorId, title: z.string(), computed: Computed }),
  z.strictObject({ id: IndicatorId, title: z.string(), assessed: z.literal(true) }),
]);
export type Indicator = z.infer<typeof Indicator>;

export const Scorecard = z
  .strictObject({
    schema: z.literal('ledgerboard.scorecard.v1'),
    levels: z.array(LevelName).min(2),
    tiers: z.array(z.strictObject({ name: z.string().min(1), ceiling: LevelName })),
    origins: z.array(z.strictObject({ kind: z.string().min(1), ceiling: LevelName })).optional(),
    indicators: z.array(Indicator),
  })
  .superRefine((card, ctx) => {
    const dup = (values: readonly string[], path: (string | number)[], what: string) => {
      const seen = new Set<string>();
      values.forEach((v, i) => {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [...path, i], message: `${what} ${JSON.stringify(v)} is declared twice` });
        seen.add(v);
      });
    };
    dup(card.levels, ['levels'], 'level');
    dup(card.tiers.map((t) => t.name), ['tiers'], 'tier');
    dup((card.origins ?? []).map((o) => o.kind), ['origins'], 'origin kind');
    dup(card.indicators.map((i) => i.id), ['indicators'], 'indicator id');
    const levels = new Set(card.levels);
    card.tiers.forEach((t, i) => {
      if (!levels.has(t.ceiling)) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'ceiling'], message: `ceiling ${JSON.stringify(t.ceiling)} is not a declared level` });
    });
    (card.origins ?? []).forEach((o, i) => {
      if (!levels.has(o.ceiling)) ctx.addIssue({ code: 'custom', path: ['origins', i, 'ceiling'], message: `ceiling ${JSON.stringify(o.ceiling)} is not a declared level` });
    });
    card.indicators.forEach((indicator, i) => {
      if (!('computed' in indicator)) return;
      const t = indicator.computed.at_least;
      if (t.length !== card.levels.length - 1) {
        ctx.addIssue({ code: 'custom', path: ['indicators', i, 'computed', 'at_least'], message: `at_least holds ${t.length} numbers; the card's ${card.levels.length} levels need exactly ${card.levels.length - 1}` });
      }
      for (let k = 1; k < t.length; k++) {
        if (t[k]! < t[k - 1]!) ctx.addIssue({ code: 'custom', path: ['indicators', i, 'computed', 'at_least', k], message: 'at_least must be non-decreasing' });
      }
    });
  });
export type Scorecard = z.infer<typeof Scorecard>;

/** One claim of a cohort (FORMAT.md 11.3), in the card's indicator order. */
export interface Claim {
  indicator: string;
  /** The claimed level: the weaker of `uncapped` and `ceiling`. */
  level: string;
  /** The indicator's own level (11.2). */
  uncapped: string;
  /** The cohort's ceiling (11.3). */
  ceiling: string;
  reason: string | null;
}
