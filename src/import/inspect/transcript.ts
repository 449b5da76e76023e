/**
 * The transcripts of an Inspect log's samples (src/import/transcript.ts):
 * each sample's `messages` (ChatMessage: role, content as a string or a list
 * of parts, tool_calls, the tool message's function and error) and its
 * `scores`, keyed by sample id and epoch, which are the attempt's task id and
 * index (map.ts). Attachment references (`attachment://<id>`, how .eval logs
 * store long text once) are resolved from the sample's `attachments`.
 */
import { budgetedTranscript, cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import { readInspectLog } from './read-log.ts';
import type { ZipLimits } from './zip.ts';

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** A string with `attachment://<id>` replaced by the attachment's text when the sample holds it. */
function resolved(text: string, attachments: Record<string, Json>): string {
  const m = /^attachment:\/\/([A-Za-z0-9_-]+)$/.exec(text);
  if (m === null) return text;
  const found = attachments[m[1]!];
  return typeof found === 'string' ? found : text;
}

/** Deterministic JSON text of a parsed value (its member order is the source's). */
function jsonText(value: Json): string {
  return JSON.stringify(value ?? null) ?? 'null';
}

function messageOf(raw: Json, attachments: Record<string, Json>): TranscriptMessage {
  const m = isRecord(raw) ? raw : {};
  const role = typeof m.role === 'string' && ROLES.has(m.role) ? (m.role as TranscriptMessage['role']) : 'other';
  const parts: string[] = [];
  let omitted = 0;
  if (typeof m.content === 'string') parts.push(resolved(m.content, attachments));
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      if (!isRecord(part)) omitted++;
      else if (part.type === 'text' && typeof part.text === 'string') parts.push(resolved(part.text, attachments));
      else if (part.type === 'reasoning' && typeof part.reasoning === 'string') parts.push(`[reasoning] ${resolved(part.reasoning, attachments)}`);
      else omitted++;
    }
  }
  const toolCalls = Array.isArray(m.tool_calls)
    ? m.tool_calls.filter(isRecord).map((c) => ({ name: typeof c.function === 'string' ? c.function : '(unnamed)', arguments: resolved(jsonText(c.arguments), attachments) }))
    : [];
  const error = isRecord(m.error) && typeof m.error.message === 'string' ? m.error.message : null;
  const tool = role === 'tool' ? { name: typeof m.function === 'string' ? m.function : null, error } : null;
  return { role, text: parts.join('\n\n'), toolCalls, tool, omitted };
}

/** The scores a page lists (the first MAX_SCORES, each field within SCORE_FIELD_CHARS), and how many more the log records. */
function scoresOf(raw: Json): { scores: TranscriptScore[]; hidden: number } {
  if (!isRecord(raw)) return { scores: [], hidden: 0 };
  const entries = Object.entries(raw);
  const scores = entries.slice(0, MAX_SCORES).map(([rawName, s]) => {
    const score = isRecord(s) ? s : {};
    let cut = 0;
    const field = (text: string): string => {
      const kept = cutText(text, SCORE_FIELD_CHARS);
      cut += kept.cut;
      return kept.text;
    };
    const name = field(rawName);
    const value = field(jsonText(score.value));
    const answer = typeof score.answer === 'string' ? field(score.answer) : null;
    const explanation = typeof score.explanation === 'string' ? field(score.explanation) : null;
    return { name, value, answer, explanation, cut };
  });
  return { scores, hidden: entries.length - scores.length };
}


/**
 * One transcript per sample that holds messages, keyed by transcriptKey(id,
 * epoch), each within TRANSCRIPT_TEXT_CHARS: messages in order until the
 * budget is spent (a first message longer than the whole budget is cut).
 */
export async function inspectTranscripts(bytes: Uint8Array, limits?: ZipLimits): Promise<Map<string, Transcript>> {
  const log = await readInspectLog(bytes, limits);
  const out = new Map<string, Transcript>();
  for (const sample of log.samples) {
    const raw = sample as Record<string, Json>;
    if (!Array.isArray(raw.messages) || raw.messages.length === 0) continue;
    const attachments = isRecord(raw.attachments) ? raw.attachments : {};
    const { scores, hidden } = scoresOf(raw.scores);
    const all = (raw.messages as Json[]).map((m) => messageOf(m, attachments));
    out.set(transcriptKey(String(sample.id), sample.epoch), budgetedTranscript(all, scores, hidden));
  }
  return out;
}
