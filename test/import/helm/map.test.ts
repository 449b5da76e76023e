/**
 * The helm importer's mapping on small synthetic run directories, checked by
 * hand: tasks, attempts, outcomes, verdicts (every branch of the pass rule),
 * tokens and times known and unknown, the fixed not-recorded time, splits,
 * perturbations, NOTES.md lines, and the flags read back from the plan.
 */
import { describe, expect, it } from 'vitest';
import { digestBytes, digestCanonical } from '../../../src/json/canonical.ts';
import { helmImporter, helmOptions } from '../../../src/import/helm/importer.ts';
import { helmGraderId, NOT_RECORDED_TIME, parseHelmGraderId, statVerdict } from '../../../src/import/helm/map.ts';
import { importInput } from '../../../src/import/import-input.ts';
import { NO_USABLE_GRADES } from '../../../src/import/common.ts';
import { rejection, tempDirs, verifyDir } from '../helpers.ts';
import { entry, helmRequest, instanceStats, jsonlOf, jsonOf, mapRun, notesOf, requestState, runInput, runSpec, scenarioState, stat, toyRun } from './fixtures.ts';

const temp = tempDirs();

describe('the toy run, mapped', () => {
  it('gives one task per instance (byte order), one attempt per instance x trial, and their grades', async () => {
    const input = runInput(toyRun());
    const m = await mapRun(input);
    const plan = jsonOf(m.files, 'plan.json');
    expect(plan).toMatchObject({
      title: 'toy:model=acme_model (imported HELM run)',
      created_at: NOT_RECORDED_TIME,
      ledger: { name: 'helm.benchmark.scenarios.toy.ToyScenario', tasks: 2 },
      harness: { name: 'helm', version: 'unknown' },
      grader: { profile: 'helm-metric', id: 'exact_match split=test', version: 'unknown' },
      subjects: [{ selector: 'acme/model-api', model: 'acme/model', agent: { name: 'helm generation', version: 'unknown' }, role: 'candidate' }],
      attempts: 1,
      budget: null,
      seed: 0,
      origin: { kind: 'imported', format: 'helm-run', source: digestBytes(input.files.get('per_instance_stats.json')!) },
    });
    const ledger = jsonlOf(m.files, 'ledger.jsonl');
    expect(ledger.map((t) => t.task_id)).toEqual(['id1', 'id2']);
    expect(ledger[0]).toMatchObject({ prompt_sha256: digestCanonical({ helm_scenario_spec: runSpec().scenario_spec, instance_id: 'id1' }), license: 'MIT', created_at: NOT_RECORDED_TIME, holdout: true, cluster_id: 'id1' });
    const attempts = jsonlOf(m.files, 'attempts.jsonl');
    expect(attempts).toEqual([
      expect.objectContaining({ attempt_id: 'a-000001', task_id: 'id1', index: 1, outcome: 'completed', wall_seconds: 1.5, tokens: { input: 10, output: 2 }, cost: { state: 'unavailable', micros: null }, started_at: NOT_RECORDED_TIME, ended_at: NOT_RECORDED_TIME, observed_model: 'acme/model', retries: 0, patch: null }),
      expect.objectContaining({ attempt_id: 'a-000002', task_id: 'id2', index: 1, outcome: 'completed', wall_seconds: 2.25 }),
    ]);
    const grades = jsonOf(m.files, 'grades/1.json') as { created_at: string; results: { attempt_id: string; verdict: string; receipt: string }[] };
    expect(grades.created_at).toBe(NOT_RECORDED_TIME);
    expect(grades.results.map((r) => [r.attempt_id, r.verdict])).toEqual([
      ['a-000001', 'pass'],
      ['a-000002', 'fail'],
    ]);
    // The receipt is the stat as recorded.
    expect(m.files.has(`artifacts/${grades.results[0]!.receipt.slice(7)}.json`)).toBe(true);
    // Every file read is kept under source/, byte for byte; nothing else of the input is.
    expect([...m.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual(['source/per_instance_stats.json', 'source/run_spec.json', 'source/scenario_state.json', 'source/stats.json']);
    expect(m.summary).toMatchObject({ status: 'not recorded', tasks: 2, attempts: 2, epochs: 1, scorer: 'exact_match' });
  });

  it('states the fixed time, the unrecorded version, model, seed and cost in NOTES.md', async () => {
    const notes = notesOf((await mapRun(runInput(toyRun()))).files);
    expect(notes).toContain('# Imported HELM run');
    expect(notes).toContain(`- HELM's run files record no time: the plan's, the ledger's, the grades' and every attempt's times are ${NOT_RECORDED_TIME}, a fixed value meaning not recorded`);
    expect(notes).toContain('- no HELM version recorded in the run directory: harness, agent and grader version "unknown"');
    expect(notes).toContain('- no seed recorded: plan seed 0');
    expect(notes).toContain('- HELM records no per-request cost in a run directory: cost unavailable for every attempt');
    expect(notes).not.toContain('No usable grades');
  });

  it('imports and verifies on disk', async () => {
    const r = await importInput(helmImporter, runInput(toyRun()), await temp(), helmRequest());
    expect(r.status).toBe('verified');
    expect((await verifyDir(r.dir)).status).toBe('verified');
  });

  it('is the same bytes twice', async () => {
    const a = await mapRun(runInput(toyRun()));
    const b = await mapRun(runInput(toyRun()));
    expect([...a.files].map(([p, v]) => [p, digestBytes(v)])).toEqual([...b.files].map(([p, v]) => [p, digestBytes(v)]));
  });
});

describe('the graded stat', () => {
  it("is refused without --metric when HELM's schema table names no main metric for the run's groups, listing the stats of the split", async () => {
    expect(await rejection(mapRun(runInput(toyRun()), {}))).toBe(
      'choose the stat that grades with --metric NAME: HELM\'s schema table names no main metric for this run\'s groups ("toy") (the test split has "exact_match", "num_output_tokens", "num_prompt_tokens")',
    );
  });

  it('must be a stat of the split', async () => {
    expect(await rejection(mapRun(runInput(toyRun()), { metric: 'f1_score' }))).toMatch(/^the run has no stat named "f1_score" in the test split \(it has "exact_match"/);
  });

  it('without a threshold must be 0/1; a continuous stat is refused with the reason', async () => {
    const run = { ...toyRun(), perInstance: [entry('id1', 0, instanceStats(0.75)), entry('id2', 0, instanceStats(1))] };
    expect(await rejection(mapRun(runInput(run)))).toBe(
      'the stat "exact_match" has values other than 0 and 1 (1 of 2, e.g. 0.75): it is not a 0/1 stat, so what passes needs --pass-threshold N (a value >= N passes)',
    );
  });

  it('with a threshold passes at or above it, and NOTES.md says so', async () => {
    const run = { ...toyRun(), perInstance: [entry('id1', 0, instanceStats(0.75)), entry('id2', 0, instanceStats(0.5))] };
    const m = await mapRun(runInput(run), { metric: 'exact_match', 'pass-threshold': '0.75' });
    const grades = jsonOf(m.files, 'grades/1.json') as { grader: { id: string }; results: { verdict: string }[] };
    expect(grades.results.map((r) => r.verdict)).toEqual(['pass', 'fail']);
    expect(grades.grader.id).toBe('exact_match split=test pass>=0.75');
    expect(notesOf(m.files)).toContain('- the stat is graded with a threshold: a value >= 0.75 passes (--pass-threshold); the value itself is only in each grade\'s receipt');
  });

  it('statVerdict: every branch', () => {
    expect(statVerdict(1, null)).toBe('pass');
    expect(statVerdict(0, null)).toBe('fail');
    expect(statVerdict(0.5, null)).toBe('error');
    expect(statVerdict(null, null)).toBe('error');
    expect(statVerdict(Number.NaN, 0.5)).toBe('error');
    expect(statVerdict(0.5, 0.5)).toBe('pass');
    expect(statVerdict(0.49, 0.5)).toBe('fail');
    expect(statVerdict(-1, -2)).toBe('pass');
  });

  it('a NaN value (Python writes it) grades error; a stat with count 0 gives no grade', async () => {
    const stats = Buffer.from(
      JSON.stringify([entry('id1', 0, [stat('exact_match', 0)]), entry('id2', 0, [stat('exact_match', 0, { count: 0 })])]).replace('"mean":0,', '"mean":NaN,'),
    );
    const m = await mapRun(runInput({ ...toyRun(), perInstance: stats }));
    const grades = jsonOf(m.files, 'grades/1.json') as { results: { attempt_id: string; verdict: string }[] };
    expect(grades.results).toEqual([expect.objectContaining({ attempt_id: 'a-000001', verdict: 'error' })]);
    const notes = notesOf(m.files);
    expect(notes).toContain('- 1 attempt without a value of the stat: no grade (fails closed as grader_failure)');
    expect(notes).toContain('- 1 value of the stat that is not a finite number: verdict error');
    expect(notes).toContain('- 1 non-finite number (NaN or Infinity) in the files read, read as null');
    expect(notes).toContain('- 2 attempts without integer num_prompt_tokens and num_output_tokens stats: tokens unknown (null)');
    expect(notes).toContain('## No usable grades');
    expect(m.summary.missing[0]).toBe(NO_USABLE_GRADES);
    expect(jsonlOf(m.files, 'attempts.jsonl').map((a) => a.tokens)).toEqual([null, null]);
  });

  it('twice for one instance and trial (two sub_splits) is ambiguous and refused', async () => {
    const run = { ...toyRun(), perInstance: [entry('id1', 0, [stat('exact_match', 1, { subSplit: 'a' }), stat('exact_match', 0, { subSplit: 'b' })])] };
    expect(await rejection(mapRun(runInput(run)))).toBe('instance "id1" trial 0 has the stat "exact_match" 2 times in the test split: which one grades is ambiguous');
  });
});

describe('splits and perturbations', () => {
  const mixed = () => ({
    ...toyRun(),
    perInstance: [
      entry('id1', 0, instanceStats(1)),
      entry('id1', 0, [stat('exact_match', 0, { perturbation: 'typos' })]),
      entry('id1', 0, instanceStats(0), 'typos'),
      entry('v1', 0, instanceStats(1, { split: 'valid' })),
      entry('v2', 0, instanceStats(0, { split: 'valid' })),
    ],
    stats: undefined,
  });

  it('imports the unperturbed test stats and counts the rest', async () => {
    const m = await mapRun(runInput(mixed()));
    expect(jsonlOf(m.files, 'ledger.jsonl').map((t) => t.task_id)).toEqual(['id1']);
    expect((jsonOf(m.files, 'grades/1.json') as { results: { verdict: string }[] }).results.map((r) => r.verdict)).toEqual(['pass']);
    const notes = notesOf(m.files);
    expect(notes).toContain('- 1 per-instance entry of perturbed instances (robustness, fairness) not imported: only unperturbed stats grade');
    expect(notes).toContain('- 2 instances of other splits than test not imported (see --split)');
    expect(notes).toContain("- no stats.json: HELM's own aggregate of the stat is not shown beside the imported rate");
  });

  it('--split valid imports the valid instances only', async () => {
    const m = await mapRun(runInput(mixed()), { metric: 'exact_match', split: 'valid' });
    expect(jsonlOf(m.files, 'ledger.jsonl').map((t) => t.task_id)).toEqual(['v1', 'v2']);
    expect(jsonOf(m.files, 'plan.json')).toMatchObject({ grader: { id: 'exact_match split=valid' } });
    expect(notesOf(m.files)).toContain('- 1 instance of other splits than valid not imported (see --split)');
  });

  it('a split without instances is refused', async () => {
    const run = { ...toyRun(), perInstance: [entry('v1', 0, instanceStats(1, { split: 'valid' }))] };
    expect(await rejection(mapRun(runInput(run)))).toBe('the run has no unperturbed per-instance stats in the test split (1 instance is in other splits: see --split): there is nothing to import');
  });
});

describe('trials, requests and times', () => {
  it('train trials are the replicates: index = train_trial_index + 1; a missing trial is an unaccounted slot', async () => {
    const run = {
      runSpec: runSpec({}, { num_train_trials: 3 }),
      perInstance: [entry('id1', 0, instanceStats(1)), entry('id1', 1, instanceStats(0)), entry('id1', 2, instanceStats(1)), entry('id2', 1, instanceStats(1))],
    };
    const m = await mapRun(runInput(run));
    expect(jsonOf(m.files, 'plan.json')).toMatchObject({ attempts: 3 });
    expect(jsonlOf(m.files, 'attempts.jsonl').map((a) => [a.task_id, a.index])).toEqual([
      ['id1', 1],
      ['id1', 2],
      ['id1', 3],
      ['id2', 2],
    ]);
    expect(notesOf(m.files)).toContain('- 2 slots (instance x train trial) without per-instance stats: left unaccounted');
  });

  it('a trial beyond num_train_trials raises the attempts and says so', async () => {
    const run = { runSpec: runSpec({}, { num_train_trials: 1 }), perInstance: [entry('id1', 0, instanceStats(1)), entry('id1', 1, instanceStats(1))] };
    const m = await mapRun(runInput(run));
    expect(jsonOf(m.files, 'plan.json')).toMatchObject({ attempts: 2 });
    expect(notesOf(m.files)).toContain('- train_trial_index 1 is present although 1 train trials are configured: attempts per task = 2');
  });

  it('without scenario_state.json: identity prompts, wall 0, no output, said', async () => {
    const { scenarioState: _s, ...rest } = toyRun();
    const m = await mapRun(runInput(rest));
    const ledger = jsonlOf(m.files, 'ledger.jsonl');
    expect(ledger[0]!.prompt_sha256).toBe(digestCanonical({ helm_scenario_spec: runSpec().scenario_spec, instance_id: 'id1' }));
    expect(jsonlOf(m.files, 'attempts.jsonl').map((a) => a.wall_seconds)).toEqual([0, 0]);
    expect(notesOf(m.files)).toContain("- no scenario_state.json: prompts, outputs and request times are not in the run directory: no input or output in the grades' artifacts, wall_seconds 0");
  });

  it('a failed request without a value of the stat is a harness_failure; a request without request_time gives wall 0, said; request times are summed', async () => {
    const run = {
      ...toyRun(),
      perInstance: [entry('id2', 0, instanceStats(0)), entry('id1', 0, [stat('num_prompt_tokens', 1), stat('exact_match', 0, { count: 0 })])],
      scenarioState: scenarioState([
        requestState('id1', 0, { success: false }),
        requestState('id2', 0, { time: null }),
        requestState('id2', 0, { time: 1 }),
        requestState('id1', 0, { perturbation: 'typos', time: 100 }),
      ]),
    };
    const m = await mapRun(runInput(run));
    const attempts = jsonlOf(m.files, 'attempts.jsonl');
    expect(attempts.map((a) => [a.outcome, a.wall_seconds])).toEqual([
      ['harness_failure', 1.5],
      ['completed', 0],
    ]);
    const notes = notesOf(m.files);
    expect(notes).toContain('- 1 attempt with a failed request (result.success false) and no value of the stat: outcome harness_failure');
    expect(notes).not.toContain('failed at the provider');
    expect(notes).toContain('- 1 attempt without a request_time on every request: wall_seconds 0');
  });

  it('request times whose sum is past the largest number are unknown (wall 0, said), never Infinity', async () => {
    const run = { ...toyRun(), scenarioState: scenarioState([requestState('id1', 0, { time: 1e308 }), requestState('id1', 0, { time: 1e308 }), requestState('id2', 0)]) };
    const m = await mapRun(runInput(run));
    expect(jsonlOf(m.files, 'attempts.jsonl').map((a) => a.wall_seconds)).toEqual([0, 1.5]);
    expect(notesOf(m.files)).toContain('- 1 attempt without a request_time on every request: wall_seconds 0');
  });

  it('an instance with two different inputs is refused', async () => {
    const run = { ...toyRun(), scenarioState: scenarioState([requestState('id1', 0), requestState('id1', 1, { input: 'another' })]) };
    expect(await rejection(mapRun(runInput(run)))).toBe('instance "id1" has different inputs in different request states of scenario_state.json: one task cannot have two prompts');
  });

  it('instances and attempts the scenario state lacks are said', async () => {
    const run = { ...toyRun(), scenarioState: scenarioState([requestState('id1', 0)]) };
    const notes = notesOf((await mapRun(runInput(run))).files);
    expect(notes).toContain("- 1 instance without a request state in scenario_state.json: no input in its grades' input artifacts");
    expect(notes).toContain('- 1 attempt without a request state in scenario_state.json: no output, wall_seconds 0');
  });

  it("stats.json's instance count is compared with the per-instance stats", async () => {
    const run = { ...toyRun(), stats: [stat('exact_match', 0.5), stat('num_instances', 3)] };
    expect(notesOf((await mapRun(runInput(run))).files)).toContain('- stats.json counts 3 instances in the test split, the per-instance stats hold 2: the tasks imported are those 2');
  });

  it('other files of the run directory are not read, not kept, and counted on the command line only', async () => {
    const input = runInput({ ...toyRun(), extra: { 'display_predictions.json': '[]', 'instances.json': '[]' } });
    const m = await mapRun(input);
    expect([...m.files.keys()].some((p) => p.includes('display') || p.includes('instances.json'))).toBe(false);
    expect(notesOf(m.files)).not.toContain('other file');
    expect(m.summary.unkept).toEqual(['2 other files of the run directory not read and not kept (display files, instances, scenario description, hidden entries)']);
  });
});

describe('flags', () => {
  it('--split and --pass-threshold are checked before reading', () => {
    expect(() => helmImporter.checkFlags!({ split: 'train' })).toThrow(/^--split must be one of test, valid, not "train"$/);
    expect(() => helmImporter.checkFlags!({ 'pass-threshold': '0x1' })).toThrow(/^--pass-threshold must be a decimal number/);
    expect(() => helmImporter.checkFlags!({ 'pass-threshold': '1e999' })).toThrow(/^--pass-threshold must be a finite number/);
    expect(() => helmImporter.checkFlags!({ metric: '' })).toThrow(/^--metric needs the name of a stat/);
    expect(helmOptions({ license: '', flags: { 'pass-threshold': '.5', split: 'valid', metric: 'f1' } })).toEqual({ license: '', metric: 'f1', split: 'valid', passThreshold: 0.5 });
  });

  it('the grader id gives the flags back (rerunFlags), and a re-run with them is the same bundle', async () => {
    expect(parseHelmGraderId(helmGraderId('a split=b', 'valid', 0.25))).toEqual({ metric: 'a split=b', split: 'valid', passThreshold: '0.25' });
    expect(parseHelmGraderId('none')).toBeNull();
    expect(helmImporter.rerunFlags!({ grader: { id: 'exact_match split=test' } })).toEqual([['--metric', 'exact_match']]);
    expect(helmImporter.rerunFlags!({ grader: { id: 'x split=valid pass>=1e-7' } })).toEqual([['--metric', 'x'], ['--split', 'valid'], ['--pass-threshold', '1e-7']]);
    const run = { ...toyRun(), perInstance: [entry('id1', 0, instanceStats(0.75)), entry('id2', 0, instanceStats(0.5))] };
    const first = await mapRun(runInput(run), { metric: 'exact_match', 'pass-threshold': '0.50' });
    const id = (jsonOf(first.files, 'plan.json') as { grader: { id: string } }).grader.id;
    const flags = Object.fromEntries(helmImporter.rerunFlags!({ grader: { id } }).map(([k, v]) => [k!.slice(2), v!]));
    const again = await mapRun(runInput(run), flags);
    expect(again.planId).toBe(first.planId);
  });

  it('sourceMetrics reads the mean of the graded stat on the split from stats.json', async () => {
    const m = await mapRun(runInput(toyRun()));
    const sources = new Map([...m.files].filter(([p]) => p.startsWith('source/')));
    expect(await helmImporter.sourceMetrics!(sources, 'exact_match split=test')).toEqual([
      { name: 'mean (HELM stats.json, test)', value: 0.5 },
      { name: 'count (train trials)', value: 1 },
      { name: 'num_instances', value: 2 },
    ]);
    expect(await helmImporter.sourceMetrics!(sources, 'exact_match split=valid')).toBeNull();
    expect(await helmImporter.sourceMetrics!(sources, 'none')).toBeNull();
  });
});
