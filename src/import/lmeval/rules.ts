/**
 * The pass rule of an lm-eval import, per task: which per-doc metric grades,
 * under which filter, in which direction (the results file's
 * `higher_is_better`) and at which threshold. The flags that choose them
 * (`--metric`, `--filter`, `--pass-threshold`) take one value for every task
 * or `task=value` entries, comma-separated; the grader id records the rules
 * so that the re-run flags (rerunFlags) and the plan page's sentence
 * (passRuleSentence) read back from it alone.
 */
import { ImportError } from '../errors.ts';
import { boundedString, plural } from '../text.ts';
import { parsePassThreshold } from '../threshold.ts';

/** Metric and filter names: what lm-eval names them with (acc, acc_norm, exact_match, pass@1; none, strict-match, maj@64). */
export const NAME = /^[A-Za-z0-9_][A-Za-z0-9_@.+-]{0,199}$/;
/** Task names a per-task flag entry (and a per-task grader id) can name: lm-eval's task names (arc_easy, mmlu_abstract_algebra, leaderboard_bbh_navigate). */
export const TASK_NAME = /^[A-Za-z0-9_][A-Za-z0-9_@.+-]*$/;

export type Direction = 'higher' | 'lower';

/** One task's rule as the import applied it. */
export interface TaskRule {
  metric: string;
  filter: string;
  direction: Direction;
  /** A number at or above (higher) / at or below (lower) this passes; null: only 0/1 and booleans are read (higher only). */
  threshold: number | null;
}

/** A flag's value: one for every task not named (`all`), and per-task entries. */
export interface PerTask<T> {
  all: T | null;
  tasks: ReadonlyMap<string, T>;
}

/**
 * Reads a per-task flag: `VALUE`, `task=VALUE`, or both, comma-separated
 * (`--metric acc,lambada_openai=perplexity`). At most one bare value; each
 * task once; no empty entry, task or value; task names within
 * `maxStringBytes` and of lm-eval's task-name characters.
 */
export function parsePerTask<T>(flag: string, text: string, value: (text: string) => T, maxStringBytes: number): PerTask<T> {
  boundedString(text, maxStringBytes, `--${flag}`);
  let all: T | null = null;
  let bare = false;
  const tasks = new Map<string, T>();
  for (const entry of text.split(',')) {
    if (entry === '') throw new ImportError(`--${flag} has an empty entry: give VALUE or TASK=VALUE, comma-separated, without empty entries`);
    const eq = entry.indexOf('=');
    if (eq === -1) {
      if (bare) throw new ImportError(`--${flag} gives more than one value for every task: give one VALUE and TASK=VALUE entries for the others`);
      bare = true;
      all = value(entry);
      continue;
    }
    const task = entry.slice(0, eq);
    const rest = entry.slice(eq + 1);
    if (task === '') throw new ImportError(`--${flag} has an entry without a task name before "=": give TASK=VALUE`);
    if (rest === '') throw new ImportError(`--${flag} gives no value for the task ${JSON.stringify(task.slice(0, 60))}: give TASK=VALUE`);
    boundedString(task, maxStringBytes, `a task name in --${flag}`);
    if (!TASK_NAME.test(task)) {
      throw new ImportError(`--${flag} names the task ${JSON.stringify(task.slice(0, 60))}: a task name is letters, digits and "_@.+-"`);
    }
    if (tasks.has(task)) throw new ImportError(`--${flag} names the task ${JSON.stringify(task)} twice: give each task once`);
    tasks.set(task, value(rest));
  }
  return { all, tasks };
}

/** A metric or filter name of a flag. */
export function nameValue(flag: string): (text: string) => string {
  return (text) => {
    if (!NAME.test(text)) throw new ImportError(`--${flag} must be a metric or filter name (letters, digits, "_@.+-"), not ${JSON.stringify(text.slice(0, 40))}`);
    return text;
  };
}

export const thresholdValue = (text: string): number => parsePassThreshold(text);

