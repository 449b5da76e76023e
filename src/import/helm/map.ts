/**
 * Maps a read HELM run directory onto the files of one evidence bundle
 * (FORMAT.md section 9: imported evidence). A pure function of the files
 * read, the options and the tool version: no clock, no locale, no random.
 * docs/importing.md ("HELM") is the field-by-field description.
 */
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import { compareUtf8 } from '../../evidence/paths.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Outcome, Plan, Subject } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import { artifactWriter, attemptIdOf, boundedString, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import type { MappedBundle } from '../importer.ts';
import type { ImportLimits } from '../limits.ts';
import { aggregateStat, PER_INSTANCE_STATS, SCENARIO_STATE, STATS, type HelmRun } from './read-run.ts';
import type { HelmRequestState, HelmStat } from './schema.ts';

/** The `origin.format` of HELM imports. */
export const HELM_ORIGIN_FORMAT = 'helm-run';

/** The grader profile recorded for a HELM metric. */
export const HELM_GRADER_PROFILE = 'helm-metric';

/**
 * HELM's run files record no time at all (no run start, no request times of
 * day): every created_at, started_at and ended_at of the bundle is this
 * fixed instant, which the bundle's NOTES.md and docs/importing.md state
 * means "not recorded".
 */
export const NOT_RECORDED_TIME = '1970-01-01T00:00:00Z';

/** The splits an import can grade (HELM's EVAL_SPLITS). */
export const HELM_SPLITS = ['test', 'valid'] as const;
export type HelmSplit = (typeof HELM_SPLITS)[number];

/** Options of an import; each one is part of what the bundle id depends on. */
export interface HelmOptions {
  license: string;
  /** The stat that grades; null refuses the import listing the candidates (HELM's files name no main metric). */
  metric: string | null;
  split: HelmSplit;
  /** A value >= this passes; null: the stat must be 0/1 (1 passes). */
  passThreshold: number | null;
}

export const DEFAULT_HELM_OPTIONS: HelmOptions = { license: '', metric: null, split: 'test', passThreshold: null };

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

type Verdict = 'pass' | 'fail' | 'error';

/**
 * The verdict of one instance's stat value: with a threshold, a value at or
 * above it passes; without, 1 passes and 0 fails (a 0/1 stat: the mapping
 * refuses a run whose stat holds another value, before any verdict). A value
 * that is not a finite number (NaN in the file) is an error.
 */
export function statVerdict(value: number | null, passThreshold: number | null): Verdict {
  if (value === null || !Number.isFinite(value)) return 'error';
  if (passThreshold !== null) return value >= passThreshold ? 'pass' : 'fail';
  if (value === 1) return 'pass';
  if (value === 0) return 'fail';
  return 'error';
}

/** A stat's per-instance value: its mean, else (no mean member) sum / count; null when the stat has no value (count 0) or a non-finite one. */
function statValue(stat: HelmStat): number | null {
  if (stat.count === 0) return null;
  // A mean written as NaN was read as null: the value is not a number (never the sum's stand-in).
  if (stat.mean !== undefined) return stat.mean;
  return stat.sum === undefined || stat.sum === null ? null : stat.sum / stat.count;
}

/** One (instance, train trial) of the split: its unperturbed stats, merged over the entries that name it. */
interface Slot {
  instanceId: string;
  trial: number;
  stats: HelmStat[];
}

function slotKey(instanceId: string, trial: number): string {
  return `${instanceId}\u0000${trial}`;
}

function quoteList(names: readonly string[]): string {
  const shown = names.slice(0, 30).map((n) => JSON.stringify(n.slice(0, 100)));
  return names.length === 0 ? 'none' : `${shown.join(', ')}${names.length > 30 ? `, and ${names.length - 30} more` : ''}`;
}

