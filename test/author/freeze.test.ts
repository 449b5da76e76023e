/**
 * `ledgerboard freeze` (issue #6 point 1): every refusal, the computed
 * members, create-only writing, --dry-run, and determinism. Inputs are the
 * worked example's (examples/harness), edited per case.
 */
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezePlan, type FreezeInput } from '../../src/author/freeze.ts';
import { AuthorInputError } from '../../src/author/problems.ts';
import { digestBytes, selfId } from '../../src/json/canonical.ts';
import { Plan } from '../../src/schema/index.ts';
import { cli, exampleInputs, replaceOnce, Scratch, writeInputs } from './helpers.ts';

const scratch = new Scratch();
let example: Awaited<ReturnType<typeof exampleInputs>>;
beforeAll(async () => {
  example = await exampleInputs();
});
afterAll(() => scratch.cleanup());

/** Freezes in-process; returns the plan or the problems' text. */
function freeze(edit: { plan?: string; aliases?: string | null; ledger?: Buffer | string; epoch?: string; now?: Date } = {}) {
  const input: FreezeInput = {
    plan: { file: 'plan.yaml', bytes: Buffer.from(edit.plan ?? example.plan) },
    ledger: { file: 'ledger.jsonl', bytes: Buffer.from(edit.ledger ?? example.ledger) },
    ...(edit.aliases === null ? {} : { aliases: { file: 'aliases.yaml', bytes: Buffer.from(edit.aliases ?? example.aliases) } }),
    ...(edit.epoch !== undefined ? { sourceDateEpoch: edit.epoch } : {}),
    now: () => edit.now ?? new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678)),
  };
  return freezePlan(input);
}

/** The refusal's problems as `file:line:col: message` lines; fails the test when freeze accepts. */
function refusal(edit: Parameters<typeof freeze>[0]): string[] {
  try {
    freeze(edit);
  } catch (error) {
    if (error instanceof AuthorInputError) return error.message.split('\n');
    throw error;
  }
  throw new Error('freeze accepted the input');
}

/** The 1-based line of the first line of `text` holding `needle`. */
function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  if (index === -1) throw new Error(`no line holds ${needle}`);
  return index + 1;
}

