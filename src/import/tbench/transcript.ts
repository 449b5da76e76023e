/**
 * The transcripts of Terminal-Bench trials (src/import/transcript.ts), read
 * from the log files a bundle keeps beside each trial's result file
 * (read.ts LOG_FILES), keyed by transcriptKey(task id, attempt index) exactly
 * as the attempts are (map.ts orderTrials):
 *
 * - TB1: the task's instruction (user), the tmux pane before the agent ran
 *   (tool "terminal"), the keystrokes sent to the terminal by the agent and
 *   the harness (`commands.txt`, one Python list per line: other), and the
 *   panes after the agent and after the tests (tool "terminal", tool "tests");
 * - Harbor: the agent's ATIF trajectory (`agent/trajectory.json`: each step
 *   a system, user or assistant message with its reasoning and tool calls,
 *   each observation result a tool message), then the verifier's output
 *   (`verifier/test-stdout.txt`, tool "verifier").
 *
 * Scores: TB1's is_resolved and each parser result; Harbor's rewards. A trial
 * without any of its log files has no transcript. Originals that do not read
 * as a run throw the import's own ImportError (the site says the source
 * cannot be read); within a run that reads, nothing throws on a hostile log
 * file: a trajectory that is not readable JSON (or nests deeper than
 * TRAJECTORY_MAX_DEPTH) is skipped and its other files shown. No path written
 * inside a file (a subagent trajectory reference) is ever followed.
 */
import { parseStrictJson } from '../../json/strict-json.ts';
import type { ImportInput } from '../input-shape.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { budgetedTranscript, cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import { orderTrials } from './order.ts';
import { normalizeHarbor, normalizeTb1, type Run, type Trial } from './normalize.ts';
import { readRun, type TbenchRun } from './read.ts';
import type { HarborTrial, Tb1Trial } from './schema.ts';

type Json = unknown;

/** Nesting limit of a trajectory (a step's arguments and extra members nest; deeper is not read). */
export const TRAJECTORY_MAX_DEPTH = 128;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Bytes as text: UTF-8 with invalid sequences replaced (a log is shown, never trusted). */
function textOf(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);
}

function message(role: TranscriptMessage['role'], text: string, extra: Partial<TranscriptMessage> = {}): TranscriptMessage {
  return { role, text, toolCalls: [], tool: null, omitted: 0, ...extra };
}

function toolMessage(name: string, text: string): TranscriptMessage {
  return message('tool', text, { tool: { name, error: null } });
}

/** Deterministic JSON text of a parsed value. */
function jsonText(value: Json): string {
  return JSON.stringify(value ?? null) ?? 'null';
}

function score(name: string, value: Json): TranscriptScore {
  let cut = 0;
  const field = (text: string): string => {
    const kept = cutText(text, SCORE_FIELD_CHARS);
    cut += kept.cut;
    return kept.text;
  };
  return { name: field(name), value: field(jsonText(value)), answer: null, explanation: null, cut };
}


/** A transcript within TRANSCRIPT_TEXT_CHARS (budgetedTranscript), of the first MAX_SCORES scores. */
function budgeted(all: readonly TranscriptMessage[], allScores: readonly TranscriptScore[]): Transcript {
  return budgetedTranscript(all, allScores.slice(0, MAX_SCORES), Math.max(0, allScores.length - MAX_SCORES));
}

// ---------------------------------------------------------------- TB1

function tb1Messages(trial: Tb1Trial, dir: string, files: ReadonlyMap<string, Uint8Array>): TranscriptMessage[] | null {
  const file = (name: string): string | null => {
    const bytes = files.get(`${dir}/${name}`);
    return bytes === undefined ? null : textOf(bytes);
  };
  const pre = file('panes/pre-agent.txt');
  const commands = file('commands.txt');
  const post = file('panes/post-agent.txt');
  const tests = file('panes/post-test.txt');
  if (pre === null && commands === null && post === null && tests === null) return null;
  const out: TranscriptMessage[] = [message('user', trial.instruction)];
  if (pre !== null) out.push(toolMessage('terminal', `[the terminal before the agent ran: panes/pre-agent.txt]\n${pre.trimEnd()}`));
  if (commands !== null) out.push(message('other', `[keystrokes sent to the terminal, by the agent and the harness: commands.txt]\n${commands.trimEnd()}`));
  if (post !== null) out.push(toolMessage('terminal', `[the terminal after the agent: panes/post-agent.txt]\n${post.trimEnd()}`));
  if (tests !== null) out.push(toolMessage('tests', `[the terminal after the tests: panes/post-test.txt]\n${tests.trimEnd()}`));
  return out;
}

function tb1Scores(trial: Tb1Trial): TranscriptScore[] {
  const scores = [score('is_resolved', trial.is_resolved ?? null), score('failure_mode', trial.failure_mode ?? null)];
  for (const [test, status] of Object.entries(trial.parser_results ?? {})) scores.push(score(`parser_results: ${test}`, status));
  return scores;
}

// ---------------------------------------------------------------- Harbor

/** An observation result's content: a string, or a list of parts (text shown, others counted). */
function contentOf(raw: Json): { text: string; omitted: number } {
  if (typeof raw === 'string') return { text: raw, omitted: 0 };
  if (!Array.isArray(raw)) return { text: raw === null || raw === undefined ? '' : jsonText(raw), omitted: 0 };
  const parts: string[] = [];
  let omitted = 0;
  for (const part of raw) {
    if (typeof part === 'string') parts.push(part);
    else if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else omitted++;
  }
  return { text: parts.join('\n\n'), omitted };
}