/** The slots of the chosen split and what was left out (perturbed entries, instances of other splits). */
function slotsOf(run: HelmRun, split: HelmSplit, limits: ImportLimits): { slots: Map<string, Slot>; perturbed: number; otherSplit: number } {
  const slots = new Map<string, Slot>();
  const other = new Set<string>();
  let perturbed = 0;
  for (const entry of run.perInstance) {
    boundedString(entry.instance_id, limits.maxStringBytes, 'an instance_id of per_instance_stats.json');
    if (entry.perturbation !== undefined && entry.perturbation !== null) {
      perturbed++;
      continue;
    }
    for (const stat of entry.stats) {
      if (stat.name.perturbation !== undefined && stat.name.perturbation !== null) continue;
      if (stat.name.split !== split) {
        other.add(entry.instance_id);
        continue;
      }
      const key = slotKey(entry.instance_id, entry.train_trial_index);
      let slot = slots.get(key);
      if (slot === undefined) {
        slot = { instanceId: entry.instance_id, trial: entry.train_trial_index, stats: [] };
        slots.set(key, slot);
      }
      slot.stats.push(stat);
    }
  }
  const tasks = new Set([...slots.values()].map((s) => s.instanceId));
  const otherSplit = [...other].filter((id) => !tasks.has(id)).length;
  return { slots, perturbed, otherSplit };
}

/** The graded stat: --metric, which must be a stat of the split; without it the import is refused with the candidates. */
function chooseMetric(slots: ReadonlyMap<string, Slot>, options: HelmOptions, limits: ImportLimits): string {
  const names = [...new Set([...slots.values()].flatMap((s) => s.stats.map((st) => st.name.name)))].sort(compareUtf8);
  if (options.metric === null) {
    throw new ImportError(
      `choose the stat that grades with --metric NAME: a HELM run directory does not name its main metric (the ${options.split} split has ${quoteList(names)})`,
    );
  }
  boundedString(options.metric, limits.maxStringBytes, 'the --metric name');
  if (!names.includes(options.metric)) {
    throw new ImportError(`the run has no stat named ${JSON.stringify(options.metric.slice(0, 100))} in the ${options.split} split (it has ${quoteList(names)})`);
  }
  return options.metric;
}

/** What the request states of the scenario state say about one instance and its trials (unperturbed, of the split). */
interface Requests {
  /** The instance as the scenario state records it (its input and references). */
  inputs: Map<string, { input: unknown; references: unknown }>;
  /** The request states of each (instance, trial). */
  bySlot: Map<string, HelmRequestState[]>;
}

function requestsOf(run: HelmRun, split: HelmSplit, limits: ImportLimits): Requests | null {
  if (run.scenarioState === null) return null;
  const inputs = new Map<string, { input: unknown; references: unknown }>();
  const bySlot = new Map<string, HelmRequestState[]>();
  for (const rs of run.scenarioState.request_states) {
    const inst = rs.instance;
    if (inst.perturbation !== undefined && inst.perturbation !== null) continue;
    if (inst.split !== split || inst.id === undefined || inst.id === null) continue;
    boundedString(inst.id, limits.maxStringBytes, 'an instance id of scenario_state.json');
    const known = inputs.get(inst.id);
    const input = inst.input ?? null;
    if (known === undefined) inputs.set(inst.id, { input, references: inst.references ?? null });
    else if (digestCanonical(known.input) !== digestCanonical(input)) {
      throw new ImportError(`instance ${JSON.stringify(inst.id.slice(0, 100))} has different inputs in different request states of ${SCENARIO_STATE}: one task cannot have two prompts`);
    }
    const key = slotKey(inst.id, rs.train_trial_index);
    const list = bySlot.get(key) ?? [];
    list.push(rs);
    bySlot.set(key, list);
  }
  return { inputs, bySlot };
}

/** Counts of what the attempts lacked, in NOTES.md's order. */
interface Counts {
  failedRequests: number;
  ungraded: number;
  uninterpretable: number;
  noTokens: number;
  noTime: number;
  noRequests: number;
  usable: number;
}

/** An integer token count >= 0 from a stat's sum, or null. */
function tokenCount(stats: readonly HelmStat[], name: string): number | null {
  const found = stats.filter((s) => s.name.name === name && s.count > 0);
  if (found.length !== 1) return null;
  const sum = found[0]!.sum;
  return typeof sum === 'number' && Number.isSafeInteger(sum) && sum >= 0 ? sum : null;
}

