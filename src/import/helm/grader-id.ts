/**
 * A HELM import's grader id: the stat, the split and the pass threshold,
 * written by the write side (map.ts) and read back by the read side
 * (source-reader.ts: the re-run flags, the pass rule). Pure, so the read
 * side never loads the writer.
 */

/** The splits an import can grade (HELM's EVAL_SPLITS). */
export const HELM_SPLITS = ['test', 'valid'] as const;
export type HelmSplit = (typeof HELM_SPLITS)[number];

/** The grader id: the stat, the split and the threshold, so the site's re-run command can give them back (rerunFlags). */
export function helmGraderId(metric: string, split: HelmSplit, passThreshold: number | null): string {
  return `${metric} split=${split}${passThreshold === null ? '' : ` pass>=${String(passThreshold)}`}`;
}

/** The stat, split and threshold of a grader id written by {@link helmGraderId}; null for any other id. */
export function parseHelmGraderId(id: string): { metric: string; split: HelmSplit; passThreshold: string | null } | null {
  const m = /^([\s\S]+) split=(test|valid)(?: pass>=(\S+))?$/.exec(id);
  if (m === null) return null;
  return { metric: m[1]!, split: m[2] as HelmSplit, passThreshold: m[3] ?? null };
}
