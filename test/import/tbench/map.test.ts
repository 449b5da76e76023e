/**
 * The terminal-bench mapping on small synthetic inputs of both layouts,
 * hand-checked: outcomes per failure mode and exception type, verdicts per
 * pass rule, tokens and cost (unknown never 0), times, created_at, attempt
 * indexes, and the NOTES.md lines.
 */
import { describe, expect, it } from 'vitest';
import { harborOutcome, harborVerdict, tb1Outcome, tb1Verdict } from '../../../src/import/tbench/normalize.ts';
import { tbenchImporter } from '../../../src/import/tbench/importer.ts';
import { harborInput, harborTrial, jsonlOf, jsonOf, mapTb, notes, tb1Input, tb1Trial, verdicts } from './fixtures.ts';

describe('Terminal-Bench 1: outcome and verdict rules', () => {
  it.each([
    [null, 'completed', false],
    ['unset', 'completed', false],
    ['none', 'completed', false],
    ['agent_timeout', 'timeout', false],
    ['test_timeout', 'completed', true],
    ['parse_error', 'completed', true],
    ['context_length_exceeded', 'model_failure', false],
    ['output_length_exceeded', 'model_failure', false],
    ['fatal_llm_parse_error', 'model_failure', false],
    ['unknown_agent_error', 'harness_failure', false],
    ['unknown', 'harness_failure', false],
    ['agent_installation_failed', 'harness_failure', false],
    ['something_new', 'harness_failure', false],
  ] as const)('failure_mode %s with is_resolved null -> %s (verifier failed: %s)', (mode, outcome, verifierFailed) => {
    expect(tb1Outcome(mode, null)).toMatchObject({ outcome, verifierFailed });
  });

  // Every failure mode with is_resolved true, false and null: true is completed (resolved) whatever the mode; false keeps the mode's class.
  it.each([
    [null, 'completed', 'completed'],
    ['unset', 'completed', 'completed'],
    ['agent_timeout', 'completed', 'timeout'],
    ['test_timeout', 'completed', 'completed'],
    ['parse_error', 'completed', 'completed'],
    ['context_length_exceeded', 'completed', 'model_failure'],
    ['output_length_exceeded', 'completed', 'model_failure'],
    ['fatal_llm_parse_error', 'completed', 'model_failure'],
    ['unknown_agent_error', 'completed', 'harness_failure'],
    ['agent_installation_failed', 'completed', 'harness_failure'],
    ['something_new', 'completed', 'harness_failure'],
  ] as const)('failure_mode %s: is_resolved true -> %s, false -> %s; the tests finished either way', (mode, whenTrue, whenFalse) => {
    expect(tb1Outcome(mode, true)).toMatchObject({ outcome: whenTrue, verifierFailed: false });
    expect(tb1Outcome(mode, false)).toMatchObject({ outcome: whenFalse, verifierFailed: false });
  });

  it('the verdict is is_resolved alone: true passes, false fails, null or absent is error (not graded)', () => {
    expect(tb1Verdict(true)).toBe('pass');
    expect(tb1Verdict(false)).toBe('fail');
    expect(tb1Verdict(null)).toBe('error');
    expect(tb1Verdict(undefined)).toBe('error');
  });

  it("a trial resolved after the agent's timeout is completed and passes; NOTES.md counts it; the headline equals the source's accuracy", async () => {
    const trials = [
      tb1Trial('a-task', 1, { is_resolved: true, failure_mode: 'agent_timeout' }),
      tb1Trial('a-task', 2, { is_resolved: false, failure_mode: 'agent_timeout' }),
      tb1Trial('b-task', 1, { is_resolved: true, failure_mode: 'agent_timeout' }),
      tb1Trial('b-task', 2, { is_resolved: true, failure_mode: 'unknown_agent_error' }),
      tb1Trial('c-task', 1, { is_resolved: true, failure_mode: 'something_new' }),
      tb1Trial('c-task', 2, { is_resolved: false, failure_mode: 'unset' }),
    ];
    const bundle = await mapTb(tb1Input(trials));
    const attempts = jsonlOf(bundle, 'attempts.jsonl') as { attempt_id: string; task_id: string; index: number; outcome: string }[];
    const v = verdicts(bundle);
    expect(attempts.map((a) => [a.task_id, a.index, a.outcome, v[a.attempt_id]])).toEqual([
      ['a-task', 1, 'completed', 'pass'],
      ['a-task', 2, 'timeout', 'fail'],
      ['b-task', 1, 'completed', 'pass'],
      ['b-task', 2, 'completed', 'pass'],
      ['c-task', 1, 'completed', 'pass'],
      ['c-task', 2, 'completed', 'fail'],
    ]);
    // Resolved (completed and pass) 4 of 6: the run's own accuracy.
    const resolved = attempts.filter((a) => a.outcome === 'completed' && v[a.attempt_id] === 'pass').length;
    expect(resolved / attempts.length).toBeCloseTo(4 / 6, 12);
    const text = notes(bundle);
    expect(text).toContain("- 2 trials resolved after the agent's timeout: counted resolved, as Terminal-Bench does");
    expect(text).toContain('- 1 trial resolved despite failure_mode unknown_agent_error: counted resolved (outcome completed), as Terminal-Bench does');
    expect(text).toContain('- 1 trial resolved despite a failure mode the importer does not know: counted resolved (outcome completed), as Terminal-Bench does');
    expect(text).toContain('- 1 trial halted by the agent timeout: outcome timeout');
    expect(text).not.toContain('something_new');
    expect(text).not.toContain('does not know: outcome harness_failure');
  });

  it('is_resolved false after a test timeout or a parse error fails (the tests were parsed); null is not graded', async () => {
    const bundle = await mapTb(
      tb1Input([
        tb1Trial('a-task', 1, { is_resolved: false, failure_mode: 'test_timeout' }),
        tb1Trial('a-task', 2, { is_resolved: null, failure_mode: 'parse_error', parser_results: null }),
      ]),
    );
    expect(Object.values(verdicts(bundle))).toEqual(['fail', 'error']);
    expect(notes(bundle)).toContain('- 1 trial whose tests did not finish or could not be read: not graded (verdict error)');
  });
});