/** Maps a read run to bundle files. Throws ImportError when it cannot be mapped honestly. */
export function mapHelmRun(run: HelmRun, options: HelmOptions, limits: ImportLimits): MappedBundle {
  const spec = run.runSpec;
  const adapter = spec.adapter_spec;
  const model = boundedString(adapter.model, limits.maxStringBytes, 'adapter_spec.model');
  const selector = boundedString(adapter.model_deployment ?? adapter.model, limits.maxStringBytes, 'adapter_spec.model_deployment');
  boundedString(spec.name, limits.maxStringBytes, 'the run name');
  boundedString(spec.scenario_spec.class_name, limits.maxStringBytes, 'scenario_spec.class_name');
  const missing: string[] = [
    `HELM's run files record no time: the plan's, the ledger's, the grades' and every attempt's times are ${NOT_RECORDED_TIME}, a fixed value meaning not recorded`,
    'no HELM version recorded in the run directory: harness, agent and grader version "unknown"',
    "no exact model version recorded: the model is the run's adapter_spec.model",
    'no seed recorded: plan seed 0',
  ];

  const { slots, perturbed, otherSplit } = slotsOf(run, options.split, limits);
  if (perturbed > 0) missing.push(`${plural(perturbed, 'per-instance entry', 'per-instance entries')} of perturbed instances (robustness, fairness) not imported: only unperturbed stats grade`);
  if (otherSplit > 0) missing.push(`${plural(otherSplit, 'instance')} of other splits than ${options.split} not imported (see --split)`);
  if (slots.size === 0) {
    throw new ImportError(
      `the run has no unperturbed per-instance stats in the ${options.split} split${otherSplit > 0 ? ` (${plural(otherSplit, 'instance is', 'instances are')} in other splits: see --split)` : ''}: there is nothing to import`,
    );
  }
  const metric = chooseMetric(slots, options, limits);
  const ordered = [...slots.values()].sort((a, b) => compareUtf8(a.instanceId, b.instanceId) || a.trial - b.trial);

  // The graded value of each slot, and the pass rule's check: without a threshold the stat must be 0/1.
  const values = new Map<Slot, { stat: HelmStat; value: number | null } | null>();
  for (const slot of ordered) {
    const graded = slot.stats.filter((s) => s.name.name === metric);
    if (graded.length > 1) {
      throw new ImportError(`instance ${JSON.stringify(slot.instanceId.slice(0, 100))} trial ${slot.trial} has the stat ${JSON.stringify(metric)} ${graded.length} times in the ${options.split} split: which one grades is ambiguous`);
    }
    values.set(slot, graded.length === 0 || graded[0]!.count === 0 ? null : { stat: graded[0]!, value: statValue(graded[0]!) });
  }
  if (options.passThreshold === null) {
    const notBinary = [...values.values()].filter((v) => v !== null && v.value !== null && v.value !== 0 && v.value !== 1);
    if (notBinary.length > 0) {
      throw new ImportError(
        `the stat ${JSON.stringify(metric)} has values other than 0 and 1 (${notBinary.length} of ${values.size}, e.g. ${String(notBinary[0]!.value)}): it is not a 0/1 stat, so what passes needs --pass-threshold N (a value >= N passes)`,
      );
    }
  } else {
    missing.push(`the stat is graded with a threshold: a value >= ${String(options.passThreshold)} passes (--pass-threshold); the value itself is only in each grade's receipt`);
  }

  const tasks = [...new Set(ordered.map((s) => s.instanceId))];
  const maxTrial = Math.max(...ordered.map((s) => s.trial));
  const configured = adapter.num_train_trials ?? null;
  const attemptsPerTask = Math.max(configured ?? 1, maxTrial + 1);
  if (configured === null) missing.push(`no num_train_trials in adapter_spec: attempts per task = ${attemptsPerTask}, the highest train_trial_index present + 1`);
  else if (maxTrial + 1 > configured) missing.push(`train_trial_index ${maxTrial} is present although ${configured} train trials are configured: attempts per task = ${attemptsPerTask}`);
  const emptySlots = tasks.length * attemptsPerTask - ordered.length;
  if (emptySlots > 0) missing.push(`${plural(emptySlots, 'slot')} (instance x train trial) without per-instance stats: left unaccounted`);

  const requests = requestsOf(run, options.split, limits);
  if (requests === null) missing.push(`no ${SCENARIO_STATE}: prompts, outputs and request times are not in the run directory; each task's prompt digest is of its identity (scenario spec and instance id), wall_seconds 0`);
  if (run.stats === null) missing.push(`no ${STATS}: HELM's own aggregate of the stat is not shown beside the imported rate`);
  else {
    const counted = aggregateStat(run.stats, 'num_instances', options.split)?.mean;
    if (typeof counted === 'number' && counted !== tasks.length) {
      missing.push(`${STATS} counts ${String(counted)} instances in the ${options.split} split, the per-instance stats hold ${tasks.length}: the tasks imported are those ${tasks.length}`);
    }
  }

  // Ledger: one task per instance, in byte order of instance ids.
  let identityPrompts = 0;
  const ledgerRecords: LedgerRecord[] = tasks.map((taskId) => {
    const recorded = requests?.inputs.get(taskId);
    if (recorded === undefined) identityPrompts++;
    const prompt = recorded !== undefined ? digestCanonical(recorded.input) : digestCanonical({ helm_scenario_spec: spec.scenario_spec, instance_id: taskId });
    return importedLedgerRecord(taskId, prompt, options.license, NOT_RECORDED_TIME);
  });
  if (requests !== null && identityPrompts > 0) {
    missing.push(`${plural(identityPrompts, 'instance')} without a request state in ${SCENARIO_STATE}: prompt digest of its identity (scenario spec and instance id)`);
  }
  const ledgerBytes = jsonlBytes(ledgerRecords);

  const passThreshold = options.passThreshold;
  const grader: Grader = {
    id: helmGraderId(metric, options.split, passThreshold),
    version: 'unknown',
    executable: digestCanonical({ metric, split: options.split, perturbation: null, pass_threshold: passThreshold, metric_specs: spec.metric_specs ?? null }),
  };
  const agent = { name: typeof adapter.method === 'string' && adapter.method !== '' ? `helm ${adapter.method}` : 'helm', version: 'unknown' };
  const subject: Subject = { selector, model, agent, role: 'candidate' };
  const raw = spec as Record<string, unknown>;
  const { model: _model, model_deployment: _deployment, ...adapterRest } = adapter as Record<string, unknown>;
  const harnessSpec = {
    scenario_spec: spec.scenario_spec,
    adapter_spec: adapterRest,
    data_augmenter_spec: raw.data_augmenter_spec ?? null,
    annotators: raw.annotators ?? null,
  };
  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${spec.name} (imported HELM run)`,
      created_at: NOT_RECORDED_TIME,
      ledger: { name: spec.scenario_spec.class_name, digest: digestBytes(ledgerBytes), tasks: ledgerRecords.length },
      environment: {
        tool_policy: digestCanonical({ helm_tools: null }),
        wiki: [],
        isolation: 'helm: model requests only, no sandbox',
        session_topology: 'single-session',
      },
      harness: { name: 'helm', version: 'unknown', commit: digestHex(digestCanonical(harnessSpec)) },
      grader: { profile: HELM_GRADER_PROFILE, ...grader },
      subjects: [subject],
      attempts: attemptsPerTask,
      budget: null,
      access_tier: 'black_box',
      seed: 0,
      origin: importOrigin(HELM_ORIGIN_FORMAT, run.read.get(PER_INSTANCE_STATS)!),
    } satisfies Plan,
    'plan_id',
  );

  const files = new Map<string, Uint8Array>();
  const artifact = artifactWriter(files);
  const counts: Counts = { failedRequests: 0, ungraded: 0, uninterpretable: 0, noTokens: 0, noTime: 0, noRequests: 0, usable: 0 };
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  ordered.forEach((slot, i) => {
    const attemptId = attemptIdOf(i);
    const states = requests?.bySlot.get(slotKey(slot.instanceId, slot.trial)) ?? [];
    if (requests !== null && states.length === 0) counts.noRequests++;
    const outcome: Outcome = states.some((rs) => rs.result?.success === false) ? 'harness_failure' : 'completed';
    if (outcome === 'harness_failure') counts.failedRequests++;
    const times = states.map((rs) => rs.result?.request_time);
    // The sum of the request times, to the microsecond; none, one missing, or a sum past the largest number: unknown (0, said).
    const total = states.length > 0 && times.every((t) => typeof t === 'number') ? Math.round((times as number[]).reduce((a, b) => a + b, 0) * 1e6) / 1e6 : null;
    const wall = total !== null && Number.isFinite(total) ? total : 0;
    if (wall !== total) counts.noTime++;
    const input = tokenCount(slot.stats, 'num_prompt_tokens');
    const output = tokenCount(slot.stats, 'num_output_tokens');
    if (input === null || output === null) counts.noTokens++;
    const reported = [...new Set(states.map((rs) => rs.request?.model).filter((m): m is string => typeof m === 'string' && m !== ''))];
    const observed = reported.length === 1 ? boundedString(reported[0]!, limits.maxStringBytes, 'a request model of scenario_state.json') : model;
    attempts.push({
      attempt_id: attemptId,
      task_id: slot.instanceId,
      model,
      agent,
      index: slot.trial + 1,
      observed_model: observed,
      outcome,
      started_at: NOT_RECORDED_TIME,
      ended_at: NOT_RECORDED_TIME,
      wall_seconds: wall,
      tokens: input === null || output === null ? null : { input, output },
      retries: 0,
      cost: { state: 'unavailable', micros: null },
      patch: null,
    });
    const graded = values.get(slot) ?? null;
    if (graded === null) {
      counts.ungraded++;
      return;
    }
    const verdict = statVerdict(graded.value, passThreshold);
    if (verdict === 'error') counts.uninterpretable++;
    else if (outcome === 'completed') counts.usable++;
    const recorded = requests?.inputs.get(slot.instanceId);
    results.push({
      attempt_id: attemptId,
      verdict,
      input: artifact({ instance_id: slot.instanceId, train_trial_index: slot.trial, split: options.split, input: recorded?.input ?? null, references: recorded?.references ?? null }),
      output: artifact(states.length === 0 ? null : states.map((rs) => (rs.result?.completions ?? []).map((c) => c.text ?? null))),
      receipt: artifact(graded.stat),
    });
  });
  if (requests !== null && counts.noRequests > 0) missing.push(`${plural(counts.noRequests, 'attempt')} without a request state in ${SCENARIO_STATE}: no output, wall_seconds 0`);
  if (counts.failedRequests > 0) missing.push(`${plural(counts.failedRequests, 'attempt')} with a failed request (result.success false): outcome harness_failure`);
  if (counts.ungraded > 0) missing.push(`${plural(counts.ungraded, 'attempt')} without a value of the stat: no grade (fails closed as grader_failure)`);
  if (counts.uninterpretable > 0) missing.push(`${plural(counts.uninterpretable, 'value')} of the stat that is not a finite number: verdict error`);
  if (counts.noTokens > 0) missing.push(`${plural(counts.noTokens, 'attempt')} without integer num_prompt_tokens and num_output_tokens stats: tokens unknown (null)`);
  if (requests !== null && counts.noTime > 0 && counts.noTime > counts.noRequests) {
    missing.push(`${plural(counts.noTime - counts.noRequests, 'attempt')} without a request_time on every request: wall_seconds 0`);
  }
  missing.push('HELM records no per-request cost in a run directory: cost unavailable for every attempt');
  if (run.nonFinite > 0) missing.push(`${plural(run.nonFinite, 'non-finite number')} (NaN or Infinity) in the files read, read as null`);
  // Said on the command line only: NOTES.md must follow from the kept files alone (a re-import from them has no other file).
  const unkept = run.unread > 0 ? [`${plural(run.unread, 'other file')} of the run directory not read and not kept (display files, instances, scenario description, hidden entries)`] : [];

  for (const [path, bytes] of run.read) files.set(`source/${path}`, bytes);
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: NOT_RECORDED_TIME, grader, results },
    notes: {
      heading: 'Imported HELM run',
      format: 'helm',
      source: `HELM run directory's files it reads, kept byte for byte under \`source/\` (\`source/${PER_INSTANCE_STATS}\` is the first)`,
    },
    missing,
    unkept,
    usable: counts.usable,
    summary: { status: 'not recorded', tasks: ledgerRecords.length, epochs: attemptsPerTask, scorer: metric },
  });
}

