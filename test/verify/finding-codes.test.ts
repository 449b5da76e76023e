/**
 * One tampered bundle (at least) per finding code of the catalog, written to
 * disk and read back, asserting codes, severities, files, lines and statuses,
 * never wording (FORMAT.md section 6).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { digestBytes } from '../../src/json/canonical.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { jsonlBytes, prettyJson } from '../../src/evidence/seal.ts';
import { FINDING_CODES, type BundleStatus, type FindingCode } from '../../src/verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import {
  BASELINE,
  CANDIDATE,
  addArtifact,
  bytesOf,
  loose,
  makeTempDir,
  rebudget,
  removeTempDirs,
  sealBundle,
  snapshotOf,
  validBundle,
  verifyDir,
  verifyInMemory,
  verifyModel,
  writeModel,
  type BundleModel,
  type ManifestObject,
  type SealOptions,
} from '../helpers/bundle-builder.ts';
import { repoUrl, runIsolatedAsync } from '../helpers/hang-guard.ts';
import { bundleFiles, claimTool, DEMO_INSPECT, flipGradesToPass, writeImported } from '../helpers/imported-bundle.ts';
import { verifyDirectory } from '../../src/pipeline/verify-directory.ts';
import { FUTURE_FIRST_START, futureBundle, planHexOf, tokenAt, withTokens } from '../helpers/anchored-bundle.ts';
import { makeTsa, type Tsa } from '../helpers/tsa-tokens.ts';

afterAll(removeTempDirs);

/** A throw-away openssl TSA for the ANCHOR_* cases, made on first use (test/verify/anchors.test.ts has the rest). */
let anchorTsa: Tsa | undefined;
const testTsa = (): Tsa => (anchorTsa ??= makeTsa());
afterAll(() => anchorTsa?.remove());

/** futureBundle (frozen 2030-09-14T12:00:00Z) with one token of the test TSA, anchors/tsa.tsr, made by `token` from the plan id's hex. */
function anchored(token: (planHex: string) => Uint8Array): () => Promise<BundleVerification> {
  return async () => {
    const model = futureBundle();
    return verifyModel(withTokens(model, { 'tsa.tsr': token(planHexOf(model)) }));
  };
}

/** A finding the case must produce. */
interface Expected {
  code: FindingCode;
  file: string;
  line?: number;
  /** Exact number of findings with this code, file (and line, when given). */
  count?: number;
}

/** One tampered bundle and what verifying it must give. */
interface Case {
  name: string;
  run: () => Promise<BundleVerification>;
  expect: Expected[];
  status: BundleStatus;
  /** When true (default), the set of codes found is exactly the set of expected codes. */
  exact?: boolean;
  timeout?: number;
}

/** Builds a valid model, lets the test tamper with it, seals, writes and verifies it from disk. */
function tampered(mutate: (model: BundleModel) => SealOptions | void): () => Promise<BundleVerification> {
  return async () => {
    const model = validBundle();
    const options = mutate(model) ?? {};
    return verifyModel(model, options);
  };
}

/** plan.json text as sealing would write it (pretty JSON). */
function planText(model: BundleModel): string {
  return Buffer.from(prettyJson(sealBundle(model).plan)).toString('utf8');
}

/** Replaces exactly one occurrence of `from`. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at === -1 || text.indexOf(from, at + 1) !== -1) throw new Error(`expected exactly one ${JSON.stringify(from)}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** 1-based line of the first occurrence of a needle. */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at === -1) throw new Error(`${JSON.stringify(needle)} not found`);
  return text.slice(0, at).split('\n').length;
}

/** attempts.jsonl with extra raw lines inserted before the given (0-based) line indices. */
function attemptsWithLines(model: BundleModel, inserts: [number, Uint8Array | string][]): Uint8Array {
  const lines: Uint8Array[] = Buffer.from(jsonlBytes(model.attempts))
    .toString('utf8')
    .split('\n')
    .slice(0, -1)
    .map((l) => bytesOf(l));
  for (const [index, line] of [...inserts].sort((a, b) => b[0] - a[0])) lines.splice(index, 0, bytesOf(line));
  return Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
}

/** Inserts a manifest entry at its sorted (UTF-8 byte order) position. */
function insertSorted(manifest: ManifestObject, entry: { path: string; sha256: string; bytes: number }): void {
  const at = manifest.files.findIndex((f) => compareUtf8(String(f.path), entry.path) > 0);
  manifest.files.splice(at === -1 ? manifest.files.length : at, 0, entry);
}

const OTHER_DIGEST = digestBytes('some other bytes');
const SECRET = 'TOP-SECRET-outside-the-bundle-7f3a';

/** An attempt for a slot of the valid matrix, with the given overrides. */
function extraAttempt(model: BundleModel, overrides: Partial<BundleModel['attempts'][number]>): BundleModel['attempts'][number] {
  return {
    ...structuredClone(model.attempts[0]!),
    attempt_id: 'a-000007',
    patch: null,
    cost: { state: 'zero', micros: 0 },
    ...overrides,
  };
}

const unsafePaths: [string, string][] = [
  ['absolute', '/abs'],
  ['absolute, outside the bundle', '/etc/passwd'],
  ['empty segment', 'a//b'],
  ['dot segment', './a'],
  ['dot-dot segment', 'a/../b'],
  ['leading dot-dot', '../outside'],
  ['trailing slash', 'artifacts/'],
  ['backslash', 'artifacts\\patch.diff'],
  ['NUL', 'artifacts/a\u0000b'],
  ['over 255 bytes', `artifacts/${'x'.repeat(246)}`],
  ['over 255 bytes of multi-byte characters', `a/${'é'.repeat(127)}`],
  ['empty', ''],
];

