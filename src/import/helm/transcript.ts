/**
 * What the site reads of a HELM bundle's originals beyond the source's own
 * figure (src/import/importer.ts): the readable transcript of each attempt
 * (src/import/transcript.ts) from scenario_state.json, and the components of
 * two runs' configurations (run_spec.json) that differ.
 */
import { compareUtf8 } from '../../json/compare.ts';
import { canonicalJson } from '../../json/canonical.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { parseSourceJson } from '../source-json.ts';
import { budgetedTranscript, cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import { PER_INSTANCE_STATS, RUN_SPEC, SCENARIO_STATE } from './read-run.ts';
import { HelmPerInstanceStats, HelmScenarioState, type HelmInstanceStats, type HelmRequestState } from './schema.ts';

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readDocument<T>(bytes: Uint8Array, name: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, limits: ImportLimits): T {
  if (bytes.byteLength > limits.maxFileBytes) throw new ImportLimitError(`${name} is ${bytes.byteLength} bytes, more than the ${limits.maxFileBytes} an import reads (import_limits.maxFileBytes)`, 'maxFileBytes');
  const { value } = parseSourceJson(bytes, name);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportError(`${name} is not a HELM ${name} as the importer reads it`);
  return parsed.data;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** A chat message of a request (`request.messages`: role and content, a string or a list of parts). */
function chatMessage(raw: Json): TranscriptMessage {
  const m = isRecord(raw) ? raw : {};
  const role = typeof m.role === 'string' && ROLES.has(m.role) ? (m.role as TranscriptMessage['role']) : 'other';
  const parts: string[] = [];
  let omitted = 0;
  if (typeof m.content === 'string') parts.push(m.content);
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      if (typeof part === 'string') parts.push(part);
      else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
      else omitted++;
    }
  } else if (m.content !== undefined && m.content !== null) omitted++;
  return { role, text: parts.join('\n\n'), toolCalls: [], tool: null, omitted };
}

/** The messages of one request state: its prompt (chat messages, else the prompt text; a multimodal prompt's media counted), then each completion, or the failure. */
function requestMessages(rs: HelmRequestState): TranscriptMessage[] {
  const request = (rs.request ?? {}) as Record<string, Json>;
  const out: TranscriptMessage[] = [];
  if (Array.isArray(request.messages) && request.messages.length > 0) out.push(...request.messages.map(chatMessage));
  else if (typeof request.prompt === 'string' && request.prompt !== '') out.push({ role: 'user', text: request.prompt, toolCalls: [], tool: null, omitted: 0 });
  if (isRecord(request.multimodal_prompt)) {
    const media = Array.isArray(request.multimodal_prompt.media_objects) ? request.multimodal_prompt.media_objects : [];
    const texts = media.filter((o) => isRecord(o) && typeof o.text === 'string' && o.text !== '').map((o) => (o as { text: string }).text);
    out.push({ role: 'user', text: texts.join('\n\n'), toolCalls: [], tool: null, omitted: media.length - texts.length });
  }
  const result = (rs.result ?? null) as Record<string, Json> | null;
  if (result !== null && result.success === false) {
    const error = typeof result.error === 'string' ? result.error : 'no error message recorded';
    out.push({ role: 'other', text: `[request failed at the provider] ${error}`, toolCalls: [], tool: null, omitted: 0 });
  }
  for (const completion of rs.result?.completions ?? []) {
    out.push({ role: 'assistant', text: typeof completion.text === 'string' ? completion.text : '', toolCalls: [], tool: null, omitted: 0 });
  }
  return out;
}

/** The run's scored stats of one instance and trial (unperturbed), the first MAX_SCORES, each field within SCORE_FIELD_CHARS. */
function scoresOf(entries: readonly HelmInstanceStats[]): { scores: TranscriptScore[]; hidden: number } {
  const stats = entries.flatMap((e) => e.stats).filter((s) => (s.name.perturbation ?? null) === null && s.count > 0);
  const scores = stats.slice(0, MAX_SCORES).map((s): TranscriptScore => {
    let cut = 0;
    const field = (text: string): string => {
      const kept = cutText(text, SCORE_FIELD_CHARS);
      cut += kept.cut;
      return kept.text;
    };
    const label = `${s.name.name}${s.name.split ? ` (${s.name.split}${s.name.sub_split ? `, ${s.name.sub_split}` : ''})` : ''}`;
    const name = field(label);
    const value = field(JSON.stringify(s.mean ?? (typeof s.sum === 'number' ? s.sum / s.count : null)));
    return { name, value, answer: null, explanation: null, cut };
  });
  return { scores, hidden: stats.length - scores.length };
}


function slotKey(instanceId: string, trial: number): string {
  return `${instanceId}\u0000${trial}`;
}

/**
 * One transcript per (instance, train trial) with unperturbed request states
 * in scenario_state.json, keyed by transcriptKey(instance id, train trial + 1)
 * as the attempts are (map.ts): each request's prompt and completions, and
 * the run's scored stats of that instance and trial (per_instance_stats.json)
 * as its scores. Within TRANSCRIPT_TEXT_CHARS as Inspect's (messages in order
 * until the budget is spent; a first message longer than the budget is cut).
 * A run without scenario_state.json has none: an empty map.
 */