const SOURCES: Readonly<Record<string, TranscriptMessage['role']>> = { system: 'system', user: 'user', agent: 'assistant' };

/** The messages of an ATIF trajectory's steps; null when it is not an object with a steps list. */
function atifMessages(bytes: Uint8Array): TranscriptMessage[] | null {
  const parsed = parseStrictJson(bytes, { maxDepth: TRAJECTORY_MAX_DEPTH });
  if (!parsed.ok || !isRecord(parsed.value) || !Array.isArray(parsed.value.steps)) return null;
  const out: TranscriptMessage[] = [];
  for (const raw of parsed.value.steps as Json[]) {
    const step = isRecord(raw) ? raw : {};
    const role = typeof step.source === 'string' && Object.hasOwn(SOURCES, step.source) ? SOURCES[step.source]! : 'other';
    const parts: string[] = [];
    let omitted = 0;
    if (typeof step.reasoning_content === 'string' && step.reasoning_content !== '') parts.push(`[reasoning] ${step.reasoning_content}`);
    const text = contentOf(step.message);
    if (text.text !== '') parts.push(text.text);
    omitted += text.omitted;
    const names = new Map<string, string>();
    const toolCalls = Array.isArray(step.tool_calls)
      ? (step.tool_calls as Json[]).filter(isRecord).map((c) => {
          const name = typeof c.function_name === 'string' ? c.function_name : '(unnamed)';
          if (typeof c.tool_call_id === 'string') names.set(c.tool_call_id, name);
          return { name, arguments: jsonText(c.arguments) };
        })
      : [];
    out.push(message(role, parts.join('\n\n'), { toolCalls, omitted }));
    const results: Json[] = isRecord(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
    for (const r of results) {
      const result = isRecord(r) ? r : {};
      const content = contentOf(result.content);
      const name = typeof result.source_call_id === 'string' ? (names.get(result.source_call_id) ?? null) : null;
      out.push(message('tool', content.text, { tool: { name, error: null }, omitted: content.omitted }));
    }
  }
  return out;
}

function harborMessages(dir: string, files: ReadonlyMap<string, Uint8Array>): TranscriptMessage[] | null {
  const trajectory = files.get(`${dir}/agent/trajectory.json`);
  const verifier = files.get(`${dir}/verifier/test-stdout.txt`);
  if (trajectory === undefined && verifier === undefined) return null;
  const out: TranscriptMessage[] = [];
  if (trajectory !== undefined) {
    const steps = atifMessages(trajectory);
    out.push(...(steps ?? [message('other', '[agent/trajectory.json is not an ATIF trajectory this page can read (not JSON, no steps list, or nested too deep): not shown]')]));
  }
  if (verifier !== undefined) out.push(toolMessage('verifier', `[the verifier's output: verifier/test-stdout.txt]\n${textOf(verifier).trimEnd()}`));
  return out;
}

function harborScores(trial: HarborTrial): TranscriptScore[] {
  const scores: TranscriptScore[] = [];
  for (const [name, value] of Object.entries(trial.verifier_result?.rewards ?? {})) scores.push(score(name, value));
  if (trial.exception_info) scores.push(score('exception_type', trial.exception_info.exception_type));
  return scores;
}

// ---------------------------------------------------------------- both

/**
 * The run of the originals (bundle path `source/<relative path>`), read as
 * the import reads it; null when there are none. Originals that do not read
 * as a run throw the import's ImportError (the site: "cannot be read").
 */
function runOf(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits): { read: TbenchRun; run: Run } | null {
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of sources) if (path.startsWith('source/')) files.set(path.slice('source/'.length), bytes);
  if (files.size === 0) return null;
  const input: ImportInput = { name: 'source', kind: 'directory', files, skipped: [] };
  const read = readRun(input, limits);
  // The verdicts are not shown here, only the attempt order: any threshold reads a job with non-binary rewards.
  const run = read.layout === 'tb1' ? normalizeTb1(read, limits.maxStringBytes) : normalizeHarbor(read, { license: '', passThreshold: 0, passThresholdText: '0' }, limits.maxStringBytes);
  return { read, run };
}

/** One transcript per trial whose directory holds a kept log file, keyed by transcriptKey(task id, attempt index). */
export async function tbenchTranscripts(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Promise<Map<string, Transcript>> {
  const out = new Map<string, Transcript>();
  const found = runOf(sources, limits);
  if (found === null) return out;
  const { read, run } = found;
  const kept = new Set(read.logs.kept);
  const files = new Map<string, Uint8Array>();
  for (const path of kept) files.set(path, sources.get(`source/${path}`)!);
  // The source trial of each normalised trial (same order: normalize maps them one to one).
  const source = new Map<Trial, Tb1Trial | HarborTrial>(run.trials.map((t, i) => [t, read.trials[i]!]));
  for (const { trial, index } of orderTrials(run.trials).ordered) {
    if (trial.dir === null) continue;
    const original = source.get(trial)!;
    if (read.layout === 'tb1') {
      const messages = tb1Messages(original as Tb1Trial, trial.dir, files);
      if (messages !== null) out.set(transcriptKey(trial.taskId, index), budgeted(messages, tb1Scores(original as Tb1Trial)));
    } else {
      const messages = harborMessages(trial.dir, files);
      if (messages !== null) out.set(transcriptKey(trial.taskId, index), budgeted(messages, harborScores(original as HarborTrial)));
    }
  }
  return out;
}
