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
 * Hostile strings and numbers (issue 10): strings past limits.string_bytes
 * (in code units or only in UTF-8 bytes), Unicode edge cases and invisible
 * characters, in values and member names; `-0` and numbers whose sums
 * overflow, on one line or on every line of attempts.jsonl. For these:
 *
 * - no string of the evidence handed on (plan, ledger, attempts, grades,
 *   grant) is longer than limits.string_bytes, and no finding message is far
 *   longer (the site shows both);
 * - a verified plan.json or manifest.json writes every number as RFC 8785
 *   does (so the published jq recipe re-derives its id: no `-0`);
 * - a verified bundle's report serializes (RFC 8785) and validates.
 *
 * Hostile path names (a second property): names equal after normalisation
 * or case folding, long names, dot names, control and invisible characters,
 * listed or not. Names an oracle folds together get PATH_COLLISION; names a
 * coarser oracle keeps apart never do; an unlisted or unsafe name never
 * verifies.
 *
 * 10,000 + 600 cases per run with a fixed seed (CI). `FUZZ_RUNS=100000` runs more,
 * `FUZZ_SEED=n` another sequence; a failure prints the seed and path to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, digestBytes, selfId } from '../../src/json/canonical.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { unsafePathReason } from '../../src/evidence/paths.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { sealManifest } from '../../src/evidence/seal.ts';
import { contentDigest } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import { FINDING_CODES, statusOf } from '../../src/verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import { addArtifact, CANDIDATE, sealBundle, snapshotOfFiles, validBundle } from '../helpers/bundle-builder.ts';

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

// The valid bundle, with a grant, notes, a second grading generation, an artifact and assessments.json (with its basis), so every file type is present.
const model = validBundle();
addArtifact(model, 'artifacts/extra.txt', 'an artifact nobody references\n');
addArtifact(model, 'artifacts/assessments/basis.md', 'the red team report\n');
model.extra.set(
  'assessments.json',
  encoder.encode(
    `${JSON.stringify({ schema: 'ledgerboard.assessments.v1', assessments: [{ indicator: 'no_weight_tampering', subject: { model: CANDIDATE.model, agent: CANDIDATE.agent }, level: 'supported', by: 'red team', basis: 'artifacts/assessments/basis.md' }] }, null, 2)}\n`,
  ),
);
const sealed = sealBundle(model);
const original = new Map([...sealed.disk].filter(([path]) => path !== 'manifest.json'));
const planId = (JSON.parse(decoder.decode(original.get('plan.json'))) as { plan_id: string }).plan_id;
const PATHS = [...sealed.disk.keys()].sort(compareUtf8);

/** The plan_id a mutated plan.json claims (so a resealed manifest names it and the checks behind it run), else the original's. */
function planIdOf(bytes: Uint8Array): string {
  try {
    const id = (JSON.parse(decoder.decode(bytes)) as { plan_id?: unknown } | null)?.plan_id;
    return typeof id === 'string' && /^sha256:[0-9a-f]{64}$/.test(id) ? id : planId;
  } catch {
    return planId;
  }
}