describe('Harbor: outcome and verdict rules', () => {
  it.each([
    [null, 'completed', false],
    ['AgentTimeoutError', 'timeout', false],
    ['VerifierTimeoutError', 'completed', true],
    ['RewardFileNotFoundError', 'completed', true],
    ['ContextLengthExceededError', 'model_failure', false],
    ['CancelledError', 'cancelled', false],
    ['EnvironmentStartTimeoutError', 'environment_failure', false],
    ['NonZeroAgentExitCodeError', 'harness_failure', false],
    ['SomethingElse', 'harness_failure', false],
  ] as const)('exception %s -> %s (verifier failed: %s)', (type, outcome, verifierFailed) => {
    expect(harborOutcome(type)).toMatchObject({ outcome, verifierFailed });
  });

  it('reward 1 passes and 0 fails without a threshold; another reward needs one; none is error', () => {
    expect(harborVerdict(1, false, null)).toBe('pass');
    expect(harborVerdict(0, false, null)).toBe('fail');
    expect(harborVerdict(0.5, false, null)).toBe('error');
    expect(harborVerdict(0.5, false, 0.5)).toBe('pass');
    expect(harborVerdict(0.49, false, 0.5)).toBe('fail');
    expect(harborVerdict(1, false, 1.5)).toBe('fail');
    expect(harborVerdict(null, false, 0.5)).toBe('error');
    expect(harborVerdict(1, true, null)).toBe('error');
  });
});

