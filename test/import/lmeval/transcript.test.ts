/**
 * lm-eval transcripts (issue 26): each doc's prompt (arguments) as the user
 * message, its responses (resps) as the assistant message, every metric of
 * every filter as a score (answer: filtered_resps; explanation, once: target),
 * keyed as the attempts are, within the transcript budgets.
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';
import { MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, TRANSCRIPT_TEXT_CHARS } from '../../../src/import/transcript.ts';
import { basicRun, jsonlOf, line, mapRun, REAL_RUNS, results, run, STAMP } from './helpers.ts';

const R = `results_${STAMP}.json`;
const S = (task: string) => `samples_${task}_${STAMP}.jsonl`;

async function transcriptsOf(input: Parameters<typeof mapRun>[0], flags: Record<string, string> = {}) {
  const b = await mapRun(input, flags);
  const sources = new Map([...b.files].filter(([p]) => p.startsWith('source/')));
  const attempts = jsonlOf(b, 'attempts.jsonl') as { task_id: string; index: number }[];
  return { attempts, transcripts: await lmEvalImporter.transcripts!(sources) };
}

describe('lm-eval transcripts', () => {
  it('one per doc, keyed by transcriptKey(task id, attempt index) of the attempts the import writes', async () => {
    const { attempts, transcripts } = await transcriptsOf(basicRun());
    expect([...transcripts.keys()].sort()).toEqual(attempts.map((a) => transcriptKey(a.task_id, a.index)).sort());
    const t = transcripts.get(transcriptKey('t/0', 1))!;
    expect(t.messages).toEqual([
      { role: 'user', text: 'Question 0?', toolCalls: [], tool: null, omitted: 0 },
      { role: 'assistant', text: '" yes": ["-1.5",false]', toolCalls: [], tool: null, omitted: 0 },
    ]);
    expect(t.scores).toEqual([{ name: 'acc,none', value: '1', answer: '[["-1.5",false]]', explanation: 'target: yes', cut: 0 }]);
    expect(t).toMatchObject({ total: 2, cut: 0, scoresHidden: 0 });
  });

  it('a generation task: the prompt, the generated text, and each filter as a score on the one transcript', async () => {
    const gen = (i: number, filter: string, em: number, filtered: string) =>
      line(i, {
        arguments: { gen_args_0: { arg_0: `Q${i}: 2+2?`, arg_1: { until: ['\n'], do_sample: false } } },
        prompt_hash: null,
        resps: [['The answer is 4.']],
        filtered_resps: [filtered],
        filter,
        metrics: ['exact_match'],
        exact_match: em,
        target: '4',
        acc: undefined,
      });
    const res = results({ g: { effective: 1 } });
    (res.results as Record<string, unknown>).g = { 'exact_match,strict-match': 1, 'exact_match,flexible-extract': 1 };
    const { attempts, transcripts } = await transcriptsOf(run({ [R]: res, [S('g')]: [gen(0, 'strict-match', 1, '4'), gen(0, 'flexible-extract', 0, '[invalid]')] }), { filter: 'strict-match' });
    expect(attempts.map((a) => a.task_id)).toEqual(['g/0']);
    const t = transcripts.get(transcriptKey('g/0', 1))!;
    expect(t.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Q0: 2+2?'],
      ['assistant', 'The answer is 4.'],
    ]);
    expect(t.scores.map((s) => [s.name, s.value, s.answer, s.explanation])).toEqual([
      ['exact_match,strict-match', '1', '["4"]', 'target: 4'],
      ['exact_match,flexible-extract', '0', '["[invalid]"]', null],
    ]);
  });

  it('within the budgets: a prompt past TRANSCRIPT_TEXT_CHARS is cut, score fields past SCORE_FIELD_CHARS are cut, scores past MAX_SCORES are counted', async () => {
    const long = 'p'.repeat(TRANSCRIPT_TEXT_CHARS + 10);
    const many = Object.fromEntries(Array.from({ length: MAX_SCORES + 5 }, (_, i) => [`m${i}`, i % 2]));
    const big = line(0, { arguments: { gen_args_0: { arg_0: long, arg_1: ' yes' } }, prompt_hash: null, target: 't'.repeat(SCORE_FIELD_CHARS + 3), metrics: ['acc', ...Object.keys(many)], ...many });
    const { transcripts } = await transcriptsOf(run({ [R]: results({ t: {} }), [S('t')]: [big, line(1)] }));
    const t = transcripts.get(transcriptKey('t/0', 1))!;
    expect(t.scores).toHaveLength(MAX_SCORES);
    expect(t.scoresHidden).toBe(6);
    expect(t.scores[0]!.explanation!.length).toBe(SCORE_FIELD_CHARS);
    expect(t.scores[0]!.cut).toBe('target: '.length + 3);
    const scoreChars = t.scores.reduce((n, s) => n + s.name.length + s.value.length + (s.answer?.length ?? 0) + (s.explanation?.length ?? 0), 0);
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]!.text.length).toBe(TRANSCRIPT_TEXT_CHARS - scoreChars);
    expect(t.cut).toBe(long.length - t.messages[0]!.text.length);
    expect(t.total).toBe(2);
  });

  it('the real runs: one transcript per doc, prompt and the two choices with their log-likelihoods', async () => {
    const dir = join(REAL_RUNS, 'sshleifer__tiny-gpt2');
    const sources = new Map<string, Uint8Array>();
    for (const f of ['results_2026-10-01T23-15-32.942677.json', 'samples_copa_2026-10-01T23-15-32.942677.jsonl']) sources.set(`source/${f}`, await readFile(join(dir, f)));
    const transcripts = await lmEvalImporter.transcripts!(sources);
    expect(transcripts.size).toBe(20);
    const t = transcripts.get(transcriptKey('copa/0', 1))!;
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(t.messages[1]!.text.split('\n\n')).toHaveLength(2);
    expect(t.scores.map((s) => s.name)).toEqual(['acc,none']);
  });

  it('originals that are not an lm-eval run are refused, not guessed', async () => {
    await expect(lmEvalImporter.transcripts!(new Map([['source/results_x.json', Buffer.from('{"results": 1}')]]))).rejects.toThrow(/not lm-eval output/);
  });
});
