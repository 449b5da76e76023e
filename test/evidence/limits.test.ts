/**
 * Limits (issue "Trust under attack", point 3): every limit, when a bundle
 * goes over it, gives one 'LIMIT_EXCEEDED' finding naming the limit and its
 * value; the bundle gets no verdict; the checks that need the withheld input
 * are skipped (no MISSING_FILE for a file that is there). The defaults never
 * fire on valid evidence, and the config validates limits strictly.
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Config, ConfigError, limitsOf, parseConfig } from '../../src/config/config.ts';
import { jsonlLimitHit, LIMIT_DEFAULTS, nestingOver, type Limits } from '../../src/evidence/limits.ts';
import { parseStrictJson } from '../../src/json/strict-json.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { runCli } from '../helpers/cli.ts';
import { addArtifact, makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

const limits = (over: Partial<Limits>): Limits => ({ ...LIMIT_DEFAULTS, ...over });

async function verifyWith(over: Partial<Limits>, dir?: string) {
  const bundle = dir ?? (await writeModel(validBundle()));
  const [result] = await verifyPaths([bundle], undefined, { limits: limits(over) });
  return result!.verification;
}

describe('LIMIT_EXCEEDED, one limit at a time', () => {
  it('the valid bundle is verified under the defaults', async () => {
    const v = await verifyWith({});
    expect(v.findings).toEqual([]);
    expect(v.status).toBe('verified');
  });

  it.each([
    ['file_bytes', { file_bytes: 100 }, 'attempts.jsonl'],
    ['structured_file_bytes', { structured_file_bytes: 100 }, 'attempts.jsonl'],
    ['jsonl_lines', { jsonl_lines: 2 }, 'attempts.jsonl'],
    ['line_bytes', { line_bytes: 64 }, 'ledger.jsonl'],
    ['depth', { depth: 2 }, 'grades/1.json'],
    ['notes_bytes', { notes_bytes: 10 }, 'NOTES.md'],
  ] as const)('%s: named with its value, no_verdict, and no MISSING_FILE for the withheld file', async (name, over, file) => {
    const v = await verifyWith(over);
    const hits = v.findings.filter((f) => f.code === 'LIMIT_EXCEEDED');
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.message).toContain(`limits.${name} is ${over[name as keyof typeof over]}`);
    expect(hits.map((h) => h.file)).toContain(file);
    expect(v.findings.filter((f) => f.code === 'MISSING_FILE' && hits.some((h) => h.file === f.file))).toEqual([]);
    expect(v.status).toBe('no_verdict');
  });

  it('line_bytes and jsonl_lines give the line', async () => {
    const v = await verifyWith({ line_bytes: 64 });
    const hit = v.findings.find((f) => f.code === 'LIMIT_EXCEEDED' && f.file === 'attempts.jsonl')!;
    expect(hit.line).toBe(1);
  });

  it('files: more entries than the limit stops the walk; nothing is judged', async () => {
    const model = validBundle();
    for (let i = 0; i < 5; i++) addArtifact(model, `artifacts/extra-${i}.txt`, `extra ${i}`);
    const v = await verifyWith({ files: 8 }, await writeModel(model));
    expect(v.findings).toEqual([expect.objectContaining({ code: 'LIMIT_EXCEEDED', file: '.', severity: 'error' })]);
    expect(v.findings[0]!.message).toContain('limits.files is 8 entries in the bundle; this has more than 8');
    expect(v.status).toBe('no_verdict');
  });

  it('structured_total_bytes: the structured files together over the limit; nothing is read or judged', async () => {
    const v = await verifyWith({ structured_total_bytes: 2000 });
    expect(v.findings).toEqual([expect.objectContaining({ code: 'LIMIT_EXCEEDED', file: '.' })]);
    expect(v.findings[0]!.message).toMatch(/^limits\.structured_total_bytes is 2000 bytes of structured \(parsed\) files in the bundle; this has \d+/);
    expect(v.status).toBe('no_verdict');
  });

  it('a file over the limit is never read: its bytes may be anything', async () => {
    const dir = await writeModel(validBundle());
    await writeFile(join(dir, 'NOTES.md'), Buffer.alloc(64, 0xff));
    const v = await verifyWith({ notes_bytes: 10 }, dir);
    expect(v.findings.map((f) => f.code)).toEqual(['LIMIT_EXCEEDED']);
  });
});

describe('string_bytes: one string in structured evidence (issue 10, item 4)', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);
  const stringHits = (v: { findings: { code: string; file: string; message: string }[] }) =>
    v.findings.filter((f) => f.code === 'LIMIT_EXCEEDED' && f.message.startsWith('limits.string_bytes is'));

  it('the default is 64 KiB, and the valid bundle is under it', () => {
    expect(LIMIT_DEFAULTS.string_bytes).toBe(65536);
  });

  it('a plan title over the default: LIMIT_EXCEEDED on plan.json naming `title` and the limit; no_verdict; the title is nowhere', async () => {
    const model = validBundle();
    model.plan.title = big(65537);
    const v = await verifyWith({}, await writeModel(model));
    const hits = stringHits(v);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ file: 'plan.json', severity: 'error' });
    expect(hits[0]!.message).toMatch(/^limits\.string_bytes is 65536 bytes in one JSON string; this has 65537 \(title, line \d+, column \d+\)/);
    expect(v.status).toBe('no_verdict');
    expect(v.evidence.plan).toBeNull();
    expect(JSON.stringify(v.findings).length).toBeLessThan(10_000);
  });

  it('exactly at the limit is fine; a multi-byte string counts UTF-8 bytes after unescaping', async () => {
    const model = validBundle();
    model.plan.title = big(65536);
    expect((await verifyWith({}, await writeModel(model))).status).toBe('verified');
    // 21846 x U+00E9 is 21846 code units and 43692 UTF-8 bytes.
    const accents = validBundle();
    accents.plan.title = '\u00e9'.repeat(21846);
    expect(stringHits(await verifyWith({ string_bytes: 43692 }, await writeModel(accents)))).toEqual([]);
    expect(stringHits(await verifyWith({ string_bytes: 43691 }, await writeModel(accents)))).toHaveLength(1);
    // Escaped, 30 x "\u0041" is 180 bytes of text but a 30-byte string.
    const escaped = await writeModel(validBundle(), { raw: { 'grant.json': `{"a": "${'\\u0041'.repeat(30)}"}` } });
    const grantHits = async (limit: number) => stringHits(await verifyWith({ string_bytes: limit }, escaped)).filter((f) => f.file === 'grant.json');
    expect(await grantHits(30)).toEqual([]);
    expect(await grantHits(29)).toHaveLength(1);
  });

  it('attempts.jsonl line 4 `observed_model`: the line and field named; the other lines are checked', async () => {
    const model = validBundle();
    model.attempts[3]!.observed_model = big(200);
    const v = await verifyWith({ string_bytes: 100 }, await writeModel(model));
    const hits = stringHits(v);
    expect(hits).toEqual([expect.objectContaining({ file: 'attempts.jsonl', line: 4 })]);
    expect(hits[0]!.message).toContain('(observed_model, line 4,');
    expect(v.status).toBe('no_verdict');
  });

  it('a member name over the limit names the object holding it, and never quotes the string', async () => {
    const dir = await writeModel(validBundle(), { raw: { 'grant.json': `{"${big(300)}": 1}` } });
    const v = await verifyWith({ string_bytes: 100 }, dir);
    const hits = stringHits(v);
    expect(hits).toEqual([expect.objectContaining({ file: 'grant.json' })]);
    expect(hits[0]!.message).toContain('(a member name in (root), line 1, column 2)');
    expect(hits[0]!.message).not.toContain(big(101));
  });

  it('a grade result (streamed path) and a ledger line: named by file and field', async () => {
    const model = validBundle();
    model.ledger[1]!.failing_assertion = big(150);
    model.grades[0]!.value.results[2]!.attempt_id = big(150);
    const v = await verifyWith({ string_bytes: 100 }, await writeModel(model));
    const hits = stringHits(v);
    expect(hits.map((h) => h.file).sort()).toEqual(['grades/1.json', 'ledger.jsonl']);
    expect(hits.find((h) => h.file === 'ledger.jsonl')!.message).toContain('(failing_assertion, line 2,');
    expect(hits.find((h) => h.file === 'grades/1.json')!.message).toContain('(results[2].attempt_id, line');
  });

  it('long member names on the field path are cut in the message', async () => {
    const dir = await writeModel(validBundle(), { raw: { 'grant.json': `{"${big(90)}": {"a": "${big(120)}"}}` } });
    const [hit] = stringHits(await verifyWith({ string_bytes: 100 }, dir));
    expect(hit!.message).toContain('... (90 characters)"].a, line 1');
    expect(hit!.message).not.toContain(big(65));
  });
});

describe('jsonlLimitHit and nestingOver', () => {
  it('count lines and line bytes without a final newline too', () => {
    const bytes = new TextEncoder().encode('{"a":1}\n{"b":22}\n{}');
    expect(jsonlLimitHit('x', bytes, limits({}))).toBeNull();
    expect(jsonlLimitHit('x', bytes, limits({ jsonl_lines: 2 }))).toMatchObject({ limit: 'jsonl_lines', actual: 'more' });
    expect(jsonlLimitHit('x', bytes, limits({ line_bytes: 7 }))).toMatchObject({ limit: 'line_bytes', actual: 8, line: 2 });
  });

  it('depth is counted as the strict parser counts it (scalars included, strings skipped)', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large', maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (text, depth) => {
        const bytes = new TextEncoder().encode(text);
        expect(nestingOver(bytes, depth, false) === null).toBe(parseStrictJson(bytes, { maxDepth: depth }).ok);
      }),
      { seed: 20261130, numRuns: 2000 },
    );
    expect(nestingOver(new TextEncoder().encode('{"a":"[[[["}'), 2, false)).toBeNull();
    expect(nestingOver(new TextEncoder().encode('{"a":"\\"[[[["}'), 2, false)).toBeNull();
    expect(nestingOver(new TextEncoder().encode('[1]\n[[1]]'), 2, true)).toEqual({ depth: 3, line: 2 });
  });
});

describe('config', () => {
  const parse = (text: string) => parseConfig(new TextEncoder().encode(text), 'ledgerboard.config.json');

  it('absent: the defaults, and no limits member in the config (so existing report ids stay)', () => {
    expect(Config.parse({}).limits).toBeUndefined();
    expect(limitsOf(Config.parse({}))).toEqual(LIMIT_DEFAULTS);
  });

  it('present: given values, the rest defaulted', () => {
    expect(limitsOf(parse('{"limits":{"files":10}}'))).toEqual({ ...LIMIT_DEFAULTS, files: 10 });
    expect(parse('{"limits":{}}').limits).toEqual(LIMIT_DEFAULTS);
  });

  it.each([
    ['{"limits":{"depth":65}}', 'depth is at most 64'],
    ['{"limits":{"file":1}}', 'unknown member "file"'],
    ['{"limits":{"files":0}}', 'limits.files'],
    ['{"limits":{"files":1.5}}', 'limits.files'],
    ['{"limits":{"string_bytes":0}}', 'limits.string_bytes'],
  ])('%s is refused: %s', (text, message) => {
    expect(() => parse(text)).toThrow(ConfigError);
    expect(() => parse(text)).toThrow(message);
  });
});

describe('the CLI', () => {
  it('verify --config applies the config limits: exit 1, the finding printed', async () => {
    const site = await makeTempDir();
    await cp(await writeModel(validBundle()), join(site, 'b'), { recursive: true });
    await writeFile(join(site, 'lb.json'), JSON.stringify({ limits: { line_bytes: 64 } }));
    const limited = await runCli(['verify', '--config', join(site, 'lb.json'), join(site, 'b')]);
    expect(limited.code).toBe(1);
    expect(limited.stdout).toContain('LIMIT_EXCEEDED');
    expect(limited.stdout).toContain('limits.line_bytes is 64');
    expect((await runCli(['verify', join(site, 'b')])).code).toBe(0);
  });

  it('verify --config applies limits.string_bytes', async () => {
    const site = await makeTempDir();
    await cp(await writeModel(validBundle()), join(site, 'b'), { recursive: true });
    await writeFile(join(site, 'lb.json'), JSON.stringify({ limits: { string_bytes: 40 } }));
    const limited = await runCli(['verify', '--config', join(site, 'lb.json'), join(site, 'b')]);
    expect(limited.code).toBe(1);
    expect(limited.stdout).toContain('limits.string_bytes is 40');
  });
});