const CASES = {
  MISSING_FILE: [
    {
      name: 'a listed optional file (NOTES.md) is absent: no_verdict',
      run: tampered(() => ({ remove: ['NOTES.md'] })),
      expect: [{ code: 'MISSING_FILE', file: 'NOTES.md', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'plan.json is absent: no_verdict, plan checks skipped',
      run: tampered(() => ({ remove: ['plan.json'] })),
      expect: [{ code: 'MISSING_FILE', file: 'plan.json', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'manifest.json is absent: no_verdict',
      run: tampered(() => ({ remove: ['manifest.json'] })),
      expect: [{ code: 'MISSING_FILE', file: 'manifest.json', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'a required file (attempts.jsonl) neither listed nor on disk: no_verdict',
      run: tampered(() => ({
        editManifest: (m) => {
          m.files = m.files.filter((f) => f.path !== 'attempts.jsonl');
        },
        remove: ['attempts.jsonl'],
      })),
      expect: [{ code: 'MISSING_FILE', file: 'attempts.jsonl', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'a listed file that is a directory on disk',
      run: tampered(() => ({ remove: ['NOTES.md'], dirs: ['NOTES.md'] })),
      expect: [{ code: 'MISSING_FILE', file: 'NOTES.md' }],
      status: 'no_verdict',
    },
    {
      name: 'a directory of the bundle that cannot be listed (what the reader gives for EACCES): no_verdict, the finding names the directory',
      run: async () => {
        const snapshot = await readBundle(await writeModel(validBundle(), { dirs: ['private'] }));
        snapshot.entries.find((e) => e.path === 'private')!.unreadable = 'cannot be read (EACCES)';
        return verifyBundle(snapshot);
      },
      expect: [{ code: 'MISSING_FILE', file: 'private', count: 1 }],
      status: 'no_verdict',
    },
  ],
  MISSING_ARTIFACT: [
    {
      name: 'an attempt patch names a digest with no file: no_verdict',
      run: tampered((m) => {
        m.attempts[1]!.patch = OTHER_DIGEST;
      }),
      expect: [{ code: 'MISSING_ARTIFACT', file: 'attempts.jsonl', line: 2, count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'a grade receipt names a digest with no file: no_verdict',
      run: tampered((m) => {
        m.grades[0]!.value.results[0]!.receipt = OTHER_DIGEST;
      }),
      expect: [{ code: 'MISSING_ARTIFACT', file: 'grades/1.json', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'grade input and output name digests with no file',
      run: tampered((m) => {
        m.grades[0]!.value.results[1]!.input = OTHER_DIGEST;
        m.grades[0]!.value.results[1]!.output = digestBytes('yet another');
      }),
      expect: [{ code: 'MISSING_ARTIFACT', file: 'grades/1.json', count: 2 }],
      status: 'no_verdict',
    },
    {
      name: "an imported plan's origin.source is not in the bundle",
      run: tampered((m) => {
        m.plan.origin = { kind: 'imported', format: 'inspect-eval-log', source: OTHER_DIGEST, tool: { name: 'ledgerboard', version: '0.3.0' } };
      }),
      expect: [{ code: 'MISSING_ARTIFACT', file: 'plan.json', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'an artifact removed from disk: MISSING_FILE and MISSING_ARTIFACT, still no_verdict',
      run: tampered(() => ({ remove: ['artifacts/patches/a-000001.diff'] })),
      expect: [
        { code: 'MISSING_FILE', file: 'artifacts/patches/a-000001.diff', count: 1 },
        { code: 'MISSING_ARTIFACT', file: 'attempts.jsonl', line: 1, count: 1 },
      ],
      status: 'no_verdict',
    },
    {
      name: 'an artifact whose bytes changed after sealing is FILE_DIGEST_MISMATCH; its references still have a file',
      run: tampered(() => ({ after: { 'artifacts/patches/a-000002.diff': 'rewritten patch\n' } })),
      expect: [{ code: 'FILE_DIGEST_MISMATCH', file: 'artifacts/patches/a-000002.diff', count: 1 }],
      status: 'invalid',
    },
  ],
  UNLISTED_FILE: [
    {
      name: 'a file on disk that the manifest does not list',
      run: tampered(() => ({ after: { 'logs/run.log': 'started\n' } })),
      expect: [{ code: 'UNLISTED_FILE', file: 'logs/run.log', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'an unlisted file at the top level',
      run: tampered(() => ({ after: { 'README.txt': 'hello\n' } })),
      expect: [{ code: 'UNLISTED_FILE', file: 'README.txt', count: 1 }],
      status: 'invalid',
    },
  ],
  UNSAFE_PATH: [
    ...unsafePaths.map(([label, path]): Case => ({
      name: `manifest path, ${label}: ${JSON.stringify(path).slice(0, 40)}`,
      run: tampered(() => ({
        editManifest: (m: ManifestObject) => insertSorted(m, { path, sha256: OTHER_DIGEST, bytes: 1 }),
      })),
      expect: [{ code: 'UNSAFE_PATH', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    })),
    {
      name: 'a plan wiki path with a dot-dot segment is SCHEMA_VIOLATION (UNSAFE_PATH is for manifest paths)',
      run: tampered((m) => {
        m.plan.environment.wiki[0]!.path = '../../etc/passwd';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a hostile absolute manifest path is never opened: a patch naming the outside file stays missing',
      run: async () => {
        const outside = join(await makeTempDir(), 'secret.txt');
        await writeFile(outside, SECRET);
        const model = validBundle();
        model.attempts[0]!.patch = digestBytes(SECRET);
        const result = await verifyModel(model, {
          editManifest: (m) => insertSorted(m, { path: outside, sha256: digestBytes(SECRET), bytes: SECRET.length }),
        });
        expect(JSON.stringify(result)).not.toContain(SECRET);
        return result;
      },
      expect: [
        { code: 'UNSAFE_PATH', file: 'manifest.json', count: 1 },
        { code: 'MISSING_ARTIFACT', file: 'attempts.jsonl', line: 1, count: 1 },
      ],
      status: 'invalid',
    },
    {
      name: 'a hostile relative manifest path (../) is never opened either',
      run: async () => {
        const model = validBundle();
        model.attempts[0]!.patch = digestBytes(SECRET);
        const dir = await writeModel(model, {
          editManifest: (m) => insertSorted(m, { path: '../secret.txt', sha256: digestBytes(SECRET), bytes: SECRET.length }),
        });
        // A sibling of the bundle directory, reachable as "../secret.txt".
        await writeFile(join(dir, '..', 'secret.txt'), SECRET);
        const result = await verifyDir(dir);
        expect(JSON.stringify(result)).not.toContain(SECRET);
        return result;
      },
      expect: [
        { code: 'UNSAFE_PATH', file: 'manifest.json', count: 1 },
        { code: 'MISSING_ARTIFACT', file: 'attempts.jsonl', line: 1, count: 1 },
      ],
      status: 'invalid',
    },
  ],
  NOT_REGULAR_FILE: [
    {
      name: 'an unlisted symlink to a file outside the bundle is reported and never read',
      run: async () => {
        const outside = join(await makeTempDir(), 'outside.txt');
        await writeFile(outside, SECRET);
        const dir = await writeModel(validBundle(), { symlinks: { 'artifacts/leak.txt': outside } });
        const snapshot = await readBundle(dir);
        const entry = snapshot.entries.find((e) => e.path === 'artifacts/leak.txt');
        expect(entry).toMatchObject({ kind: 'symlink' });
        expect(entry?.content).toBeUndefined();
        expect(entry?.sha256).toBeUndefined();
        const result = verifyBundle(snapshot);
        expect(JSON.stringify(result)).not.toContain(SECRET);
        return result;
      },
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'artifacts/leak.txt', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'NOTES.md replaced by a symlink to an outside file: its content never reaches the evidence',
      run: async () => {
        const outside = join(await makeTempDir(), 'notes.md');
        await writeFile(outside, `# ${SECRET}\n`);
        const result = await verifyModel(validBundle(), { symlinks: { 'NOTES.md': outside } });
        expect(result.evidence.notes).toBeNull();
        expect(JSON.stringify(result)).not.toContain(SECRET);
        return result;
      },
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'NOTES.md', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json replaced by a symlink to a valid plan outside: not followed, no plan read',
      run: async () => {
        const model = validBundle();
        const outside = join(await makeTempDir(), 'plan.json');
        await writeFile(outside, prettyJson(sealBundle(model).plan));
        const result = await verifyModel(model, { symlinks: { 'plan.json': outside } });
        expect(result.evidence.plan).toBeNull();
        return result;
      },
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a symlink to a directory outside is not walked',
      run: async () => {
        const outsideDir = await makeTempDir();
        await writeFile(join(outsideDir, 'inner.txt'), SECRET);
        const dir = await writeModel(validBundle(), { symlinks: { 'artifacts/outside': outsideDir } });
        const snapshot = await readBundle(dir);
        expect(snapshot.entries.filter((e) => e.path.startsWith('artifacts/outside')).map((e) => e.path)).toEqual(['artifacts/outside']);
        return verifyBundle(snapshot);
      },
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'artifacts/outside', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'an unlisted FIFO does not hang the reader',
      run: tampered(() => ({ fifos: ['pipe'] })),
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'pipe', count: 1 }],
      status: 'invalid',
      timeout: 5_000,
    },
    {
      name: 'attempts.jsonl replaced by a FIFO does not hang the reader',
      run: tampered(() => ({ fifos: ['attempts.jsonl'] })),
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'attempts.jsonl', count: 1 }],
      status: 'invalid',
      timeout: 5_000,
    },
    ...(['socket', 'char-device', 'block-device', 'unknown'] as const).map(
      (kind): Case => ({
        name: `a ${kind} entry (in memory)`,
        run: async () => verifyInMemory(validBundle(), { specialEntries: { [`artifacts/${kind}`]: kind } }),
        expect: [{ code: 'NOT_REGULAR_FILE', file: `artifacts/${kind}`, count: 1 }],
        status: 'invalid',
      }),
    ),
    {
      name: 'a listed file replaced by a socket (in memory): only NOT_REGULAR_FILE, never read',
      run: async () => verifyInMemory(validBundle(), { specialEntries: { 'grant.json': 'socket' } }),
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'grant.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a symlink named manifest.json',
      run: async () => {
        const model = validBundle();
        const outside = join(await makeTempDir(), 'manifest.json');
        await writeFile(outside, sealBundle(model).manifest);
        return verifyModel(model, { symlinks: { 'manifest.json': outside } });
      },
      expect: [{ code: 'NOT_REGULAR_FILE', file: 'manifest.json', count: 1 }],
      status: 'invalid',
      exact: false,
    },
  ],
  PATH_COLLISION: [
    {
      name: 'NOTES.md and notes.md (case): one warning naming both; still verified',
      run: tampered((m) => void m.extra.set('notes.md', bytesOf('lower case'))),
      expect: [{ code: 'PATH_COLLISION', file: 'NOTES.md', count: 1 }],
      status: 'verified',
    },
    {
      name: 'é precomposed (NFC) and decomposed (NFD), and Straße beside STRASSE (full case folding)',
      run: tampered((m) => {
        m.extra.set('logs/caf\u00e9.txt', bytesOf('nfc'));
        m.extra.set('logs/cafe\u0301.txt', bytesOf('nfd'));
        m.extra.set('logs/Stra\u00dfe.txt', bytesOf('sharp s'));
        m.extra.set('logs/STRASSE.txt', bytesOf('upper'));
      }),
      expect: [
        { code: 'PATH_COLLISION', file: 'logs/STRASSE.txt', count: 1 },
        { code: 'PATH_COLLISION', file: 'logs/cafe\u0301.txt', count: 1 },
      ],
      status: 'verified',
    },
    {
      name: 'directories Logs/ and logs/: one warning for the directories, none again for the files below them',
      run: tampered((m) => {
        m.extra.set('Logs/a.txt', bytesOf('upper a'));
        m.extra.set('logs/a.txt', bytesOf('lower a'));
        m.extra.set('logs/b.txt', bytesOf('lower b'));
      }),
      expect: [{ code: 'PATH_COLLISION', file: 'Logs', count: 1 }],
      status: 'verified',
    },
    {
      name: 'names that only look alike are not collisions: a fullwidth f (NFKC only) beside f, a zero-width space',
      run: tampered((m) => {
        m.extra.set('\uff46ile.txt', bytesOf('fullwidth'));
        m.extra.set('file.txt', bytesOf('plain'));
        m.extra.set('fi\u200ble.txt', bytesOf('zero width'));
      }),
      expect: [],
      status: 'verified',
    },
  ],
  BAD_JSON: [
    ...(() => {
      const plan = planText(validBundle());
      const seedLine = lineOf(plan, '"seed"');
      const titleLine = lineOf(plan, '"title"');
      const rawPlan = (text: string | Uint8Array) => tampered(() => ({ raw: { 'plan.json': text } }));
      const cases: Case[] = [
        {
          name: 'plan.json: a duplicate member name',
          run: rawPlan(replaceOnce(plan, '"seed": 7', '"seed": 7,\n  "seed": 7')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine + 1, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a member name duplicated only after unescaping',
          run: rawPlan(replaceOnce(plan, '"seed": 7', '"seed": 7,\n  "\\u0073eed": 8')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine + 1, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a lone surrogate escape',
          run: rawPlan(replaceOnce(plan, '"title": "', '"title": "\\ud800')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: an escaped noncharacter U+FFFE',
          run: rawPlan(replaceOnce(plan, '"title": "', '"title": "\\ufffe')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a raw noncharacter U+FDD0',
          run: rawPlan(replaceOnce(plan, '"title": "', '"title": "\ufdd0')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a raw astral noncharacter U+10FFFF',
          run: rawPlan(replaceOnce(plan, '"title": "', '"title": "\u{10FFFF}')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a byte-order mark',
          run: rawPlan(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(plan)])),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: 1, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: invalid UTF-8 inside the title',
          run: rawPlan(
            (() => {
              const at = plan.indexOf('"title": "') + '"title": "'.length;
              return Buffer.concat([Buffer.from(plan.slice(0, at)), Buffer.from([0xff]), Buffer.from(plan.slice(at))]);
            })(),
          ),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: an overlong UTF-8 encoding',
          run: rawPlan(
            (() => {
              const at = plan.indexOf('"title": "') + '"title": "'.length;
              return Buffer.concat([Buffer.from(plan.slice(0, at)), Buffer.from([0xc0, 0xaf]), Buffer.from(plan.slice(at))]);
            })(),
          ),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: titleLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: NaN',
          run: rawPlan(replaceOnce(plan, '"seed": 7', '"seed": NaN')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: Infinity',
          run: rawPlan(replaceOnce(plan, '"seed": 7', '"seed": Infinity')),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: a number that overflows a double is not an integer token: SCHEMA_VIOLATION',
          run: rawPlan(replaceOnce(plan, '"seed": 7', '"seed": 1e400')),
          expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json', line: seedLine, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: nesting 65 deep',
          run: rawPlan(replaceOnce(plan, '"seed": 7', `"seed": 7,\n  "deep": ${'['.repeat(64)}${']'.repeat(64)}`)),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine + 1, count: 1 }],
          status: 'invalid',
        },
        {
          name: 'plan.json: truncated',
          run: rawPlan(plan.slice(0, plan.indexOf('"seed"'))),
          expect: [{ code: 'BAD_JSON', file: 'plan.json', line: seedLine, count: 1 }],
          status: 'invalid',
        },
      ];
      return cases;
    })(),
    {
      name: 'plan.json: nesting exactly 64 deep parses (the extra member is UNKNOWN_MEMBER, not BAD_JSON)',
      run: async () => {
        const plan = planText(validBundle());
        const text = replaceOnce(plan, '"seed": 7', `"seed": 7,\n  "deep": ${'['.repeat(63)}${']'.repeat(63)}`);
        return verifyModel(validBundle(), { raw: { 'plan.json': text } });
      },
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: a blank line (line 3)',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': attemptsWithLines(m, [[2, '']]) } })),
      expect: [{ code: 'BAD_JSON', file: 'attempts.jsonl', line: 3, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'attempts.jsonl: a line holding a CR (line 2)',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': attemptsWithLines(m, [[1, '{"x":1}\r']]) } })),
      expect: [{ code: 'BAD_JSON', file: 'attempts.jsonl', line: 2, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'attempts.jsonl: CRLF line endings on every line',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': Buffer.from(jsonlBytes(m.attempts)).toString('utf8').replaceAll('\n', '\r\n') } })),
      expect: [1, 2, 3, 4, 5, 6].map((line) => ({ code: 'BAD_JSON' as const, file: 'attempts.jsonl', line, count: 1 })),
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: a line that is an array, not an object (line 4)',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': attemptsWithLines(m, [[3, '[1,2]']]) } })),
      expect: [{ code: 'BAD_JSON', file: 'attempts.jsonl', line: 4, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'attempts.jsonl: scalar lines are not objects either',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': attemptsWithLines(m, [[0, '"a"'], [6, 'null']]) } })),
      expect: [
        { code: 'BAD_JSON', file: 'attempts.jsonl', line: 1, count: 1 },
        { code: 'BAD_JSON', file: 'attempts.jsonl', line: 8, count: 1 },
      ],
      status: 'invalid',
    },
    {
      name: 'attempts.jsonl: invalid UTF-8 on line 3 loses only that line',
      run: tampered((m) => ({
        raw: { 'attempts.jsonl': attemptsWithLines(m, [[2, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])]]) },
      })),
      expect: [{ code: 'BAD_JSON', file: 'attempts.jsonl', line: 3, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'attempts.jsonl: a byte-order mark at the start',
      run: tampered((m) => ({ raw: { 'attempts.jsonl': attemptsWithLines(m, [[0, '\ufeff{}']]) } })),
      expect: [{ code: 'BAD_JSON', file: 'attempts.jsonl', line: 1, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'ledger.jsonl: a duplicate member in line 2',
      run: tampered((m) => {
        const lines = Buffer.from(jsonlBytes(m.ledger)).toString('utf8').split('\n');
        lines[1] = lines[1]!.replace('{"task_id":"ledger-0002",', '{"task_id":"ledger-0002","task_id":"ledger-0002",');
        return { raw: { 'ledger.jsonl': lines.join('\n') } };
      }),
      expect: [{ code: 'BAD_JSON', file: 'ledger.jsonl', line: 2, count: 1 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'grades/1.json: a duplicate "generation"',
      run: tampered((m) => {
        const text = Buffer.from(prettyJson(m.grades[0]!.value)).toString('utf8');
        return { raw: { 'grades/1.json': replaceOnce(text, '"generation": 1,', '"generation": 1,\n  "generation": 1,') } };
      }),
      expect: [{ code: 'BAD_JSON', file: 'grades/1.json', line: 4, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'grant.json: not JSON at all',
      run: tampered(() => ({ raw: { 'grant.json': '{\n  "schema": "ledgerboard.grant.v1",\n  oops\n}\n' } })),
      expect: [{ code: 'BAD_JSON', file: 'grant.json', line: 3, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json: empty',
      run: tampered(() => ({ manifestRaw: '' })),
      expect: [{ code: 'BAD_JSON', file: 'manifest.json', line: 1, count: 1 }],
      status: 'invalid',
    },
  ],
  SCHEMA_VIOLATION: [
    ...(() => {
      const rawSeed = (seed: number, token: string): (() => Promise<BundleVerification>) =>
        tampered((m) => {
          m.plan.seed = seed;
          const text = planText(m);
          return { raw: { 'plan.json': replaceOnce(text, `"seed": ${seed}`, `"seed": ${token}`) } };
        });
      const line = lineOf(planText(validBundle()), '"seed"');
      const cases: Case[] = [
        ['1.5', 1], // the schema also rejects the value
        ['1e3', 1000],
        ['1.0', 1],
        ['1E0', 1],
        ['9007199254740993', 1],
        ['9007199254740992', 1],
        ['-9007199254740992', 1],
        // FORMAT.md 1: not -0 (jq prints -0, RFC 8785 writes 0: the jq recipe would give another plan_id); -0.0 and -0e0 have a fraction, an exponent.
        ['-0', 0],
        ['-0.0', 0],
        ['-0e0', 0],
      ].map(([token, seed]) => ({
        name: `plan.json: the number token ${String(token)}`,
        run: rawSeed(Number(seed), String(token)),
        expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json', line }],
        status: 'invalid',
      }));
      return cases;
    })(),
    {
      name: 'manifest.json: a bytes member written 12.0',
      run: tampered((m) => {
        const manifest = Buffer.from(sealBundle(m).manifest).toString('utf8');
        const bytes = Buffer.byteLength(m.notes ?? '');
        return { manifestRaw: replaceOnce(manifest, `"bytes":${bytes},"path":"NOTES.md"`, `"bytes":${bytes}.0,"path":"NOTES.md"`) };
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json', line: 1, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json: the bytes of an empty file written -0',
      run: tampered((m) => {
        m.extra.set('empty.txt', new Uint8Array());
        const manifest = Buffer.from(sealBundle(m).manifest).toString('utf8');
        return { manifestRaw: replaceOnce(manifest, `"bytes":0,"path":"empty.txt"`, `"bytes":-0,"path":"empty.txt"`) };
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json', line: 1, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json lists manifest.json',
      run: tampered(() => ({ editManifest: (m) => insertSorted(m, { path: 'manifest.json', sha256: OTHER_DIGEST, bytes: 10 }) })),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json files out of order',
      run: tampered(() => ({
        editManifest: (m) => {
          const [a, b] = [m.files[0]!, m.files[1]!];
          m.files[0] = b;
          m.files[1] = a;
        },
      })),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json' }],
      status: 'invalid',
    },
    {
      name: 'manifest.json files sorted by UTF-16 code units instead of UTF-8 bytes',
      run: tampered((m) => {
        m.extra.set('artifacts/\uE000.txt', bytesOf('private use'));
        m.extra.set('artifacts/\u{1F600}.txt', bytesOf('astral'));
        return {
          editManifest: (manifest) => {
            const sorted = [...manifest.files].sort((a, b) => (String(a.path) < String(b.path) ? -1 : String(a.path) > String(b.path) ? 1 : 0));
            manifest.files = sorted;
          },
        };
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json lists one file twice',
      run: tampered(() => ({
        editManifest: (m) => {
          m.files.splice(1, 0, structuredClone(m.files[1]!));
        },
      })),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json: an upper-case digest',
      run: tampered((m) => {
        m.plan.environment.tool_policy = m.plan.environment.tool_policy.toUpperCase().replace('SHA256:', 'sha256:');
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
    },
    {
      name: 'plan.json: a harness commit of 39 hex digits',
      run: tampered((m) => {
        m.plan.harness.commit = m.plan.harness.commit.slice(1);
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
    },
    {
      name: 'plan.json: no subjects',
      run: tampered((m) => {
        m.plan.subjects = [];
        m.grant = null;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'plan.json: attempts 0',
      run: tampered((m) => {
        m.plan.attempts = 0;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'plan.json: a bad role',
      run: tampered((m) => {
        loose(m.plan.subjects[0]!).role = 'champion';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'plan.json: created_at with an offset',
      run: tampered((m) => {
        m.plan.created_at = '2026-09-14T12:00:00+00:00';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'plan.json: a frozen plan with a null budget',
      run: tampered((m) => {
        m.plan.budget = null;
        m.grant = null;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json: an explicit frozen origin with a null budget',
      run: tampered((m) => {
        m.plan.origin = { kind: 'frozen' };
        m.plan.budget = null;
        m.grant = null;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'ledger.jsonl: a record without license (line 2)',
      run: tampered((m) => {
        delete loose(m.ledger[1]!).license;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'ledger.jsonl', line: 2 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'ledger.jsonl: created_at on February 30',
      run: tampered((m) => {
        m.ledger[0]!.created_at = '2026-02-30T00:00:00Z';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'ledger.jsonl', line: 1 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: an unknown outcome (line 5)',
      run: tampered((m) => {
        loose(m.attempts[4]!).outcome = 'crashed';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'attempts.jsonl', line: 5 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: observed_model null',
      run: tampered((m) => {
        loose(m.attempts[0]!).observed_model = null;
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'attempts.jsonl', line: 1 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: negative tokens, unknown is null not -1',
      run: tampered((m) => {
        m.attempts[1]!.tokens = { input: -1, output: 0 };
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'attempts.jsonl', line: 2 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: fractional micros',
      run: tampered((m) => {
        m.attempts[0]!.cost = { state: 'complete', micros: 12.5 };
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'attempts.jsonl', line: 1 }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'grades/1.json: an unknown verdict',
      run: tampered((m) => {
        loose(m.grades[0]!.value.results[0]!).verdict = 'maybe';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'grades/1.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'grant.json: a bad expires_at',
      run: tampered((m) => {
        m.grant!.expires_at = '2026-09-30t00:00:00z';
      }),
      expect: [{ code: 'SCHEMA_VIOLATION', file: 'grant.json' }],
      status: 'invalid',
    },
  ],
  UNKNOWN_MEMBER: [
    {
      name: 'plan.json: a typo\'d "replicas" is never ignored',
      run: tampered((m) => {
        loose(m.plan).replicas = 3;
      }),
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json: an unknown member inside budget',
      run: tampered((m) => {
        loose(m.plan.budget!).per_task_micros = 5;
      }),
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json: a "__proto__" member is a member like any other',
      run: async () => {
        const model = validBundle();
        const text = replaceOnce(planText(model), '"seed": 7', '"seed": 7,\n  "__proto__": { "attempts": 5 }');
        const result = await verifyModel(model, { raw: { 'plan.json': text } });
        expect(result.evidence.plan?.attempts).toBe(1);
        expect(Object.prototype.hasOwnProperty.call({}, 'attempts')).toBe(false);
        return result;
      },
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'plan.json' }],
      status: 'invalid',
      exact: false,
    },
    {
      name: 'attempts.jsonl: an unknown member in tokens (line 3 has null tokens, so line 4)',
      run: tampered((m) => {
        loose(m.attempts[3]!.tokens!).cached = 10;
      }),
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'attempts.jsonl', line: 4, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'ledger.jsonl: an extra member',
      run: tampered((m) => {
        loose(m.ledger[2]!).labels = ['easy'];
      }),
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'ledger.jsonl', line: 3, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'manifest.json: an extra member',
      run: tampered(() => ({
        editManifest: (m) => {
          m.comment = 'hi';
        },
      })),
      expect: [{ code: 'UNKNOWN_MEMBER', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'grades/1.json and grant.json: extra members',
      run: tampered((m) => {
        loose(m.grades[0]!.value.grader).profile = 'pytest-oracle';
        m.grant!.note = 'x';
      }),
      expect: [
        { code: 'UNKNOWN_MEMBER', file: 'grades/1.json', count: 1 },
        { code: 'UNKNOWN_MEMBER', file: 'grant.json', count: 1 },
      ],
      status: 'invalid',
    },
  ],
  FILE_DIGEST_MISMATCH: [
    {
      name: 'plan.json rewritten after sealing with other whitespace (same size, same meaning)',
      run: tampered((m) => ({ after: { 'plan.json': planText(m).replace('\n  "seed"', '\n\t "seed"') } })),
      expect: [{ code: 'FILE_DIGEST_MISMATCH', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'plan.json grown by one byte after sealing',
      run: tampered((m) => ({ after: { 'plan.json': `${planText(m)}\n` } })),
      expect: [{ code: 'FILE_DIGEST_MISMATCH', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a manifest entry with the wrong size',
      run: tampered(() => ({
        editManifest: (m) => {
          const entry = m.files.find((f) => f.path === 'NOTES.md')!;
          entry.bytes = Number(entry.bytes) + 1;
        },
      })),
      expect: [{ code: 'FILE_DIGEST_MISMATCH', file: 'NOTES.md', count: 1 }],
      status: 'invalid',
    },
  ],
  BUNDLE_ID_MISMATCH: [
    {
      name: 'bundle_id replaced',
      run: tampered(() => ({
        editManifest: (m) => {
          m.bundle_id = OTHER_DIGEST;
        },
        keepBundleId: true,
      })),
      expect: [{ code: 'BUNDLE_ID_MISMATCH', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'an entry edited without resealing',
      run: tampered(() => ({
        editManifest: (m) => {
          m.files = m.files.filter((f) => f.path !== 'NOTES.md');
        },
        keepBundleId: true,
        remove: ['NOTES.md'],
      })),
      expect: [{ code: 'BUNDLE_ID_MISMATCH', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
  ],
  PLAN_ID_MISMATCH: [
    {
      name: 'plan edited after freezing (plan_id kept)',
      run: tampered((m) => {
        const sealed = sealBundle(m);
        m.plan = sealed.plan;
        m.plan.title = 'a better title';
        return { keepPlanId: true };
      }),
      expect: [{ code: 'PLAN_ID_MISMATCH', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'the manifest names another plan',
      run: tampered(() => ({ manifestPlanId: OTHER_DIGEST })),
      expect: [{ code: 'PLAN_ID_MISMATCH', file: 'manifest.json', count: 1 }],
      status: 'invalid',
    },
  ],
  LEDGER_DIGEST_MISMATCH: [
    {
      name: 'the plan pins another ledger',
      run: tampered((m) => {
        m.plan.ledger.digest = OTHER_DIGEST;
        return { keepLedgerDigest: true };
      }),
      expect: [{ code: 'LEDGER_DIGEST_MISMATCH', file: 'ledger.jsonl', count: 1 }],
      status: 'invalid',
    },
  ],
  LEDGER_TASK_COUNT: [
    {
      name: 'the plan declares 2 tasks, the ledger has 3 lines',
      run: tampered((m) => {
        m.plan.ledger.tasks = 2;
        rebudget(m);
      }),
      expect: [{ code: 'LEDGER_TASK_COUNT', file: 'ledger.jsonl', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'lines that fail to parse still count',
      run: tampered((m) => {
        m.plan.ledger.tasks = 4;
        rebudget(m);
        m.attempts[5]!.cost = { state: 'complete', micros: 1 };
        return { raw: { 'ledger.jsonl': Buffer.concat([jsonlBytes(m.ledger), Buffer.from('not json\n')]) } };
      }),
      expect: [{ code: 'BAD_JSON', file: 'ledger.jsonl', line: 4, count: 1 }],
      status: 'invalid',
    },
  ],
  DUPLICATE_TASK: [
    {
      name: 'a task_id twice',
      run: tampered((m) => {
        m.ledger.push(structuredClone(m.ledger[0]!));
        m.plan.ledger.tasks = 4;
        rebudget(m);
        m.attempts[5]!.cost = { state: 'complete', micros: 1_000 };
      }),
      expect: [{ code: 'DUPLICATE_TASK', file: 'ledger.jsonl', line: 4, count: 1 }],
      status: 'invalid',
    },
  ],
  LABELLED_AFTER_FREEZE: [
    {
      name: 'a task created one nanosecond after the freeze',
      run: tampered((m) => {
        m.ledger[1]!.created_at = '2026-09-14T12:00:00.000000001Z';
      }),
      expect: [{ code: 'LABELLED_AFTER_FREEZE', file: 'ledger.jsonl', line: 2, count: 1 }],
      status: 'invalid',
    },
  ],
  MISSING_LICENSE: [
    {
      name: 'an empty license is a warning: still verified',
      run: tampered((m) => {
        m.ledger[0]!.license = '';
      }),
      expect: [{ code: 'MISSING_LICENSE', file: 'ledger.jsonl', line: 1, count: 1 }],
      status: 'verified',
    },
    {
      name: 'an all-whitespace license',
      run: tampered((m) => {
        m.ledger[2]!.license = ' \t ';
      }),
      expect: [{ code: 'MISSING_LICENSE', file: 'ledger.jsonl', line: 3, count: 1 }],
      status: 'verified',
    },
  ],
  DUPLICATE_SUBJECT: [
    {
      name: 'two selectors resolve to one model + agent; the finding names both selectors',
      run: async () => {
        const model = validBundle();
        model.plan.subjects.push({ selector: 'acme/mini-2026-08-01', model: CANDIDATE.model, agent: { ...CANDIDATE.agent }, role: 'candidate' });
        rebudget(model);
        model.attempts[5]!.cost = { state: 'complete', micros: 1_000 };
        const result = await verifyModel(model);
        const found = result.findings.find((f) => f.code === 'DUPLICATE_SUBJECT');
        expect(found?.message).toContain(JSON.stringify(':mini'));
        expect(found?.message).toContain(JSON.stringify('acme/mini-2026-08-01'));
        return result;
      },
      expect: [{ code: 'DUPLICATE_SUBJECT', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
  ],
  CEILING_ARITHMETIC: [
    {
      name: 'per_attempt_micros one below the floor (and OVER_CEILING not evaluated against it)',
      run: tampered((m) => {
        m.plan.budget!.per_attempt_micros = 3_333_332;
      }),
      expect: [{ code: 'CEILING_ARITHMETIC', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'per_attempt_micros one above the floor (the shares would sum over the whole)',
      run: tampered((m) => {
        m.plan.budget!.per_attempt_micros = 3_333_334;
      }),
      expect: [{ code: 'CEILING_ARITHMETIC', file: 'plan.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'dispatches count every subject: 3 x 2 x 2 = 12',
      run: tampered((m) => {
        m.plan.attempts = 2;
        m.plan.budget!.per_attempt_micros = Math.floor(20_000_000 / 6);
      }),
      expect: [{ code: 'CEILING_ARITHMETIC', file: 'plan.json', count: 1 }],
      status: 'invalid',
      exact: false,
    },
  ],
  ZERO_SHARE: [
    {
      name: 'an aggregate of 5 micros over 6 dispatches, ceiling 0 (the floor): ZERO_SHARE; the sum is still held to the aggregate',
      run: tampered((m) => {
        m.plan.budget!.aggregate_micros = 5;
        m.plan.budget!.per_attempt_micros = 0;
      }),
      expect: [
        { code: 'ZERO_SHARE', file: 'plan.json', count: 1 },
        { code: 'OVER_CEILING', file: 'attempts.jsonl', count: 1 },
      ],
      status: 'invalid',
    },
    {
      name: 'an aggregate of 5 micros over 6 dispatches, ceiling 1: both MUSTs fail, ZERO_SHARE and CEILING_ARITHMETIC',
      run: tampered((m) => {
        m.plan.budget!.aggregate_micros = 5;
        m.plan.budget!.per_attempt_micros = 1;
      }),
      expect: [
        { code: 'ZERO_SHARE', file: 'plan.json', count: 1 },
        { code: 'CEILING_ARITHMETIC', file: 'plan.json', count: 1 },
        { code: 'OVER_CEILING', file: 'attempts.jsonl', count: 1 },
      ],
      status: 'invalid',
    },
    {
      name: 'an aggregate of 0',
      run: tampered((m) => {
        m.plan.budget!.aggregate_micros = 0;
        m.plan.budget!.per_attempt_micros = 0;
      }),
      expect: [
        { code: 'ZERO_SHARE', file: 'plan.json', count: 1 },
        { code: 'OVER_CEILING', file: 'attempts.jsonl', count: 1 },
      ],
      status: 'invalid',
    },
  ],
  OVER_CEILING: [
    {
      name: 'a complete cost one micro above the per-attempt ceiling: warning, verified',
      run: tampered((m) => {
        m.attempts[0]!.cost = { state: 'complete', micros: 3_333_334 };
      }),
      expect: [{ code: 'OVER_CEILING', file: 'attempts.jsonl', line: 1, count: 1 }],
      status: 'verified',
    },
    {
      name: 'a partial cost above the ceiling',
      run: tampered((m) => {
        m.attempts[1]!.cost = { state: 'partial', micros: 4_000_000 };
      }),
      expect: [{ code: 'OVER_CEILING', file: 'attempts.jsonl', line: 2, count: 1 }],
      status: 'verified',
    },
    {
      name: 'six costs of 3,333,334: six per-attempt findings and one for the sum',
      run: tampered((m) => {
        for (const a of m.attempts) a.cost = { state: 'complete', micros: 3_333_334 };
      }),
      expect: [{ code: 'OVER_CEILING', file: 'attempts.jsonl', count: 7 }],
      status: 'verified',
    },
  ],
  COST_STATE_INCONSISTENT: (
    [
      ['unavailable', 5],
      ['unavailable', 0],
      ['not_applicable', 0],
      ['zero', 5],
      ['zero', null],
      ['complete', null],
      ['partial', null],
    ] as const
  ).map(([state, micros]) => ({
    name: `cost state ${state} with micros ${String(micros)}`,
    run: tampered((m) => {
      m.attempts[2]!.cost = { state, micros };
    }),
    expect: [{ code: 'COST_STATE_INCONSISTENT', file: 'attempts.jsonl', line: 3, count: 1 }],
    status: 'invalid' as const,
  })),
  IDENTITY_MISMATCH: [
    {
      name: 'observed_model differs from the planned model',
      run: tampered((m) => {
        m.attempts[1]!.observed_model = 'acme/base-2025-06-01';
      }),
      expect: [{ code: 'IDENTITY_MISMATCH', file: 'attempts.jsonl', line: 2, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'the alias is not the exact identity',
      run: tampered((m) => {
        m.attempts[0]!.observed_model = ':mini';
      }),
      expect: [{ code: 'IDENTITY_MISMATCH', file: 'attempts.jsonl', line: 1, count: 1 }],
      status: 'invalid',
    },
  ],
  UNPLANNED_ATTEMPT: [
    {
      name: 'a task outside the ledger',
      run: tampered((m) => {
        m.attempts.push(extraAttempt(m, { task_id: 'ledger-9999' }));
      }),
      expect: [{ code: 'UNPLANNED_ATTEMPT', file: 'attempts.jsonl', line: 7, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a subject outside the plan (same model, another agent version)',
      run: tampered((m) => {
        m.attempts.push(extraAttempt(m, { agent: { name: 'loop', version: '3.2.0' } }));
      }),
      expect: [{ code: 'UNPLANNED_ATTEMPT', file: 'attempts.jsonl', line: 7, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'an index above plan.attempts',
      run: tampered((m) => {
        m.attempts.push(extraAttempt(m, { index: 2 }));
      }),
      expect: [{ code: 'UNPLANNED_ATTEMPT', file: 'attempts.jsonl', line: 7, count: 1 }],
      status: 'invalid',
    },
  ],
  DUPLICATE_SLOT: [
    {
      name: 'a redispatch of slot (ledger-0001, candidate, 1)',
      run: tampered((m) => {
        m.attempts.push(extraAttempt(m, {}));
      }),
      expect: [{ code: 'DUPLICATE_SLOT', file: 'attempts.jsonl', line: 7, count: 1 }],
      status: 'invalid',
    },
  ],
  DUPLICATE_ID: [
    {
      name: 'an attempt_id twice',
      run: tampered((m) => {
        m.attempts[1]!.attempt_id = m.attempts[0]!.attempt_id;
        m.grades[0]!.value.results = m.grades[0]!.value.results.filter((r) => r.attempt_id !== 'a-000002');
      }),
      expect: [{ code: 'DUPLICATE_ID', file: 'attempts.jsonl', line: 2, count: 1 }],
      status: 'invalid',
    },
  ],
  ATTEMPT_BEFORE_FREEZE: [
    {
      name: 'an attempt started a millisecond before the freeze',
      run: tampered((m) => {
        m.attempts[0]!.started_at = '2026-09-14T11:59:59.999Z';
      }),
      expect: [{ code: 'ATTEMPT_BEFORE_FREEZE', file: 'attempts.jsonl', line: 1, count: 1 }],
      status: 'invalid',
    },
    {
      name: 'an attempt that ended before it started',
      run: tampered((m) => {
        m.attempts[3]!.ended_at = '2026-09-15T08:03:01.999Z';
      }),
      expect: [{ code: 'ATTEMPT_BEFORE_FREEZE', file: 'attempts.jsonl', line: 4, count: 1 }],
      status: 'invalid',
    },
  ],
  UNACCOUNTED_SLOT: [
    {
      name: 'a slot without an attempt: warning, verified',
      run: tampered((m) => {
        m.attempts.splice(3, 1);
      }),
      expect: [{ code: 'UNACCOUNTED_SLOT', file: 'attempts.jsonl', count: 1 }],
      status: 'verified',
    },
    {
      name: 'an empty attempts.jsonl: every slot unaccounted',
      run: tampered((m) => {
        m.attempts = [];
        m.grades = [];
      }),
      expect: [{ code: 'UNACCOUNTED_SLOT', file: 'attempts.jsonl', count: 6 }],
      status: 'verified',
    },
  ],
  GRADE_UNKNOWN_ATTEMPT: [
    {
      name: 'a result for an attempt that does not exist',
      run: tampered((m) => {
        m.grades[0]!.value.results[0]!.attempt_id = 'a-999999';
      }),
      expect: [{ code: 'GRADE_UNKNOWN_ATTEMPT', file: 'grades/1.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'two results for one attempt in one generation',
      run: tampered((m) => {
        const results = m.grades[0]!.value.results;
        results.push({ ...structuredClone(results[0]!), verdict: 'fail' });
      }),
      expect: [{ code: 'GRADE_UNKNOWN_ATTEMPT', file: 'grades/1.json', count: 1 }],
      status: 'invalid',
    },
  ],
  GRADER_NOT_PINNED: [
    {
      name: "generation 1's grader version is not the plan's",
      run: tampered((m) => {
        m.grades[0]!.value.grader.version = '1.2.1';
      }),
      expect: [{ code: 'GRADER_NOT_PINNED', file: 'grades/1.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: "generation 1's grader executable is not the plan's",
      run: tampered((m) => {
        m.grades[0]!.value.grader.executable = OTHER_DIGEST;
      }),
      expect: [{ code: 'GRADER_NOT_PINNED', file: 'grades/1.json', count: 1 }],
      status: 'invalid',
    },
  ],
  GENERATION_GAP: [
    {
      name: 'generations 1 and 3',
      run: tampered((m) => {
        m.grades.push({ name: '3.json', value: { ...structuredClone(m.grades[0]!.value), generation: 3 } });
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/3.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'only generation 2',
      run: tampered((m) => {
        m.grades[0] = { name: '2.json', value: { ...m.grades[0]!.value, generation: 2 } };
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/2.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a leading zero: grades/01.json',
      run: tampered((m) => {
        m.grades[0]!.name = '01.json';
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/01.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a name that is not a number: grades/x.json',
      run: tampered((m) => {
        m.grades.push({ name: 'x.json', value: structuredClone(m.grades[0]!.value) });
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/x.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a file under grades/ that is not JSON',
      run: tampered((m) => {
        m.extra.set('grades/README.txt', bytesOf('regrades go here\n'));
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/README.txt', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'a nested grades/old/1.json',
      run: tampered((m) => {
        m.grades.push({ name: 'old/1.json', value: structuredClone(m.grades[0]!.value) });
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/old/1.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'grades/2.json says generation 3',
      run: tampered((m) => {
        m.grades.push({ name: '2.json', value: { ...structuredClone(m.grades[0]!.value), generation: 3 } });
      }),
      expect: [{ code: 'GENERATION_GAP', file: 'grades/2.json', count: 1 }],
      status: 'invalid',
    },
  ],
  GRANT_MISMATCH: [
    {
      name: 'per_attempt_micros not echoed',
      run: tampered((m) => {
        m.grant!.per_attempt_micros = 3_333_334;
      }),
      expect: [{ code: 'GRANT_MISMATCH', file: 'grant.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'another plan_id',
      run: tampered((m) => {
        m.grant!.plan_id = OTHER_DIGEST;
      }),
      expect: [{ code: 'GRANT_MISMATCH', file: 'grant.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'models out of plan order',
      run: tampered((m) => {
        m.grant!.models = [BASELINE.model, CANDIDATE.model];
      }),
      expect: [{ code: 'GRANT_MISMATCH', file: 'grant.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'another currency',
      run: tampered((m) => {
        m.grant!.currency = 'EUR';
      }),
      expect: [{ code: 'GRANT_MISMATCH', file: 'grant.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: 'attempts starting at or after expiry (lines 4, 5, 6)',
      run: tampered((m) => {
        m.grant!.expires_at = m.attempts[3]!.started_at;
      }),
      expect: [4, 5, 6].map((line) => ({ code: 'GRANT_MISMATCH' as const, file: 'attempts.jsonl', line, count: 1 })),
      status: 'invalid',
    },
  ],
  // Found by re-deriving an import (import/rederive.ts), which verifyDirectory runs after verifyBundle on an imported bundle that verifies.
  IMPORT_MISMATCH: [
    {
      name: 'a demo Inspect import with every grade flipped to pass, resealed',
      run: async () => {
        const files = await bundleFiles(DEMO_INSPECT);
        flipGradesToPass(files);
        return (await verifyDirectory(await writeImported(files))).verification;
      },
      expect: [{ code: 'IMPORT_MISMATCH', file: 'grades/1.json', count: 1 }],
      status: 'invalid',
    },
  ],
  IMPORT_NOT_REPRODUCED: [
    {
      name: 'a demo Inspect import claiming ledgerboard 9.9.9, resealed',
      run: async () => {
        const files = await bundleFiles(DEMO_INSPECT);
        claimTool(files, { name: 'ledgerboard', version: '9.9.9' });
        return (await verifyDirectory(await writeImported(files))).verification;
      },
      expect: [{ code: 'IMPORT_NOT_REPRODUCED', file: 'plan.json', count: 1 }],
      status: 'verified',
    },
  ],
  ASSESSMENT_UNKNOWN_SUBJECT: [
    {
      name: 'an assessment of a model the plan does not run',
      run: tampered((model) => withAssessments(model, [{ subject: { model: 'acme/other-2026-01-01', agent: { ...CANDIDATE.agent } } }])),
      expect: [{ code: 'ASSESSMENT_UNKNOWN_SUBJECT', file: 'assessments.json', count: 1 }],
      status: 'invalid',
    },
    {
      name: "the plan's model with another agent version (a subject is model + agent name + version)",
      run: tampered((model) => withAssessments(model, [{}, { subject: { model: CANDIDATE.model, agent: { name: 'loop', version: '3.1.1' } } }])),
      expect: [{ code: 'ASSESSMENT_UNKNOWN_SUBJECT', file: 'assessments.json', count: 1 }],
      status: 'invalid',
    },
  ],
  ASSESSMENT_BASIS_MISSING: [
    {
      name: 'a basis the manifest does not list (and no such file): no_verdict',
      run: tampered((model) => withAssessments(model, [{ basis: 'artifacts/assessments/absent.md' }])),
      expect: [{ code: 'ASSESSMENT_BASIS_MISSING', file: 'assessments.json', count: 1 }],
      status: 'no_verdict',
    },
    {
      name: 'a basis naming manifest.json, which the manifest never lists',
      run: tampered((model) => withAssessments(model, [{ basis: 'manifest.json' }])),
      expect: [{ code: 'ASSESSMENT_BASIS_MISSING', file: 'assessments.json', count: 1 }],
      status: 'no_verdict',
    },
  ],
  ANCHOR_UNREADABLE: [
    {
      name: 'a time-stamp token cut short by ten bytes',
      run: anchored((hex) => tokenAt(testTsa(), hex, '2030-09-14T13:00:00Z').subarray(0, -10)),
      expect: [{ code: 'ANCHOR_UNREADABLE', file: 'anchors/tsa.tsr', count: 1 }],
      status: 'invalid',
    },
  ],
  ANCHOR_MISMATCH: [
    {
      name: "a time-stamp token over another plan's id",
      run: anchored(() => tokenAt(testTsa(), digestBytes('another plan').slice(7), '2030-09-14T13:00:00Z')),
      expect: [{ code: 'ANCHOR_MISMATCH', file: 'anchors/tsa.tsr', count: 1 }],
      status: 'invalid',
    },
  ],
  ANCHOR_AFTER_ATTEMPT: [
    {
      name: 'a time-stamp token at the first attempt\'s start (not strictly before it)',
      run: anchored((hex) => tokenAt(testTsa(), hex, FUTURE_FIRST_START)),
      expect: [{ code: 'ANCHOR_AFTER_ATTEMPT', file: 'anchors/tsa.tsr', count: 1 }],
      status: 'verified',
    },
  ],
  ANCHOR_BEFORE_CREATED: [
    {
      name: "a time-stamp token one second before the plan's created_at",
      run: anchored((hex) => tokenAt(testTsa(), hex, '2030-09-14T11:59:59Z')),
      expect: [{ code: 'ANCHOR_BEFORE_CREATED', file: 'anchors/tsa.tsr', count: 1 }],
      status: 'verified',
    },
  ],
} satisfies Record<Exclude<FindingCode, 'LIMIT_EXCEEDED' | 'REWRITTEN_EVIDENCE' | 'INTERNAL_ERROR'>, Case[]>;

/**
 * Adds assessments.json (FORMAT.md 11.2) to a model, listed like every file:
 * one valid assessment of the candidate per entry, with the entry's members
 * over it (indicators numbered, so no two are one pair).
 */
function withAssessments(model: BundleModel, entries: Record<string, unknown>[]): void {
  const assessments = entries.map((over, i) => ({
    indicator: `indicator_${i}`,
    subject: { model: CANDIDATE.model, agent: { ...CANDIDATE.agent } },
    level: 'supported',
    by: 'red team, example.org',
    ...over,
  }));
  model.extra.set('assessments.json', bytesOf(`${JSON.stringify({ schema: 'ledgerboard.assessments.v1', assessments }, null, 2)}\n`));
}

function check(result: BundleVerification, c: Case): void {
  for (const f of result.findings) {
    expect(f.severity, `${f.code} severity`).toBe(FINDING_CODES[f.code].severity);
  }
  for (const want of c.expect) {
    const matching = result.findings.filter((f) => f.code === want.code && f.file === want.file && (want.line === undefined || f.line === want.line));
    if (want.count === undefined) expect(matching.length, `${want.code} in ${want.file}`).toBeGreaterThan(0);
    else expect(matching.length, `${want.code} in ${want.file}`).toBe(want.count);
  }
  if (c.exact ?? true) {
    expect([...new Set(result.findings.map((f) => f.code))].sort()).toEqual([...new Set(c.expect.map((e) => e.code))].sort());
  }
  expect(result.status).toBe(c.status);
}

describe('the valid bundle', () => {
  it('verifies with no finding, from disk and in memory', async () => {
    const fromDisk = await verifyModel(validBundle());
    expect(fromDisk.findings).toEqual([]);
    expect(fromDisk.status).toBe('verified');
    expect(verifyInMemory(validBundle()).status).toBe('verified');
    const sealed = sealBundle(validBundle());
    expect(fromDisk.plan_id).toBe(sealed.planId);
    expect(fromDisk.bundle_id).toBe(JSON.parse(Buffer.from(sealed.manifest).toString('utf8')).bundle_id);
  });

  it('the in-memory snapshot equals what readBundle reads from disk', async () => {
    const dir = await writeModel(validBundle());
    const fromDisk = await readBundle(dir);
    const inMemory = snapshotOf(validBundle());
    const normalize = (entries: typeof fromDisk.entries) =>
      entries.map((e) => ({ ...e, content: e.content === undefined ? undefined : Buffer.from(e.content).toString('hex') }));
    expect(normalize(inMemory.entries)).toEqual(normalize(fromDisk.entries));
  });
});

describe('one tampered bundle per finding code', () => {
  // Codes of one bundle alone; LIMIT_EXCEEDED, REWRITTEN_EVIDENCE and INTERNAL_ERROR (a `stage`) have fixtures of their own (test/docs.test.ts checks).
  const codes = (Object.keys(FINDING_CODES) as FindingCode[]).filter((code) => !('stage' in FINDING_CODES[code]));
  const cases: Partial<Record<string, Case[]>> = CASES;

  it('every code of the catalog has a case', () => {
    const missing = codes.filter((code) => (cases[code]?.length ?? 0) === 0);
    expect(missing, 'codes without a tampered-bundle case').toEqual([]);
    expect(Object.keys(cases).filter((code) => !(code in FINDING_CODES))).toEqual([]);
  });

  for (const code of codes) {
    describe(code, () => {
      for (const c of cases[code] ?? []) {
        it(c.name, async () => check(await c.run(), c), c.timeout);
      }
    });
  }
});

describe('PATH_COLLISION beyond its fixtures', () => {
  it('a bundle holding NOTES.md and notes.md gets the warning and stays verified', async () => {
    const model = validBundle();
    model.extra.set('notes.md', bytesOf('lower case'));
    const result = await verifyModel(model);
    expect(result.findings.map((f) => [f.code, f.severity, f.file])).toEqual([['PATH_COLLISION', 'warning', 'NOTES.md']]);
    expect(result.status).toBe('verified');
  });

  it('many colliding groups: the first 100 listed, the rest counted in one more', () => {
    const model = validBundle();
    for (let i = 0; i < 150; i++) {
      model.extra.set(`logs/x${i}.txt`, bytesOf(`${i}`));
      model.extra.set(`logs/X${i}.txt`, bytesOf(`${i}`));
    }
    const found = verifyInMemory(model).findings.filter((f) => f.code === 'PATH_COLLISION');
    expect(found).toHaveLength(101);
    expect(found[100]!.file).toBe('.');
  });
});

describe('FORMAT.md rules beyond single codes', () => {
  it('3.2: 20,000,000 micros over 6 dispatches is 3,333,333 per attempt; six such costs verify', async () => {
    const model = validBundle();
    expect(model.plan.budget).toMatchObject({ aggregate_micros: 20_000_000, per_attempt_micros: 3_333_333 });
    expect(model.plan.ledger.tasks * model.plan.subjects.length * model.plan.attempts).toBe(6);
    for (const a of model.attempts) a.cost = { state: 'complete', micros: 3_333_333 };
    const result = await verifyModel(model);
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('verified');
    expect(6 * 3_333_333).toBe(19_999_998);
  });

  it('an aggregate giving exactly one micro per dispatch is not ZERO_SHARE', async () => {
    const model = validBundle();
    model.plan.budget!.aggregate_micros = 6;
    model.plan.budget!.per_attempt_micros = 1;
    for (const a of model.attempts) if (a.cost.micros !== null) a.cost = { state: 'zero', micros: 0 };
    const result = await verifyModel(model);
    expect(result.findings).toEqual([]);
  });

  // FORMAT.md 3.2: "OVER_CEILING is not evaluated against the broken ceiling": the per-attempt
  // ceiling is broken, the aggregate is not, so only the sum is still held to it.
  it('OVER_CEILING is not evaluated against a broken per-attempt ceiling (CEILING_ARITHMETIC); the sum still is', async () => {
    const model = validBundle();
    model.plan.budget!.per_attempt_micros = 1;
    for (const a of model.attempts) a.cost = { state: 'complete', micros: 5_000_000 };
    const result = await verifyModel(model);
    expect(result.findings.map((f) => [f.code, f.line])).toEqual([
      ['CEILING_ARITHMETIC', undefined],
      ['OVER_CEILING', undefined],
    ]);
  });

  it('OVER_CEILING is not evaluated against a broken per-attempt ceiling (ZERO_SHARE); the sum still is', async () => {
    const model = validBundle();
    model.plan.budget!.aggregate_micros = 1;
    model.plan.budget!.per_attempt_micros = 0;
    for (const a of model.attempts) a.cost = { state: 'complete', micros: 5_000_000 };
    const result = await verifyModel(model);
    expect(result.findings.map((f) => [f.code, f.line])).toEqual([
      ['ZERO_SHARE', undefined],
      ['OVER_CEILING', undefined],
    ]);
  });

  it('within the aggregate, a broken per-attempt ceiling gives no OVER_CEILING at all', async () => {
    const model = validBundle();
    model.plan.budget!.per_attempt_micros = 1;
    for (const a of model.attempts) if (a.cost.micros !== null) a.cost = { state: 'complete', micros: 100 };
    const result = await verifyModel(model);
    expect(result.findings.map((f) => f.code)).toEqual(['CEILING_ARITHMETIC']);
  });

  it('unavailable costs are never summed; consistent states give no finding', async () => {
    const model = validBundle();
    const states = [
      { state: 'zero', micros: 0 },
      { state: 'unavailable', micros: null },
      { state: 'not_applicable', micros: null },
      { state: 'partial', micros: 0 },
      { state: 'complete', micros: 0 },
      { state: 'complete', micros: 3_333_333 },
    ] as const;
    model.attempts.forEach((a, i) => {
      a.cost = { ...states[i]! };
    });
    expect((await verifyModel(model)).findings).toEqual([]);
  });

  it('"before" and "after" are strict: equal instants are neither', async () => {
    const model = validBundle();
    model.ledger[0]!.created_at = '2026-09-14T12:00:00.000Z'; // equal to the freeze, other spelling
    model.attempts[0]!.started_at = '2026-09-14T12:00:00.0Z'; // starts at the freeze
    model.attempts[0]!.ended_at = model.attempts[0]!.started_at; // ends as it starts
    model.grant!.expires_at = '2026-09-15T08:05:02.001Z'; // just after the last start
    const result = await verifyModel(model);
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('verified');
  });

  it('one model with two agents is two subjects, not DUPLICATE_SUBJECT', async () => {
    const model = validBundle();
    model.plan.subjects.push({ selector: ':mini@4', model: CANDIDATE.model, agent: { name: 'loop', version: '4.0.0' }, role: 'candidate' });
    rebudget(model);
    model.attempts[5]!.cost = { state: 'complete', micros: 1 };
    const result = await verifyModel(model);
    expect(result.findings.map((f) => f.code)).toEqual(['UNACCOUNTED_SLOT', 'UNACCOUNTED_SLOT', 'UNACCOUNTED_SLOT']);
    expect(result.status).toBe('verified');
  });

  it('a later generation may use another grader (a regrade appends)', async () => {
    const model = validBundle();
    const regrade = structuredClone(model.grades[0]!.value);
    regrade.generation = 2;
    regrade.grader = { id: 'oracle', version: '2.0.0', executable: digestBytes('oracle 2') };
    model.grades.push({ name: '2.json', value: regrade });
    const result = await verifyModel(model);
    expect(result.findings).toEqual([]);
    expect(result.evidence.grades.map((g) => g.path)).toEqual(['grades/1.json', 'grades/2.json']);
  });

  it('the integer-token rule is for plan.json and manifest.json only: "generation": 1e0 is fine in a grades file', async () => {
    const model = validBundle();
    const text = Buffer.from(prettyJson(model.grades[0]!.value)).toString('utf8');
    const result = await verifyModel(model, { raw: { 'grades/1.json': replaceOnce(text, '"generation": 1', '"generation": 1e0') } });
    expect(result.findings).toEqual([]);
  });

  it('1: a plan number -0 is SCHEMA_VIOLATION (jq would hash it as -0, RFC 8785 as 0), and the plan_id is not re-derived over it', async () => {
    const model = validBundle();
    model.plan.seed = 0;
    const text = replaceOnce(planText(model), '"seed": 0', '"seed": -0');
    const result = await verifyModel(model, { raw: { 'plan.json': text } });
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([['SCHEMA_VIOLATION', 'plan.json']]);
    expect(result.status).toBe('invalid');
    // 0 itself is fine.
    expect((await verifyModel(model)).findings).toEqual([]);
  });

  describe('imported evidence (origin.kind "imported")', () => {
    function imported(): BundleModel {
      const model = validBundle();
      const source = addArtifact(model, 'source/eval-log.json', '{"eval":{"task":"widget-bugs"}}\n');
      model.plan.origin = { kind: 'imported', format: 'inspect-eval-log', source, tool: { name: 'ledgerboard', version: '0.3.0' } };
      model.plan.budget = null;
      model.grant = null;
      // The run's own start, as the source records it: after the labels and after the attempts.
      model.plan.created_at = '2026-09-16T00:00:00Z';
      model.ledger[0]!.created_at = '2026-09-16T06:00:00Z'; // labelled after the run
      for (const a of model.attempts) a.cost = { state: 'complete', micros: 99_999_999 };
      return model;
    }

    it('skips LABELLED_AFTER_FREEZE, ATTEMPT_BEFORE_FREEZE (against the freeze) and the money checks', async () => {
      const result = await verifyModel(imported());
      expect(result.findings).toEqual([]);
      expect(result.status).toBe('verified');
    });

    it('the same evidence, frozen, is flagged', async () => {
      const model = imported();
      delete model.plan.origin;
      model.plan.budget = { currency: 'USD', aggregate_micros: 20_000_000, per_attempt_micros: 3_333_333, timeout_seconds: 1800 };
      const codes = new Set((await verifyModel(model)).findings.map((f) => f.code));
      expect([...codes].sort()).toEqual(['ATTEMPT_BEFORE_FREEZE', 'LABELLED_AFTER_FREEZE', 'OVER_CEILING']);
    });

    // FORMAT.md 9: "ATTEMPT_BEFORE_FREEZE [is] not evaluated" for imported evidence, in both of its senses.
    it('ATTEMPT_BEFORE_FREEZE is not evaluated at all, even for an attempt that ends before it starts', async () => {
      const model = imported();
      model.attempts[2]!.ended_at = '2026-09-15T08:00:00Z';
      const result = await verifyModel(model);
      expect(result.findings).toEqual([]);
    });

    it('a grant for a plan without a budget is GRANT_MISMATCH', async () => {
      const model = imported();
      model.grant = { schema: 'ledgerboard.grant.v1', plan_id: '', models: [CANDIDATE.model, BASELINE.model], currency: 'USD', aggregate_micros: 1, per_attempt_micros: 1, expires_at: '2027-01-01T00:00:00Z' };
      const sealed = sealBundle(model);
      model.grant.plan_id = sealed.planId;
      const result = await verifyModel(model);
      expect(result.findings.map((f) => [f.code, f.file])).toEqual([['GRANT_MISMATCH', 'grant.json']]);
    });
  });

  describe('status precedence', () => {
    it('MISSING_FILE with an UNKNOWN_MEMBER is invalid', async () => {
      const model = validBundle();
      loose(model.plan).replicas = 3;
      const result = await verifyModel(model, { remove: ['NOTES.md'] });
      expect(new Set(result.findings.map((f) => f.code))).toEqual(new Set(['MISSING_FILE', 'UNKNOWN_MEMBER']));
      expect(result.status).toBe('invalid');
    });

    it('MISSING_FILE with a warning is no_verdict', async () => {
      const model = validBundle();
      model.ledger[0]!.license = '';
      const result = await verifyModel(model, { remove: ['NOTES.md'] });
      expect(new Set(result.findings.map((f) => f.code))).toEqual(new Set(['MISSING_FILE', 'MISSING_LICENSE']));
      expect(result.status).toBe('no_verdict');
    });

    it('warnings alone are verified: MISSING_LICENSE, OVER_CEILING and UNACCOUNTED_SLOT together', async () => {
      const model = validBundle();
      model.ledger[1]!.license = '';
      model.attempts[0]!.cost = { state: 'complete', micros: 9_999_999 };
      model.attempts.splice(3, 1);
      const result = await verifyModel(model);
      expect(new Set(result.findings.map((f) => f.code))).toEqual(new Set(['MISSING_LICENSE', 'OVER_CEILING', 'UNACCOUNTED_SLOT']));
      expect(result.findings.every((f) => f.severity === 'warning')).toBe(true);
      expect(result.status).toBe('verified');
    });
  });

  it('collects findings across many files at once, never stopping at the first', async () => {
    const model = validBundle();
    loose(model.plan).replicas = 3; // plan.json
    model.ledger[2]!.license = ''; // ledger.jsonl
    model.attempts[1]!.observed_model = 'acme/other'; // attempts.jsonl line 2
    model.attempts[4]!.observed_model = 'acme/other'; // attempts.jsonl line 5
    model.grades[0]!.value.grader.version = '9'; // grades/1.json
    model.grant!.currency = 'EUR'; // grant.json
    const outside = join(await makeTempDir(), 'x');
    await writeFile(outside, 'x');
    const result = await verifyModel(model, {
      after: { 'logs/unlisted.log': 'x' },
      symlinks: { 'artifacts/link': outside },
      remove: ['artifacts/grading/a-000001/output.txt'],
    });
    const got = result.findings.map((f) => `${f.code} ${f.file}${f.line === undefined ? '' : `:${f.line}`}`);
    expect(got).toEqual(
      expect.arrayContaining([
        'UNKNOWN_MEMBER plan.json',
        'MISSING_LICENSE ledger.jsonl:3',
        'IDENTITY_MISMATCH attempts.jsonl:2',
        'IDENTITY_MISMATCH attempts.jsonl:5',
        'GRADER_NOT_PINNED grades/1.json',
        'GRANT_MISMATCH grant.json',
        'UNLISTED_FILE logs/unlisted.log',
        'NOT_REGULAR_FILE artifacts/link',
        'MISSING_FILE artifacts/grading/a-000001/output.txt',
        'MISSING_ARTIFACT grades/1.json',
      ]),
    );
    expect(result.status).toBe('invalid');
  });

  // SRC BUG (src/evidence/read-bundle.ts, walk; src/verify/check-files.ts, checkEntries):
  // the walk gives every entry whose name is not valid UTF-8 the kind 'unknown',
  // so checkEntries' branch "entry.kind === 'file' ? 'UNLISTED_FILE'" can never
  // fire and a plain regular file is reported NOT_REGULAR_FILE. FORMAT.md section
  // 6: UNLISTED_FILE is "a file on disk is not in the manifest"; NOT_REGULAR_FILE
  // is "a symlink, device, socket ..." (and docs/format-decisions.md says the
  // same). The status (invalid) is right; the code is not.
  it('a regular file whose name is not valid UTF-8 is UNLISTED_FILE', async () => {
    const dir = await writeModel(validBundle());
    await writeFile(Buffer.concat([Buffer.from(join(dir, 'bad-')), Buffer.from([0xff]), Buffer.from('.txt')]), 'x');
    const result = await verifyDir(dir);
    expect(result.status).toBe('invalid');
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([['UNLISTED_FILE', 'bad-\ufffd.txt']]);
  });

  it('a directory whose name is not valid UTF-8 is NOT_REGULAR_FILE and never entered', async () => {
    const dir = await writeModel(validBundle());
    const bad = Buffer.concat([Buffer.from(join(dir, 'dir-')), Buffer.from([0xfe])]);
    await mkdir(bad);
    await writeFile(Buffer.concat([bad, Buffer.from('/inner.txt')]), 'x');
    const result = await verifyDir(dir);
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([['NOT_REGULAR_FILE', 'dir-\ufffd']]);
    expect(result.status).toBe('invalid');
  });

  describe('a structured file truncated inside a string', () => {
    /** Verifies, in a child process, the valid bundle with plan.json cut `offset` characters after `"title": "`. */
    function truncatedPlan(cutAfterTitle: boolean, timeoutMs: number) {
      return runIsolatedAsync(`
        import { sealBundle, validBundle, verifyInMemory } from ${JSON.stringify(repoUrl('test/helpers/bundle-builder.ts'))};
        import { prettyJson } from ${JSON.stringify(repoUrl('src/evidence/seal.ts'))};
        const model = validBundle();
        const text = Buffer.from(prettyJson(sealBundle(model).plan)).toString('utf8');
        const at = ${cutAfterTitle ? `text.indexOf('"title": "') + 14` : `text.indexOf('"seed"')`};
        const result = verifyInMemory(model, { raw: { 'plan.json': text.slice(0, at) } });
        process.stdout.write(JSON.stringify({ status: result.status, findings: result.findings.map((f) => [f.code, f.file, f.line ?? null]) }));
      `, timeoutMs);
    }
    const titleLine = lineOf(planText(validBundle()), '"title"');
    const seedLine = lineOf(planText(validBundle()), '"seed"');

    it('(control) cut between members: BAD_JSON, and the isolated run returns', async () => {
      const run = await truncatedPlan(false, 30_000);
      expect(run.timedOut).toBe(false);
      expect(JSON.parse(run.stdout)).toEqual({ status: 'invalid', findings: [['BAD_JSON', 'plan.json', seedLine]] });
    });

    // Regression: verifyBundle once never returned for a plan.json ending inside a string.
    it('cut inside the title: BAD_JSON on the title line, not an endless loop', async () => {
      const run = await truncatedPlan(true, 4_000);
      expect(run.timedOut, 'verifyBundle did not return').toBe(false);
      expect(JSON.parse(run.stdout)).toEqual({ status: 'invalid', findings: [['BAD_JSON', 'plan.json', titleLine]] });
    });
  });

  describe('verifyBundle never throws on a manifest.json that is not an object', () => {
    for (const [label, text] of [
      ['an array', '[]'],
      ['an array of entries', '[{"path":"plan.json"}]'],
      ['a number', '42'],
      ['null', 'null'],
      ['a string', '"manifest"'],
      ['an empty object', '{}'],
      ['empty', ''],
      ['whitespace', ' \n'],
    ] as const) {
      it(label, () => {
        const result = verifyInMemory(validBundle(), { manifestRaw: text });
        expect(result.status).toBe('invalid');
        const codes = result.findings.filter((f) => f.file === 'manifest.json').map((f) => f.code);
        expect(codes.some((c) => c === 'BAD_JSON' || c === 'SCHEMA_VIOLATION')).toBe(true);
        expect(result.bundle_id).toBeNull();
      });
    }
  });

  // Regression: a manifest.json that is a directory once gave `verified` with no
  // manifest check run (FORMAT.md section 2: "manifest.json required").
  it('a manifest.json that is a directory is MISSING_FILE (no_verdict), never verified', async () => {
    const result = await verifyModel(validBundle(), { remove: ['manifest.json'], dirs: ['manifest.json'] });
    expect(result.findings.filter((f) => f.file === 'manifest.json').map((f) => f.code)).toContain('MISSING_FILE');
    expect(result.status).not.toBe('verified');
  });

  it('the manifest is written canonically: every byte of a sealed bundle is significant', async () => {
    const dir = await writeModel(validBundle());
    const manifest = await readFile(join(dir, 'manifest.json'), 'utf8');
    expect(manifest).not.toMatch(/\s/);
    expect(manifest.endsWith('}')).toBe(true);
  });
});

it('the valid bundle holds the files of FORMAT.md section 2, every one listed', () => {
  const sealed = sealBundle(validBundle());
  const paths = [...sealed.disk.keys()];
  for (const path of ['manifest.json', 'plan.json', 'ledger.jsonl', 'attempts.jsonl', 'grades/1.json', 'grant.json', 'NOTES.md']) {
    expect(paths).toContain(path);
  }
  expect(paths.some((p) => p.startsWith('artifacts/'))).toBe(true);
  const listed = (JSON.parse(Buffer.from(sealed.manifest).toString('utf8')) as { files: { path: string }[] }).files.map((f) => f.path);
  expect(listed).toEqual(paths.filter((p) => p !== 'manifest.json').sort(compareUtf8));
});