/** The same files with one replaced; the manifest resealed over them (naming the plan's id), or left as it was. */
function bundleWith(path: string, bytes: Uint8Array, reseal: boolean): Map<string, Uint8Array> {
  const files = new Map(original);
  if (path !== 'manifest.json') files.set(path, bytes);
  const id = path === 'plan.json' && reseal ? planIdOf(bytes) : planId;
  // Resealed over a changed plan: the grant echoes the new plan id too, as a harness re-issuing it would.
  if (id !== planId) files.set('grant.json', encoder.encode(decoder.decode(original.get('grant.json')).replaceAll(planId, id)));
  const manifest = path === 'manifest.json' ? bytes : reseal ? sealManifest(files, id) : sealed.disk.get('manifest.json')!;
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

const STRING_LIMIT = LIMIT_DEFAULTS.string_bytes;

/** Strings an attacker would try: past the string limit (in code units, or only in UTF-8 bytes), at it, Unicode edge cases, invisible characters, markup. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'x'.repeat(STRING_LIMIT + 1),
    'x'.repeat(STRING_LIMIT),
    '\u00e9'.repeat(STRING_LIMIT / 2 + 1),
    '\u{1F600}'.repeat(STRING_LIMIT / 4 + 1),
    '\u4e2d'.repeat(Math.ceil(STRING_LIMIT / 3) + 1),
    'acme/base\u200b',
    '\u202eevil.exe',
    'e\u0301',
    '\u00e9',
    'mid\ufeffbom',
    'line\u2028sep',
    '\u0000\u0001\u001b[31m\u007f',
    '<script>alert(1)</script>',
    '@misc{x, author={evil}}',
    '\\"',
    '\u00a0\u180e\u2060',
    '\u{E0041}\u{E007F}',
    '\u0130\u00df\u212a',
    '',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom('\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u202e', '\u0301', 'a', 'A'), maxLength: 12 }),
);

/** Numbers an attacker would try in numeric members: -0, the edges of 2^53, ones whose sums overflow, subnormals. */
const hostileNumber = fc.constantFrom(-0, 0, -1, 2 ** 53 - 1, 2 ** 53, 2 ** 52 + 1, 1.7e308, Number.MAX_VALUE, 1e308, 5e-324, 0.5);

/** The numeric members of an attempt. */
const ATTEMPT_NUMBERS: Path[] = [['wall_seconds'], ['tokens', 'input'], ['tokens', 'output'], ['retries'], ['cost', 'micros'], ['index']];

/** JSON text in which -0 stays `-0` (JSON.stringify and RFC 8785 both write 0). */
function withNegativeZero(value: unknown, serialize: (v: unknown) => string): string {
  const marked = JSON.parse(JSON.stringify(value, (_k, v: unknown) => (Object.is(v, -0) ? NEG_ZERO : v)));
  return serialize(marked).replaceAll(`"${NEG_ZERO}"`, '-0');
}
const NEG_ZERO = 'negative-zero-sentinel-7f3a';

/** Sets the value at a path (creating objects on the way), when its parent is an object or array. */
function setAt(doc: unknown, path: Path, value: unknown): void {
  let parent = doc as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = parent[key];
    if (next === null || typeof next !== 'object') return;
    parent = next as Record<string | number, unknown>;
  }
  parent[path.at(-1)!] = value;
}

type Path = (string | number)[];

