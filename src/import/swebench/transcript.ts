/**
 * The transcripts of a SWE-bench run (src/import/transcript.ts), read from
 * its originals as published: a SWE-bench run records no conversation, so
 * each instance's transcript is the submitted patch as text (the
 * predictions line's `model_patch`, one assistant message; none without a
 * predictions file) and the scores of its per-instance report.json when
 * there is one (`resolved`, `patch_successfully_applied`, and the
 * FAIL_TO_PASS and PASS_TO_PASS success and failure counts as JSON text).
 * Keyed by transcriptKey(instance id, 1), as the attempts are (map.ts: one
 * attempt per instance, index 1). The originals are read by the importer's
 * own strict reader (read-run.ts) within the import limits: an original that
 * does not read gives no transcripts (the caller shows none).
 */
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { cutText, transcriptKey, TRANSCRIPT_TEXT_CHARS, type Transcript, type TranscriptMessage, type TranscriptScore } from '../transcript.ts';
import { readSweRun } from './read-run.ts';
import type { InstanceReport } from './schema.ts';

function scoresOf(report: InstanceReport): TranscriptScore[] {
  const score = (name: string, value: unknown): TranscriptScore => ({ name, value: JSON.stringify(value), answer: null, explanation: null, cut: 0 });
  const counts = (name: 'FAIL_TO_PASS' | 'PASS_TO_PASS') => {
    const t = report.tests_status?.[name];
    return t === undefined ? [] : [score(name, { success: t.success.length, failure: t.failure.length })];
  };
  return [score('resolved', report.resolved), score('patch_successfully_applied', report.patch_successfully_applied), ...counts('FAIL_TO_PASS'), ...counts('PASS_TO_PASS')];
}

/** The transcripts of the run whose originals are `sources` (bundle path -> bytes, under `source/`). */
export async function sweTranscripts(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Promise<Map<string, Transcript>> {
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of sources) if (path.startsWith('source/')) files.set(path.slice('source/'.length), bytes);
  const out = new Map<string, Transcript>();
  if (files.size === 0) return out;
  const run = readSweRun({ name: 'source', kind: 'directory', files, skipped: [] }, limits);
  const patches = new Map<string, string | null>((run.predictions?.lines ?? []).map((p) => [p.instance_id, p.model_patch]));
  for (const id of new Set([...patches.keys(), ...run.reports.keys()])) {
    const report = run.reports.get(id);
    const scores = report === undefined ? [] : scoresOf(report.report);
    const budget = TRANSCRIPT_TEXT_CHARS - scores.reduce((n, s) => n + s.name.length + s.value.length, 0);
    const messages: TranscriptMessage[] = [];
    let cut = 0;
    if (patches.has(id)) {
      const kept = cutText(patches.get(id) ?? '', budget);
      cut = kept.cut;
      messages.push({ role: 'assistant', text: kept.text, toolCalls: [], tool: null, omitted: 0 });
    }
    out.set(transcriptKey(id, 1), { messages, scores, total: messages.length, cut, scoresHidden: 0 });
  }
  return out;
}
