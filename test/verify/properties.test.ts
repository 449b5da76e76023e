/**
 * Laws of verification, checked with fast-check (fixed seed) on one valid
 * bundle built once in memory: a changed byte is always found, plan ids do not
 * depend on whitespace or member order, an unsorted manifest is a schema
 * violation, and no bytes ever make verifyBundle throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, selfId } from '../../src/json/canonical.ts';
import { parseStrictJsonl } from '../../src/json/jsonl.ts';
import { parseStrictJson, type JsonValue } from '../../src/json/strict-json.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { isStructuredPath } from '../../src/evidence/read-bundle.ts';
import { sealManifest } from '../../src/evidence/seal.ts';
import { FINDING_CODES, statusOf } from '../../src/verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import { sealBundle, snapshotOf, snapshotOfFiles, validBundle, withFileBytes } from '../helpers/bundle-builder.ts';

const SEED = 20261129;
fc.configureGlobal({ seed: SEED });

const encoder = new TextEncoder();
const model = validBundle();
const sealed = sealBundle(model);
/** Every regular file of the valid bundle, manifest.json included. */
const files: ReadonlyMap<string, Uint8Array> = sealed.disk;
const paths = [...files.keys()].sort(compareUtf8);
const base = snapshotOfFiles(files);
const manifestObject = JSON.parse(Buffer.from(sealed.manifest).toString('utf8')) as { files: { path: string }[] } & Record<string, unknown>;

function bytesAt(path: string): Uint8Array {
  const bytes = files.get(path);
  if (bytes === undefined) throw new Error(`no ${path}`);
  return bytes;
}

/** Invariants every verification result keeps, whatever the input. */
function expectWellFormed(result: BundleVerification): void {
  expect(result.status).toBe(statusOf(result.findings));
  for (const f of result.findings) {
    expect(FINDING_CODES[f.code]?.severity).toBe(f.severity);
    expect(typeof f.file).toBe('string');
    expect(typeof f.message).toBe('string');
    if (f.line !== undefined) expect(Number.isInteger(f.line) && f.line >= 1).toBe(true);
  }
}

it('the base bundle verifies with no finding', () => {
  const result = verifyBundle(base);
  expect(result.findings).toEqual([]);
  expect(result.status).toBe('verified');
  expect(paths.length).toBeGreaterThan(10);
});

describe('(a) any single changed byte is found [properties: single byte]', () => {
  function flipped(path: string, offset: number, delta: number): BundleVerification {
    const copy = Uint8Array.from(bytesAt(path));
    copy[offset] = (copy[offset]! + delta) & 0xff;
    return verifyBundle(withFileBytes(base, path, copy));
  }

  it('in any file, at any offset, to any other value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.nat(), fc.integer({ min: 1, max: 255 }), (path, at, delta) => {
        const offset = at % bytesAt(path).length;
        const copy = Uint8Array.from(bytesAt(path));
        copy[offset] = (copy[offset]! + delta) & 0xff;
        const result = flipped(path, offset, delta);
        expectWellFormed(result);
        return result.status !== 'verified';
      }),
      { numRuns: 1500 },
    );
  });

  it('at every offset of the canonical manifest.json', () => {
    const manifest = bytesAt('manifest.json');
    const deltas = fc.sample(fc.integer({ min: 1, max: 255 }), { numRuns: manifest.length, seed: SEED });
    const survivors: number[] = [];
    for (let offset = 0; offset < manifest.length; offset++) {
      if (flipped('manifest.json', offset, deltas[offset]!).status === 'verified') survivors.push(offset);
    }
    expect(survivors).toEqual([]);
  });

  it('at every offset of plan.json, with the manifest resealed over the new bytes (the plan itself must catch it)', () => {
    // Only bytes that do not change the parsed plan (whitespace between tokens) may survive.
    const plan = bytesAt('plan.json');
    const deltas = fc.sample(fc.integer({ min: 1, max: 255 }), { numRuns: plan.length, seed: SEED + 1 });
    const unexplained: number[] = [];
    const original = parseStrictJson(plan);
    for (let offset = 0; offset < plan.length; offset++) {
      const copy = Uint8Array.from(plan);
      copy[offset] = (copy[offset]! + deltas[offset]!) & 0xff;
      const result = verifyBundle(snapshotOf(validBundle(), { raw: { 'plan.json': copy } }));
      expectWellFormed(result);
      if (result.status !== 'verified') continue;
      const reparsed = parseStrictJson(copy);
      const same = original.ok && reparsed.ok && canonicalJson(original.value) === canonicalJson(reparsed.value);
      if (!same) unexplained.push(offset);
    }
    expect(unexplained).toEqual([]);
  });
});

