/**
 * A task page shows this many attempts of a cohort in full (the first, in
 * attempt order); the rest are an outcome strip and their lines in the
 * published attempts.jsonl (docs/site.md "Task pages"). Apart from
 * attempt-index.ts so a page can read it without the analysis.
 */
export const DETAIL_ROWS = 10;
