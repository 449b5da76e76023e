/**
 * Test helper: a small valid evidence bundle as an in-memory model that a test
 * mutates, then seals (ledger digest in the plan, plan_id, manifest) and either
 * writes to a fresh temporary directory with `writeBundle` or turns into an
 * in-memory {@link BundleSnapshot}. Seal options let a tamper survive sealing
 * (bytes written after the manifest, a manifest edited afterwards, unlisted
 * files, symbolic links, FIFOs, removed files).
 *
 * The valid model is the FORMAT.md section 3.2 example: 3 tasks x 2 subjects x
 * 1 attempt = 6 dispatches, aggregate 20,000,000 micros, 3,333,333 per attempt.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { canonicalJson, digestBytes, selfId } from '../../src/json/canonical.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { readBundle, isStructuredPath, type BundleSnapshot, type EntryKind, type SnapshotEntry } from '../../src/evidence/read-bundle.ts';
import { buildManifest, jsonlBytes, prettyJson, withSelfId, writeBundle } from '../../src/evidence/seal.ts';
import type { Attempt, Grades, LedgerRecord, Plan } from '../../src/schema/index.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';

/** Marks a grant member that sealing fills in from the plan (so the grant echoes it). */
export const ECHO = Symbol('echo the plan');

/** A grading generation file: its name under grades/ and its object. */
export interface GradesModel {
  name: string;
  value: Grades;
}

/** Everything a bundle holds, as values a test may mutate before sealing. */
export interface BundleModel {
  plan: Plan;
  ledger: LedgerRecord[];
  attempts: Attempt[];
  grades: GradesModel[];
  /** Artifact files by bundle path (patches, grader inputs, outputs, receipts). */
  artifacts: Map<string, Uint8Array>;
  /** grant.json members; {@link ECHO} members are filled from the sealed plan. Null: no grant. */
  grant: Record<string, unknown> | null;
  /** NOTES.md text, or null for none. */
  notes: string | null;
  /** Other listed files (a README, logs). */
  extra: Map<string, Uint8Array>;
}

/** Ways to let a tamper survive sealing. Paths are bundle-relative. */
export interface SealOptions {
  /** Keep plan.ledger.digest as the model has it (default: set to the digest of ledger.jsonl). */
  keepLedgerDigest?: boolean;
  /** Keep plan.plan_id as the model has it (default: re-derive with withSelfId). */
  keepPlanId?: boolean;
  /** Replace a file's bytes before sealing (the manifest covers these bytes). */
  raw?: Record<string, Uint8Array | string>;
  /** The plan id the manifest names (default: the sealed plan's). */
  manifestPlanId?: string;
  /** Edit the manifest object after sealing; bundle_id is re-derived unless keepBundleId. */
  editManifest?: (manifest: ManifestObject) => void;
  /** With editManifest: keep the old bundle_id. */
  keepBundleId?: boolean;
  /** Replace manifest.json's bytes entirely, after sealing. */
  manifestRaw?: Uint8Array | string;
  /** Write these bytes after sealing (an existing path changes; a new path is unlisted). */
  after?: Record<string, Uint8Array | string>;
  /** Delete these paths after sealing (manifest.json included, if named). */
  remove?: string[];
  /** Create these (empty) directories after sealing. */
  dirs?: string[];
  /** Create symbolic links after sealing (path -> absolute target), replacing any file there. Disk only. */
  symlinks?: Record<string, string>;
  /** Create FIFOs after sealing with mkfifo, replacing any file there. Disk only. */
  fifos?: string[];
  /** Non-regular entries to add to an in-memory snapshot (replacing any file there). Snapshot only. */
  specialEntries?: Record<string, EntryKind>;
}

/** The manifest as a mutable object. */
export interface ManifestObject {
  schema: unknown;
  bundle_id: unknown;
  plan_id: unknown;
  files: { path: unknown; sha256: unknown; bytes: unknown }[];
  [member: string]: unknown;
}

/** A sealed bundle: listed files, the manifest, and the final regular files (what a reader would see). */
export interface SealedBundle {
  plan: Plan;
  planId: string;
  /** Files as sealed into the manifest (manifest.json excluded). */
  files: Map<string, Uint8Array>;
  /** The final manifest bytes (after edits). */
  manifest: Uint8Array;
  /** Every regular file in the final bundle, manifest.json included, after the post-seal options. */
  disk: Map<string, Uint8Array>;
}

