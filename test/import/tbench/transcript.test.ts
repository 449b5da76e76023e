/**
 * Terminal-Bench transcripts (src/import/tbench/transcript.ts) and the log
 * files the import keeps for them: two real TB1 runs with their panes and
 * commands (test/fixtures/import/terminal-bench), Harbor ATIF trajectories,
 * the keys (task id, attempt index as the attempts), the budgets, the kept-log
 * bounds (a re-import from the kept originals gives the same bundle id), the
 * pass rule sentence, and hostile log files (huge, malformed, nested, paths
 * inside them).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPath, mapImportInput } from '../../../src/import/import-input.ts';
import type { ImportInput } from '../../../src/import/input.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { ImportError } from '../../../src/import/errors.ts';
import { tbenchImporter, tbenchPassRule } from '../../../src/import/tbench/importer.ts';
import { LOG_FILE_BYTES } from '../../../src/import/tbench/read.ts';
import { TRAJECTORY_MAX_DEPTH } from '../../../src/import/tbench/transcript.ts';
import { transcriptKey, TRANSCRIPT_TEXT_CHARS, type Transcript } from '../../../src/import/transcript.ts';
import { tempDirs } from '../helpers.ts';
import { harborInput, harborTrial, jsonlOf, mapTb, REAL_DIR, request, tb1Input, tb1Trial } from './fixtures.ts';

const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;
const FIXTURES = new URL('../../fixtures/import/terminal-bench/', import.meta.url).pathname;

/** The originals of a mapped bundle (bundle path -> bytes), as the site reads them. */
function sourcesOf(files: ReadonlyMap<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...files].filter(([p]) => p.startsWith('source/')));
}

async function transcriptsOf(input: ImportInput, flags: Record<string, string> = {}): Promise<ReadonlyMap<string, Transcript>> {
  const b = await mapTb(input, flags);
  return tbenchImporter.transcripts!(sourcesOf(b.files), L);
}

function withFiles(input: ImportInput, extra: Record<string, string | Uint8Array>): ImportInput {
  const files = new Map(input.files);
  for (const [k, v] of Object.entries(extra)) files.set(k, typeof v === 'string' ? Buffer.from(v) : v);
  return { ...input, files: new Map([...files].sort(([a], [b]) => Buffer.from(a).compare(Buffer.from(b)))) };
}

const RUN = 'tb1-2025-09-14__15-58-05';

