/**
 * Transcripts of Inspect samples (issue 14, item 3): what the transcript page
 * shows, read from the original log: messages (string or parts; reasoning
 * marked; images counted, not shown), tool calls and tool errors,
 * attachments resolved, unknown roles as "other", every score, keyed by
 * sample id and epoch; the page's text budget; hostile text kept as data.
 */
import { describe, expect, it } from 'vitest';
import { inspectTranscripts } from '../../src/import/inspect/transcript.ts';
import { cutText, MAX_SCORES, SCORE_FIELD_CHARS, transcriptKey, TRANSCRIPT_TEXT_CHARS } from '../../src/import/transcript.ts';
import { importerNamed } from '../../src/import/registry.ts';
import { evalLog, header, jsonLog, sample } from './helpers.ts';

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)> $(rm -rf /) "\'`';

const messages = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: `Question ${XSS}` }, { type: 'image', image: 'data:image/png;base64,AAAA' }] },
  {
    role: 'assistant',
    content: [{ type: 'reasoning', reasoning: 'think' }, { type: 'text', text: 'attachment://abc123' }],
    tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls; echo "$HOME"' } }],
  },
  { role: 'tool', content: 'file.txt', function: 'bash', tool_call_id: 'c1', error: { type: 'timeout', message: 'took too long <b>' } },
  { role: 'developer', content: 'who am I' },
];

describe('Inspect transcripts', () => {
  it('map each sample with messages, keyed by id and epoch, as plain text', async () => {
    const log = jsonLog([
      sample(1, 1, { messages, attachments: { abc123: 'The answer is 4.' }, scores: { match: { value: 'C', answer: '4', explanation: `because ${XSS}` }, judge: { value: 0.5 } } }),
      sample(2, 1, { messages: [] }),
      sample('a/b', 2, { messages: [{ role: 'user', content: 'hi' }] }),
    ]);
    const t = await inspectTranscripts(log);
    expect([...t.keys()].sort()).toEqual([transcriptKey('1', 1), transcriptKey('a/b', 2)].sort());
    const one = t.get(transcriptKey('1', 1))!;
    expect(one.total).toBe(5);
    expect(one.cut).toBe(0);
    expect(one.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'other']);
    expect(one.messages[1]).toEqual({ role: 'user', text: `Question ${XSS}`, toolCalls: [], tool: null, omitted: 1 });
    expect(one.messages[2]!.text).toBe('[reasoning] think\n\nThe answer is 4.');
    expect(one.messages[2]!.toolCalls).toEqual([{ name: 'bash', arguments: '{"cmd":"ls; echo \\"$HOME\\""}' }]);
    expect(one.messages[3]!.tool).toEqual({ name: 'bash', error: 'took too long <b>' });
    expect(one.scores).toEqual([
      { name: 'match', value: '"C"', answer: '4', explanation: `because ${XSS}`, cut: 0 },
      { name: 'judge', value: '0.5', answer: null, explanation: null, cut: 0 },
    ]);
    expect(one.scoresHidden).toBe(0);
  });

  it('cap each score field at SCORE_FIELD_CHARS and list the first MAX_SCORES scores, counting what is left out', async () => {
    const long = 'e'.repeat(SCORE_FIELD_CHARS + 7);
    const scores: Record<string, unknown> = { big: { value: 'v'.repeat(SCORE_FIELD_CHARS + 3), answer: long, explanation: `${'x'.repeat(SCORE_FIELD_CHARS - 1)}😀tail` } };
    for (let i = 0; i < MAX_SCORES + 5; i++) scores[`s${i}`] = { value: i };
    const t = (await inspectTranscripts(jsonLog([sample(1, 1, { scores, messages: [{ role: 'user', content: 'hi' }] })]))).get(transcriptKey('1', 1))!;
    expect(t.scores).toHaveLength(MAX_SCORES);
    expect(t.scoresHidden).toBe(6);
    const big = t.scores[0]!;
    expect(big.value).toHaveLength(SCORE_FIELD_CHARS);
    expect(big.answer).toHaveLength(SCORE_FIELD_CHARS);
    // Never half a surrogate pair: the emoji straddling the limit is left out whole.
    expect(big.explanation).toBe('x'.repeat(SCORE_FIELD_CHARS - 1));
    // The value is JSON text (quoted: 3 + 2 over), the answer 7 over, the explanation 6 (the emoji and 'tail').
    expect(big.cut).toBe(5 + 7 + 6);
    expect(t.scores[1]).toEqual({ name: 's0', value: '0', answer: null, explanation: null, cut: 0 });
    expect(cutText('ab', 5)).toEqual({ text: 'ab', cut: 0 });
    expect(cutText('a😀', 2)).toEqual({ text: 'a', cut: 2 });
    expect(cutText('abc', -1)).toEqual({ text: '', cut: 3 });
  });

  it('read .eval archives the same as .json logs', async () => {
    const samples = [sample(1, 1, { messages: [{ role: 'user', content: 'hello' }] })];
    const fromJson = await inspectTranscripts(jsonLog(samples));
    const fromEval = await inspectTranscripts(evalLog(samples, header()));
    expect([...fromEval]).toEqual([...fromJson]);
  });

  it('keep a page within the text budget: later messages are counted, a first message alone over it is cut', async () => {
    const big = 'x'.repeat(TRANSCRIPT_TEXT_CHARS / 2 + 10);
    const many = await inspectTranscripts(jsonLog([sample(1, 1, { messages: [1, 2, 3].map(() => ({ role: 'user', content: big })) })]));
    const m = many.get(transcriptKey('1', 1))!;
    expect(m.total).toBe(3);
    expect(m.messages).toHaveLength(1);
    expect(m.cut).toBe(0);
    const huge = 'y'.repeat(TRANSCRIPT_TEXT_CHARS + 100);
    const one = (await inspectTranscripts(jsonLog([sample(1, 1, { scores: {}, messages: [{ role: 'assistant', content: huge, tool_calls: [{ function: 'f', arguments: {} }] }] })]))).get(transcriptKey('1', 1))!;
    expect(one.messages).toHaveLength(1);
    expect(one.messages[0]!.text.length).toBe(TRANSCRIPT_TEXT_CHARS);
    expect(one.messages[0]!.toolCalls).toEqual([]);
    expect(one.cut).toBe(100 + 'f'.length + '{}'.length);
  });

  it('the Inspect importer offers them to the site; a log it cannot read throws (the site then shows none)', async () => {
    const inspect = importerNamed('inspect')!;
    const t = await inspect.transcripts!(new Map([['source/inspect-log.json', jsonLog([sample(1, 1, { messages: [{ role: 'user', content: 'q' }] })])]]));
    expect(t.size).toBe(1);
    await expect(inspect.transcripts!(new Map([['source/inspect-log.json', Buffer.from('not json')]]))).rejects.toThrow();
  });
});
