/**
 * Why imports of one source benchmark from one format sit on different
 * boards, or in different cohorts of one board (issue 26: HELM gives some
 * providers other instructions, so their runs' ledgers differ): the format's
 * importer names the key components of the source's own run configuration
 * that differ (the read side's configurationDifferences, src/import/sources.ts),
 * read from each bundle's originals as published, within the report's import
 * limits (originals.ts). A format without the function says nothing here, nor
 * does a pair one of whose sources cannot be read (withheld, past a limit,
 * not the format: the plan page says why); a bug fails the build. Bounded: at most
 * SPLIT_UNITS boards (and cohorts of one board) per benchmark are compared.
 */
import type { ImportLimits } from '../../import/limits.ts';
import type { ImportedSource } from '../../import/sources.ts';
import type { Report } from '../../report/schema.ts';
import { hexOf } from '../views/format.ts';
import type { SiteBundle, SiteSplit } from './model-types.ts';

export type { SiteSplit } from './model-types.ts';
import type { Published } from './published.ts';
import { siteSource } from './originals.ts';

/** The most boards, and cohorts of one board, compared per benchmark (each a read of its originals). */
export const SPLIT_UNITS = 8;
const MAX_NAMES = 10;
const NAME_CHARS = 80;

interface Unit {
  board_id: string;
  cohort_id: string;
  bundle: SiteBundle;
  source: ImportedSource;
}

/** The text of one split, from the components that differ. */
export function splitText(differences: readonly string[], label: string): string {
  if (differences.length === 0) return `none of the run configuration components the ${label} import compares differ (the boards' keys differ: see the compatibility key)`;
  return `the runs' ${differences.join(', ')} differ`;
}

/**
 * Per board id, the splits its page states: for each other board holding an
 * import of the same benchmark (origin format and ledger name) from the same
 * format, and for each other cohort of the board when the configurations
 * differ, what differs.
 */
export async function importSplits(report: Report, bundles: readonly SiteBundle[], plans: Record<string, number>, published: Published, limits: ImportLimits): Promise<Record<string, SiteSplit[]>> {
  // The imported bundles each cohort pools (the bundle its plan page shows), grouped by format and benchmark.
  const groups = new Map<string, { label: string; units: Unit[] }>();
  // Each original read once for all the pairs it is in (as many as SPLIT_UNITS boards and cohorts compare).
  const kept = new Map<string, Promise<Uint8Array>>();
  const blobs = { blob: (sha256: string) => kept.get(sha256) ?? kept.set(sha256, published.blob(sha256)).get(sha256)! };
  for (const cohort of report.cohorts) {
    for (const p of cohort.plans) {
      const i = plans[hexOf(p.plan_id)];
      const bundle = i === undefined ? undefined : bundles[i];
      const page = bundle?.page;
      if (bundle === undefined || page === null || page === undefined || page.imported === null || !bundle.counted) continue;
      const source = siteSource({ format: page.imported.format }, published.bundles[bundle.report]!, blobs, limits);
      if (source.label === null || !source.comparesConfigurations) continue;
      const key = `${page.imported.format}\u0000${page.plan.ledger.name}`;
      const group = groups.get(key) ?? { label: source.label, units: [] };
      groups.set(key, group);
      // One unit per cohort (its first imported plan).
      if (!group.units.some((u) => u.cohort_id === cohort.cohort_id)) group.units.push({ board_id: cohort.board_id, cohort_id: cohort.cohort_id, bundle, source });
    }
  }
  const out: Record<string, SiteSplit[]> = {};
  const add = (board: string, split: SiteSplit) => (out[board] ??= []).push(split);
  for (const { label, units } of groups.values()) {
    if (units.length < 2) continue;
    // Null: one of the two sources cannot be read (nothing is said of the pair).
    const differences = async (a: Unit, b: Unit): Promise<string[] | null> => {
      const read = await a.source.configurationDifferences(b.source);
      if (!read.ok) return null;
      return read.value.slice(0, MAX_NAMES).map((n) => (n.length > NAME_CHARS ? `${n.slice(0, NAME_CHARS)}…` : n));
    };
    // Boards: the first unit of each board stands for it.
    const firsts = units.filter((u, i) => units.findIndex((v) => v.board_id === u.board_id) === i).slice(0, SPLIT_UNITS);
    for (let i = 0; i < firsts.length; i++) {
      for (let j = i + 1; j < firsts.length; j++) {
        const d = await differences(firsts[i]!, firsts[j]!);
        if (d === null) continue;
        const text = splitText(d, label);
        add(firsts[i]!.board_id, { other_board: firsts[j]!.board_id, cohorts: null, differences: d, text });
        add(firsts[j]!.board_id, { other_board: firsts[i]!.board_id, cohorts: null, differences: d, text });
      }
    }
    // Cohorts of one board: each other cohort against the board's first, said only when something differs.
    for (const first of firsts) {
      const others = units.filter((u) => u.board_id === first.board_id && u !== first).slice(0, SPLIT_UNITS - 1);
      for (const other of others) {
        const d = await differences(first, other);
        if (d === null || d.length === 0) continue;
        add(first.board_id, { other_board: null, cohorts: [first.cohort_id, other.cohort_id], differences: d, text: splitText(d, label) });
      }
    }
  }
  return out;
}