describe('real TB1 runs with their logs', () => {
  it.each([
    ['tb1-2025-09-14__15-58-05', 'analyze-access-logs.1-of-1.2025-09-14__15-58-05', '3 failed in 0.02s'],
    ['tb1-2025-09-14__14-24-59', 'analyze-access-logs.1-of-1.2025-09-14__14-24-59', 'failed'],
  ])('%s: commands.txt and the panes are kept and read as the transcript; recordings and tb.lock are not kept', async (run, trial, testsText) => {
    const parent = await temp();
    const r = await importPath(tbenchImporter, join(FIXTURES, run), parent, request());
    expect(r.status).toBe('verified');
    const dir = `analyze-access-logs/${trial}`;
    const input = await readImportInput(join(FIXTURES, run), L);
    const b = await mapImportInput(tbenchImporter, input, request());
    expect([...b.files.keys()].filter((p) => p.startsWith('source/'))).toEqual([
      `source/${dir}/commands.txt`,
      `source/${dir}/panes/post-agent.txt`,
      `source/${dir}/panes/post-test.txt`,
      `source/${dir}/panes/pre-agent.txt`,
      `source/${dir}/results.json`,
      'source/results.json',
      'source/run_metadata.json',
    ]);
    // Kept byte for byte.
    for (const p of [...b.files.keys()].filter((k) => k.startsWith('source/'))) {
      expect(Buffer.from(b.files.get(p)!).equals(await readFile(join(FIXTURES, run, p.slice(7)))), p).toBe(true);
    }
    expect(b.summary.unkept).toEqual(['3 other files of the input (recordings, session logs, other agent and verifier files) not read: not kept in the bundle']);
    // The re-import from the kept originals gives the same bundle id.
    const again = await importPath(tbenchImporter, join(r.dir, 'source'), await temp(), request());
    expect(again.bundleId).toBe(r.bundleId);
    // One transcript, keyed as the attempt.
    const attempt = jsonlOf(b, 'attempts.jsonl')[0] as { task_id: string; index: number };
    const transcripts = await tbenchImporter.transcripts!(sourcesOf(b.files), L);
    expect([...transcripts.keys()]).toEqual([transcriptKey(attempt.task_id, attempt.index)]);
    const t = transcripts.get(transcriptKey('analyze-access-logs', 1))!;
    expect(t.messages.map((m) => [m.role, m.tool?.name ?? null])).toEqual([
      ['user', null],
      ['tool', 'terminal'],
      ['other', null],
      ['tool', 'terminal'],
      ['tool', 'tests'],
    ]);
    const results = JSON.parse(await readFile(join(FIXTURES, run, dir, 'results.json'), 'utf8')) as { instruction: string };
    expect(t.messages[0]!.text).toBe(results.instruction);
    expect(t.messages[2]!.text).toContain("['bash ', '/tests/run-tests.sh', 'Enter']");
    expect(t.messages[4]!.text).toContain(testsText);
    expect(t.scores.slice(0, 2).map((s) => [s.name, s.value])).toEqual([
      ['is_resolved', 'false'],
      ['failure_mode', run.endsWith('15-58-05') ? '"unset"' : '"unknown_agent_error"'],
    ]);
    expect(t.scores.some((s) => s.name.startsWith('parser_results: ') && s.value === '"failed"')).toBe(true);
    expect({ total: t.total, cut: t.cut }).toEqual({ total: 5, cut: 0 });
  });

  it('a run without log files (the demo copies) has no transcripts', async () => {
    const input = await readImportInput(join(REAL_DIR, RUN), L);
    const b = await mapImportInput(tbenchImporter, input, request());
    expect((await tbenchImporter.transcripts!(sourcesOf(b.files), L)).size).toBe(0);
    const job = await mapImportInput(tbenchImporter, await readImportInput(join(REAL_DIR, 'harbor-synthetic-job'), L), request());
    expect((await tbenchImporter.transcripts!(sourcesOf(job.files), L)).size).toBe(0);
  });
});

const TRAJECTORY = {
  schema_version: 'ATIF-v1.4',
  session_id: 's-1',
  agent: { name: 'terminus-2', version: '2.0.0', model_name: 'acme/model-1' },
  steps: [
    { step_id: 1, source: 'system', message: 'You are an agent.' },
    { step_id: 2, source: 'user', message: 'Fix the permissions.' },
    {
      step_id: 3,
      source: 'agent',
      message: 'I will list the files.',
      reasoning_content: 'ls first',
      tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { command: 'ls -l <script>' } }],
      observation: { results: [{ source_call_id: 'c1', content: '-rw------- a.sh' }, { source_call_id: 'nope', content: [{ type: 'text', text: 'part' }, { type: 'image', source: 'x.png' }] }] },
    },
    { step_id: 4, source: 'robot', message: 42 },
  ],
};