/** Serializes a JSON value with random whitespace, member order and string escapes. */
function reserialize(value: JsonValue, g: fc.GeneratorValue): string {
  const ws = (): string => g(fc.constantFrom, '', '', ' ', '\n', '\t', '\r\n', '\n    ');
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') {
    const mode = g(fc.constantFrom, 'plain', 'escape-all', 'escape-slash');
    if (mode === 'escape-all') {
      let out = '"';
      for (let i = 0; i < value.length; i++) out += `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`;
      return `${out}"`;
    }
    const plain = JSON.stringify(value);
    return mode === 'escape-slash' ? plain.replaceAll('/', '\\/') : plain;
  }
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => `${reserialize(v, g)}${ws()}`).join(`,${ws()}`)}]`;
  const keys = Object.keys(value);
  const order = g(fc.shuffledSubarray, keys, { minLength: keys.length, maxLength: keys.length });
  return `{${ws()}${order.map((k) => `${reserialize(k, g)}${ws()}:${ws()}${reserialize(value[k]!, g)}${ws()}`).join(`,${ws()}`)}}`;
}

describe('(b) plan_id does not depend on whitespace or member order', () => {
  const parsed = parseStrictJson(bytesAt('plan.json'));
  if (!parsed.ok) throw new Error('the sealed plan does not parse');
  const plan = parsed.value as Record<string, JsonValue>;
  const planId = plan.plan_id;

  it('re-serialized plan.json keeps its plan_id, and the resealed bundle still verifies with it', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const text = `${g(fc.constantFrom, '', ' ', '\n')}${reserialize(plan, g)}${g(fc.constantFrom, '', '\n', ' \n')}`;
        const reparsed = parseStrictJson(encoder.encode(text));
        expect(reparsed.ok).toBe(true);
        if (!reparsed.ok) return;
        expect(reparsed.nonIntegerTokens).toEqual([]);
        expect(selfId(reparsed.value as Record<string, unknown>, 'plan_id')).toBe(planId);
        const result = verifyBundle(snapshotOf(validBundle(), { raw: { 'plan.json': text } }));
        expect(result.findings).toEqual([]);
        expect(result.plan_id).toBe(planId);
      }),
      { numRuns: 150 },
    );
  });
});

describe('(c) a shuffled manifest file list is SCHEMA_VIOLATION', () => {
  const entries = manifestObject.files;
  const n = entries.length;
  const unsorted = fc
    .shuffledSubarray(entries, { minLength: n, maxLength: n })
    .filter((list) => list.some((e, i) => i > 0 && compareUtf8(list[i - 1]!.path, e.path) > 0));

  it('with bundle_id resealed: SCHEMA_VIOLATION on manifest.json only, invalid, no throw', () => {
    fc.assert(
      fc.property(unsorted, (list) => {
        const edited: Record<string, unknown> = { ...manifestObject, files: list };
        edited.bundle_id = selfId(edited, 'bundle_id');
        const result = verifyBundle(withFileBytes(base, 'manifest.json', encoder.encode(canonicalJson(edited))));
        expectWellFormed(result);
        expect(result.findings.length).toBeGreaterThan(0);
        for (const f of result.findings) expect([f.code, f.file]).toEqual(['SCHEMA_VIOLATION', 'manifest.json']);
        expect(result.status).toBe('invalid');
      }),
      { numRuns: 200 },
    );
  });

  it('without resealing: SCHEMA_VIOLATION besides BUNDLE_ID_MISMATCH', () => {
    fc.assert(
      fc.property(unsorted, (list) => {
        const edited = { ...manifestObject, files: list };
        const result = verifyBundle(withFileBytes(base, 'manifest.json', encoder.encode(canonicalJson(edited))));
        expectWellFormed(result);
        expect(new Set(result.findings.map((f) => f.code))).toEqual(new Set(['SCHEMA_VIOLATION', 'BUNDLE_ID_MISMATCH']));
        expect(result.status).toBe('invalid');
      }),
      { numRuns: 100 },
    );
  });
});

describe('(d) arbitrary bytes as a structured file never make verifyBundle throw', () => {
  const structured = paths.filter(isStructuredPath);

  function bytesFor(path: string): fc.Arbitrary<Uint8Array> {
    const original = bytesAt(path);
    return fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.jsonValue({ maxDepth: 70 }).map((v) => encoder.encode(JSON.stringify(v) ?? 'null')),
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => encoder.encode(s)),
      fc.constantFrom('', '\n', '{}', '[]', 'null', '{}\n{}\n', '\ufeff{}', '{"a":1,"a":1}', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]').map((s) =>
        encoder.encode(s),
      ),
      // The original with a random splice: near-valid documents reach the schema and semantic checks.
      fc
        .tuple(fc.nat({ max: original.length }), fc.nat({ max: 40 }), fc.uint8Array({ maxLength: 12 }))
        .map(([at, cut, insert]) => Buffer.concat([original.subarray(0, at), insert, original.subarray(Math.min(original.length, at + cut))])),
    );
  }

  const cases = fc.constantFrom(...structured).chain((path) => fc.tuple(fc.constant(path), bytesFor(path), fc.boolean()));

  it('and a changed structured file is always found', () => {
    fc.assert(
      fc.property(cases, ([path, bytes, reseal]) => {
        const same = Buffer.from(bytes).equals(Buffer.from(bytesAt(path)));
        let snapshot = withFileBytes(base, path, bytes);
        if (reseal && path !== 'manifest.json') {
          const listed = new Map(files);
          listed.delete('manifest.json');
          listed.set(path, bytes);
          snapshot = withFileBytes(snapshot, 'manifest.json', sealManifest(listed, sealed.planId));
        }
        let result: BundleVerification | undefined;
        expect(() => {
          result = verifyBundle(snapshot);
        }).not.toThrow();
        if (result === undefined) return;
        expectWellFormed(result);
        if (same) {
          expect(result.status).toBe('verified');
          return;
        }
        if (!reseal || path === 'manifest.json') {
          // The manifest covers every byte: never verified, never without a finding.
          expect(result.findings.length).toBeGreaterThan(0);
          expect(result.status).not.toBe('verified');
          return;
        }
        // Resealed over the new bytes: the file's own checks must catch what does not parse.
        if (path.endsWith('.json')) {
          if (!parseStrictJson(bytes).ok) expect(result.findings.some((f) => f.code === 'BAD_JSON' && f.file === path)).toBe(true);
        } else if (path.endsWith('.jsonl')) {
          if (parseStrictJsonl(bytes).some((l) => !l.ok)) expect(result.findings.some((f) => f.code === 'BAD_JSON' && f.file === path)).toBe(true);
        } else {
          // NOTES.md is untrusted Markdown: never parsed, carried as bytes.
          expect(Buffer.from(result.evidence.notes ?? []).equals(Buffer.from(bytes))).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
