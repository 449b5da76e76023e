/**
 * The in-browser re-derivation's size limit (issue 24, item 3; docs/site.md,
 * "Re-deriving in the browser"; the measurement in docs/benchmarks.md, (m)):
 * up to this many bytes of published evidence, /verify/ re-derives the whole
 * report in a Web Worker; above it, the reader chooses boards and only their
 * ledgers' evidence is fetched and re-derived (the rest is listed as not
 * re-derived). One constant, read by the page and cited by the docs.
 */

/** 50 MiB: the published evidence (distinct blobs) /verify/ re-derives in full in the browser. */
export const REDERIVE_IN_BROWSER_MAX_BYTES = 50 * 1024 * 1024;

/** What the in-browser re-derivation fetches and hashes, from what the build publishes. */
export interface SiteEvidenceSize {
  /** Bytes of every distinct published blob (withheld files are not published: not counted). */
  bytes: number;
  /** How many distinct blobs. */
  files: number;
  /** By ledger digest: the bytes of the distinct blobs of the bundles whose plan pins that ledger (a blob two ledgers share counts in both). */
  byLedger: Record<string, number>;
}

/** The evidence size of a site: the published files of every bundle (each entry's plan ledger, or none). */
export function evidenceSize(bundles: readonly { ledger: string | null; files: readonly { sha256: string; bytes: number }[] }[]): SiteEvidenceSize {
  const all = new Map<string, number>();
  const perLedger = new Map<string, Map<string, number>>();
  for (const bundle of bundles) {
    let mine = bundle.ledger === null ? null : perLedger.get(bundle.ledger);
    if (bundle.ledger !== null && mine === undefined) perLedger.set(bundle.ledger, (mine = new Map()));
    for (const f of bundle.files) {
      all.set(f.sha256, f.bytes);
      mine?.set(f.sha256, f.bytes);
    }
  }
  const sum = (m: Map<string, number>): number => [...m.values()].reduce((n, b) => n + b, 0);
  return {
    bytes: sum(all),
    files: all.size,
    byLedger: Object.fromEntries([...perLedger].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ledger, m]) => [ledger, sum(m)])),
  };
}

/** A size as the page states it: "812 KiB", "9.3 MiB", "1.2 GiB" (binary units, one decimal below 10). */
export function sizeText(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
