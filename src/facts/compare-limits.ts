/**
 * How many compare pages a board gets (FORMAT.md 7.6): the facts compute
 * them (facts/compare.ts), the pages say them (site/compare-paths.ts
 * re-exports these). No imports: a page's helper takes the numbers without
 * the analysis code.
 */

/** Beyond the cap, each cohort's pages go to this many nearest neighbours by rank (the nearer above first on a tie of distance). */
export const COMPARE_NEIGHBOURS = 5;
/** The default of the config's compare_max_cohorts. */
export const COMPARE_MAX_COHORTS = 50;
