/**
 * Fuzzing the verifier (issue "Trust under attack", point 5): arbitrary bytes
 * and mutated valid files, for every file type of a bundle, with the manifest
 * resealed over the mutation (so the deep checks run) or not (so the digest
 * checks must catch it). For every case:
 *
 * - verifyBundle returns, never throws;
 * - the result is well formed: every finding is in the catalog with its
 *   severity, the status follows from the findings;
 * - an unsealed change to any file but manifest.json is never `verified`;
 * - a bundle that still verifies goes through the analysis (buildReport)
 *   without throwing, and its report validates against the report schema.
 *
 * 10,000 cases per run with a fixed seed (CI). `FUZZ_RUNS=100000` runs more,
 * `FUZZ_SEED=n` another sequence; a failure prints the seed and path to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, selfId } from '../../src/json/canonical.ts';
import { compareUtf8 } from '../../src/evidence/paths.ts';
import { sealManifest } from '../../src/evidence/seal.ts';
import { contentDigest } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import { FINDING_CODES, statusOf } from '../../src/verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import { addArtifact, sealBundle, snapshotOfFiles, validBundle } from '../helpers/bundle-builder.ts';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Cases per run: 10,000 in CI; FUZZ_RUNS overrides. */
const RUNS = envInt('FUZZ_RUNS', 10_000);
const SEED = envInt('FUZZ_SEED', 20261130);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The valid bundle, with a grant, notes, a second grading generation and an artifact, so every file type is present.
const model = validBundle();
addArtifact(model, 'artifacts/extra.txt', 'an artifact nobody references\n');
const sealed = sealBundle(model);
const original = new Map([...sealed.disk].filter(([path]) => path !== 'manifest.json'));
const planId = (JSON.parse(decoder.decode(original.get('plan.json'))) as { plan_id: string }).plan_id;
const PATHS = [...sealed.disk.keys()].sort(compareUtf8);

/** The same files with one replaced; the manifest resealed over them, or left as it was. */
function bundleWith(path: string, bytes: Uint8Array, reseal: boolean): Map<string, Uint8Array> {
  const files = new Map(original);
  if (path !== 'manifest.json') files.set(path, bytes);
  const manifest = path === 'manifest.json' ? bytes : reseal ? sealManifest(files, planId) : sealed.disk.get('manifest.json')!;
  files.set('manifest.json', manifest);
  return files;
}

const JSON_FILES = PATHS.filter((p) => p.endsWith('.json'));
const JSONL_FILES = PATHS.filter((p) => p.endsWith('.jsonl'));

/** A value to put somewhere in a JSON document: anything JSON can hold, and the edge cases the schemas meet. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(0, -1, 1, 2 ** 53, 2 ** 53 + 2, -0, 1e308, 0.5, '', 'sha256:', `sha256:${'0'.repeat(64)}`, '2026-09-14T12:00:00Z', '2026-02-30T00:00:00Z', null, true, [], {}),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

type Path = (string | number)[];

/** Every path to a value inside a JSON document (the root included). */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