export const PLAN_CREATED_AT = '2026-09-14T12:00:00Z';
export const CANDIDATE = { selector: ':mini', model: 'acme/mini-2026-08-01', agent: { name: 'loop', version: '3.1.0' }, role: 'candidate' } as const;
export const BASELINE = {
  selector: 'acme/base-2025-01-01',
  model: 'acme/base-2025-01-01',
  agent: { name: 'loop', version: '3.1.0' },
  role: 'baseline',
} as const;
export const GRADER = { id: 'oracle', version: '1.2.0', executable: digestBytes('oracle 1.2.0 executable') };
export const GRANT_EXPIRES_AT = '2026-09-30T00:00:00Z';
export const NOTES_TEXT = '# Notes\n\nThe publisher\'s *untrusted* notes. <b>not html</b>\n';

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (or the bytes themselves). */
export function bytesOf(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

/** A value seen as a loose JSON object, for tampering with members the types do not allow. */
export function loose(value: object): Record<string, unknown> {
  return value as Record<string, unknown>;
}

/** A fresh valid model (every call returns new objects). */
export function validBundle(): BundleModel {
  const tasks: LedgerRecord[] = [
    {
      task_id: 'ledger-0001',
      repo: 'https://example.com/org/widget.git',
      base_sha: '8f3c1a9e0b7d4c2a1f6e5d4c3b2a190817263544',
      prompt_sha256: digestBytes('prompt 1'),
      failing_tests: ['tests/test_queue.py::test_drain'],
      failing_assertion: 'assert queue.drain() == []',
      oracle_sha256: digestBytes('oracle 1'),
      license: 'MIT',
      difficulty: 'B',
      holdout: true,
      cluster_id: 'queue-drain',
      created_at: '2026-09-14T00:00:00Z',
    },
    {
      task_id: 'ledger-0002',
      repo: 'https://example.com/org/widget.git',
      base_sha: '1111111111111111111111111111111111111111',
      prompt_sha256: digestBytes('prompt 2'),
      failing_tests: ['tests/test_queue.py::test_peek'],
      failing_assertion: 'assert queue.peek() is None',
      oracle_sha256: digestBytes('oracle 2'),
      license: 'Apache-2.0',
      difficulty: 'A',
      holdout: true,
      cluster_id: 'queue-peek',
      created_at: '2026-09-14T01:00:00.5Z',
    },
    {
      task_id: 'ledger-0003',
      repo: null,
      base_sha: null,
      prompt_sha256: digestBytes('prompt 3'),
      failing_tests: null,
      failing_assertion: null,
      oracle_sha256: null,
      license: 'CC-BY-4.0',
      difficulty: null,
      holdout: false,
      cluster_id: 'qa-capital',
      created_at: PLAN_CREATED_AT,
    },
  ];
  const subjects = [CANDIDATE, BASELINE].map((s) => ({ ...s, agent: { ...s.agent } }));
  const plan: Plan = {
    schema: 'ledgerboard.plan.v1',
    plan_id: `sha256:${'0'.repeat(64)}`,
    title: 'widget-bugs bake-off, September',
    created_at: PLAN_CREATED_AT,
    ledger: { name: 'widget-bugs', digest: `sha256:${'0'.repeat(64)}`, tasks: tasks.length },
    environment: {
      tool_policy: digestBytes('tool policy'),
      wiki: [{ path: 'docs/guide.md', sha256: digestBytes('guide') }],
      isolation: 'isolated-git-objects; same-user host; no container',
      session_topology: 'single-session',
    },
    harness: { name: 'yylo-benchmark', version: '0.1.0-rc.7', commit: '0123456789abcdef0123456789abcdef01234567' },
    grader: { profile: 'pytest-oracle', ...GRADER },
    subjects,
    attempts: 1,
    budget: { currency: 'USD', aggregate_micros: 20_000_000, per_attempt_micros: 3_333_333, timeout_seconds: 1800 },
    access_tier: 'black_box',
    seed: 7,
  };

  const artifacts = new Map<string, Uint8Array>();
  const addArtifact = (path: string, text: string): string => {
    const bytes = encoder.encode(text);
    artifacts.set(path, bytes);
    return digestBytes(bytes);
  };
  const costs: Attempt['cost'][] = [
    { state: 'complete', micros: 812_345 },
    { state: 'partial', micros: 1_000 },
    { state: 'unavailable', micros: null },
    { state: 'not_applicable', micros: null },
    { state: 'zero', micros: 0 },
    { state: 'complete', micros: 3_333_333 },
  ];
  const outcomes: Attempt['outcome'][] = ['completed', 'completed', 'completed', 'timeout', 'completed', 'completed'];
  const verdicts: ('pass' | 'fail' | 'error')[] = ['pass', 'fail', 'error', 'pass', 'pass', 'fail'];
  const attempts: Attempt[] = [];
  const results: Grades['results'] = [];
  let n = 0;
  for (const task of tasks) {
    for (const subject of subjects) {
      const k = n++;
      const id = `a-${String(k + 1).padStart(6, '0')}`;
      const patch = k === 3 ? null : addArtifact(`artifacts/patches/${id}.diff`, `--- a/queue.py\n+++ b/queue.py\n@@ ${id} @@\n`);
      attempts.push({
        attempt_id: id,
        task_id: task.task_id,
        model: subject.model,
        agent: { ...subject.agent },
        index: 1,
        observed_model: subject.model,
        outcome: outcomes[k]!,
        started_at: `2026-09-15T08:0${k}:02Z`,
        ended_at: `2026-09-15T08:0${k}:44.25Z`,
        wall_seconds: 42.25,
        tokens: k === 2 ? null : { input: 48_211 + k, output: 5_120 },
        retries: k === 1 ? 2 : 0,
        cost: { ...costs[k]! },
        patch,
      });
      if (outcomes[k] !== 'completed') continue;
      results.push({
        attempt_id: id,
        verdict: verdicts[k]!,
        input: addArtifact(`artifacts/grading/${id}/input.json`, `{"attempt":"${id}"}\n`),
        output: addArtifact(`artifacts/grading/${id}/output.txt`, `${verdicts[k]} ${id}\n`),
        receipt: addArtifact(`artifacts/grading/${id}/receipt.json`, `{"receipt":"${id}"}\n`),
      });
    }
  }
  return {
    plan,
    ledger: tasks,
    attempts,
    grades: [
      {
        name: '1.json',
        value: { schema: 'ledgerboard.grades.v1', generation: 1, created_at: '2026-09-15T09:00:00Z', grader: { ...GRADER }, results },
      },
    ],
    artifacts,
    grant: {
      schema: 'ledgerboard.grant.v1',
      plan_id: ECHO,
      models: ECHO,
      currency: ECHO,
      aggregate_micros: ECHO,
      per_attempt_micros: ECHO,
      expires_at: GRANT_EXPIRES_AT,
    },
    notes: NOTES_TEXT,
    extra: new Map(),
  };
}

/** Sets budget.per_attempt_micros to floor(aggregate / dispatches) after a test changed the matrix. */
export function rebudget(model: BundleModel): void {
  const budget = model.plan.budget;
  if (budget === null) return;
  const dispatches = model.plan.ledger.tasks * model.plan.subjects.length * model.plan.attempts;
  budget.per_attempt_micros = Math.floor(budget.aggregate_micros / dispatches);
}

/** Adds an artifact file to the model and returns its digest. */
export function addArtifact(model: BundleModel, path: string, content: Uint8Array | string): string {
  const bytes = bytesOf(content);
  model.artifacts.set(path, bytes);
  return digestBytes(bytes);
}

/** Seals a model: serializes every file, pins the ledger, re-derives plan_id and builds the manifest. */
export function sealBundle(model: BundleModel, options: SealOptions = {}): SealedBundle {
  const raw = options.raw ?? {};
  const files = new Map<string, Uint8Array>();
  const ledgerBytes = raw['ledger.jsonl'] !== undefined ? bytesOf(raw['ledger.jsonl']) : jsonlBytes(model.ledger);
  let plan: Plan = structuredClone(model.plan);
  if (!options.keepLedgerDigest) plan.ledger.digest = digestBytes(ledgerBytes);
  if (!options.keepPlanId) plan = withSelfId(plan, 'plan_id');
  files.set('plan.json', prettyJson(plan));
  files.set('ledger.jsonl', ledgerBytes);
  files.set('attempts.jsonl', jsonlBytes(model.attempts));
  for (const { name, value } of model.grades) files.set(`grades/${name}`, prettyJson(value));
  if (model.grant !== null) files.set('grant.json', prettyJson(echoGrant(model.grant, plan)));
  if (model.notes !== null) files.set('NOTES.md', encoder.encode(model.notes));
  for (const [path, bytes] of model.artifacts) files.set(path, bytes);
  for (const [path, bytes] of model.extra) files.set(path, bytes);
  for (const [path, value] of Object.entries(raw)) files.set(path, bytesOf(value));

  const planId = options.manifestPlanId ?? plan.plan_id;
  const manifestObject = buildManifest(files, planId) as unknown as ManifestObject;
  let manifest: Uint8Array = encoder.encode(canonicalJson(manifestObject));
  if (options.editManifest) {
    const edited = structuredClone(manifestObject);
    options.editManifest(edited);
    if (!options.keepBundleId) edited.bundle_id = selfId(edited, 'bundle_id');
    manifest = encoder.encode(canonicalJson(edited));
  }
  if (options.manifestRaw !== undefined) manifest = bytesOf(options.manifestRaw);

  const disk = new Map(files);
  disk.set('manifest.json', manifest);
  for (const [path, value] of Object.entries(options.after ?? {})) disk.set(path, bytesOf(value));
  for (const path of options.remove ?? []) disk.delete(path);
  for (const path of [...Object.keys(options.symlinks ?? {}), ...(options.fifos ?? []), ...Object.keys(options.specialEntries ?? {})]) {
    disk.delete(path);
  }
  return { plan, planId: plan.plan_id, files, manifest, disk };
}

function echoGrant(grant: Record<string, unknown>, plan: Plan): Record<string, unknown> {
  const echoed: Record<string, unknown> = {
    plan_id: plan.plan_id,
    models: plan.subjects.map((s) => s.model),
    currency: plan.budget?.currency,
    aggregate_micros: plan.budget?.aggregate_micros,
    per_attempt_micros: plan.budget?.per_attempt_micros,
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(grant)) out[key] = value === ECHO ? echoed[key] : value;
  return out;
}

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export async function makeTempDir(prefix = 'ledgerboard-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every temporary directory made so far (call it from afterAll). */
export async function removeTempDirs(): Promise<void> {
  const dirs = tempDirs.splice(0);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Seals a model and writes it to a fresh temporary directory with writeBundle; returns the bundle directory. */
export async function writeModel(model: BundleModel, options: SealOptions = {}): Promise<string> {
  const sealed = sealBundle(model, options);
  const dir = join(await makeTempDir(), 'bundle');
  const written = await writeBundle(dir, sealed.files, sealed.planId);
  const manifest = sealed.disk.get('manifest.json');
  if (manifest !== undefined && !Buffer.from(manifest).equals(written)) await writeFile(join(dir, 'manifest.json'), manifest);
  const at = (path: string): string => join(dir, ...path.split('/'));
  for (const [path, value] of Object.entries(options.after ?? {})) {
    await mkdir(dirname(at(path)), { recursive: true });
    await writeFile(at(path), bytesOf(value));
  }
  for (const path of options.remove ?? []) await rm(at(path), { recursive: true, force: true });
  for (const path of options.dirs ?? []) await mkdir(at(path), { recursive: true });
  for (const [path, target] of Object.entries(options.symlinks ?? {})) {
    await rm(at(path), { force: true });
    await mkdir(dirname(at(path)), { recursive: true });
    await symlink(target, at(path));
  }
  for (const path of options.fifos ?? []) {
    await rm(at(path), { force: true });
    await mkdir(dirname(at(path)), { recursive: true });
    execFileSync('mkfifo', [at(path)]);
  }
  return dir;
}

/** readBundle + verifyBundle. */
export async function verifyDir(dir: string): Promise<BundleVerification> {
  return verifyBundle(await readBundle(dir));
}

/** Seals a model, writes it, and verifies it from disk. */
export async function verifyModel(model: BundleModel, options: SealOptions = {}): Promise<BundleVerification> {
  return verifyDir(await writeModel(model, options));
}

/** A snapshot entry for a regular file, as readBundle would produce it. */
export function fileEntry(path: string, bytes: Uint8Array): SnapshotEntry {
  const entry: SnapshotEntry = { path, kind: 'file', sha256: digestBytes(bytes), bytes: bytes.length };
  if (isStructuredPath(path)) entry.content = bytes;
  return entry;
}

/** An in-memory snapshot of regular files (plus non-regular entries), with every parent directory, sorted as readBundle sorts. */
export function snapshotOfFiles(files: ReadonlyMap<string, Uint8Array>, special: Record<string, EntryKind> = {}): BundleSnapshot {
  const entries = new Map<string, SnapshotEntry>();
  const addParents = (path: string): void => {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!entries.has(dir)) entries.set(dir, { path: dir, kind: 'directory' });
    }
  };
  for (const [path, bytes] of files) {
    addParents(path);
    entries.set(path, fileEntry(path, bytes));
  }
  for (const [path, kind] of Object.entries(special)) {
    addParents(path);
    entries.set(path, { path, kind });
  }
  return { entries: [...entries.values()].sort((a, b) => compareUtf8(a.path, b.path)) };
}

/** Seals a model into an in-memory snapshot (no disk). */
export function snapshotOf(model: BundleModel, options: SealOptions = {}): BundleSnapshot {
  return snapshotOfFiles(sealBundle(model, options).disk, options.specialEntries);
}

/** Seals and verifies a model in memory. */
export function verifyInMemory(model: BundleModel, options: SealOptions = {}): BundleVerification {
  return verifyBundle(snapshotOf(model, options));
}

/** A copy of a snapshot with one regular file's bytes replaced (digest and size recomputed, as a reader would). */
export function withFileBytes(snapshot: BundleSnapshot, path: string, bytes: Uint8Array): BundleSnapshot {
  const entries = snapshot.entries.filter((e) => e.path !== path);
  entries.push(fileEntry(path, bytes));
  return { entries: entries.sort((a, b) => compareUtf8(a.path, b.path)) };
}