describe('Harbor trajectories', () => {
  it('maps ATIF steps, tool calls and observations, then the verifier output; keyed by task and attempt index', async () => {
    const trials = [
      harborTrial('fix-perms', 'B2', { started_at: '2026-03-02T08:05:00Z', finished_at: '2026-03-02T08:06:00Z' }),
      harborTrial('fix-perms', 'A1', { verifier_result: { rewards: { reward: 0 } } }),
    ];
    const input = withFiles(harborInput(trials), {
      'fix-perms__B2/agent/trajectory.json': JSON.stringify(TRAJECTORY),
      'fix-perms__B2/verifier/test-stdout.txt': '1 passed\n\n',
      'fix-perms__B2/agent/recording.cast': 'cast',
      'fix-perms__A1/verifier/test-stdout.txt': '1 failed',
    });
    const b = await mapTb(input);
    expect([...b.files.keys()].filter((p) => p.startsWith('source/fix-perms__B2/'))).toEqual([
      'source/fix-perms__B2/agent/trajectory.json',
      'source/fix-perms__B2/result.json',
      'source/fix-perms__B2/verifier/test-stdout.txt',
    ]);
    const attempts = jsonlOf(b, 'attempts.jsonl') as { task_id: string; index: number; started_at: string }[];
    // A1 started first: index 1; B2 index 2.
    expect(attempts.map((a) => [a.task_id, a.index, a.started_at])).toEqual([
      ['fix-perms', 1, '2026-03-02T08:00:00.250000Z'],
      ['fix-perms', 2, '2026-03-02T08:05:00Z'],
    ]);
    const t = await tbenchImporter.transcripts!(sourcesOf(b.files), L);
    expect([...t.keys()].sort()).toEqual([transcriptKey('fix-perms', 1), transcriptKey('fix-perms', 2)].sort());
    const one = t.get(transcriptKey('fix-perms', 1))!;
    expect(one.messages.map((m) => [m.role, m.tool?.name, m.text])).toEqual([['tool', 'verifier', "[the verifier's output: verifier/test-stdout.txt]\n1 failed"]]);
    expect(one.scores.map((s) => [s.name, s.value])).toEqual([['reward', '0']]);
    const two = t.get(transcriptKey('fix-perms', 2))!;
    expect(two.messages).toEqual([
      { role: 'system', text: 'You are an agent.', toolCalls: [], tool: null, omitted: 0 },
      { role: 'user', text: 'Fix the permissions.', toolCalls: [], tool: null, omitted: 0 },
      { role: 'assistant', text: '[reasoning] ls first\n\nI will list the files.', toolCalls: [{ name: 'bash', arguments: '{"command":"ls -l <script>"}' }], tool: null, omitted: 0 },
      { role: 'tool', text: '-rw------- a.sh', toolCalls: [], tool: { name: 'bash', error: null }, omitted: 0 },
      { role: 'tool', text: 'part', toolCalls: [], tool: { name: null, error: null }, omitted: 1 },
      { role: 'other', text: '42', toolCalls: [], tool: null, omitted: 0 },
      { role: 'tool', text: "[the verifier's output: verifier/test-stdout.txt]\n1 passed", toolCalls: [], tool: { name: 'verifier', error: null }, omitted: 0 },
    ]);
    expect(two.scores.map((s) => [s.name, s.value])).toEqual([['reward', '1']]);
    expect(b.summary.unkept).toEqual(['1 other file of the input (recordings, session logs, other agent and verifier files) not read: not kept in the bundle']);
  });

  it('a job with non-binary rewards (graded with --pass-threshold) still has its transcripts', async () => {
    const input = withFiles(harborInput([harborTrial('t', 'A', { verifier_result: { rewards: { reward: 0.7 } } })]), { 't__A/verifier/test-stdout.txt': 'ok' });
    const t = await transcriptsOf(input, { 'pass-threshold': '0.5' });
    expect(t.get(transcriptKey('t', 1))!.scores[0]).toMatchObject({ name: 'reward', value: '0.7' });
  });

  it('a trial resolved after the agent timeout (AgentTimeoutError, reward 1) is completed and passes, as Harbor\'s mean counts it', async () => {
    const b = await mapTb(harborInput([harborTrial('t', 'A', { exception_info: { exception_type: 'AgentTimeoutError', exception_message: 'x' } }), harborTrial('t', 'B', { verifier_result: { rewards: { reward: 0 } }, started_at: '2026-03-02T09:00:00Z', finished_at: '2026-03-02T09:01:00Z' })]));
    expect((jsonlOf(b, 'attempts.jsonl') as { outcome: string }[]).map((a) => a.outcome)).toEqual(['completed', 'completed']);
    expect(b.summary.missing).toContain("1 trial resolved after the agent's timeout: counted resolved, as Harbor's mean does");
  });
});

