/**
 * The score card (FORMAT.md 11.1): the levels a claim may take, the strongest
 * level each access tier (and, optionally, each origin kind) may reach, and
 * the indicators, computed from a cohort's figures or assessed by people.
 * Strict like the plan: an unknown member, a duplicate name, a threshold list
 * of the wrong length or not non-decreasing, a ceiling that is not a declared
 * level each fail with the member named. Pure: no disk (the config loader
 * reads the file; the report's config carries its RFC 8785 digest).
 *
 * It sits with the evidence schemas (stage 2) because the config loader
 * (stage 4) reads the card strictly; src/claims/scorecard.ts re-exports it
 * beside the Claim shape.
 */
import { z } from 'zod';

/** The figures a computed indicator may read (FORMAT.md 11.2). */
export const FIGURES = ['rate', 'wilson_low', 'beats_baseline', 'stability'] as const;
export type Figure = (typeof FIGURES)[number];

/** The origin kinds a plan may have (FORMAT.md 9; a plan without `origin` is `frozen`): the only kinds a card may cap. */
export const ORIGIN_KINDS = ['frozen', 'imported'] as const;

/**
 * A name as a problem quotes it: a JSON string, with DEL, the C1 controls and
 * the bidi marks and overrides (which JSON leaves as they are) escaped too,
 * so a name never reaches a terminal as anything but visible text.
 */
export function quotedName(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const IndicatorId = z.string().regex(/^[a-z0-9_]{1,64}$/, 'an indicator id is 1 to 64 of a-z, 0-9 and _');
const LevelName = z.string().min(1, 'a level name is not empty');

const Computed = z.strictObject({
  figure: z.enum(FIGURES, { error: `expected one of the figures ${FIGURES.map((f) => JSON.stringify(f)).join(', ')}` }),
  at_least: z.array(z.number()),
});

const ComputedIndicator = z.strictObject({ id: IndicatorId, title: z.string(), computed: Computed });
const AssessedIndicator = z.strictObject({ id: IndicatorId, title: z.string(), assessed: z.literal(true, { error: 'expected true: an assessed indicator says "assessed": true' }) });

/** An indicator: computed or assessed, never both (a problem is named at its member by {@link parseScorecard}). */
const Indicator = z.union([ComputedIndicator, AssessedIndicator]);
export type Indicator = z.infer<typeof Indicator>;

export const Scorecard = z
  .strictObject({
    schema: z.literal('ledgerboard.scorecard.v1'),
    levels: z.array(LevelName).min(2, 'a card declares at least two levels, weakest first'),
    tiers: z.array(z.strictObject({ name: z.string().min(1, 'a tier name is not empty'), ceiling: LevelName })),
    origins: z.array(z.strictObject({ kind: z.enum(ORIGIN_KINDS, { error: `an origin kind is ${ORIGIN_KINDS.map((k) => JSON.stringify(k)).join(' or ')} (FORMAT.md 9)` }), ceiling: LevelName })).optional(),
    indicators: z.array(Indicator),
  })
  .superRefine((card, ctx) => {
    const dup = (values: readonly string[], path: (string | number)[], what: string) => {
      const seen = new Set<string>();
      values.forEach((v, i) => {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [...path, i], message: `${what} ${quotedName(v)} is declared twice` });
        seen.add(v);
      });
    };
    dup(card.levels, ['levels'], 'level');
    dup(card.tiers.map((t) => t.name), ['tiers'], 'tier');
    dup((card.origins ?? []).map((o) => o.kind), ['origins'], 'origin kind');
    dup(card.indicators.map((i) => i.id), ['indicators'], 'indicator id');
    const levels = new Set(card.levels);
    card.tiers.forEach((t, i) => {
      if (!levels.has(t.ceiling)) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'ceiling'], message: `ceiling ${quotedName(t.ceiling)} is not a declared level` });
    });
    (card.origins ?? []).forEach((o, i) => {
      if (!levels.has(o.ceiling)) ctx.addIssue({ code: 'custom', path: ['origins', i, 'ceiling'], message: `ceiling ${quotedName(o.ceiling)} is not a declared level` });
    });
    card.indicators.forEach((indicator, i) => {
      if (!('computed' in indicator)) return;
      const t = indicator.computed.at_least;
      if (t.length !== card.levels.length - 1) {
        ctx.addIssue({ code: 'custom', path: ['indicators', i, 'computed', 'at_least'], message: `at_least holds ${t.length} number${t.length === 1 ? '' : 's'}; the card's ${card.levels.length} levels need exactly ${card.levels.length - 1}` });
      }
      for (let k = 1; k < t.length; k++) {
        if (t[k]! < t[k - 1]!) ctx.addIssue({ code: 'custom', path: ['indicators', i, 'computed', 'at_least', k], message: 'at_least must be non-decreasing' });
      }
    });
  });
export type Scorecard = z.infer<typeof Scorecard>;

/** A JSON path as the config's problems print it: `indicators[2].computed.at_least`. */
function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${quotedName(String(key))}]`;
  }
  return out;
}

/** The value at a path of a parsed JSON value, or undefined. */
function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const part of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

/** One problem line per zod issue, each naming the card's member; an indicator that matches neither shape is judged by the member it has. */
function problemsOf(issues: readonly z.core.$ZodIssue[], value: unknown, prefix: readonly PropertyKey[] = []): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const indicator = at(value, path);
      const object = indicator !== null && typeof indicator === 'object' && !Array.isArray(indicator) ? indicator : null;
      const computed = object !== null && Object.hasOwn(object, 'computed');
      const assessed = object !== null && Object.hasOwn(object, 'assessed');
      if (computed && assessed) out.push(`${pathText(path)}: an indicator is computed or assessed, never both`);
      else if (computed || assessed) out.push(...problemsOf(issue.errors[computed ? 0 : 1] ?? [], value, path));
      else out.push(`${pathText(path)}: expected an indicator { "id", "title", "computed": { "figure", "at_least" } } or { "id", "title", "assessed": true }`);
      continue;
    }
    if (issue.code === 'unrecognized_keys') out.push(`${pathText(path)}: unknown member${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => quotedName(k)).join(', ')}`);
    else out.push(`${pathText(path)}: ${issue.message}`);
  }
  return out;
}

/** A parsed JSON value checked as a score card: the card, or every problem, each naming its member. */
export function parseScorecard(value: unknown): { ok: true; card: Scorecard } | { ok: false; problems: string[] } {
  const result = Scorecard.safeParse(value);
  return result.success ? { ok: true, card: result.data } : { ok: false, problems: problemsOf(result.error.issues, value) };
}
