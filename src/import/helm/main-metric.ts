/**
 * The main metric of a HELM run, as HELM's own schema names it: a run directory
 * does not say it, but its run_spec.json lists the run groups the run belongs
 * to (`groups`), and HELM's schema files give each run group a main metric and
 * split (`environment.main_name`, `main_split`). main-metrics.generated.ts is
 * that table (generated from stanford-crfm/helm, Apache-2.0: its header names
 * the commits); this module looks a run up in it.
 */
import { compareUtf8 } from '../../json/compare.ts';
import { HELM_MAIN_METRIC_ROWS, HELM_MAIN_METRICS_COMMITS, HELM_MAIN_METRICS_REPO } from './main-metrics.generated.ts';

/** One row of the table: run group, its main metric and split, the schema file and commit it is read from. */
export interface HelmMainMetricRow {
  group: string;
  metric: string;
  /** The main split (`test`, `valid`); null when the schema file leaves it to a placeholder. */
  split: string | null;
  schema: string;
  commit: string;
}

/** The table by run group. A Map (never a plain object): a hostile group name such as "__proto__" or "constructor" is just a key that is absent. */
const BY_GROUP: ReadonlyMap<string, readonly HelmMainMetricRow[]> = (() => {
  const map = new Map<string, HelmMainMetricRow[]>();
  for (const [group, metric, split, schema, commit] of HELM_MAIN_METRIC_ROWS) {
    const list = map.get(group) ?? [];
    list.push({ group, metric, split, schema, commit: HELM_MAIN_METRICS_COMMITS[commit]! });
    map.set(group, list);
  }
  return map;
})();

/** The rows of a run group (empty for a group the table does not hold). */
export function mainMetricRows(group: string): readonly HelmMainMetricRow[] {
  return BY_GROUP.get(group) ?? [];
}

/** A row as NOTES.md and messages name it: group, metric, split, file and commit (fixed words and the table's own names). */
export function describeRow(row: HelmMainMetricRow): string {
  return `run group "${row.group}" has main metric "${row.metric}"${row.split === null ? '' : ` on the ${row.split} split`} in ${HELM_MAIN_METRICS_REPO} ${row.schema} at ${row.commit.slice(0, 12)}`;
}

/** What the table says of a run: the rows of its groups on the split, and which of their metrics the split has. */
export interface MainMetricLookup {
  /** The rows of the run's groups whose split is the imported one (or unnamed), in group order then table order. */
  rows: HelmMainMetricRow[];
  /** The distinct metrics of those rows that the split's stats hold, in byte order. */
  present: string[];
}

/**
 * Looks the run's groups up (run_spec.json `groups`, each at most once; names
 * that are not strings never reach here: the schema refuses them). Only rows
 * of the imported split count: a group whose main split is valid says nothing
 * of a test import.
 */
export function lookupMainMetric(groups: readonly string[], split: string, statNames: ReadonlySet<string>): MainMetricLookup {
  const rows: HelmMainMetricRow[] = [];
  for (const group of [...new Set(groups)]) {
    for (const row of mainMetricRows(group)) if (row.split === null || row.split === split) rows.push(row);
  }
  const present = [...new Set(rows.map((r) => r.metric).filter((m) => statNames.has(m)))].sort(compareUtf8);
  return { rows, present };
}