describe('budgets and the kept-log bounds', () => {
  it('a transcript over the page budget keeps the messages that fit and counts the rest', async () => {
    const big = 'x'.repeat(TRANSCRIPT_TEXT_CHARS);
    const input = withFiles(tb1Input([tb1Trial('a', 1)]), { 'a/a.1-of-2.run/commands.txt': big, 'a/a.1-of-2.run/panes/post-test.txt': 'tests' });
    const t = (await transcriptsOf(input)).get(transcriptKey('a', 1))!;
    expect(t.total).toBe(3);
    expect(t.messages.map((m) => m.role)).toEqual(['user']);
    // A first message past the whole budget is cut.
    const first = withFiles(tb1Input([tb1Trial('a', 1, { instruction: 'y'.repeat(TRANSCRIPT_TEXT_CHARS + 10) })]), { 'a/a.1-of-2.run/commands.txt': 'ls' });
    const cut = (await transcriptsOf(first)).get(transcriptKey('a', 1))!;
    expect(cut.messages).toHaveLength(1);
    expect(cut.messages[0]!.text.length + cut.cut).toBe(TRANSCRIPT_TEXT_CHARS + 10);
    expect(cut.messages[0]!.text.length).toBeLessThanOrEqual(TRANSCRIPT_TEXT_CHARS);
  });

  it('a log file past LOG_FILE_BYTES is not kept, said on stderr only; the re-import from the kept files gives the same bundle', async () => {
    const input = withFiles(tb1Input([tb1Trial('a', 1), tb1Trial('a', 2)]), {
      'a/a.1-of-2.run/commands.txt': Buffer.alloc(LOG_FILE_BYTES + 1, 0x61),
      'a/a.2-of-2.run/commands.txt': 'ls',
    });
    const b = await mapTb(input);
    expect(b.files.has('source/a/a.1-of-2.run/commands.txt')).toBe(false);
    expect(b.files.has('source/a/a.2-of-2.run/commands.txt')).toBe(true);
    expect(b.summary.unkept).toEqual(['1 log file (commands.txt, panes) past the kept-log bounds (4 MiB each, 32 MiB together): not kept in the bundle, so no transcript from it']);
    expect(Buffer.from(b.files.get('NOTES.md')!).toString('utf8')).not.toContain('log file');
    const kept: ImportInput = { name: 'source', kind: 'directory', files: new Map([...sourcesOf(b.files)].map(([p, v]) => [p.slice(7), v])), skipped: [] };
    const again = await mapTb(kept);
    expect(again.planId).toBe(b.planId);
    expect([...again.files.keys()]).toEqual([...b.files.keys()]);
    for (const [p, v] of b.files) expect(Buffer.from(again.files.get(p)!).equals(Buffer.from(v)), p).toBe(true);
    const t = await tbenchImporter.transcripts!(sourcesOf(b.files), L);
    expect([...t.keys()]).toEqual([transcriptKey('a', 2)]);
  });

  it('the log files together stay within the total bound (import_limits.input_bytes when smaller), taken in path order', async () => {
    const input = withFiles(tb1Input([tb1Trial('a', 1), tb1Trial('a', 2)]), {
      'a/a.1-of-2.run/commands.txt': Buffer.alloc(3000, 0x61),
      'a/a.1-of-2.run/panes/post-test.txt': Buffer.alloc(3000, 0x62),
      'a/a.2-of-2.run/commands.txt': Buffer.alloc(10, 0x63),
    });
    const all = await mapTb(input);
    expect([...all.files.keys()].filter((p) => p.includes('.run/') && !p.endsWith('results.json'))).toHaveLength(3);
    // A bound of 5000 bytes: the first (3000) fits, the second (3000 more) does not, the third (10) does.
    const tight = await mapTb(input, {}, { maxInputBytes: 5_000 });
    expect(tight.files.has('source/a/a.1-of-2.run/commands.txt')).toBe(true);
    expect(tight.files.has('source/a/a.1-of-2.run/panes/post-test.txt')).toBe(false);
    expect(tight.files.has('source/a/a.2-of-2.run/commands.txt')).toBe(true);
    expect(tight.summary.unkept?.[0]).toMatch(/^1 log file \(commands\.txt, panes\) past the kept-log bounds/);
  });

  it('log files in a directory without a trial result file are not kept', async () => {
    const input = withFiles(tb1Input([tb1Trial('a', 1)], { trialFiles: false }), { 'a/a.1-of-2.run/commands.txt': 'ls', 'elsewhere/x/commands.txt': 'rm -rf /' });
    const b = await mapTb(input);
    expect([...b.files.keys()].filter((p) => p.endsWith('commands.txt'))).toEqual([]);
    expect(b.summary.unkept).toEqual(['2 other files of the input (recordings, session logs, other agent and verifier files) not read: not kept in the bundle']);
    expect((await tbenchImporter.transcripts!(sourcesOf(b.files), L)).size).toBe(0);
  });
});

