/**
 * The transcripts of an Every Eval Ever record's samples (src/import/transcript.ts),
 * read from the kept aggregate and its sidecar as published, keyed by
 * transcriptKey(sample id, 1): the attempt's task id and index (map.ts: one
 * task per sample id, one attempt each).
 *
 * A sample's messages are its first row's (file order; every row of a
 * sample has the same input, map.ts refuses one that does not):
 * `messages` (0.2.2; 0.2.0 called them `interactions`) one message per turn
 * with its role, reasoning trace, content and tool calls; without them (a
 * single_turn row) the input as the sidecar records it (`input.formatted`
 * when set, else `input.raw`, then `input.choices`) as the user's message and
 * `output.raw` (and its `reasoning_trace`) as the assistant's. Its scores are
 * one per row, each named by its metric (evaluation_result_id, else
 * evaluation_name): the score, the extracted answer, `is_correct`, the
 * reference and any error. Text only, within the same budgets as the
 * Inspect transcripts.
 */
import type { ImportLimits } from '../limits.ts';
import { DEFAULT_IMPORT_LIMITS } from '../limits.ts';
import { budgetedTranscript, cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import type { ImportInput } from '../input-shape.ts';
import { metricKey } from './metric.ts';
import { readAggregate, readSidecar } from './read.ts';
import type { EeeRow } from './schema.ts';

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Deterministic JSON text of a parsed value (its member order is the source's). */
function jsonText(value: Json): string {
  return JSON.stringify(value ?? null) ?? 'null';
}

/** Strings of a value that is a string or a list of strings (other items counted as omitted). */
function texts(value: Json): { parts: string[]; omitted: number } {
  if (typeof value === 'string') return { parts: [value], omitted: 0 };
  if (!Array.isArray(value)) return { parts: [], omitted: 0 };
  const parts: string[] = [];
  let omitted = 0;
  for (const item of value) {
    if (typeof item === 'string') parts.push(item);
    else if (isRecord(item) && item.type === 'text' && typeof item.text === 'string') parts.push(item.text);
    else omitted++;
  }
  return { parts, omitted };
}

/** One turn of `messages` / `interactions`; `calls` maps earlier tool call ids to their tool's name. */
function turnOf(raw: Json, calls: Map<string, string>): TranscriptMessage {
  const m = isRecord(raw) ? raw : {};
  const role = typeof m.role === 'string' && ROLES.has(m.role) ? (m.role as TranscriptMessage['role']) : 'other';
  const reasoning = texts(m.reasoning_trace);
  const content = texts(m.content);
  const parts = [...reasoning.parts.map((r) => `[reasoning] ${r}`), ...content.parts];
  const toolCalls = Array.isArray(m.tool_calls)
    ? m.tool_calls.filter(isRecord).map((c) => {
        const name = typeof c.name === 'string' ? c.name : '(unnamed)';
        if (typeof c.id === 'string') calls.set(c.id, name);
        return { name, arguments: jsonText(c.arguments) };
      })
    : [];
  let tool: TranscriptMessage['tool'] = null;
  if (role === 'tool') {
    const ids = typeof m.tool_call_id === 'string' ? [m.tool_call_id] : Array.isArray(m.tool_call_id) ? m.tool_call_id.filter((i): i is string => typeof i === 'string') : [];
    const names = [...new Set(ids.map((i) => calls.get(i)).filter((n): n is string => n !== undefined))];
    tool = { name: names.length === 1 ? names[0]! : null, error: null };
  }
  return { role, text: parts.join('\n\n'), toolCalls, tool, omitted: reasoning.omitted + content.omitted };
}

/** The messages of a row: its turns, else its input and output (see the module comment). */
function messagesOf(row: Record<string, Json>): TranscriptMessage[] {
  const turns = Array.isArray(row.messages) && row.messages.length > 0 ? row.messages : Array.isArray(row.interactions) && row.interactions.length > 0 ? row.interactions : null;
  if (turns !== null) {
    const calls = new Map<string, string>();
    return turns.map((t) => turnOf(t, calls));
  }
  const input = isRecord(row.input) ? row.input : null;
  const prompt: string[] = [];
  let omitted = 0;
  if (input === null) prompt.push(jsonText(row.input));
  else {
    const shown = typeof input.formatted === 'string' && input.formatted !== '' ? input.formatted : input.raw;
    if (typeof shown === 'string') prompt.push(shown);
    else if (shown !== undefined && shown !== null) prompt.push(jsonText(shown));
    const choices = texts(input.choices);
    if (choices.parts.length > 0) prompt.push(`choices:\n${choices.parts.map((c) => `- ${c}`).join('\n')}`);
    omitted += choices.omitted;
  }
  const messages: TranscriptMessage[] = [{ role: 'user', text: prompt.join('\n\n'), toolCalls: [], tool: null, omitted }];
  const output = isRecord(row.output) ? row.output : null;
  if (output !== null) {
    const reasoning = texts(output.reasoning_trace);
    const raw = texts(output.raw);
    messages.push({ role: 'assistant', text: [...reasoning.parts.map((r) => `[reasoning] ${r}`), ...raw.parts].join('\n\n'), toolCalls: [], tool: null, omitted: reasoning.omitted + raw.omitted });
  }
  return messages;
}

/** The answer a row's answer_attribution extracted: the last terminal one, else the last one; null when none. */
function answerOf(row: Record<string, Json>): string | null {
  const list = Array.isArray(row.answer_attribution) ? row.answer_attribution.filter(isRecord) : [];
  const terminal = list.filter((a) => a.is_terminal === true);
  const pick = (terminal.length > 0 ? terminal : list).at(-1);
  return pick !== undefined && typeof pick.extracted_value === 'string' ? pick.extracted_value : null;
}

/** One score per row of the sample (the first MAX_SCORES), each field within SCORE_FIELD_CHARS. */
function scoresOf(rows: readonly EeeRow[]): { scores: TranscriptScore[]; hidden: number } {
  const scores = rows.slice(0, MAX_SCORES).map((row) => {
    const raw = row as unknown as Record<string, Json>;
    let cut = 0;
    const field = (text: string): string => {
      const kept = cutText(text, SCORE_FIELD_CHARS);
      cut += kept.cut;
      return kept.text;
    };
    const input = isRecord(raw.input) ? raw.input : {};
    const said = [`is_correct: ${String(row.evaluation.is_correct)}`];
    if (input.reference !== undefined && input.reference !== null) said.push(`reference: ${jsonText(input.reference)}`);
    if (typeof row.error === 'string' && row.error !== '') said.push(`error: ${row.error}`);
    const answer = answerOf(raw);
    return { name: field(metricKey(row)), value: field(jsonText(row.evaluation.score)), answer: answer === null ? null : field(answer), explanation: field(said.join('; ')), cut };
  });
  return { scores, hidden: rows.length - scores.length };
}


/**
 * One transcript per sample, keyed by transcriptKey(String(sample_id), 1),
 * from the kept originals (bundle path -> bytes, under `source/`), read as
 * the import reads them (the same aggregate, the same sidecar resolution,
 * checksum and row count checks; an ImportError when they do not hold),
 * each within TRANSCRIPT_TEXT_CHARS: messages in order until the budget is
 * spent (a first message longer than the whole budget is cut).
 */
export function eeeTranscripts(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Map<string, Transcript> {
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of sources) if (path.startsWith('source/')) files.set(path.slice('source/'.length), bytes);
  const input: ImportInput = { name: 'source', kind: 'directory', files, skipped: [] };
  const agg = readAggregate(input);
  const sidecar = readSidecar(input, agg, limits.maxRecords, limits.maxStringBytes);
  const samples = new Map<string, EeeRow[]>();
  for (const row of sidecar.rows) {
    const id = String(row.sample_id);
    const rows = samples.get(id);
    if (rows === undefined) samples.set(id, [row]);
    else rows.push(row);
  }
  const out = new Map<string, Transcript>();
  for (const [id, rows] of samples) {
    const all = messagesOf(rows[0] as unknown as Record<string, Json>);
    const { scores, hidden } = scoresOf(rows);
    out.set(transcriptKey(id, 1), budgetedTranscript(all, scores, hidden));
  }
  return out;
}
