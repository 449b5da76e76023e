/**
 * What the pages say of imported runs beyond the plan page's facts (issue
 * 26): the rule each format used to call an attempt resolved (the plan
 * page), a start time the source did not record, the one line where the
 * imported headline differs from the source's own figure (board row, cohort
 * page), the transcript a format does not record (task page), and why two
 * imports of one benchmark were split (board page). Fixed words, numbers and
 * the importers' own sentences only; the pages escape them.
 */
import type { SourceMetric } from '../../import/importer.ts';
import type { ImportedSource } from '../../import/sources.ts';
import { TERMINAL_CLASSES, type TerminalClass } from '../../analysis/grading.ts';

export { importedTime, NOT_RECORDED, NOT_RECORDED_TIME } from '../views/not-recorded.ts';

/** The section of docs/importing.md that states each format's rules, by importer name. */
export const IMPORTING_SECTIONS: Readonly<Record<string, string>> = {
  inspect: 'Inspect AI',
  'lm-eval': 'lm-evaluation-harness',
  helm: 'HELM',
  'swe-bench': 'SWE-bench',
  'terminal-bench': 'Terminal-Bench',
  eee: 'Every Eval Ever',
};

/** The longest rule sentence a page shows (an importer's words, read back from the plan's grader: bounded here). */
const RULE_CHARS = 600;

/**
 * The plan page's sentence of how the imported rate counts an attempt as
 * resolved: the format's own rule (the read side's passRule, sources.ts), else where
 * docs/importing.md states it. Never another format's rule.
 */
export function rateRuleOf(importer: Pick<ImportedSource, 'name' | 'label' | 'passRule'> | undefined, format: string, plan: { grader: { id: string } }): string {
  if (importer === undefined || importer.name === null || importer.label === null) return `The imported rate counts an attempt as resolved by the rule of the format ${format}, which this version of ledgerboard does not import: it is not stated here`;
  const section = `docs/importing.md, section "${IMPORTING_SECTIONS[importer.name] ?? importer.label}"`;
  // The rule is read from the plan alone: a reader that throws here is a bug, and the build fails.
  const rule = importer.passRule(plan);
  if (rule === null) return `The imported rate counts an attempt as resolved by the ${importer.label} import's own rule: the rule is in ${section}`;
  const bounded = rule.length > RULE_CHARS ? `${rule.slice(0, RULE_CHARS)}…` : rule;
  return `The imported rate counts an attempt as resolved by the ${importer.label} import's rule (${section}): ${bounded}`;
}

/** An imported bundle's attempts by terminal class, and its grader failures by reason (the report's outcome counts, per bundle). */
export interface BundleOutcomes {
  terminal: Record<TerminalClass, number>;
  reasons: { failed: number; errored: number; missing: number };
}

export function emptyOutcomes(): BundleOutcomes {
  return { terminal: Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, 0])) as Record<TerminalClass, number>, reasons: { failed: 0, errored: 0, missing: 0 } };
}

/** The most source metrics the one line names (the plan page lists them all). */
const LINE_METRICS = 3;
const NAME_CHARS = 60;

/** A number as the line shows it: an integer as it is, else at most 4 decimals. */
function figure(value: number | null): string {
  if (value === null) return 'not a number';
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(4)));
}

/**
 * The one line the board row and the cohort page show for an imported bundle
 * whose headline differs from the source's own figure: "source: <its
 * metrics>; <n> attempts not graded: <classes>", or null when the import
 * agrees with the source (every attempt graded, and a source metric is the
 * imported resolved count or rate) or there is nothing to set beside it.
 */
export function sourceLineOf(metrics: readonly SourceMetric[] | null, outcomes: BundleOutcomes | undefined): string | null {
  if (outcomes === undefined) return null;
  const t = outcomes.terminal;
  const attempts = TERMINAL_CLASSES.reduce((n, c) => n + t[c], 0);
  // Attempts the import could not grade, and why: every class but a graded result (resolved, failed, a model or safety failure, a timeout).
  const ungraded: [string, number][] = [
    ['grader_failure (errored)', outcomes.reasons.errored],
    ['grader_failure (missing)', outcomes.reasons.missing],
    ['harness_failure', t.harness_failure],
    ['environment_failure', t.environment_failure],
    ['invalid_case', t.invalid_case],
    ['cancelled', t.cancelled],
  ].filter((x): x is [string, number] => (x[1] as number) > 0);
  const notGraded = ungraded.reduce((n, [, k]) => n + k, 0);
  const resolved = t.resolved;
  const rate = attempts === 0 ? null : resolved / attempts;
  const shown = (metrics ?? []).slice(0, LINE_METRICS);
  const agrees = (m: SourceMetric) => m.value !== null && (m.value === resolved || (rate !== null && (Math.abs(m.value - rate) < 5e-4 || Math.abs(m.value - rate * 100) < 5e-2)));
  if (notGraded === 0 && (shown.length === 0 || (metrics ?? []).some(agrees))) return null;
  const source = shown.length === 0 ? 'source: no figure of its own' : `source: ${shown.map((m) => `${m.name.length > NAME_CHARS ? `${m.name.slice(0, NAME_CHARS)}…` : m.name} ${figure(m.value)}`).join(', ')}`;
  const imported = `imported: ${resolved} of ${attempts} resolved`;
  const why = notGraded === 0 ? '' : `; ${notGraded} ${notGraded === 1 ? 'attempt' : 'attempts'} not graded: ${ungraded.map(([c, k]) => (ungraded.length === 1 ? c : `${k} ${c}`)).join(', ')}`;
  return `${source}; ${imported}${why}`;
}

/**
 * Why an imported attempt has no transcript page: its format records none,
 * its originals are past the import limits (unread), its source cannot be
 * read (the read side's reason, src/import/sources.ts), or the source has
 * none for this attempt.
 */
export type NoTranscriptWhy = 'format' | 'attempt' | 'unread' | { unreadable: string };

/** The transcript note of an imported attempt without a transcript (task page), by why it has none. */
export function noTranscriptNote(label: string, why: NoTranscriptWhy): string {
  if (why === 'format') return `no transcript: ${label} records none`;
  if (why === 'unread') return 'no transcript: the originals are not read for this site (see the plan page)';
  if (typeof why === 'object') return `no transcript: the original log cannot be read: ${why.unreadable}`;
  return 'the original log has no transcript for this attempt';
}