/** The value at a path, or undefined. */
function getAt(doc: unknown, path: Path): unknown {
  let value = doc;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

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
  if (JSON_FILES.includes(path)) kinds.push('json-edit', 'json-edit', 'json-edit-resigned', 'hostile-string');
  if (JSONL_FILES.includes(path)) kinds.push('jsonl-line-edit', 'jsonl-line-edit', 'jsonl-lines', 'hostile-string');
  if (path === 'attempts.jsonl') kinds.push('hostile-numbers', 'hostile-numbers');
  if (path === 'plan.json' || path === 'manifest.json') kinds.push('negative-zero');
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
      return encoder.encode(withNegativeZero(edited, canonicalJson));
    }
    case 'hostile-string': {
      // A hostile string as a value somewhere, or as a member name, in the document or in one JSONL line (ids re-derived).
      const hostile = (doc: unknown): unknown => {
        const copy = structuredClone(doc);
        const paths = pathsOf(copy).filter((p) => p.length > 0);
        const path = g(fc.constantFrom, ...paths);
        const value = g(() => hostileString);
        if (g(fc.boolean)) setAt(copy, path, value);
        else {
          const parent = getAt(copy, path.slice(0, -1));
          if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) (parent as Record<string, unknown>)[value] = 1;
        }
        return copy;
      };
      if (JSONL_FILES.includes(path)) {
        const lines = text.split('\n').filter((l) => l !== '');
        const i = g(fc.nat, { max: lines.length - 1 });
        lines[i] = JSON.stringify(hostile(JSON.parse(lines[i]!)));
        return encoder.encode(`${lines.join('\n')}\n`);
      }
      const edited = hostile(JSON.parse(text)) as Record<string, unknown>;
      for (const id of ['plan_id', 'bundle_id'] as const) if (typeof edited[id] === 'string') edited[id] = selfId(edited, id);
      return encoder.encode(canonicalJson(edited));
    }
    case 'hostile-numbers': {
      // One numeric member of every attempt (or of some) set to a hostile number: sums that overflow, -0 as written.
      const member = g(fc.constantFrom, ...ATTEMPT_NUMBERS);
      const value = g(() => hostileNumber);
      const all = g(fc.boolean);
      const lines = text.split('\n').filter((l) => l !== '');
      const edited = lines.map((line) => {
        const attempt = JSON.parse(line) as unknown;
        if (all || g(fc.boolean)) setAt(attempt, member, value);
        return withNegativeZero(attempt, JSON.stringify);
      });
      return encoder.encode(`${edited.join('\n')}\n`);
    }
    case 'negative-zero': {
      // -0 written for a number of a plan or manifest, the id re-derived over the value (as jq would not).
      const doc = JSON.parse(text) as Record<string, unknown>;
      const numbers = pathsOf(doc).filter((p) => typeof getAt(doc, p) === 'number');
      if (numbers.length === 0) return bytes;
      setAt(doc, g(fc.constantFrom, ...numbers), -0);
      for (const id of ['plan_id', 'bundle_id'] as const) if (typeof doc[id] === 'string') doc[id] = selfId(doc, id);
      return encoder.encode(withNegativeZero(doc, canonicalJson));
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
    expect(() => canonicalJson(report)).not.toThrow();
    expect(Report.safeParse(report).success).toBe(true);
  }
  // After the report: reading the attempts as objects here would hand the analysis objects instead of tables.
  checkHostile(result, path, bytes, files);
  return result.status;
}

/** Every string inside a value. */
function* stringsOf(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* stringsOf(v);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield k;
      yield* stringsOf(v);
    }
  }
}

/** A finding message may quote a few strings of the evidence, each within the limit. */
const MESSAGE_MAX = 4 * STRING_LIMIT + 4096;

