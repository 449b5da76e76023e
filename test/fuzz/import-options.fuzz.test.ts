/**
 * Fuzzing the options file of `ledgerboard import auto --options FILE`
 * (src/import/options-file.ts): hostile JSON (duplicate members, deep
 * nesting, huge strings and numbers, wrong types, prototype keys
 * `__proto__` / `constructor` / `toString`, a byte-order mark, invalid UTF-8,
 * truncation, flipped bytes). For every case the parse either returns only
 * known formats with their declared flags, of the declared types, or throws
 * OptionsFileError: never another error, never a changed Object.prototype.
 * Where the one defect is planted at a known member, the message names that
 * member first. Through the CLI, a bad file is always a usage error (exit 2),
 * never an internal one.
 *
 * Fixed seed; `FUZZ_RUNS=n` runs more, `FUZZ_SEED=n` another sequence.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/import/registry.ts';
import { memberName, OPTIONS_MAX_BYTES, OptionsFileError, parseOptionsFile, type FormatOptions } from '../../src/import/options-file.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDirs } from '../import/helpers.ts';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const RUNS = envInt('FUZZ_RUNS', 400);
const SEED = envInt('FUZZ_SEED', 20_261_202);
const temp = tempDirs();

const FORMATS = IMPORTERS.map((i) => i.name);
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const FLAGS = [...new Set(IMPORTERS.flatMap((i) => Object.keys(i.flags)))];

/** A JSON text whose objects may repeat a member (JSON.stringify cannot write that). */
type Node = { obj: [string, Node][] } | { arr: Node[] } | { raw: string };
function text(node: Node): string {
  if ('raw' in node) return node.raw;
  if ('arr' in node) return `[${node.arr.map(text).join(',')}]`;
  return `{${node.obj.map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`).join(',')}}`;
}

const key = fc.oneof(
  fc.constantFrom(...FORMATS, ...FLAGS, ...PROTO_KEYS, '', 'auto', '--metric', 'HELM', 'a.b', 'é', '\u202e', '\n', 'x'.repeat(70)),
  fc.string({ maxLength: 8 }),
);
const scalar = fc.oneof(
  fc.constantFrom('"0.5"', '"1"', '"harm_bench_score"', '""', 'true', 'false', 'null', '0.5', '1e400', '-0', '1e-400', '"\\ud800"', '"\\uffff"', '"\\u0000"', '"\\x"'),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.integer({ min: 0, max: 6000 }).map((n) => JSON.stringify('v'.repeat(n))),
);
const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar.map((raw) => ({ raw })),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }).map((obj) => ({ obj })),
    fc.array(tie('node'), { maxLength: 3 }).map((arr) => ({ arr })),
  ),
})).node;
/** A top level that mostly looks like an options file: formats mapping to flags, with hostile members and values mixed in. */
const optionsLike: fc.Arbitrary<Node> = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...FORMATS), key), fc.oneof(fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FLAGS), key), fc.oneof(scalar.map((raw) => ({ raw })), node)), { maxLength: 4 }).map((obj) => ({ obj }) as Node), node)), {
    maxLength: 5,
  })
  .map((obj) => ({ obj }));

/** Bytes from a JSON text, then mangled: a BOM, invalid UTF-8, a cut, flipped bytes, deep nesting. */
const bytes = fc
  .tuple(
    fc.oneof(optionsLike, node).map(text),
    fc.constantFrom('none', 'bom', 'bad-utf8', 'cut', 'flip', 'deep-array', 'deep-object', 'huge'),
    fc.nat(),
    fc.integer({ min: 0, max: 255 }),
  )
  .map(([json, how, at, byte]) => {
    const b = Buffer.from(json, 'utf8');
    const i = b.length === 0 ? 0 : at % b.length;
    switch (how) {
      case 'bom':
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]);
      case 'bad-utf8':
        return Buffer.concat([b.subarray(0, i), Buffer.from([0xc0 | (byte & 0x3f), byte & 0x3f]), b.subarray(i)]);
      case 'cut':
        return b.subarray(0, i);
      case 'flip':
        return Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i + 1)]);
      case 'deep-array':
        return Buffer.from(`{"helm": {"metric": ${'['.repeat(10_000 + at % 20_000)}`);
      case 'deep-object':
        return Buffer.from(`${'{"a":'.repeat(5000 + (at % 5000))}1${'}'.repeat(5000 + (at % 5000))}`);
      case 'huge':
        return Buffer.concat([b, Buffer.alloc(OPTIONS_MAX_BYTES, 0x20)]);
      default:
        return b;
    }
  });

/** The outcome of one parse: the options, or the OptionsFileError's message; anything else fails the test. */
function outcome(input: Uint8Array): FormatOptions | string {
  try {
    return parseOptionsFile(input, IMPORTERS);
  } catch (error) {
    if (error instanceof OptionsFileError) return error.message;
    throw error;
  }
}

function checkOutcome(result: FormatOptions | string): void {
  if (typeof result === 'string') {
    // One line, bounded, and it says where: the file (size, UTF-8) or a member (the top level, a format, a flag).
    expect(result).not.toMatch(/[\n\r]/);
    expect(result.length).toBeLessThan(700);
    expect(result).toMatch(/^(the file is over \d+ bytes, the limit of an options file|not UTF-8 text: invalid UTF-8 at byte \d+ \(line \d+\), in .+|the top level\b.*|.+?: .+)$/);
    return;
  }
  for (const [format, flags] of result) {
    const importer = IMPORTERS.find((i) => i.name === format);
    expect(importer, format).toBeDefined();
    for (const [flag, value] of Object.entries(flags)) {
      expect(Object.hasOwn(importer!.flags, flag), `${format}.${flag}`).toBe(true);
      expect(typeof value).toBe(importer!.flags[flag]!.type);
    }
    expect(Object.getPrototypeOf(flags)).toBe(Object.prototype);
  }
}

const pristine = Object.getOwnPropertyNames(Object.prototype).sort();

describe('options files: hostile bytes', () => {
  it('parse to known formats and flags of the declared types, or an OptionsFileError saying where; nothing else, no prototype touched', () => {
    fc.assert(
      fc.property(bytes, (input) => {
        checkOutcome(outcome(input));
        expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(pristine);
        expect(({} as Record<string, unknown>).metric).toBeUndefined();
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

/** One planted defect, at a member the message must name first, with valid members of other formats around it. */
const planted = fc
  .tuple(
    fc.constantFrom(
      'unknown-format',
      'proto-format',
      'unknown-flag',
      'proto-flag',
      'wrong-type-number',
      'wrong-type-bool',
      'wrong-type-null',
      'format-not-object',
      'duplicate-format',
      'duplicate-flag',
      'deep',
      'huge-string',
      'huge-number',
      'bad-utf8',
      'lone-surrogate',
    ),
    fc.subarray(['inspect', 'eee', 'terminal-bench'] as const),
    fc.nat({ max: 3 }),
    fc.constantFrom(...PROTO_KEYS),
  )
  .map(([defect, others, position, proto]) => {
    const valid: [string, string][] = others.map((f) => [f, f === 'inspect' ? '{"scorer": "match"}' : '{"pass-threshold": "0.5"}']);
    let member: string;
    let entry: string;
    switch (defect) {
      case 'unknown-format':
        member = memberName(['helmm']);
        entry = '"helmm": {"metric": "m"}';
        break;
      case 'proto-format':
        member = memberName([proto]);
        entry = `${JSON.stringify(proto)}: {"metric": "m"}`;
        break;
      case 'unknown-flag':
        member = memberName(['helm', 'metrik']);
        entry = '"helm": {"metric": "m", "metrik": "m"}';
        break;
      case 'proto-flag':
        member = memberName(['helm', proto]);
        entry = `"helm": {${JSON.stringify(proto)}: "m"}`;
        break;
      case 'wrong-type-number':
        member = 'helm.pass-threshold';
        entry = '"helm": {"pass-threshold": 0.5}';
        break;
      case 'wrong-type-bool':
        member = 'helm.metric';
        entry = '"helm": {"metric": false}';
        break;
      case 'wrong-type-null':
        member = 'helm.split';
        entry = '"helm": {"split": null}';
        break;
      case 'format-not-object':
        member = 'helm';
        entry = '"helm": ["metric", "m"]';
        break;
      case 'duplicate-format':
        // The second "helm" is refused where it stands: at the top level.
        member = 'the top level';
        entry = '"helm": {}, "helm": {"metric": "m"}';
        break;
      case 'duplicate-flag':
        member = 'helm';
        entry = '"helm": {"metric": "a", "metric": "b"}';
        break;
      case 'deep':
        member = 'helm.metric[0]';
        entry = `"helm": {"metric": ${'['.repeat(50)}"m"${']'.repeat(50)}}`;
        break;
      case 'huge-string':
        member = 'helm.metric';
        entry = `"helm": {"metric": "${'m'.repeat(5000)}"}`;
        break;
      case 'huge-number':
        member = 'helm.pass-threshold';
        entry = '"helm": {"pass-threshold": 1e400}';
        break;
      case 'bad-utf8':
        member = 'not UTF-8 text';
        entry = '"helm": {"metric": "m\u0001BAD"}';
        break;
      default:
        member = 'helm.metric';
        entry = '"helm": {"metric": "\\udc00"}';
    }
    const members = [...valid.map(([f, v]) => `${JSON.stringify(f)}: ${v}`)];
    members.splice(Math.min(position, members.length), 0, entry);
    let body = Buffer.from(`{${members.join(', ')}}`, 'utf8');
    if (defect === 'bad-utf8') {
      const at = body.indexOf('\u0001BAD');
      body = Buffer.concat([body.subarray(0, at), Buffer.from([0xff]), body.subarray(at + 1)]);
    }
    return { defect, member, body };
  });

describe('options files: one planted defect', () => {
  it('is an OptionsFileError naming its member first', () => {
    fc.assert(
      fc.property(planted, ({ defect, member, body }) => {
        const result = outcome(body);
        expect(typeof result, defect).toBe('string');
        if (defect === 'bad-utf8') expect(result).toMatch(/^not UTF-8 text: invalid UTF-8 at byte \d+ \(line 1\), in helm\.metric$/);
        else expect((result as string).startsWith(`${member}: `) || (result as string).startsWith(`${member} `), `${defect}: ${result as string}`).toBe(true);
        checkOutcome(result);
      }),
      { numRuns: Math.min(RUNS, 200), seed: SEED },
    );
  });
});

describe('options files through the CLI', () => {
  it('a bad file is a usage error (exit 2) naming the file, never an internal error', async () => {
    const root = await temp();
    await mkdir(join(root, 'in'));
    const file = join(root, 'options.json');
    await fc.assert(
      fc.asyncProperty(fc.oneof(bytes, planted.map((p) => p.body)), async (input) => {
        await writeFile(file, input);
        const r = await runCli(['import', 'auto', join(root, 'in'), '-o', join(root, 'out'), '--options', file]);
        expect(r.stderr).not.toContain('unexpected error');
        if (typeof outcome(input) === 'string') {
          expect(r.code).toBe(2);
          expect(r.stderr.startsWith(`ledgerboard: --options ${file}: `)).toBe(true);
          // What reaches the terminal is terminal-safe: no control or bidi character but the newlines.
          // eslint-disable-next-line no-control-regex
          expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        } else expect([1, 2]).toContain(r.code); // valid: an empty input directory (1), or a value its importer refuses (2)
      }),
      { numRuns: Math.min(RUNS, 60), seed: SEED },
    );
  });
});
