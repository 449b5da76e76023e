/**
 * Issue 26, Every Eval Ever: the transcripts (each sample's input and output
 * or messages, and its scores, keyed by transcriptKey(task id, attempt
 * index) exactly as the attempts), within the Inspect transcripts' budgets,
 * and passRule read back from the plan's grader.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eeeImporter } from '../../../src/import/eee/importer.ts';
import { ImportError } from '../../../src/import/errors.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, TRANSCRIPT_TEXT_CHARS } from '../../../src/import/transcript.ts';
import { aggregate, AGG_PATH, dirInput, json, jsonl, mapInput, row, SIDECAR_PATH, standardInput } from './helpers.ts';

const FIXTURES = new URL('../../fixtures/import/eee/', import.meta.url).pathname;
const DEMO = new URL('../../../content/imported/eee/', import.meta.url).pathname;
const L = DEFAULT_IMPORT_LIMITS;

function sources(files: ReadonlyMap<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...files].filter(([p]) => p.startsWith('source/')));
}

/** Every attempt's transcript key (task id, index), as the site joins them. */
function attemptKeys(files: ReadonlyMap<string, Uint8Array>): string[] {
  return Buffer.from(files.get('attempts.jsonl')!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { task_id: string; index: number })
    .map((a) => transcriptKey(a.task_id, a.index));
}

