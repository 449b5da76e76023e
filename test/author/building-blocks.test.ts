/** The authoring tools' building blocks: the strict YAML reader, did-you-mean, create-only writes. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCreateOnly } from '../../src/author/create-only.ts';
import { AlreadyExistsError, AuthorInputError } from '../../src/author/problems.ts';
import { MAX_YAML_BYTES, parseStrictYaml } from '../../src/author/strict-yaml.ts';
import { didYouMean, editDistance } from '../../src/author/suggest.ts';
import { Scratch } from './helpers.ts';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const yaml = (text: string) => parseStrictYaml(Buffer.from(text), 't.yaml');

describe('strict YAML', () => {
  it('reads YAML 1.2 core: yes/no/on and dates stay text, integers are numbers', () => {
    expect(yaml('a: yes\nb: no\nc: on\nd: 2026-09-14\ne: 2026-09-14T12:00:00Z\nf: 42\ng: -7\nh: null\ni: ~\nj: true\nk: "3"\n').value).toEqual({
      a: 'yes',
      b: 'no',
      c: 'on',
      d: '2026-09-14',
      e: '2026-09-14T12:00:00Z',
      f: 42,
      g: -7,
      h: null,
      i: null,
      j: true,
      k: '3',
    });
  });

  it('keeps __proto__ as a data key, never the prototype', () => {
    const value = yaml('__proto__: { polluted: 1 }\n').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('knows where every value and key was written', () => {
    const parsed = yaml('# comment\nouter:\n  list:\n    - first\n    - { key: value }\n');
    expect(parsed.positionOf(['outer', 'list', 1, 'key'])).toEqual({ line: 5, column: 14 });
    expect(parsed.keyPositionOf(['outer', 'list', 1, 'key'])).toEqual({ line: 5, column: 9 });
    expect(parsed.positionOf(['outer', 'list', 0])).toEqual({ line: 4, column: 7 });
    // A path that is not there falls back to its nearest written ancestor.
    expect(parsed.positionOf(['outer', 'missing', 'deeper'])).toEqual({ line: 3, column: 3 });
  });

  it('refuses every problem in one go, each with line and column', () => {
    let error: unknown;
    try {
      yaml('a: 1.5\nb: &x 1\nc: *x\nd: 1\nd: 2\n');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AuthorInputError);
    expect((error as AuthorInputError).problems.map((p) => `${p.line}:${p.column}`)).toEqual(['1:4', '2:7', '3:4', '5:1']) // An anchor is placed at the value it names.;
  });

  it('refuses a file over 1 MiB without parsing it', () => {
    expect(() => parseStrictYaml(Buffer.alloc(MAX_YAML_BYTES + 1, 0x20), 'big.yaml')).toThrow(/at most 1048576 are accepted/);
  });
});

describe('did you mean', () => {
  it('measures edits, transpositions included', () => {
    expect(editDistance('attempts', 'attempts')).toBe(0);
    expect(editDistance('atempts', 'attempts')).toBe(1);
    expect(editDistance('attmepts', 'attempts')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests only plausible typos', () => {
    const keys = ['title', 'created_at', 'attempts', 'budget', 'seed', 'subjects'];
    expect(didYouMean('atempts', keys)).toBe('attempts');
    expect(didYouMean('Title', keys)).toBe('title');
    expect(didYouMean('subject', keys)).toBe('subjects');
    expect(didYouMean('created', keys)).toBe('created_at');
    expect(didYouMean('replicas', keys)).toBeNull();
    expect(didYouMean('x', keys)).toBeNull();
  });
});

describe('create-only writes', () => {
  it('writes a new file and leaves no temporary file', async () => {
    const dir = await scratch.dir();
    await writeCreateOnly(join(dir, 'f.json'), Buffer.from('new\n'));
    expect(await readFile(join(dir, 'f.json'), 'utf8')).toBe('new\n');
    expect(await readdir(dir)).toEqual(['f.json']);
  });

  it('never overwrites, and of two concurrent writers exactly one wins', async () => {
    const dir = await scratch.dir();
    await writeFile(join(dir, 'taken'), 'first\n');
    await expect(writeCreateOnly(join(dir, 'taken'), Buffer.from('second\n'))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(await readFile(join(dir, 'taken'), 'utf8')).toBe('first\n');

    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => writeCreateOnly(join(dir, 'race'), Buffer.from(`writer ${i}\n`))));
    const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(AlreadyExistsError);
    expect(await readFile(join(dir, 'race'), 'utf8')).toBe(`writer ${winners[0]}\n`);
    expect((await readdir(dir)).sort()).toEqual(['race', 'taken']);
  });
});
