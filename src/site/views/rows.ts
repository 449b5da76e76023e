/**
 * Pages list at most a bounded number of rows of anything evidence can make
 * long (files, findings, changed files); the rest is counted on the page and
 * is in a downloadable file (report.json, a bundle's files.json or
 * manifest.json). Rendering stays linear in what is listed.
 */

/** The most rows of one list a page shows. */
export const MAX_ROWS = 1000;

/** The first `max` items and how many more there are. */
export function firstRows<T>(items: readonly T[], max: number = MAX_ROWS): { shown: readonly T[]; more: number } {
  return items.length <= max ? { shown: items, more: 0 } : { shown: items.slice(0, max), more: items.length - max };
}

/**
 * The first `max` items of a list the site model holds in part (its first
 * MAX_ROWS items, beside its full length `total`), and how many more there are.
 */
export function firstOf<T>(items: readonly T[], total: number, max: number = MAX_ROWS): { shown: readonly T[]; more: number } {
  const shown = items.length <= max ? items : items.slice(0, max);
  return { shown, more: total - shown.length };
}

/** On /rejected/, which lists every rejected bundle: the most files and findings shown per bundle. */
export const REJECTED_ROWS = 100;

/*
 * Task pages list at most DETAIL_ROWS (10) attempts of a cohort in full
 * (src/facts/attempt-index.ts): the rest are an outcome strip and their
 * lines in the published attempts.jsonl (src/site/model/attempt-rows.ts).
 */
