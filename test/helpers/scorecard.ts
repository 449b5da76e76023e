/**
 * The score card the claims tests share (FORMAT.md 11.1's example): its
 * levels, tier ceilings and origin ceiling; each test gives its indicators.
 */
/**
 * FORMAT.md 11.1's example card with the given indicators, as plain data (not
 * typed as a Scorecard: tests break it on purpose; one that needs the type
 * annotates its constant).
 */
export function exampleCard<T>(indicators: T[]) {
  return {
    schema: 'ledgerboard.scorecard.v1',
    levels: ['not_supported', 'indicative', 'supported', 'strong'],
    tiers: [
      { name: 'black_box', ceiling: 'supported' },
      { name: 'grey_box', ceiling: 'strong' },
    ],
    origins: [{ kind: 'imported', ceiling: 'indicative' }],
    indicators,
  };
}