describe('hostile log files', () => {
  const job = (files: Record<string, string | Uint8Array>) => withFiles(harborInput([harborTrial('t', 'A')]), files);

  it('a malformed, non-object, nested-too-deep or step-less trajectory is said, the verifier output still shown; the import is unchanged', async () => {
    const deep = '['.repeat(TRAJECTORY_MAX_DEPTH + 5) + ']'.repeat(TRAJECTORY_MAX_DEPTH + 5);
    const deepSteps = `{"steps": [${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}]}`;
    for (const bad of ['{"steps": [', '[]', '"x"', deep, deepSteps, '{"steps": {"0": {}}}', '{"steps": [1], "steps": []}', '\u0000\u00ff', 'NaN']) {
      const t = (await transcriptsOf(job({ 't__A/agent/trajectory.json': bad, 't__A/verifier/test-stdout.txt': 'out' }))).get(transcriptKey('t', 1))!;
      expect(t.messages.map((m) => m.role), bad.slice(0, 20)).toEqual(['other', 'tool']);
      expect(t.messages[0]!.text).toMatch(/^\[agent\/trajectory\.json is not an ATIF trajectory this page can read/);
    }
    const plain = await mapTb(harborInput([harborTrial('t', 'A')]));
    const withBad = await mapTb(job({ 't__A/agent/trajectory.json': '{"steps": [' }));
    expect(withBad.files.get('attempts.jsonl')).toEqual(plain.files.get('attempts.jsonl'));
    expect(withBad.files.get('grades/1.json')).toEqual(plain.files.get('grades/1.json'));
  });

  it('odd step members are read as text or counted, never followed: a subagent reference or a path is shown, not read', async () => {
    const trajectory = {
      steps: [
        { source: 'agent', message: null, tool_calls: [null, 3, { function_name: 7, arguments: { a: [1, { b: null }] } }], observation: { results: [null, { content: { nested: true }, subagent_trajectory_ref: [{ trajectory_path: '../../result.json' }] }] } },
        { source: '__proto__', message: ['<img src=x onerror=alert(1)>', { type: 'text', text: 'y' }, 5] },
        null,
      ],
    };
    const t = (await transcriptsOf(job({ 't__A/agent/trajectory.json': JSON.stringify(trajectory) }))).get(transcriptKey('t', 1))!;
    expect(t.messages).toEqual([
      { role: 'assistant', text: '', toolCalls: [{ name: '(unnamed)', arguments: '{"a":[1,{"b":null}]}' }], tool: null, omitted: 0 },
      { role: 'tool', text: '', toolCalls: [], tool: { name: null, error: null }, omitted: 0 },
      { role: 'tool', text: '{"nested":true}', toolCalls: [], tool: { name: null, error: null }, omitted: 0 },
      { role: 'other', text: '<img src=x onerror=alert(1)>\n\ny', toolCalls: [], tool: null, omitted: 1 },
      { role: 'other', text: '', toolCalls: [], tool: null, omitted: 0 },
    ]);
  });

  it('invalid UTF-8 in a pane is shown with replacement characters; a huge trajectory within the bound is read within the page budget', async () => {
    const tb = withFiles(tb1Input([tb1Trial('a', 1)]), { 'a/a.1-of-2.run/panes/post-test.txt': Buffer.from([0x6f, 0x6b, 0xff, 0xfe]) });
    const t = (await transcriptsOf(tb)).get(transcriptKey('a', 1))!;
    expect(t.messages.at(-1)!.text).toBe('[the terminal after the tests: panes/post-test.txt]\nok\ufffd\ufffd');
    const steps = Array.from({ length: 20_000 }, (_, i) => ({ source: 'agent', message: `step ${i} ${'z'.repeat(100)}` }));
    const huge = (await transcriptsOf(job({ 't__A/agent/trajectory.json': JSON.stringify({ steps }) }))).get(transcriptKey('t', 1))!;
    expect(huge.total).toBe(20_000);
    const shown = huge.messages.reduce((n, m) => n + m.text.length, 0);
    expect(shown).toBeLessThanOrEqual(TRANSCRIPT_TEXT_CHARS);
    expect(huge.messages.length).toBeLessThan(20_000);
  });

  it('no originals give no transcripts; originals that do not read as a run throw the import\'s ImportError (the site: "cannot be read"), never another error', async () => {
    expect((await tbenchImporter.transcripts!(new Map(), L)).size).toBe(0);
    await expect(tbenchImporter.transcripts!(new Map([['source/result.json', Buffer.from('{')]]), L)).rejects.toThrow(ImportError);
    await expect(tbenchImporter.transcripts!(new Map([['source/results.json', Buffer.from('{"results": [1]}')]]), L)).rejects.toThrow(ImportError);
  });

  it('fuzz: random bytes and mutated trajectories never throw', async () => {
    let seed = 26;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const base = JSON.stringify(TRAJECTORY);
    for (let i = 0; i < 150; i++) {
      const chars = base.split('');
      for (let k = 0; k < 1 + Math.floor(rand() * 6); k++) chars[Math.floor(rand() * chars.length)] = String.fromCharCode(Math.floor(rand() * 128));
      const bytes = i % 3 === 0 ? Buffer.from(Array.from({ length: 64 }, () => Math.floor(rand() * 256))) : chars.join('');
      const t = await transcriptsOf(job({ 't__A/agent/trajectory.json': bytes, 't__A/verifier/test-stdout.txt': chars.join('') }));
      expect(t.get(transcriptKey('t', 1))!.messages.length).toBeGreaterThan(0);
    }
  });
});

describe('passRule', () => {
  it('says each grader id\'s rule in one sentence; an unknown or hostile id gets a fixed sentence', () => {
    expect(tbenchImporter.passRule!({ grader: { id: 'is_resolved' } })).toBe(
      "is_resolved true, whatever the failure_mode (a trial resolved after the agent's timeout counts resolved, as Terminal-Bench's accuracy does); false fails; null (the tests did not finish or could not be parsed) is not graded",
    );
    expect(tbenchImporter.passRule!({ grader: { id: 'reward' } })).toMatch(/^the verifier's reward: 1 passes and 0 fails \(any other reward needs --pass-threshold\); a passing reward counts resolved whatever the exception/);
    expect(tbenchImporter.passRule!({ grader: { id: 'reward>=0.75' } })).toMatch(/^the verifier's reward at or above the threshold 0\.75 \(--pass-threshold\) passes, below it fails; /);
    expect(tbenchPassRule('reward>=<script>')).toBe("the Terminal-Bench or Harbor verifier's result, under a grader this version does not name");
    expect(tbenchPassRule('C')).not.toContain('C,');
  });
});