/** A number as plain decimal text (never an exponent, which --pass-threshold does not take). */
export function decimal(n: number): string {
  const text = String(n);
  return /e/i.test(text) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** One rule as grader-id text: `metric,filter`, then `>=N` (higher) or `<=N` (lower) when a threshold applies. */
export function ruleText(rule: TaskRule): string {
  return `${rule.metric},${rule.filter}${rule.threshold === null ? '' : `${rule.direction === 'lower' ? '<=' : '>='}${decimal(rule.threshold)}`}`;
}

/**
 * The grader id of an import: the rule's text when every task has the same
 * rule (`acc,none`, `f1,none>=0.5`, `mae,none<=10`, lm-eval's own results
 * key plus the threshold), else `task=rule` for each task in byte order,
 * joined by "; ".
 */
export function graderIdOfRules(rules: ReadonlyMap<string, TaskRule>): string {
  const texts = [...rules].map(([task, rule]) => [task, ruleText(rule)] as const);
  if (new Set(texts.map(([, t]) => t)).size === 1) return texts[0]![1];
  return texts.map(([task, text]) => `${task}=${text}`).join('; ');
}

/** A rule read back from a grader id: the threshold as written. */
export interface ParsedRule {
  metric: string;
  filter: string;
  direction: Direction;
  threshold: string | null;
}

const RULE = /^([^,=;<>\s]+),([^=;<>\s]+?)(?:(>=|<=)(-?[0-9]*\.?[0-9]+))?$/;

function parseRule(text: string): ParsedRule | null {
  const m = RULE.exec(text);
  if (m === null) return null;
  return { metric: m[1]!, filter: m[2]!, direction: m[3] === '<=' ? 'lower' : 'higher', threshold: m[4] ?? null };
}

/** Reads a grader id back: one rule for every task (`all`), or a rule per task; null when it is not an lm-eval grader id. */
export function parseGraderId(id: string): { all: ParsedRule; tasks: null } | { all: null; tasks: Map<string, ParsedRule> } | null {
  const single = parseRule(id);
  if (single !== null) return { all: single, tasks: null };
  const tasks = new Map<string, ParsedRule>();
  for (const part of id.split('; ')) {
    const eq = part.indexOf('=');
    const task = part.slice(0, eq);
    const rule = eq > 0 && TASK_NAME.test(task) && !tasks.has(task) ? parseRule(part.slice(eq + 1)) : null;
    if (rule === null) return null;
    tasks.set(task, rule);
  }
  return tasks.size > 0 ? { all: null, tasks } : null;
}

/** The rule of one task under a parsed grader id, or null when the id does not cover it. */
export function ruleOfTask(parsed: NonNullable<ReturnType<typeof parseGraderId>>, task: string): ParsedRule | null {
  return parsed.all ?? parsed.tasks.get(task) ?? null;
}

/**
 * The flags that give back the same rules, hence the same grader id: the
 * metric always (the default metric depends on the results file), the
 * filter when it is not "none" (the default takes "none" wherever a task
 * has it), the threshold when there is one; per task when the rules differ.
 * The direction is not a flag: it is the results file's, which the bundle keeps.
 */
export function rerunFlagsOf(id: string): string[][] {
  const parsed = parseGraderId(id);
  if (parsed === null) return [];
  if (parsed.all !== null) {
    const r = parsed.all;
    return [['--metric', r.metric], ...(r.filter === 'none' ? [] : [['--filter', r.filter]]), ...(r.threshold === null ? [] : [['--pass-threshold', r.threshold]])];
  }
  const rules = [...parsed.tasks];
  const filters = rules.filter(([, r]) => r.filter !== 'none').map(([t, r]) => `${t}=${r.filter}`);
  const thresholds = rules.filter(([, r]) => r.threshold !== null).map(([t, r]) => `${t}=${r.threshold!}`);
  return [
    ['--metric', rules.map(([t, r]) => `${t}=${r.metric}`).join(',')],
    ...(filters.length === 0 ? [] : [['--filter', filters.join(',')]]),
    ...(thresholds.length === 0 ? [] : [['--pass-threshold', thresholds.join(',')]]),
  ];
}

function ruleWords(r: ParsedRule): string {
  const what = `${r.metric} (filter ${r.filter})`;
  if (r.threshold === null) return `${what}: 1 or true is resolved, 0 or false is not`;
  return r.direction === 'lower'
    ? `${what}: resolved at or below ${r.threshold} (lower is better, as the results file's higher_is_better says)`
    : `${what}: resolved at or above ${r.threshold} (higher is better)`;
}

/**
 * The plan page's sentence for a grader id: each doc's metric value as
 * lm-eval logged it, and what resolves it; tasks that share a rule are
 * grouped (named when three or fewer, else counted).
 */
export function passRuleSentence(id: string): string {
  const parsed = parseGraderId(id);
  const tail = 'any other value (a list, a string, null, a boolean under a lower-is-better metric) is an error';
  if (parsed === null) return 'Each doc graded by one lm-eval per-doc metric value; the rule is not readable from this grader id.';
  if (parsed.all !== null) return `Each doc's ${ruleWords(parsed.all)}; ${tail}.`;
  const groups = new Map<string, { rule: ParsedRule; tasks: string[] }>();
  for (const [task, rule] of parsed.tasks) {
    const key = JSON.stringify(rule);
    if (!groups.has(key)) groups.set(key, { rule, tasks: [] });
    groups.get(key)!.tasks.push(task);
  }
  const parts = [...groups.values()].map(({ rule, tasks }) => `${tasks.length <= 3 ? tasks.join(', ') : plural(tasks.length, 'task')}: ${ruleWords(rule)}`);
  return `Each doc by its task's metric: ${parts.join('; ')}; ${tail}.`;
}