describe('freeze computes what a person should not write', () => {
  it('resolves aliases, pins the ledger, floors the ceiling and derives plan_id', () => {
    const { plan, planBytes, dispatches } = freeze();
    const ledgerLines = example.ledger.toString('utf8').trimEnd().split('\n');
    expect(plan.subjects.map((s) => [s.selector, s.model])).toEqual([
      [':base', 'acme/base-2025-01-01'],
      [':mini', 'acme/mini-2026-08-01'],
    ]);
    expect(plan.ledger).toEqual({ name: 'widget-bugs-mini', digest: digestBytes(example.ledger), tasks: ledgerLines.length });
    expect(dispatches).toBe(BigInt(ledgerLines.length * 2 * 2));
    expect(plan.budget!.per_attempt_micros).toBe(Math.floor(1_000_000 / (ledgerLines.length * 2 * 2)));
    const written = JSON.parse(planBytes.toString('utf8')) as Record<string, unknown>;
    expect(written.plan_id).toBe(selfId(written, 'plan_id'));
    expect(Plan.safeParse(written).success).toBe(true);
    expect(Object.keys(written)).toEqual(['schema', 'plan_id', 'title', 'created_at', 'ledger', 'environment', 'harness', 'grader', 'subjects', 'attempts', 'budget', 'access_tier', 'seed']);
  });

  it('takes an exact identity as its own model, without an aliases file', () => {
    const plan = replaceOnce(replaceOnce(example.plan, '":base"', 'acme/base-2025-01-01'), '":mini"', 'acme/mini-2026-08-01');
    const frozen = freeze({ plan, aliases: null });
    expect(frozen.plan.subjects.map((s) => [s.selector, s.model])).toEqual([
      ['acme/base-2025-01-01', 'acme/base-2025-01-01'],
      ['acme/mini-2026-08-01', 'acme/mini-2026-08-01'],
    ]);
  });

  it('accepts one model under two agents (two subjects), as the format allows', () => {
    const plan = replaceOnce(example.plan, 'role: candidate', 'role: candidate\n  - selector: ":mini"\n    agent: { name: loop, version: 3.2.0 }\n    role: candidate');
    expect(freeze({ plan }).plan.subjects).toHaveLength(3);
  });

  it('gives the smallest aggregate that works exactly one micro per dispatch', () => {
    const plan = replaceOnce(example.plan, 'aggregate_micros: 1000000', 'aggregate_micros: 12');
    expect(freeze({ plan }).plan.budget!.per_attempt_micros).toBe(1);
  });

  it('is deterministic: same inputs, same bytes and plan_id, whatever the clock', () => {
    const a = freeze({ now: new Date('2031-05-06T07:08:09Z') });
    const b = freeze({ now: new Date('2040-01-01T00:00:00Z') });
    expect(b.planBytes.equals(a.planBytes)).toBe(true);
    expect(a.createdAtSource).toBe('plan');
    const undated = example.plan.replace(/^created_at: .*\n/m, '');
    const c = freeze({ plan: undated, epoch: '1789000000', now: new Date('2031-05-06T07:08:09Z') });
    const d = freeze({ plan: undated, epoch: '1789000000', now: new Date('2040-01-01T00:00:00Z') });
    expect(c.plan.plan_id).toBe(d.plan.plan_id);
    expect(c.plan.created_at).toBe(new Date(1789000000 * 1000).toISOString().replace('.000Z', 'Z'));
    expect(c.createdAtSource).toBe('SOURCE_DATE_EPOCH');
    expect(c.plan.plan_id).not.toBe(a.plan.plan_id);
  });

  it('falls back to the clock (whole seconds) with a warning, and refuses a malformed SOURCE_DATE_EPOCH', () => {
    const undated = example.plan.replace(/^created_at: .*\n/m, '');
    const frozen = freeze({ plan: undated, now: new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678)) });
    expect(frozen.plan.created_at).toBe('2030-01-02T03:04:05Z');
    expect(frozen.createdAtSource).toBe('clock');
    expect(frozen.warnings.join('\n')).toMatch(/taken from the clock/);
    expect(refusal({ plan: undated, epoch: '17e8' }).join('\n')).toMatch(/^SOURCE_DATE_EPOCH: must be a whole number of seconds since 1970-01-01T00:00:00Z .*got "17e8"/);
  });
});

