/** Number and money formatting shared by the CLI and the site. Pure; no locale (the same bytes everywhere). */
import type { ReportCohort } from '../report/schema.ts';

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
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.abs(Math.trunc(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Micros as an amount with 2 decimals and its currency ("USD 12.40"). */
export function amount(micros: number, currency: string | null): string {
  return `${currency ?? ''} ${(micros / 1e6).toFixed(2)}`.trim();
}

/**
 * A cohort's cost. A lower bound reads ">= USD 12.40 (3 unavailable)"; a
 * cohort with no known cost at all reads "unavailable (72)" or "not
 * applicable", never 0.
 */
export function moneyText(cost: ReportCohort['cost'], attempts: number): string {
  const known = attempts - cost.unavailable - cost.not_applicable;
  if (known === 0) return cost.unavailable > 0 ? `unavailable (${cost.unavailable})` : 'not applicable';
  const value = amount(cost.micros, cost.currency);
  if (cost.complete) return value;
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
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(rest).padStart(2, '0')}s`;
}

/** The 64 hex digits of a digest. */
export function hexOf(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(7) : digest;
}

/** The first 12 hex digits of a digest, for display. */
export function short(digest: string | null): string {
  return digest === null ? '-' : hexOf(digest).slice(0, 12);
}
