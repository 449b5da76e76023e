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
});
