/**
 * Why imports of one source benchmark from one format sit on different
 * boards, or in different cohorts of one board (issue 26: HELM gives some
 * providers other instructions, so their runs' ledgers differ): the format's
 * importer names the key components of the source's own run configuration
 * that differ (importer.configurationDifferences), read from each bundle's
 * originals as published, within the report's import limits (originals.ts).
 * A format without the function says nothing here. Bounded: at most
 * SPLIT_UNITS boards (and cohorts of one board) per benchmark are compared.
 */
import type { Importer } from '../import/importer.ts';
import type { ImportLimits } from '../import/limits.ts';
import { importerOfOrigin } from '../import/registry.ts';
import type { Report } from '../report/schema.ts';
import { hexOf } from './format.ts';
import type { SiteBundle, SiteSplit } from './model-types.ts';

export type { SiteSplit } from './model-types.ts';
import type { Published, SiteFile } from './publish.ts';
import { readOriginals } from './originals.ts';

/** The most boards, and cohorts of one board, compared per benchmark (each a read of its originals). */
export const SPLIT_UNITS = 8;
const MAX_NAMES = 10;
const NAME_CHARS = 80;

interface Unit {
  board_id: string;
  cohort_id: string;
  bundle: SiteBundle;
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
  const groups = new Map<string, { importer: Importer; units: Unit[] }>();
  for (const cohort of report.cohorts) {
    for (const p of cohort.plans) {
      const i = plans[hexOf(p.plan_id)];
      const bundle = i === undefined ? undefined : bundles[i];
      const page = bundle?.page;
      if (bundle === undefined || page === null || page === undefined || page.imported === null || !bundle.counted) continue;
      const importer = importerOfOrigin(page.imported.format);
      if (importer?.configurationDifferences === undefined) continue;
      const key = `${page.imported.format}\u0000${page.plan.ledger.name}`;
      const group = groups.get(key) ?? { importer, units: [] };
      groups.set(key, group);
      // One unit per cohort (its first imported plan).
      if (!group.units.some((u) => u.cohort_id === cohort.cohort_id)) group.units.push({ board_id: cohort.board_id, cohort_id: cohort.cohort_id, bundle });
    }
  }
  const out: Record<string, SiteSplit[]> = {};
  const add = (board: string, split: SiteSplit) => (out[board] ??= []).push(split);
  for (const { importer, units } of groups.values()) {
    if (units.length < 2) continue;
    const cache = new Map<string, Map<string, Uint8Array> | null>();
    const originals = async (u: Unit): Promise<Map<string, Uint8Array> | null> => {
      if (!cache.has(u.bundle.content_digest)) {
        const files = published.bundles[u.bundle.report]!.files.filter((f: SiteFile) => f.path.startsWith('source/'));
        const read = files.length === 0 || published.bundles[u.bundle.report]!.withheld.length > 0 ? null : (await readOriginals(files, importer, limits, published)).bytes;
        cache.set(u.bundle.content_digest, read);
      }
      return cache.get(u.bundle.content_digest)!;
    };
    const differences = async (a: Unit, b: Unit): Promise<string[] | null> => {
      const x = await originals(a);
      const y = await originals(b);
      if (x === null || y === null) return null;
      try {
        const names = await importer.configurationDifferences!(x, y, limits);
        return names.slice(0, MAX_NAMES).map((n) => (n.length > NAME_CHARS ? `${n.slice(0, NAME_CHARS)}…` : n));
      } catch {
        return null;
      }
    };
    // Boards: the first unit of each board stands for it.
    const firsts = units.filter((u, i) => units.findIndex((v) => v.board_id === u.board_id) === i).slice(0, SPLIT_UNITS);
    for (let i = 0; i < firsts.length; i++) {
      for (let j = i + 1; j < firsts.length; j++) {
        const d = await differences(firsts[i]!, firsts[j]!);
        if (d === null) continue;
        const text = splitText(d, importer.label);
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
        add(first.board_id, { other_board: null, cohorts: [first.cohort_id, other.cohort_id], differences: d, text: splitText(d, importer.label) });
      }
    }
  }
  return out;
}