describe('transcripts of real records', () => {
  it('the ollama record (sidecar under its plain name): each sample\'s turns and its score, keyed as its attempt', async () => {
    const mapped = await mapInput(await readImportInput(join(FIXTURES, 'ollama-qwen2.5-0.5b-dcb00c1e'), L), { 'pass-threshold': '1' });
    const transcripts = await eeeImporter.transcripts!(sources(mapped.files), L);
    expect([...transcripts.keys()].sort()).toEqual(attemptKeys(mapped.files).sort());
    const first = transcripts.get(transcriptKey('1', 1))!;
    expect(first.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(first.messages[0]!.text).toMatch(/^Answer the following multiple choice question\. The entire content of your response should be of the following format: 'ANSWER: \$LETTER'/);
    expect(first.messages[1]!.text).toMatch(/^ANSWER: A\n\nExplanation:/);
    expect(first.total).toBe(2);
    expect(first.cut).toBe(0);
    expect(first.scores).toEqual([{ name: 'allenai/ai2_arc', value: '1', answer: null, explanation: 'is_correct: true; reference: "A"', cut: 0 }]);
    expect(transcripts.get(transcriptKey('2', 1))!.scores[0]).toMatchObject({ value: '0', explanation: expect.stringMatching(/^is_correct: false; reference: /) as unknown });
  });

  it('every real record with instance-level data has a transcript for each attempt', async () => {
    for (const [root, dirs] of [
      [FIXTURES, ['ollama-qwen2.5-0.5b-061524c9', 'pubmed_qa-gpt-4o-mini-061524c9']],
      [DEMO, ['ai2_arc-claude-sonnet-4-0', 'pubmed_qa-gpt-4o-mini']],
    ] as const) {
      for (const dir of dirs) {
        const mapped = await mapInput(await readImportInput(join(root, dir), L), { 'pass-threshold': '1' });
        const transcripts = await eeeImporter.transcripts!(sources(mapped.files), L);
        expect([...transcripts.keys()].sort(), dir).toEqual(attemptKeys(mapped.files).sort());
        for (const t of transcripts.values()) {
          expect(t.messages.length).toBeGreaterThan(0);
          expect(t.scores.length).toBe(1);
        }
      }
    }
  });
});

describe('transcripts of the current schema (synthetic, 0.2.2)', () => {
  it('a single_turn row: its input as the user\'s message, its output as the assistant\'s; one score per metric row with the extracted answer', async () => {
    const mapped = await mapInput(standardInput(), { metric: 'r-acc' });
    const transcripts = await eeeImporter.transcripts!(sources(mapped.files), L);
    expect([...transcripts.keys()]).toEqual(attemptKeys(mapped.files));
    const t = transcripts.get(transcriptKey('s2', 1))!;
    expect(t.messages).toEqual([
      { role: 'user', text: 'question s2', toolCalls: [], tool: null, omitted: 0 },
      { role: 'assistant', text: 'answer', toolCalls: [], tool: null, omitted: 0 },
    ]);
    expect(t.scores).toEqual([
      { name: 'r-acc', value: '0', answer: 'answer', explanation: 'is_correct: false; reference: ["answer"]', cut: 0 },
      { name: 'r-f1', value: '0.4', answer: 'answer', explanation: 'is_correct: false; reference: ["answer"]', cut: 0 },
    ]);
  });

  it('formatted input and choices, reasoning traces, an error; messages with tool calls and the tool that answered', async () => {
    const rows = [
      row('s1', 'r-acc', {
        input: { raw: 'raw q', formatted: '<|user|> raw q', reference: ['B'], choices: ['yes', 'no'] },
        output: { raw: ['first', 'second'], reasoning_trace: ['think'] },
        error: 'timeout <b>',
      }),
      row('s2', 'r-acc', {
        interaction_type: 'agentic',
        output: null,
        messages: [
          { turn_idx: 0, role: 'system', content: 'be brief' },
          { turn_idx: 1, role: 'user', content: 'list files' },
          { turn_idx: 2, role: 'assistant', content: null, reasoning_trace: 'use ls', tool_calls: [{ id: 'c1', name: 'bash', arguments: { cmd: 'ls; rm -rf /' } }] },
          { turn_idx: 3, role: 'tool', content: 'a.txt', tool_call_id: ['c1'] },
          { turn_idx: 4, role: 'judge', content: [{ type: 'text', text: 'ok' }, { type: 'image', url: 'x' }] },
        ],
      }),
    ];
    const mapped = await mapInput(dirInput({ [AGG_PATH]: aggregate(jsonl(rows)), [SIDECAR_PATH]: jsonl(rows) }), { metric: 'r-acc' });
    const transcripts = await eeeImporter.transcripts!(sources(mapped.files), L);
    expect(transcripts.get(transcriptKey('s1', 1))).toEqual({
      messages: [
        { role: 'user', text: '<|user|> raw q\n\nchoices:\n- yes\n- no', toolCalls: [], tool: null, omitted: 0 },
        { role: 'assistant', text: '[reasoning] think\n\nfirst\n\nsecond', toolCalls: [], tool: null, omitted: 0 },
      ],
      scores: [{ name: 'r-acc', value: '1', answer: 'answer', explanation: 'is_correct: true; reference: ["B"]; error: timeout <b>', cut: 0 }],
      total: 2,
      cut: 0,
      scoresHidden: 0,
    });
    expect(transcripts.get(transcriptKey('s2', 1))!.messages).toEqual([
      { role: 'system', text: 'be brief', toolCalls: [], tool: null, omitted: 0 },
      { role: 'user', text: 'list files', toolCalls: [], tool: null, omitted: 0 },
      { role: 'assistant', text: '[reasoning] use ls', toolCalls: [{ name: 'bash', arguments: '{"cmd":"ls; rm -rf /"}' }], tool: null, omitted: 0 },
      { role: 'tool', text: 'a.txt', toolCalls: [], tool: { name: 'bash', error: null }, omitted: 0 },
      { role: 'other', text: 'ok', toolCalls: [], tool: null, omitted: 1 },
    ]);
  });

  it('the same budgets as the Inspect transcripts: a message past the page is cut, messages after the budget are counted, scores past MAX_SCORES hidden', async () => {
    const huge = 'x'.repeat(TRANSCRIPT_TEXT_CHARS + 10);
    const rows = [
      row('s1', 'r-acc', { input: { raw: huge, reference: ['a'] } }),
      row('s2', 'r-acc', { messages: [{ turn_idx: 0, role: 'user', content: 'y'.repeat(TRANSCRIPT_TEXT_CHARS - 1000) }, { turn_idx: 1, role: 'assistant', content: 'z'.repeat(2000) }] }),
    ];
    for (let i = 0; i < MAX_SCORES + 2; i++) rows.push(row('s3', `m${i}`, { evaluation_result_id: i === 0 ? 'r-acc' : `m${i}`, ...(i === 1 ? { evaluation_name: 'n'.repeat(SCORE_FIELD_CHARS + 5) } : {}) }));
    const mapped = await mapInput(dirInput({ [AGG_PATH]: aggregate(jsonl(rows)), [SIDECAR_PATH]: jsonl(rows) }), { metric: 'r-acc' });
    const transcripts = await eeeImporter.transcripts!(sources(mapped.files), L);
    const one = transcripts.get(transcriptKey('s1', 1))!;
    expect(one.messages).toHaveLength(1);
    expect(one.total).toBe(2);
    expect(one.messages[0]!.text.length + one.cut).toBe(huge.length);
    expect(one.cut).toBeGreaterThan(10);
    const two = transcripts.get(transcriptKey('s2', 1))!;
    expect(two.messages.map((m) => m.role)).toEqual(['user']);
    expect([two.total, two.cut]).toEqual([2, 0]);
    const three = transcripts.get(transcriptKey('s3', 1))!;
    expect(three.scores).toHaveLength(MAX_SCORES);
    expect(three.scoresHidden).toBe(2);
    expect(three.scores[1]).toMatchObject({ name: 'm1', cut: 0 });
    // A metric named by a long evaluation_name (no evaluation_result_id) is cut to SCORE_FIELD_CHARS.
    const long = [row('s1', 'r-acc'), row('s1', 'x', { evaluation_result_id: null, evaluation_name: 'n'.repeat(SCORE_FIELD_CHARS + 5) })];
    const m2 = await mapInput(dirInput({ [AGG_PATH]: aggregate(jsonl(long)), [SIDECAR_PATH]: jsonl(long) }), { metric: 'r-acc' });
    const t2 = (await eeeImporter.transcripts!(sources(m2.files), L)).get(transcriptKey('s1', 1))!;
    expect(t2.scores[1]).toMatchObject({ name: 'n'.repeat(SCORE_FIELD_CHARS), cut: 5 });
  });

  it('originals that do not hold (a changed sidecar, no aggregate) are refused as the import refuses them, never guessed', async () => {
    const mapped = await mapInput(standardInput(), { metric: 'r-acc' });
    const changed = sources(mapped.files);
    const side = Buffer.from(changed.get(`source/${SIDECAR_PATH}`)!);
    side[5] = side[5]! ^ 1;
    changed.set(`source/${SIDECAR_PATH}`, side);
    await expect(eeeImporter.transcripts!(changed, L)).rejects.toBeInstanceOf(ImportError);
    await expect(eeeImporter.transcripts!(new Map([[`source/${SIDECAR_PATH}`, side]]), L)).rejects.toThrow(/^the directory holds no Every Eval Ever aggregate/);
  });
});

describe('passRule', () => {
  it('says the rule read back from the plan: is_correct for a binary metric, the threshold and its direction otherwise', async () => {
    const binary = json(await mapInput(standardInput(), { metric: 'r-acc' }), 'plan.json') as { grader: { id: string } };
    expect(eeeImporter.passRule!(binary)).toBe(
      'a sample is resolved when its row for the binary metric "r-acc" records is_correct true and it records no error; one attempt per sample, as the sidecar has one row per sample and metric',
    );
    const higher = json(await mapInput(standardInput(), { metric: 'r-f1', 'pass-threshold': '0.75' }), 'plan.json') as { grader: { id: string } };
    expect(eeeImporter.passRule!(higher)).toBe(
      'a sample is resolved when its row for the metric "r-f1" scores at or above 0.75 (--pass-threshold 0.75; higher is better), whatever its is_correct says (a -1 on a levels metric with an unknown level is an error, not a fail), and it records no error; one attempt per sample, as the sidecar has one row per sample and metric',
    );
    const rows = [row('s1', 'r-f1', { evaluation: { score: 3, is_correct: false } })];
    const agg = aggregate(jsonl(rows));
    (agg.evaluation_results as { metric_config: { lower_is_better: boolean } }[])[1]!.metric_config.lower_is_better = true;
    const lower = json(await mapInput(dirInput({ [AGG_PATH]: agg, [SIDECAR_PATH]: jsonl(rows) }), { metric: 'r-f1', 'pass-threshold': '5' }), 'plan.json') as { grader: { id: string } };
    expect(eeeImporter.passRule!(lower)).toContain('scores at or below 5 (--pass-threshold 5; the metric is lower_is_better)');
  });

  it('a hostile grader id is quoted and bounded; a profile it does not know is named, never repeated', () => {
    const id = `"><script>alert(1)</script>${'a'.repeat(300)}`;
    const rule = eeeImporter.passRule!({ grader: { id, profile: 'every-eval-ever score >= 1; rm -rf /' } as { id: string } });
    expect(rule).toBe(`a sample is resolved when its row for the metric ${JSON.stringify(`${id.slice(0, 120)}…`)} passes the rule its grader profile records and it records no error; one attempt per sample, as the sidecar has one row per sample and metric`);
    expect(rule).not.toContain('rm -rf');
  });
});
