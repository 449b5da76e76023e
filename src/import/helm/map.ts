/**
 * Maps a read HELM run directory onto the files of one evidence bundle
 * (FORMAT.md section 9: imported evidence). A pure function of the files
 * read, the options and the tool version: no clock, no locale, no random.
 * docs/importing.md ("HELM") is the field-by-field description.
 */
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Outcome, Plan, Subject } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import { artifactWriter, attemptIdOf, boundedString, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import type { MappedBundle } from '../importer.ts';
import type { ImportLimits } from '../limits.ts';
import { aggregateStat, PER_INSTANCE_STATS, SCENARIO_STATE, STATS, type HelmRun } from './read-run.ts';
import type { HelmRequestState, HelmStat } from './schema.ts';
import { describeRow, lookupMainMetric, mainMetricRows } from './main-metric.ts';

import { HELM_SPLITS, helmGraderId, parseHelmGraderId, type HelmSplit } from './grader-id.ts';

export { HELM_SPLITS, helmGraderId, parseHelmGraderId, type HelmSplit };

import { HELM_ORIGIN_FORMAT } from './source-reader.ts';

export { HELM_ORIGIN_FORMAT };

/** The grader profile recorded for a HELM metric. */
export const HELM_GRADER_PROFILE = 'helm-metric';

/**
 * HELM's run files record no time at all (no run start, no request times of
 * day): every created_at, started_at and ended_at of the bundle is this
 * fixed instant, which the bundle's NOTES.md and docs/importing.md state
 * means "not recorded".
 */
export const NOT_RECORDED_TIME = '1970-01-01T00:00:00Z';

/** Options of an import; each one is part of what the bundle id depends on. */
export interface HelmOptions {
  license: string;
  /** The stat that grades; null: HELM's main metric for the run's groups (main-metric.ts), else the import is refused listing the candidates. */
  metric: string | null;
  split: HelmSplit;
  /** A value >= this passes; null: the stat must be 0/1 (1 passes). */
  passThreshold: number | null;
}

export const DEFAULT_HELM_OPTIONS: HelmOptions = { license: '', metric: null, split: 'test', passThreshold: null };

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

/** The graded stat and what HELM's schema table says of it (NOTES.md lines). */
interface Chosen {
  metric: string;
  notes: string[];
}

/**
 * The graded stat: --metric, which must be a stat of the split; without it,
 * the main metric HELM's own schema names for the run's groups
 * (main-metric.ts), when exactly one such metric is a stat of the split; else
 * the import is refused with the candidates. NOTES.md names the table row of
 * the graded stat whichever way it was chosen, so the bundle depends on the
 * stat alone (a re-run with --metric gives the same bundle).
 */
function chooseMetric(run: HelmRun, slots: ReadonlyMap<string, Slot>, options: HelmOptions, limits: ImportLimits): Chosen {
  const names = [...new Set([...slots.values()].flatMap((s) => s.stats.map((st) => st.name.name)))].sort(compareUtf8);
  const groups = run.runSpec.groups ?? [];
  for (const g of groups) boundedString(g, limits.maxStringBytes, 'a group of run_spec.json');
  const table = lookupMainMetric(groups, options.split, new Set(names));
  let metric: string;
  if (options.metric === null) {
    if (table.present.length !== 1) {
      const named = [...new Set(table.rows.map((r) => r.metric))].sort(compareUtf8);
      const otherSplits = groups.flatMap((g) => mainMetricRows(g)).filter((r) => r.split !== null && r.split !== options.split);
      const why =
        table.present.length > 1
          ? `HELM's schema names several main metrics for this run's groups that the ${options.split} split has (${quoteList(table.present)})`
          : named.length > 0
            ? `HELM's schema names ${quoteList(named)} as the main metric of this run's groups, and the ${options.split} split has no such stat`
            : otherSplits.length > 0
              ? `HELM's schema names the main metric of this run's groups on another split (${quoteList([...new Set(otherSplits.map((r) => `${r.metric} (${r.split ?? ''})`))])}: see --split)`
              : `HELM's schema table names no main metric for this run's groups (${quoteList(groups)})`;
      throw new ImportError(`choose the stat that grades with --metric NAME: ${why} (the ${options.split} split has ${quoteList(names)})`);
    }
    metric = table.present[0]!;
  } else {
    boundedString(options.metric, limits.maxStringBytes, 'the --metric name');
    if (!names.includes(options.metric)) {
      throw new ImportError(`the run has no stat named ${JSON.stringify(options.metric.slice(0, 100))} in the ${options.split} split (it has ${quoteList(names)})`);
    }
    metric = options.metric;
  }
  const row = table.rows.find((r) => r.metric === metric);
  const notes =
    row !== undefined
      ? [`the graded stat is HELM's main metric for this run: ${describeRow(row)} (the table of src/import/helm/main-metrics.generated.ts)`]
      : table.present.length > 0
        ? [`the graded stat is not HELM's main metric for this run: HELM's schema names ${quoteList(table.present)} (--metric chose another)`]
        : [];
  return { metric, notes };
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

/**
 * A task's prompt digest in the ledger: of its identity, the scenario spec and
 * the instance id, which every run directory has (run_spec.json and
 * per_instance_stats.json), never of the optional scenario_state.json.
 */
export function helmTaskDigest(scenarioSpec: unknown, instanceId: string): string {
  return digestCanonical({ helm_scenario_spec: scenarioSpec, instance_id: instanceId });
}

/** Counts of what the attempts lacked, in NOTES.md's order. */
interface Counts {
  failedRequests: number;
  /** Failed requests of attempts that HELM scored all the same: graded by their score. */
  scoredFailures: number;
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
  const { metric, notes: metricNotes } = chooseMetric(run, slots, options, limits);
  missing.push(...metricNotes);
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
  if (requests === null) missing.push(`no ${SCENARIO_STATE}: prompts, outputs and request times are not in the run directory: no input or output in the grades' artifacts, wall_seconds 0`);
  if (run.stats === null) missing.push(`no ${STATS}: HELM's own aggregate of the stat is not shown beside the imported rate`);
  else {
    const counted = aggregateStat(run.stats, 'num_instances', options.split)?.mean;
    if (typeof counted === 'number' && counted !== tasks.length) {
      missing.push(`${STATS} counts ${String(counted)} instances in the ${options.split} split, the per-instance stats hold ${tasks.length}: the tasks imported are those ${tasks.length}`);
    }
  }

  // Ledger: one task per instance, in byte order of instance ids. The prompt digest is of the instance's identity (the
  // scenario spec and the instance id), which every run directory has: the ledger never depends on whether the optional
  // scenario_state.json was there, so runs of one scenario with and without it share a ledger (and a board).
  const ledgerRecords: LedgerRecord[] = tasks.map((taskId) => importedLedgerRecord(taskId, helmTaskDigest(spec.scenario_spec, taskId), options.license, NOT_RECORDED_TIME));
  missing.push(
    `each task's prompt digest in the ledger is of its identity (scenario spec and instance id), with or without ${SCENARIO_STATE}, so runs of one scenario share a ledger${requests === null ? '' : `; the instance's input as ${SCENARIO_STATE} records it, and its digest (input_sha256), are in each grade's input artifact`}`,
  );
  const withoutState = requests === null ? 0 : tasks.filter((taskId) => !requests.inputs.has(taskId)).length;
  if (withoutState > 0) missing.push(`${plural(withoutState, 'instance')} without a request state in ${SCENARIO_STATE}: no input in its grades' input artifacts`);
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
  const counts: Counts = { failedRequests: 0, scoredFailures: 0, ungraded: 0, uninterpretable: 0, noTokens: 0, noTime: 0, noRequests: 0, usable: 0 };
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  ordered.forEach((slot, i) => {
    const attemptId = attemptIdOf(i);
    const states = requests?.bySlot.get(slotKey(slot.instanceId, slot.trial)) ?? [];
    if (requests !== null && states.length === 0) counts.noRequests++;
    // A request that failed at the provider (result.success false: an error, a content filter's block) is the run's
    // failure, unless HELM's metrics or annotators scored the attempt anyway: then the failure was the system's answer
    // (a safety scenario's refusal by a filter), graded by that score like any other.
    const graded = values.get(slot) ?? null;
    const failed = states.some((rs) => rs.result?.success === false);
    const scored = graded !== null && graded.value !== null;
    const outcome: Outcome = failed && !scored ? 'harness_failure' : 'completed';
    if (outcome === 'harness_failure') counts.failedRequests++;
    else if (failed) counts.scoredFailures += states.filter((rs) => rs.result?.success === false).length;
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
      input: artifact({
        instance_id: slot.instanceId,
        train_trial_index: slot.trial,
        split: options.split,
        input: recorded?.input ?? null,
        input_sha256: recorded === undefined ? null : digestCanonical(recorded.input),
        references: recorded?.references ?? null,
      }),
      output: artifact(states.length === 0 ? null : states.map((rs) => (rs.result?.completions ?? []).map((c) => c.text ?? null))),
      receipt: artifact(graded.stat),
    });
  });
  if (requests !== null && counts.noRequests > 0) missing.push(`${plural(counts.noRequests, 'attempt')} without a request state in ${SCENARIO_STATE}: no output, wall_seconds 0`);
  if (counts.failedRequests > 0) missing.push(`${plural(counts.failedRequests, 'attempt')} with a failed request (result.success false) and no value of the stat: outcome harness_failure`);
  if (counts.scoredFailures > 0) {
    const one = counts.scoredFailures === 1;
    missing.push(`${plural(counts.scoredFailures, 'request')} failed at the provider and ${one ? 'was' : 'were'} scored by HELM: graded by ${one ? 'its' : 'their'} score (outcome completed)`);
  }
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

