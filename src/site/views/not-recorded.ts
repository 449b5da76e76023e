/**
 * A time an imported source did not record (issue 26): the HELM and SWE-bench
 * importers write the Unix epoch (HELM's NOT_RECORDED_TIME, SWE-bench's
 * UNKNOWN_START, 1970-01-01T00:00:00Z) into the plan, ledger, grades and
 * attempts, so the bundle stays deterministic. No imported run started
 * then: wherever a page shows such a time it says "not recorded".
 */

/** The importers' placeholder for a time the source did not record. */
export const NOT_RECORDED_TIME = '1970-01-01T00:00:00Z';

export const NOT_RECORDED = 'not recorded';

/** An imported run's (or its ledger's, or its grades') time as the pages show it: "not recorded" for the placeholder. */
export function importedTime(at: string, imported: boolean): string {
  return imported && Date.parse(at) === 0 ? NOT_RECORDED : at;
}
