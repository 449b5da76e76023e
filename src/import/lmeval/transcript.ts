/**
 * The transcripts of an lm-eval run's docs (src/import/transcript.ts), read
 * from the originals as published (the results file and its samples files
 * under `source/`): per (task, doc_id), the prompt(s) the harness sent
 * (`arguments`: each request's context) as the user message, the model's
 * response(s) (`resps`) as the assistant message, and every metric value of
 * every filter's line as a score (name `metric,filter`; answer: that
 * filter's `filtered_resps`; explanation, on the first score: the `target`). Keyed by
 * transcriptKey(`<task>/<doc_id>`, 1), as map.ts writes the attempts.
 */
import type { ImportInput } from '../input-shape.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { budgetedTranscript, cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import { readLmEvalRun, type SampleLine } from './read-run.ts';

const PREFIX = 'source/';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as text: a string is itself; anything else its JSON text. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value ?? null) ?? 'null');
}

/**
 * The requests of a line: `arguments` as lm-eval 0.4 writes it
 * (`{"gen_args_0": {"arg_0": context, "arg_1": continuation or generation
 * kwargs}, ...}`) or as older versions did (a list of [context, ...] lists).
 */
function requestsOf(args: unknown): { context: unknown; rest: unknown[] }[] {
  if (Array.isArray(args)) return args.map((a) => (Array.isArray(a) ? { context: a[0], rest: a.slice(1) } : { context: a, rest: [] }));
  if (!isRecord(args)) return [];
  return Object.entries(args)
    .filter(([k]) => /^gen_args_[0-9]+$/.test(k))
    .sort(([a], [b]) => Number(a.slice(9)) - Number(b.slice(9)))
    .map(([, v]) => (isRecord(v) ? { context: v.arg_0, rest: Object.entries(v).filter(([k]) => k !== 'arg_0').map(([, x]) => x) } : { context: v, rest: [] }));
}

/** The user message: each distinct context once, in request order. */
function promptText(args: unknown): string {
  const contexts: string[] = [];
  for (const r of requestsOf(args)) {
    const text = textOf(r.context);
    if (!contexts.includes(text)) contexts.push(text);
  }
  return contexts.join('\n\n');
}

/**
 * The assistant message: one response per request; where the request
 * scored a continuation (multiple choice, loglikelihood), the continuation
 * beside what the model returned for it ([log-likelihood, is greedy]).
 */
function responseText(args: unknown, resps: unknown): string {
  if (!Array.isArray(resps)) return resps === undefined || resps === null ? '' : textOf(resps);
  const requests = requestsOf(args);
  return resps
    .map((resp, i) => {
      const answer = Array.isArray(resp) && resp.length === 1 ? resp[0] : resp;
      const continuation = requests[i]?.rest[0];
      return typeof continuation === 'string' ? `${JSON.stringify(continuation)}: ${textOf(answer)}` : textOf(answer);
    })
    .join('\n\n');
}

/** The members of a line that are lm-eval's own, not metric values. */
const SAMPLE_MEMBERS = new Set(['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash']);

/** The metric names of a line: its `metrics` list where it has one, else its members that are not lm-eval's own. */
function metricsOf(line: SampleLine): string[] {
  const listed = line.sample.metrics;
  if (Array.isArray(listed)) return listed.filter((m) => Object.hasOwn(line.raw, m));
  return Object.keys(line.raw).filter((k) => !SAMPLE_MEMBERS.has(k));
}

function scoresOf(lines: readonly SampleLine[]): { scores: TranscriptScore[]; hidden: number } {
  const all: { name: string; value: unknown; answer: unknown; target: unknown }[] = [];
  // The target is said once, on the first score that has it (every filter's line of a doc holds the same one).
  const targets = new Set<string>();
  for (const l of lines) {
    const filter = l.sample.filter ?? 'none';
    for (const m of metricsOf(l)) {
      const target = l.sample.target === undefined ? undefined : textOf(l.sample.target);
      const first = target !== undefined && !targets.has(target);
      if (first) targets.add(target);
      all.push({ name: `${m},${filter}`, value: l.raw[m], answer: l.sample.filtered_resps, target: first ? target : undefined });
    }
  }
  const scores = all.slice(0, MAX_SCORES).map((s) => {
    let cut = 0;
    const field = (text: string): string => {
      const kept = cutText(text, SCORE_FIELD_CHARS);
      cut += kept.cut;
      return kept.text;
    };
    const name = field(s.name);
    const value = field(JSON.stringify(s.value ?? null) ?? 'null');
    const answer = s.answer === undefined ? null : field(textOf(s.answer));
    const explanation = s.target === undefined ? null : field(`target: ${textOf(s.target)}`);
    return { name, value, answer, explanation, cut };
  });
  return { scores, hidden: all.length - scores.length };
}


function message(role: TranscriptMessage['role'], text: string): TranscriptMessage {
  return { role, text, toolCalls: [], tool: null, omitted: 0 };
}

/**
 * One transcript per (task, doc_id) of the run, each within
 * TRANSCRIPT_TEXT_CHARS (scores first, then the messages in order until the
 * budget is spent; a first message longer than the rest of the budget is
 * cut). A doc's lines under every filter share one transcript: the
 * responses are the same, each filter's reading of them is a score.
 */
export async function lmEvalTranscripts(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Promise<Map<string, Transcript>> {
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of sources) if (path.startsWith(PREFIX)) files.set(path.slice(PREFIX.length), bytes);
  const input: ImportInput = { name: 'source', kind: 'directory', files, skipped: [] };
  const run = readLmEvalRun(input, limits);
  const out = new Map<string, Transcript>();
  for (const t of run.tasks) {
    const byDoc = new Map<number, SampleLine[]>();
    for (const l of t.lines) {
      if (!byDoc.has(l.sample.doc_id)) byDoc.set(l.sample.doc_id, []);
      byDoc.get(l.sample.doc_id)!.push(l);
    }
    for (const [docId, lines] of byDoc) {
      const first = lines[0]!.sample;
      const { scores, hidden } = scoresOf(lines);
      const all = [message('user', promptText(first.arguments)), ...(first.resps === undefined || first.resps === null ? [] : [message('assistant', responseText(first.arguments, first.resps))])];
      out.set(transcriptKey(`${t.task}/${docId}`, 1), budgetedTranscript(all, scores, hidden));
    }
  }
  return out;
}
