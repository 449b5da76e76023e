/** Number and money formatting shared by the CLI and the site. Pure; no locale (the same bytes everywhere). */
import type { ReportCohort } from '../../report/schema.ts';

/** Percent with one decimal, or "-". */
export function percent(rate: number | null): string {
  return rate === null ? '-' : `${(rate * 100).toFixed(1)}%`;
}

/** "[39.2, 73.4]" in percent, or "-". */
export function interval(bounds: readonly [number, number] | null): string {
  return bounds === null ? '-' : `[${(bounds[0] * 100).toFixed(1)}, ${(bounds[1] * 100).toFixed(1)}]`;
}

/** A delta in percentage points with its sign, or "-". */
export function points(delta: number | null): string {
  if (delta === null) return '-';
  const text = (delta * 100).toFixed(1);
  return delta >= 0 ? `+${text}` : text;
}

/** An integer with thin groups of three digits ("1,234,567"), locale-free. */
export function grouped(n: number): string {
  // Under 1,000 there is nothing to group (most numbers a task page writes: a million of them at 10^6 attempts).
  if (n >= 0 && n < 1000) return String(Math.trunc(n));
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.abs(Math.trunc(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** How an amount is cut to cents: to the nearest cent (half up), or down (a lower bound stays a lower bound). */
export type CentRounding = 'nearest' | 'down';

/**
 * Micros (an integer, 10^-6 of a currency unit) as a decimal text with 2
 * decimals ("12.40"), by integer arithmetic only: the whole units and the
 * cents are exact whatever the size (up to 2^53 - 1 and past it as BigInt),
 * never through a binary fraction (1005000 micros is "1.01", never "1.00").
 * 'nearest' rounds half up; 'down' truncates toward zero. Negative values
 * keep their sign. A non-integer (never in a report) is shown as written.
 */
export function units(micros: number, rounding: CentRounding = 'nearest'): string {
  if (!Number.isInteger(micros)) return String(micros);
  const negative = micros < 0;
  const abs = BigInt(Math.abs(micros));
  let cents = abs / 10_000n;
  const rest = abs % 10_000n;
  if (rounding === 'nearest' && rest >= 5_000n) cents += 1n;
  const whole = cents / 100n;
  const frac = String(cents % 100n).padStart(2, '0');
  return `${negative && cents > 0n ? '-' : ''}${whole}.${frac}`;
}

/** Micros as an amount with 2 decimals and its currency ("USD 12.40"), exact (see {@link units}). */
export function amount(micros: number, currency: string | null, rounding: CentRounding = 'nearest'): string {
  return `${currency ?? ''} ${units(micros, rounding)}`.trim();
}

/**
 * Integer micros as an exact decimal amount, with at least two decimals and
 * as many more as the micros need ("40.00", "0.138888", "-1.50"), for where
 * rounding would hide what is compared (a plan's budget share): BigInt
 * arithmetic, exact past 2^53 too.
 */
export function exactUnits(micros: number | bigint | string): string {
  const value = typeof micros === 'bigint' ? micros : BigInt(micros);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${abs / 1_000_000n}.${fraction}`;
}

/** An exact amount with its currency code first ("USD 0.138888"); without a currency, the number alone. */
export function exactAmount(micros: number | bigint | string, currency: string | null): string {
  return currency ? `${currency} ${exactUnits(micros)}` : exactUnits(micros);
}

/**
 * A declared budget in currency units: "USD 0.14 per attempt (138,888
 * micros), 600 s timeout", and with the plan's aggregate "…, USD 40.00 in
 * all". The exact micros stay beside a rounded per-attempt amount.
 */
export function budgetText(budget: { currency: string; per_attempt_micros: number; timeout_seconds?: number | null; aggregate_micros?: number | null }): string {
  const per = amount(budget.per_attempt_micros, budget.currency);
  const exact = budget.per_attempt_micros % 10_000 === 0 ? '' : ` (${grouped(budget.per_attempt_micros)} micros)`;
  const parts = [`${per} per attempt${exact}`];
  if (budget.aggregate_micros !== undefined && budget.aggregate_micros !== null) parts.push(`${amount(budget.aggregate_micros, budget.currency)} in all`);
  if (budget.timeout_seconds !== undefined && budget.timeout_seconds !== null) parts.push(`${grouped(budget.timeout_seconds)} s timeout`);
  return parts.join(', ');
}

/**
 * A cohort's cost, given how many of its attempts have a known cost (the
 * site facts' CohortMoney.known, src/facts/money.ts). A lower bound reads
 * ">= USD 12.40 (3 unavailable)"; a cohort with no known cost at all reads
 * "unavailable (72)" or "not applicable", never 0.
 */
export function moneyText(cost: ReportCohort['cost'], known: number): string {
  if (known === 0) return cost.unavailable > 0 ? `unavailable (${cost.unavailable})` : 'not applicable';
  if (cost.complete) return amount(cost.micros, cost.currency);
  // A lower bound is rounded down: ">= USD 2.13" for 2,138,930 micros, never more than is proven.
  const value = amount(cost.micros, cost.currency, 'down');
  const missing = [cost.unavailable ? `${cost.unavailable} unavailable` : '', cost.partial ? `${cost.partial} partial` : ''].filter(Boolean).join(', ');
  // No attempt missing: a total held at its bound (the cohort's `bounded`).
  return missing ? `>= ${value} (${missing})` : `>= ${value}`;
}

/** Tokens: a sum, or a lower bound with the count of unknowns (none when the total was held at its bound). */
export function tokensText(tokens: ReportCohort['tokens']): string {
  if (tokens.complete) return grouped(tokens.total);
  return tokens.unknown > 0 ? `>= ${grouped(tokens.total)} (${tokens.unknown} unknown)` : `>= ${grouped(tokens.total)}`;
}

/** Seconds as "1h 02m", "12m 05s" or "42.0s". */
export function duration(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  // Past a million hours (114 years) a clock reading means nothing: the order of magnitude, in hours.
  if (seconds >= 3600e6) return `${(seconds / 3600).toExponential(2)}h`;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(rest).padStart(2, '0')}s`;
}

/** A cohort's total wall time, ">= " first when the report held it at its bound (cohort `bounded`). */
export function wallText(cohort: Pick<ReportCohort, 'wall_seconds' | 'bounded'>): string {
  return `${cohort.bounded?.includes('wall_seconds.sum') ? '>= ' : ''}${duration(cohort.wall_seconds.sum)}`;
}

/** A cohort's retries, ">= " first when the report held the sum at its bound (cohort `bounded`). */
export function retriesText(cohort: Pick<ReportCohort, 'retries' | 'bounded'>): string {
  return `${cohort.bounded?.includes('retries') ? '>= ' : ''}${grouped(cohort.retries)}`;
}

/** The 64 hex digits of a digest. */
export function hexOf(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(7) : digest;
}

/** The first 12 hex digits of a digest, for display. */
export function short(digest: string | null): string {
  return digest === null ? '-' : hexOf(digest).slice(0, 12);
}

/**
 * Characters a reader cannot see or that change how the text around them
 * reads: controls (Cc), format characters (Cf: zero-width space and joiners,
 * bidi embeddings, overrides and isolates, the BOM ...), other
 * default-ignorable code points (variation selectors, Hangul fillers ...),
 * line and paragraph separators, every space other than U+0020, and lone
 * surrogates.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

/** The visible marker of one code point: "⟨U+200B⟩". */
function marker(cp: number): string {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** One code point as shown: itself, or its marker when invisible. */
function shown(ch: string): string {
  return INVISIBLE.test(ch) ? marker(ch.codePointAt(0)!) : ch;
}

/** True when `text` holds a character {@link visible} marks. */
export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/**
 * Evidence text with every invisible or format character shown as a marker
 * (`acme/base\u200b` reads "acme/base⟨U+200B⟩"), so two names that look the
 * same are told apart. Plain text: render it through Astro's escaping, never
 * set:html.
 */
export function visible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  let out = '';
  for (const ch of text) out += shown(ch);
  return out;
}

/** How many characters of an identity a page shows before shortening it. */
export const IDENTITY_CHARS = 80;

/** An identity as a page shows it. */
export interface ShownIdentity {
  /** The text to show: visible markers, at most about `max` characters, then "… (N characters)" when shortened. */
  text: string;
  /** True when `text` is not all of the value. */
  shortened: boolean;
  /** Characters (code points) in the value. */
  length: number;
}

/**
 * An identity from evidence (a model, agent, title, grader id ...) as pages
 * show it: invisible characters made visible ({@link visible}) and, past
 * `max` shown characters, cut with "…" and the full length, so a 64 KiB
 * name neither floods a page nor breaks its layout. Cuts between code points.
 */
export function identity(value: string, max: number = IDENTITY_CHARS): ShownIdentity {
  let text = '';
  let length = 0;
  let shownChars = 0;
  let shortened = false;
  for (const ch of value) {
    length++;
    if (shortened) continue;
    const piece = shown(ch);
    // Characters as shown: one for a code point, the marker's length for a marker (all in the BMP).
    const width = piece === ch ? 1 : piece.length;
    if (shownChars + width > max) {
      shortened = true;
      continue;
    }
    text += piece;
    shownChars += width;
  }
  return shortened ? { text: `${text}… (${grouped(length)} characters)`, shortened, length } : { text, shortened, length };
}

/** {@link identity}'s text alone: for attributes, <title> and other plain strings. */
export function shortIdentity(value: string, max: number = IDENTITY_CHARS): string {
  return identity(value, max).text;
}

/**
 * True when an identity looks like a placeholder rather than a name: empty,
 * only whitespace (or invisible characters), or only dots, ellipses, dashes,
 * underscores, question marks or asterisks (`...`, `-`, `???`). Pages show
 * such a value quoted, with a note that the evidence says so, so it does not
 * read as a rendering bug.
 */
export function placeholderLike(value: string): boolean {
  const rest = value.replace(/[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '');
  return rest === '' || /^[.\u2026\-\u2010-\u2015_?*]+$/u.test(rest);
}

/** The rank as shown: the rank range (FORMAT.md 7.6) "lo-hi", or "lo" when it is one place; the rank by rate for a report without ranges. */
export function rankText(c: { rank: number; rank_range?: [number, number] | undefined }): string {
  if (!c.rank_range) return String(c.rank);
  const [lo, hi] = c.rank_range;
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}