/** The number tokens of JSON text (outside strings). */
function numberTokens(text: string): string[] {
  return [...text.matchAll(/"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

/** The properties of hostile strings and numbers (see the module comment). */
function checkHostile(result: BundleVerification, path: string, bytes: Uint8Array, files: ReadonlyMap<string, Uint8Array>): void {
  for (const f of result.findings) expect(f.message.length, `${f.code} message length`).toBeLessThanOrEqual(MESSAGE_MAX);
  // A string is never longer in UTF-8 than the file it was read from: only a mutated file past the limit can hold one.
  if (bytes.length > STRING_LIMIT) {
    const { evidence } = result;
    for (const part of [evidence.plan, evidence.ledger, evidence.attempts, evidence.grades, evidence.grant, evidence.assessments, evidence.manifest]) {
      for (const text of stringsOf(part)) {
        if (text.length * 3 > STRING_LIMIT) expect(Buffer.byteLength(text), 'a string past limits.string_bytes was handed on').toBeLessThanOrEqual(STRING_LIMIT);
      }
    }
  }
  // FORMAT.md 1: in a verified plan.json or manifest.json, what jq prints is what RFC 8785 writes, number by number
  // (the files not mutated are the sealed originals, RFC 8785 or pretty JSON of safe integers).
  if (result.status !== 'verified' || (path !== 'plan.json' && path !== 'manifest.json')) return;
  for (const token of numberTokens(decoder.decode(files.get(path)!))) expect(canonicalJson(Number(token)), `${path} number ${token}`).toBe(token);
}

/** Pieces of hostile names: case and normalisation twins of each other and of the bundle's own names, long, dots, control and invisible characters. */
const namePiece = fc.oneof(
  fc.constantFrom(
    'notes.md', 'Notes.md', 'NOTES.MD', 'Plan.json', 'ATTEMPTS.jsonl', 'Artifacts', 'GRADES',
    'caf\u00e9', 'cafe\u0301', 'CAF\u00c9', 'Stra\u00dfe', 'STRASSE', 'strasse', '\u212a', 'k', 'K', '\ufb01le', 'file', '\uff46ile',
    '.', '..', '...', '.hidden', 'a.', 'a ', ' a', 'con', 'NUL.txt', 'a:b', 'a*b?', 'a\\b', 'a\u0000b',
    '\u0001', '\n', '\t', '\r', '\u007f', '\u200b', 'a\u200bb', '\u202etxt.exe', '\ufeff', '\u00a0',
    'x'.repeat(255), 'x'.repeat(256), '\u00e9'.repeat(128), '\u{1F600}'.repeat(64),
  ),
  fc.string({ unit: fc.constantFrom('a', 'A', '\u00e9', 'e', '\u0301', '\u00df', 's', 'S', '.', '\u200b'), minLength: 1, maxLength: 6 }),
);
const hostileName = fc.array(namePiece, { minLength: 1, maxLength: 3 }).map((pieces) => pieces.join('/'));

/** Two names an oracle says collide: NFC and lower case (a finer relation than the verifier's full case folding). */
const fineKey = (path: string) => path.normalize('NFC').toLowerCase();
/** Two names that stay apart even under NFKC and full case folding never collide in the verifier's sense either. */
const coarseKey = (path: string) => path.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');

function collides(paths: readonly string[], key: (path: string) => string): boolean {
  const seen = new Set<string>();
  for (const p of paths) {
    const k = key(p);
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

/** A manifest listing every file, unsafe names included (sealManifest refuses those), sorted, with its bundle_id. */
function sealAnyNames(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const listed = [...files].filter(([path]) => path !== 'manifest.json').sort((a, b) => compareUtf8(a[0], b[0]));
  const manifest: Record<string, unknown> = {
    schema: 'ledgerboard.manifest.v1',
    bundle_id: '',
    plan_id: planId,
    files: listed.map(([path, bytes]) => ({ path, sha256: digestBytes(bytes), bytes: bytes.length })),
  };
  manifest.bundle_id = selfId(manifest, 'bundle_id');
  return encoder.encode(canonicalJson(manifest));
}

describe(`fuzzing verifyBundle (${RUNS} cases, seed ${SEED})`, () => {
  it('hostile path names: collisions warned, unlisted or unsafe names never verified, never a throw', { timeout: 600_000 }, () => {
    let warned = 0;
    fc.assert(
      fc.property(fc.array(hostileName, { minLength: 1, maxLength: 3 }), fc.boolean(), (names, reseal) => {
        const files = new Map(original);
        const added = names.filter((n) => !files.has(n) && n !== 'manifest.json');
        for (const name of added) files.set(name, encoder.encode(`${name}\n`));
        files.set('manifest.json', reseal ? sealAnyNames(files) : sealed.disk.get('manifest.json')!);
        const snapshot = snapshotOfFiles(files);
        let result: BundleVerification;
        try {
          result = verifyBundle(snapshot);
        } catch (error) {
          throw new Error(`verifyBundle threw on names ${JSON.stringify(names)}: ${(error as Error).stack ?? String(error)}`, { cause: error });
        }
        expect(result.status).toBe(statusOf(result.findings));
        for (const f of result.findings) expect(FINDING_CODES[f.code]?.severity, f.code).toBe(f.severity);
        const paths = snapshot.entries.map((e) => e.path);
        const warnings = result.findings.filter((f) => f.code === 'PATH_COLLISION').length;
        if (collides(paths, fineKey)) expect(warnings, `${JSON.stringify(paths)} collide`).toBeGreaterThan(0);
        if (!collides(paths, coarseKey)) expect(warnings, `${JSON.stringify(paths)} do not collide`).toBe(0);
        if (warnings > 0) warned++;
        if (added.length > 0 && (!reseal || added.some((n) => unsafePathReason(n) !== null))) expect(result.status).not.toBe('verified');
      }),
      { numRuns: Math.max(1, Math.round(RUNS * 0.06)), seed: SEED, endOnFailure: true },
    );
    if (RUNS >= 1000) expect(warned).toBeGreaterThan(0);
  });

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