export function helmTranscripts(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Map<string, Transcript> {
  const out = new Map<string, Transcript>();
  const stateBytes = sources.get(`source/${SCENARIO_STATE}`);
  if (stateBytes === undefined) return out;
  const state = readDocument(stateBytes, SCENARIO_STATE, HelmScenarioState, limits);
  if (state.request_states.length > limits.maxRecords) {
    throw new ImportLimitError(`${SCENARIO_STATE} holds ${state.request_states.length} request states, more than the ${limits.maxRecords} an import reads (import_limits.maxRecords)`, 'maxRecords');
  }
  const statsBytes = sources.get(`source/${PER_INSTANCE_STATS}`);
  const perInstance = statsBytes === undefined ? [] : readDocument(statsBytes, PER_INSTANCE_STATS, HelmPerInstanceStats, limits);
  if (perInstance.length > limits.maxRecords) {
    throw new ImportLimitError(`${PER_INSTANCE_STATS} holds ${perInstance.length} records, more than the ${limits.maxRecords} an import reads (import_limits.maxRecords)`, 'maxRecords');
  }
  const statsBySlot = new Map<string, HelmInstanceStats[]>();
  for (const e of perInstance) {
    if ((e.perturbation ?? null) !== null) continue;
    const key = slotKey(e.instance_id, e.train_trial_index);
    statsBySlot.set(key, [...(statsBySlot.get(key) ?? []), e]);
  }
  const bySlot = new Map<string, { id: string; trial: number; states: HelmRequestState[] }>();
  for (const rs of state.request_states) {
    const id = rs.instance.id;
    if (typeof id !== 'string' || (rs.instance.perturbation ?? null) !== null) continue;
    const key = slotKey(id, rs.train_trial_index);
    const slot = bySlot.get(key) ?? { id, trial: rs.train_trial_index, states: [] };
    slot.states.push(rs);
    bySlot.set(key, slot);
  }
  for (const [key, slot] of bySlot) {
    const { scores, hidden } = scoresOf(statsBySlot.get(key) ?? []);
    out.set(transcriptKey(slot.id, slot.trial + 1), budgetedTranscript(slot.states.flatMap(requestMessages), scores, hidden));
  }
  return out;
}

/** The most component names configurationDifferences lists; past it, one last entry counts the rest. */
export const MAX_DIFFERENCES = 32;

/** A key as a component name: plain keys as they are, any other quoted (and cut to 60 characters). */
function keyName(key: string): string {
  return /^[A-Za-z0-9_]{1,100}$/.test(key) ? key : JSON.stringify(key.slice(0, 60));
}

/** The run_spec.json of a bundle's originals as a plain object, or null when absent, too large, unreadable or not an object. */
function runSpecOf(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits): Record<string, Json> | null {
  const bytes = sources.get(`source/${RUN_SPEC}`);
  if (bytes === undefined || bytes.byteLength > limits.maxFileBytes) return null;
  try {
    const { value } = parseSourceJson(bytes, RUN_SPEC);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** The members of two objects (non-objects: none) whose canonical JSON differs, or that one of them lacks. */
function differingKeys(a: Json, b: Json): string[] {
  const x = isRecord(a) ? a : {};
  const y = isRecord(b) ? b : {};
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].filter((k) => !Object.hasOwn(x, k) || !Object.hasOwn(y, k) || canonicalJson(x[k] ?? null) !== canonicalJson(y[k] ?? null));
}

/**
 * The components of two HELM runs' configurations that differ (run_spec.json,
 * the parts the plan's harness commit and grader digest): each
 * `adapter_spec.<key>` (the model and deployment excepted: they are the
 * subject, not the configuration), `scenario_spec.class_name`, each
 * `scenario_spec.args.<key>`, and `data_augmenter_spec`, `annotators` and
 * `metric_specs` as wholes. Names only, sorted, at most MAX_DIFFERENCES (then
 * one entry "and N more"). A bundle without a readable run_spec.json (absent,
 * past the limits, not JSON, not an object) gives no names: nothing known differs.
 */
export function helmConfigurationDifferences(a: ReadonlyMap<string, Uint8Array>, b: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): string[] {
  const x = runSpecOf(a, limits);
  const y = runSpecOf(b, limits);
  if (x === null || y === null) return [];
  const names = new Set<string>();
  for (const k of differingKeys(x.adapter_spec, y.adapter_spec)) if (k !== 'model' && k !== 'model_deployment') names.add(`adapter_spec.${keyName(k)}`);
  const sx = isRecord(x.scenario_spec) ? x.scenario_spec : {};
  const sy = isRecord(y.scenario_spec) ? y.scenario_spec : {};
  if (canonicalJson(sx.class_name ?? null) !== canonicalJson(sy.class_name ?? null)) names.add('scenario_spec.class_name');
  if (isRecord(sx.args) || isRecord(sy.args)) for (const k of differingKeys(sx.args, sy.args)) names.add(`scenario_spec.args.${keyName(k)}`);
  else if (canonicalJson(sx.args ?? null) !== canonicalJson(sy.args ?? null)) names.add('scenario_spec.args');
  for (const k of ['data_augmenter_spec', 'annotators', 'metric_specs']) if (canonicalJson(x[k] ?? null) !== canonicalJson(y[k] ?? null)) names.add(k);
  const sorted = [...names].sort(compareUtf8);
  return sorted.length <= MAX_DIFFERENCES ? sorted : [...sorted.slice(0, MAX_DIFFERENCES), `and ${sorted.length - MAX_DIFFERENCES} more`];
}