describe('a TB1 run directory', () => {
  const trials = [
    tb1Trial('b-task', 1),
    tb1Trial('a-task', 2, { is_resolved: false, failure_mode: 'agent_timeout', total_input_tokens: 0, total_output_tokens: 0 }),
    tb1Trial('a-task', 1, { is_resolved: null, failure_mode: 'test_timeout', parser_results: null }),
    tb1Trial('b-task', 2, { is_resolved: false, failure_mode: 'unknown_agent_error', total_input_tokens: null }),
  ];

  it('maps tasks in byte order, trials by start, with outcomes, verdicts, tokens, cost and times', async () => {
    const b = await mapTb(tb1Input(trials));
    const attempts = jsonlOf(b, 'attempts.jsonl');
    expect(attempts.map((a) => [a.task_id, a.index, a.outcome])).toEqual([
      ['a-task', 1, 'completed'],
      ['a-task', 2, 'timeout'],
      ['b-task', 1, 'completed'],
      ['b-task', 2, 'harness_failure'],
    ]);
    expect(Object.values(verdicts(b))).toEqual(['error', 'fail', 'pass', 'fail']);
    expect(attempts.map((a) => a.tokens)).toEqual([{ input: 100, output: 20 }, null, { input: 100, output: 20 }, null]);
    expect(attempts.every((a) => (a.cost as { state: string }).state === 'unavailable')).toBe(true);
    expect(attempts[0]).toMatchObject({ started_at: '2026-03-01T09:01:00.500000Z', ended_at: '2026-03-01T09:01:30Z', wall_seconds: 29.5, model: 'acme/model-1', observed_model: 'acme/model-1' });
    const plan = jsonOf(b, 'plan.json');
    expect(plan).toMatchObject({
      created_at: '2026-03-01T09:00:00Z',
      attempts: 2,
      budget: null,
      seed: 0,
      ledger: { name: 'terminal-bench-core==0.1.1', tasks: 2 },
      harness: { name: 'terminal-bench' },
      grader: { profile: 'terminal-bench-tests', id: 'is_resolved' },
      subjects: [{ selector: 'acme/model-1', model: 'acme/model-1', agent: { name: 'terminus', version: 'unknown' }, role: 'candidate' }],
      origin: { kind: 'imported', format: 'terminal-bench-run' },
    });
    expect(jsonlOf(b, 'ledger.jsonl').map((r) => r.created_at)).toEqual(['2026-03-01T09:00:00Z', '2026-03-01T09:00:00Z']);
    expect(jsonOf(b, 'grades/1.json').created_at).toBe('2026-03-01T09:30:00Z');
    const text = notes(b);
    expect(text).toContain('- 1 trial halted by the agent timeout: outcome timeout');
    expect(text).toContain('- 1 trial ended by an agent, model, environment or harness error (failure_mode)');
    expect(text).toContain('- 1 trial whose tests did not finish or could not be read: not graded (verdict error)');
    expect(text).toContain('- 1 trial with 0 input and 0 output tokens (not measured): tokens unknown (null)');
    expect(text).toContain('- 1 trial without input and output token counts: tokens unknown (null)');
    expect(text).toContain('- a Terminal-Bench 1 run records no cost: 4 trials with cost unavailable');
    expect(text).not.toContain('No usable grades');
    // Every file read is kept under source/, and nothing else of the input.
    expect([...b.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual([
      'source/a-task/a-task.1-of-2.run/results.json',
      'source/a-task/a-task.2-of-2.run/results.json',
      'source/b-task/b-task.1-of-2.run/results.json',
      'source/b-task/b-task.2-of-2.run/results.json',
      'source/results.json',
      'source/run_metadata.json',
    ]);
  });

  it('without run_metadata.json: the earliest trial start, model and agent "unknown", all said', async () => {
    const b = await mapTb(tb1Input(trials, { metadata: null }));
    expect(jsonOf(b, 'plan.json')).toMatchObject({ created_at: '2026-03-01T09:01:00.500000Z', attempts: 2, subjects: [{ model: 'unknown', agent: { name: 'unknown' } }] });
    const text = notes(b);
    expect(text).toContain("- no run start time (run_metadata start_time): the plan's created_at is the earliest trial start");
    expect(text).toContain('- no model recorded (run_metadata model_name): subject model "unknown"');
    expect(text).toContain('- no attempts per task recorded (n_attempts): attempts per task = 2, the most trials of one task');
  });

  it('a run whose every trial failed by error says it has no usable grades', async () => {
    const b = await mapTb(tb1Input([tb1Trial('x', 1, { is_resolved: false, failure_mode: 'unknown_agent_error' })]));
    expect(notes(b)).toContain('## No usable grades');
    expect(b.summary.missing[0]).toMatch(/^no usable grades/);
  });

  it('files the import does not read are neither kept nor in the bundle, and are counted on the command line only', async () => {
    const b = await mapTb(tb1Input([tb1Trial('x', 1)], { extra: { 'x/x.1-of-2.run/sessions/agent.cast': 'cast', 'tb.lock': '{}' } }));
    expect([...b.files.keys()].some((p) => p.includes('agent.cast') || p.includes('tb.lock'))).toBe(false);
    expect(notes(b)).not.toContain('other file');
    expect(b.summary.unkept).toEqual(['2 other files of the input (recordings, session logs, other agent and verifier files) not read: not kept in the bundle']);
  });

  it('the --pass-threshold flag does not change a TB1 bundle', async () => {
    const input = tb1Input(trials);
    const a = await mapTb(input);
    const c = await mapTb(input, { 'pass-threshold': '0.5' });
    expect(Buffer.from(c.files.get('plan.json')!).equals(Buffer.from(a.files.get('plan.json')!))).toBe(true);
  });
});

describe('a Harbor job directory', () => {
  const trials = [
    harborTrial('t/one', 'A1'),
    harborTrial('t/one', 'B2', { started_at: '2026-03-02T07:59:00Z', verifier_result: { rewards: { reward: 0.0 } }, agent_result: { n_input_tokens: 0, n_output_tokens: 0, cost_usd: null } }),
    harborTrial('t/two', 'C3', { exception_info: { exception_type: 'AgentTimeoutError', exception_message: 'timed out' }, verifier_result: { rewards: { reward: 0.0 } } }),
    harborTrial('t/two', 'D4', { exception_info: { exception_type: 'VerifierTimeoutError', exception_message: 'x' }, verifier_result: null, agent_result: { cost_usd: 0 } }),
  ];

  it('maps outcomes, verdicts, tokens, cost (unknown never 0) and created_at (the job start has no offset: earliest trial)', async () => {
    const b = await mapTb(harborInput(trials));
    const attempts = jsonlOf(b, 'attempts.jsonl');
    expect(attempts.map((a) => [a.task_id, a.index, a.outcome])).toEqual([
      ['t/one', 1, 'completed'],
      ['t/one', 2, 'completed'],
      ['t/two', 1, 'timeout'],
      ['t/two', 2, 'completed'],
    ]);
    expect(attempts[0]!.started_at).toBe('2026-03-02T07:59:00Z');
    expect(Object.values(verdicts(b))).toEqual(['fail', 'pass', 'fail', 'error']);
    expect(attempts.map((a) => a.tokens)).toEqual([null, { input: 1000, output: 50 }, { input: 1000, output: 50 }, null]);
    expect(attempts.map((a) => a.cost)).toEqual([
      { state: 'unavailable', micros: null },
      { state: 'complete', micros: 12500 },
      { state: 'complete', micros: 12500 },
      { state: 'zero', micros: 0 },
    ]);
    const plan = jsonOf(b, 'plan.json');
    expect(plan).toMatchObject({
      created_at: '2026-03-02T07:59:00Z',
      attempts: 2,
      ledger: { name: 'terminal-bench/terminal-bench-2', tasks: 2 },
      harness: { name: 'harbor' },
      grader: { profile: 'harbor-verifier', id: 'reward' },
      environment: { isolation: 'harbor environment: docker' },
      subjects: [{ selector: 'acme/model-1', model: 'acme/model-1', agent: { name: 'terminus-2', version: '2.0.0' } }],
    });
    const text = notes(b);
    expect(text).toContain("- the job's started_at has no UTC offset (it names no instant): the plan's created_at is the earliest trial start");
    expect(text).toContain('- 1 trial with 0 input and 0 output tokens (not measured): tokens unknown (null)');
    expect(text).toContain('- 1 trial without input and output token counts: tokens unknown (null)');
    expect(text).toContain('- 1 trial without cost_usd: cost unavailable');
    expect(text).toContain('- 1 trial whose tests did not finish or could not be read: not graded (verdict error)');
  });

  it('a job start with a UTC offset is the plan\'s created_at', async () => {
    const b = await mapTb(harborInput(trials, { job: { started_at: '2026-03-02T07:58:00+00:00' } }));
    expect(jsonOf(b, 'plan.json').created_at).toBe('2026-03-02T07:58:00Z');
  });

  it('a non-binary reward is refused without --pass-threshold and graded against it with', async () => {
    const half = [harborTrial('t', 'A', { verifier_result: { rewards: { reward: 0.5 } } }), harborTrial('t', 'B', { verifier_result: { rewards: { reward: 0.25 } } })];
    await expect(mapTb(harborInput(half))).rejects.toThrow(/^the trial "t__A" has the non-binary reward 0.5: give --pass-threshold N/);
    const b = await mapTb(harborInput(half), { 'pass-threshold': '0.5' });
    expect(Object.values(verdicts(b))).toEqual(['pass', 'fail']);
    const plan = jsonOf(b, 'plan.json') as { grader: { id: string } };
    expect(plan.grader.id).toBe('reward>=0.5');
    expect(tbenchImporter.rerunFlags!(plan)).toEqual([['--pass-threshold', '0.5']]);
    expect(tbenchImporter.rerunFlags!({ grader: { id: 'reward' } })).toEqual([]);
    // The threshold is part of the grader executable: another threshold, another grading layer.
    const c = await mapTb(harborInput(half), { 'pass-threshold': '0.25' });
    expect((jsonOf(c, 'plan.json') as { grader: { executable: string } }).grader.executable).not.toBe((plan as unknown as { grader: { executable: string } }).grader.executable);
  });

  it('a bad --pass-threshold is a usage error', () => {
    expect(() => tbenchImporter.checkFlags!({ 'pass-threshold': '1e3' })).toThrow(/^--pass-threshold must be a decimal number/);
    expect(() => tbenchImporter.checkFlags!({ 'pass-threshold': '-1' })).toThrow(/^--pass-threshold must be a decimal number/);
  });

  it('trials the job counts but did not write are said', async () => {
    const b = await mapTb(harborInput(trials, { job: { n_total_trials: 6 } }));
    expect(notes(b)).toContain('- 2 of the 6 trials the job counts (n_total_trials) have no result.json: not imported');
  });

  it('the task checksum is the prompt: a task with two checksums is refused', async () => {
    const two = [harborTrial('t', 'A'), harborTrial('t', 'B', { task_checksum: 'other' })];
    await expect(mapTb(harborInput(two))).rejects.toThrow(/^the task "t" has trials with different instructions or task checksums/);
  });

  it('source metrics: the job\'s mean reward; TB1: the run\'s accuracy', async () => {
    const b = await mapTb(harborInput(trials));
    const sources = new Map([...b.files].filter(([p]) => p.startsWith('source/')));
    expect(await tbenchImporter.sourceMetrics!(sources, 'reward')).toEqual([{ name: 'mean reward', value: 0.5 }]);
    const t = await mapTb(tb1Input([tb1Trial('x', 1), tb1Trial('x', 2, { is_resolved: false })]));
    const tSources = new Map([...t.files].filter(([p]) => p.startsWith('source/')));
    expect(await tbenchImporter.sourceMetrics!(tSources, 'is_resolved')).toEqual([{ name: 'accuracy', value: 0.5 }]);
  });
});