/** A structural edit of a parsed document: replace a value, delete a member or element, or add an unknown member. */
function editDocument(doc: unknown, g: fc.GeneratorValue): unknown {
  const copy = structuredClone(doc);
  const paths = pathsOf(copy);
  const path = g(fc.constantFrom, ...paths);
  const kind = g(fc.constantFrom, 'replace', 'delete', 'add-member', 'duplicate-element');
  if (path.length === 0) return kind === 'replace' ? g(() => jsonValue) : copy;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (kind === 'replace') parent[last] = g(() => jsonValue);
  else if (kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (kind === 'add-member') {
    const target = parent[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, unknown>)[g(fc.string, { maxLength: 12 })] = g(() => jsonValue);
    else parent[last] = { [g(fc.string, { maxLength: 12 })]: target };
  } else if (Array.isArray(parent)) parent.splice(last as number, 0, structuredClone(parent[last]));
  else parent[last] = [parent[last], parent[last]];
  return copy;
}

/** Text-level attacks the strict parser must catch: each a small edit of valid JSON text. */
function textAttack(text: string, g: fc.GeneratorValue): string {
  const at = g(fc.nat, { max: text.length });
  const firstMember = text.indexOf('"');
  const attacks: (() => string)[] = [
    () => `\uFEFF${text}`,
    () => text.replace(/\n/g, '\r\n'),
    () => `${text.slice(0, at)}\n\n${text.slice(at)}`,
    () => `${text.slice(0, at)}${text.slice(at + 1)}`,
    () => text.slice(0, at),
    () => `${text}${g(fc.constantFrom, ' x', '{}', '\n{}', '\u0000', ',')}`,
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"schema":1,${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"sch\\u0065ma":"x",${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"x":"\\ud800",${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"x":"\uFFFE",${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"x":NaN,${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"x":${'['.repeat(70)}${']'.repeat(70)},${text.slice(firstMember)}`),
    () => (firstMember < 0 ? text : `${text.slice(0, firstMember)}"x":1e400,${text.slice(firstMember)}`),
  ];
  return attacks[g(fc.nat, { max: attacks.length - 1 })]!();
}

/** Bytes that are not UTF-8 at a random place. */
function badUtf8(bytes: Uint8Array, g: fc.GeneratorValue): Uint8Array {
  const at = g(fc.nat, { max: bytes.length });
  const bad = g(fc.constantFrom, [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]);
  return Uint8Array.from([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at)]);
}

/** One mutation of one file's bytes. */
function mutate(path: string, g: fc.GeneratorValue): Uint8Array {
  const bytes = path === 'manifest.json' ? sealed.disk.get('manifest.json')! : original.get(path)!;
  const text = decoder.decode(bytes);
  const kinds = ['arbitrary-bytes', 'byte-edits', 'bad-utf8', 'text-attack'];
  if (JSON_FILES.includes(path)) kinds.push('json-edit', 'json-edit', 'json-edit-resigned');
  if (JSONL_FILES.includes(path)) kinds.push('jsonl-line-edit', 'jsonl-line-edit', 'jsonl-lines');
  switch (g(fc.constantFrom, ...kinds)) {
    case 'arbitrary-bytes':
      return g(fc.uint8Array, { maxLength: 600 });
    case 'byte-edits': {
      const copy = Array.from(bytes);
      const edits = g(fc.integer, { min: 1, max: 4 });
      for (let i = 0; i < edits; i++) {
        const at = g(fc.nat, { max: Math.max(copy.length - 1, 0) });
        const op = g(fc.constantFrom, 'set', 'insert', 'delete');
        if (op === 'set' && copy.length > 0) copy[at] = g(fc.nat, { max: 255 });
        else if (op === 'insert') copy.splice(at, 0, g(fc.nat, { max: 255 }));
        else copy.splice(at, g(fc.integer, { min: 1, max: 16 }));
      }
      return Uint8Array.from(copy);
    }
    case 'bad-utf8':
      return badUtf8(bytes, g);
    case 'text-attack':
      return encoder.encode(textAttack(text, g));
    case 'json-edit':
    case 'json-edit-resigned': {
      const edited = editDocument(JSON.parse(text), g) as Record<string, unknown>;
      // Re-derive the document's own id when it has one, so the edit reaches the checks behind the id check.
      if (edited !== null && typeof edited === 'object' && !Array.isArray(edited)) {
        for (const id of ['plan_id', 'bundle_id'] as const) if (typeof edited[id] === 'string') edited[id] = selfId(edited, id);
      }
      return encoder.encode(canonicalJson(edited));
    }
    case 'jsonl-line-edit': {
      const lines = text.split('\n').filter((l) => l !== '');
      const i = g(fc.nat, { max: lines.length - 1 });
      lines[i] = JSON.stringify(editDocument(JSON.parse(lines[i]!), g));
      return encoder.encode(`${lines.join('\n')}\n`);
    }
    default: {
      const lines = text.split('\n').filter((l) => l !== '');
      const i = g(fc.nat, { max: lines.length - 1 });
      const j = g(fc.nat, { max: lines.length - 1 });
      const op = g(fc.constantFrom, 'duplicate', 'drop', 'swap', 'empty');
      if (op === 'duplicate') lines.splice(i, 0, lines[i]!);
      else if (op === 'drop') lines.splice(i, 1);
      else if (op === 'swap') [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      else lines.length = 0;
      return encoder.encode(lines.length ? `${lines.join('\n')}\n` : '');
    }
  }
}

const config = Config.parse({});

function check(path: string, bytes: Uint8Array, reseal: boolean): BundleVerification['status'] {
  const files = bundleWith(path, bytes, reseal);
  const snapshot = snapshotOfFiles(files);
  let result: BundleVerification;
  try {
    result = verifyBundle(snapshot);
  } catch (error) {
    throw new Error(`verifyBundle threw on a mutated ${path} (resealed: ${reseal}): ${(error as Error).stack ?? String(error)}`, { cause: error });
  }
  expect(result.status).toBe(statusOf(result.findings));
  for (const f of result.findings) {
    expect(FINDING_CODES[f.code]?.severity, f.code).toBe(f.severity);
    expect(typeof f.message).toBe('string');
  }
  const changed = Buffer.compare(Buffer.from(bytes), Buffer.from(path === 'manifest.json' ? sealed.disk.get(path)! : original.get(path)!)) !== 0;
  if (changed && !reseal && path !== 'manifest.json') expect(result.status, `an unsealed change to ${path} verified`).not.toBe('verified');
  if (result.status === 'verified') {
    const report = buildReport([{ verification: result, content_digest: contentDigest(snapshot) }], config);
    expect(Report.safeParse(report).success).toBe(true);
  }
  return result.status;
}

describe(`fuzzing verifyBundle (${RUNS} cases, seed ${SEED})`, () => {
  it('arbitrary and mutated bytes in every file type: never throws, always a well-formed result, never a silent pass', { timeout: 600_000 }, () => {
    const seen = new Map<string, number>();
    const statuses = { verified: 0, invalid: 0, no_verdict: 0 };
    fc.assert(
      fc.property(fc.constantFrom(...PATHS), fc.boolean(), fc.gen(), (path, reseal, g) => {
        const bytes = mutate(path, g);
        seen.set(path, (seen.get(path) ?? 0) + 1);
        statuses[check(path, bytes, reseal)]++;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // Every file type was fuzzed, and the mutations reached every status (so the deep checks ran too).
    for (const path of PATHS) expect(seen.get(path) ?? 0, path).toBeGreaterThan(0);
    if (RUNS >= 1000) for (const status of ['verified', 'invalid', 'no_verdict'] as const) expect(statuses[status], status).toBeGreaterThan(0);
  });
});
