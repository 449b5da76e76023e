/**
 * A readable transcript of one imported attempt: what the site's transcript
 * page shows (docs/site.md, "Transcripts"). Plain text only: messages with
 * their role and text, tool calls with their arguments as JSON text, and the
 * scores the source recorded. Nothing in it is markup: the page escapes every
 * string, and non-text content (images, audio, data) is counted, never shown.
 */

/** One message of a transcript. */
export interface TranscriptMessage {
  /** system, user, assistant or tool; any other role the source writes is "other". */
  role: 'system' | 'user' | 'assistant' | 'tool' | 'other';
  /** The message's text parts, joined by blank lines (reasoning parts marked "[reasoning]"). */
  text: string;
  /** Tool calls an assistant message makes: the function's name and its arguments as JSON text. */
  toolCalls: { name: string; arguments: string }[];
  /** For a tool message: the function that answered, and its error message if it failed. */
  tool: { name: string | null; error: string | null } | null;
  /** Content parts that are not text (images, audio, video, data): counted, never shown. */
  omitted: number;
}

/** One score the source recorded for the attempt (every scorer, not only the graded one). */
export interface TranscriptScore {
  name: string;
  /** The value as JSON text ("\"C\"", "0.5", "{...}"). */
  value: string;
  answer: string | null;
  explanation: string | null;
  /** Characters of the name, value, answer and explanation left out (each is shown up to SCORE_FIELD_CHARS). */
  cut: number;
}

export interface Transcript {
  messages: TranscriptMessage[];
  scores: TranscriptScore[];
  /** Messages the source holds for the attempt; more than `messages.length` when the text budget cut the rest. */
  total: number;
  /** Text cut from shown messages (characters) when one message alone passes the budget. */
  cut: number;
  /** Scores the log records past the first MAX_SCORES (counted, not shown). */
  scoresHidden: number;
}

/** The most characters of one score field (name, value, answer, explanation) a transcript page shows. */
export const SCORE_FIELD_CHARS = 16 * 1024;
/** The most scores of one attempt a transcript page lists. */
export const MAX_SCORES = 100;

/** The first `max` UTF-16 code units of a text, never ending inside a surrogate pair, and how many were left out. */
export function cutText(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), cut: text.length - end };
}

/** The text one transcript page shows at most (UTF-16 code units of message text, tool arguments and scores). */
export const TRANSCRIPT_TEXT_CHARS = 256 * 1024;

/** The key of an attempt's transcript: its task id and attempt index (what an attempts.jsonl line and the source share). */
export function transcriptKey(taskId: string, index: number): string {
  return `${index}\u0000${taskId}`;
}

/** The characters of a message that count against a page's text budget: its text, its tool calls' names and arguments, a tool's error. */
export function messageChars(m: TranscriptMessage): number {
  return m.text.length + m.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0) + (m.tool?.error?.length ?? 0);
}

/** The characters of the scores shown (each field is already held to SCORE_FIELD_CHARS). */
function scoreChars(scores: readonly TranscriptScore[]): number {
  return scores.reduce((n, s) => n + s.name.length + s.value.length + (s.answer?.length ?? 0) + (s.explanation?.length ?? 0), 0);
}

/**
 * A transcript within TRANSCRIPT_TEXT_CHARS, for every format alike: the
 * scores first, then the messages in order until the budget is spent. A first
 * message larger than what is left is cut (its text to the budget, its tool
 * calls dropped, both counted in `cut`); the messages after it are counted in
 * `total`, never shown.
 */
export function budgetedTranscript(all: readonly TranscriptMessage[], scores: TranscriptScore[], scoresHidden: number): Transcript {
  let budget = Math.max(0, TRANSCRIPT_TEXT_CHARS - scoreChars(scores));
  const messages: TranscriptMessage[] = [];
  let cut = 0;
  for (const message of all) {
    const n = messageChars(message);
    if (n <= budget) {
      messages.push(message);
      budget -= n;
      continue;
    }
    if (messages.length === 0) {
      const kept = cutText(message.text, budget);
      cut = kept.cut + message.toolCalls.reduce((k, c) => k + c.name.length + c.arguments.length, 0);
      messages.push({ ...message, text: kept.text, toolCalls: [] });
    }
    break;
  }
  return { messages, scores, total: all.length, cut, scoresHidden };
}