describe('freeze refuses a plan it cannot trust', () => {
  it('a typo in a key, with its place and a did-you-mean', () => {
    const plan = replaceOnce(example.plan, /^attempts:/m, 'atempts:');
    const problems = refusal({ plan });
    const line = lineOf(plan, 'atempts:');
    expect(problems).toContain(
      `plan.yaml:${line}:1: unknown key "atempts" at (root); did you mean "attempts"? (allowed there: title, created_at, ledger, environment, harness, grader, subjects, attempts, budget, access_tier, seed)`,
    );
    expect(problems.join('\n')).toMatch(/missing key "attempts" at \(root\)/);
  });

  it('a typo in a nested key, naming the path and the closest key there', () => {
    const plan = replaceOnce(example.plan, 'aggregate_micros: 1000000', 'agregate_micros: 1000000');
    const problems = refusal({ plan });
    expect(problems).toContain(
      `plan.yaml:${lineOf(plan, 'agregate_micros')}:3: unknown key "agregate_micros" at budget; did you mean "aggregate_micros"? (allowed there: currency, aggregate_micros, timeout_seconds)`,
    );
    const subjectTypo = replaceOnce(example.plan, '    role: candidate', '    rol: candidate');
    expect(refusal({ plan: subjectTypo }).join('\n')).toContain('unknown key "rol" at subjects[1]; did you mean "role"?');
  });

  it('an unknown key with nothing close: no guess, the allowed keys', () => {
    const plan = replaceOnce(example.plan, /^seed: 7$/m, 'seed: 7\nreplicas: 3');
    const [problem, ...rest] = refusal({ plan });
    expect(rest).toEqual([]);
    expect(problem).toBe(`plan.yaml:${lineOf(plan, 'replicas')}:1: unknown key "replicas" at (root) (allowed there: title, created_at, ledger, environment, harness, grader, subjects, attempts, budget, access_tier, seed)`);
  });

  it('a computed member written by hand', () => {
    const plan = replaceOnce(replaceOnce(example.plan, '  timeout_seconds: 1800', '  timeout_seconds: 1800\n  per_attempt_micros: 99999'), '    role: baseline', '    role: baseline\n    model: acme/other');
    const text = refusal({ plan: `plan_id: sha256:${'0'.repeat(64)}\n${plan}` }).join('\n');
    expect(text).toMatch(/key "plan_id" at \(root\) is computed, not written/);
    expect(text).toMatch(/key "per_attempt_micros" at budget is computed, not written: freeze computes floor\(aggregate_micros/);
    expect(text).toMatch(/key "model" at subjects\[0\] is computed, not written/);
  });

  it('an alias with no entry, with the entries there are', () => {
    const plan = replaceOnce(example.plan, '":mini"', '":minni"');
    expect(refusal({ plan })).toEqual([
      `plan.yaml:${lineOf(plan, ':minni')}:15: subjects[1].selector ":minni" has no entry in aliases.yaml; did you mean ":mini"? (entries: ":base", ":mini")`,
    ]);
    expect(refusal({ aliases: null }).join('\n')).toMatch(/subjects\[0\]\.selector ":base" is an alias, but no --aliases file was given/);
  });

  it('two selectors to one subject, naming both', () => {
    const plan = replaceOnce(example.plan, 'role: candidate', 'role: candidate\n  - selector: acme/mini-2026-08-01\n    agent: { name: loop, version: 3.1.0 }\n    role: candidate');
    const [problem, ...rest] = refusal({ plan });
    expect(rest).toEqual([]);
    expect(problem).toContain('subjects[1] selector ":mini" and subjects[2] selector "acme/mini-2026-08-01" both resolve to model "acme/mini-2026-08-01" with agent "loop@3.1.0"');
    const aliases = `${example.aliases}":small": acme/mini-2026-08-01\n`;
    const twice = replaceOnce(example.plan, '":base"', '":small"');
    expect(refusal({ plan: twice, aliases }).join('\n')).toContain('selector ":small" and subjects[1] selector ":mini" both resolve to model "acme/mini-2026-08-01"');
  });

  it('an aliases file that is not a map of alias to exact identity', () => {
    expect(refusal({ aliases: '":mini": ":base"\n":base": acme/base-2025-01-01\n' }).join('\n')).toMatch(/alias ":mini" maps to ":base", another alias/);
    expect(refusal({ aliases: 'mini: acme/mini\n' }).join('\n')).toMatch(/aliases\.yaml:1:1: alias "mini" must start with ":"/);
    expect(refusal({ aliases: '- ":mini"\n' }).join('\n')).toMatch(/expected a mapping from alias to exact model identity/);
  });

  it('an aggregate that gives a dispatch zero micros (ZERO_SHARE), saying what would do', () => {
    const plan = replaceOnce(example.plan, 'aggregate_micros: 1000000', 'aggregate_micros: 11');
    const [problem] = refusal({ plan });
    expect(problem).toBe(
      `plan.yaml:${lineOf(plan, 'aggregate_micros')}:21: budget.aggregate_micros 11 gives each of the 12 dispatches (3 tasks x 2 subjects x 2 attempts) floor(11 / 12) = 0 micros, a zero ceiling (ZERO_SHARE); give at least 12 micros, or fewer dispatches`,
    );
  });

  it.each([
    ['1000000.5', /1000000\.5 at budget\.aggregate_micros is not an integer/],
    ['1e6', /1e6 at budget\.aggregate_micros is not an integer/],
    ['.inf', /\.inf at budget\.aggregate_micros is not an integer/],
    ['0xF4240', /0xF4240 at budget\.aggregate_micros: write integers in decimal/],
    ['9007199254740993', /9007199254740993 at budget\.aggregate_micros is beyond 2\^53 - 1/],
    ['"1000000"', /budget\.aggregate_micros: expected an integer, got the string "1000000"/],
    ['-5', /budget\.aggregate_micros: Too small/],
  ])('money that is not a safe integer: %s', (value, message) => {
    const plan = replaceOnce(example.plan, 'aggregate_micros: 1000000', `aggregate_micros: ${value}`);
    expect(refusal({ plan }).join('\n')).toMatch(message);
  });

  it('a number where text belongs, suggesting the quotes (1.10 is not 1.1)', () => {
    const plan = replaceOnce(example.plan, '  version: 0.1.0', '  version: 1.10');
    expect(refusal({ plan }).join('\n')).toMatch(/1\.10 at harness\.version is not an integer: .* quote it: "1\.10"/);
    const integer = replaceOnce(example.plan, '  version: 0.1.0', '  version: 2');
    expect(refusal({ plan: integer }).join('\n')).toContain('harness.version: expected text, got the number 2; quote it: "2"');
  });

  it.each([
    ['a duplicate key', (p: string) => replaceOnce(p, /^seed: 7$/m, 'seed: 7\nseed: 8'), /duplicate key "seed" \(first on line 35\)/],
    ['an anchor and an alias', (p: string) => replaceOnce(replaceOnce(p, 'agent: { name: loop, version: 3.1.0 }\n    role: baseline', 'agent: &loop { name: loop, version: 3.1.0 }\n    role: baseline'), 'agent: { name: loop, version: 3.1.0 }\n    role: candidate', 'agent: *loop\n    role: candidate'), /anchor &loop refused[\s\S]*alias \*loop refused/],
    ['a tag', (p: string) => replaceOnce(p, 'title: ', 'title: !!str '), /tag !!str refused/],
    ['a custom tag', (p: string) => replaceOnce(p, 'title: ', 'title: !note '), /Unresolved tag: !note: tags are not accepted/],
    ['two documents', (p: string) => `${p}---\ntitle: again\n`, /more than one YAML document/],
    ['a syntax error', (p: string) => replaceOnce(p, 'wiki: []', 'wiki: [\n'), /plan\.yaml:\d+:\d+: /],
    ['a numeric key', (p: string) => `${p}7: seven\n`, /a key must be a plain name; got the number 7/],
    ['a list at the top', () => '- title\n', /\(root\): expected a mapping of keys, got a list/],
    ['an empty file', () => '', /\(root\): expected a mapping of keys, got an empty value/],
  ])('YAML it will not guess about: %s', (_name, edit, message) => {
    expect(refusal({ plan: edit(example.plan) }).join('\n')).toMatch(message);
  });

  it('bytes that are not UTF-8', () => {
    const input = { plan: { file: 'plan.yaml', bytes: Buffer.from([0x74, 0x3a, 0x20, 0xff, 0x0a]) }, ledger: { file: 'ledger.jsonl', bytes: example.ledger } };
    expect(() => freezePlan(input)).toThrow(new AuthorInputError([{ file: 'plan.yaml', message: 'the file is not valid UTF-8' }]));
  });

  it('an alias bomb is refused before any expansion', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const started = Date.now();
    expect(refusal({ plan: `${bomb.join('\n')}\n` }).join('\n')).toMatch(/anchors and aliases are not accepted/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('nesting deeper than 64', () => {
    expect(refusal({ plan: `title: ${'['.repeat(70)}${']'.repeat(70)}\n` }).join('\n')).toMatch(/nesting deeper than 64/);
  });
});

describe('freeze refuses a ledger it cannot pin, with the line', () => {
  const lines = () => example.ledger.toString('utf8').trimEnd().split('\n');

  it('a line that is not strict JSON', () => {
    const ledger = [lines()[0], '{"task_id":"x","task_id":"y"}', lines()[2]].join('\n') + '\n';
    expect(refusal({ ledger })).toEqual([expect.stringMatching(/^ledger\.jsonl:2:\d+: not valid JSONL: .*duplicate/i)]);
  });

  it('a line outside the ledger schema, a duplicate task, a task labelled after the freeze, an empty ledger', () => {
    const [a, b, c] = lines() as [string, string, string];
    expect(refusal({ ledger: `${a}\n${b.replace('"license":"MIT"', '"license":"MIT","extra":1')}\n` }).join('\n')).toMatch(/^ledger\.jsonl:2: \(root\): unknown member "extra"/);
    expect(refusal({ ledger: `${a}\n${a}\n` }).join('\n')).toMatch(/^ledger\.jsonl:2: task "widget-0001" is already on line 1 \(DUPLICATE_TASK\)/);
    expect(refusal({ ledger: `${a}\n${b}\n${c.replace('2026-07-22T14:05:00Z', '2026-09-14T12:00:01Z')}\n` }).join('\n')).toMatch(
      /^ledger\.jsonl:3: task "widget-0003" was created at 2026-09-14T12:00:01Z, after the plan's created_at 2026-09-14T12:00:00Z/,
    );
    expect(refusal({ ledger: '' }).join('\n')).toBe('ledger.jsonl: the ledger is empty: a plan needs at least one task');
  });

  it('warns about a task without a license, as the verifier does', () => {
    const ledger = example.ledger.toString('utf8').replace('"license":"Apache-2.0"', '"license":""');
    expect(freeze({ ledger }).warnings.join('\n')).toMatch(/1 task has no license \(MISSING_LICENSE\)/);
  });
});

describe('ledgerboard freeze (CLI)', () => {
  it('writes plan.json and a byte-for-byte ledger.jsonl, then refuses to overwrite (exit 1)', async () => {
    const dir = await scratch.dir();
    const inputs = await writeInputs(dir, { ...example, ledger: Buffer.concat([example.ledger.subarray(0, -1)]) }); // No final newline: still copied as is.
    const out = join(dir, 'bundle', 'nested');
    const args = ['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', out];
    const first = await cli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^froze plan sha256:[0-9a-f]{64}$/m);
    expect((await readFile(join(out, 'ledger.jsonl'))).equals(example.ledger.subarray(0, -1))).toBe(true);
    const planBytes = await readFile(join(out, 'plan.json'));
    expect((JSON.parse(planBytes.toString('utf8')) as Plan).ledger.digest).toBe(digestBytes(example.ledger.subarray(0, -1)));

    const again = await cli(args);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${join(out, 'plan.json')} already exists: a frozen plan is never overwritten`);
    expect((await readFile(join(out, 'plan.json'))).equals(planBytes)).toBe(true);
    expect((await readdir(out)).sort()).toEqual(['ledger.jsonl', 'plan.json']);
  });

  it('refuses a directory whose ledger.jsonl holds other bytes, and writes no plan there (exit 1)', async () => {
    const dir = await scratch.dir();
    const inputs = await writeInputs(dir, example);
    const out = join(dir, 'bundle');
    await mkdir(out);
    await writeFile(join(out, 'ledger.jsonl'), 'other\n');
    const result = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ledger\.jsonl already exists with other bytes/);
    expect(await readdir(out)).toEqual(['ledger.jsonl']);
    expect(await readFile(join(out, 'ledger.jsonl'), 'utf8')).toBe('other\n');
  });

  it('--dry-run prints plan.json and writes nothing; the printed bytes are the bytes a real freeze writes', async () => {
    const dir = await scratch.dir();
    const inputs = await writeInputs(dir, example);
    const before = (await readdir(dir)).sort();
    const dry = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(before);
    expect(dry.stderr).toMatch(/nothing written/);
    const real = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', join(dir, 'b')]);
    expect(real.code).toBe(0);
    expect(await readFile(join(dir, 'b', 'plan.json'), 'utf8')).toBe(dry.stdout);
  });

  it('a refused input writes nothing, not even the output directory (exit 2)', async () => {
    const dir = await scratch.dir();
    const inputs = await writeInputs(dir, { ...example, plan: replaceOnce(example.plan, /^attempts:/m, 'atempts:') });
    const out = join(dir, 'never');
    const result = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ledgerboard freeze: refused \(2 problems\); nothing was written\n/);
    expect(result.stderr).toContain('did you mean "attempts"?');
    await expect(lstat(out)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    [['freeze'], /freeze takes one plan file/],
    [['freeze', 'plan.yaml', '-o', 'x'], /freeze needs --ledger/],
    [['freeze', 'plan.yaml', '--ledger', 'l.jsonl'], /freeze needs -o <dir> \(or --dry-run/],
    [['freeze', 'plan.yaml', '--ledger', 'l.jsonl', '-o', 'x', '--dry-run'], /give either -o <dir> or --dry-run/],
    [['freeze', '/nonexistent/plan.yaml', '--ledger', 'l.jsonl', '--dry-run'], /cannot read \/nonexistent\/plan\.yaml: no such file/],
    [['freeze', 'plan.yaml', '--ledgr', 'l.jsonl'], /unknown option "--ledgr" \(did you mean "--ledger"\?\)/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('has help', async () => {
    const help = await cli(['freeze', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: ledgerboard freeze <plan\.yaml> --ledger <ledger\.jsonl>/);
    expect(help.stdout).toContain('--dry-run');
    expect((await cli(['--help'])).stdout).toMatch(/^ {2}freeze /m);
  });
});
