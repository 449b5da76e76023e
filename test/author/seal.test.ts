/**
 * `ledgerboard seal` (issue #6 point 2): the manifest it writes is the one
 * the demo writer would write for the same files, it is create-only, it
 * refuses what must never be sealed (links, FIFOs, unsafe and non-UTF-8
 * names, no plan), and it prints the verifier's findings with its exit code.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealManifest } from '../../src/evidence/seal.ts';
import { digestBytes, selfId } from '../../src/json/canonical.ts';
import { cli, exampleInputs, Scratch, writeInputs } from './helpers.ts';

const scratch = new Scratch();
let example: Awaited<ReturnType<typeof exampleInputs>>;
beforeAll(async () => {
  example = await exampleInputs();
});
afterAll(() => scratch.cleanup());

interface Attempt {
  attempt_id: string;
  task_id: string;
  model: string;
  agent: { name: string; version: string };
  index: number;
  observed_model: string;
}

/**
 * A filled bundle directory, as a harness leaves it before sealing: frozen
 * plan + ledger, one attempt per slot, generation 1 grades, artifacts.
 */
async function filledBundle(edit: (attempts: Attempt[]) => void = () => {}): Promise<string> {
  const dir = await scratch.dir();
  const inputs = await writeInputs(dir, example);
  const bundle = join(dir, 'bundle');
  const frozen = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', bundle]);
  expect(frozen.code, frozen.stderr).toBe(0);
  const plan = JSON.parse(await readFile(join(bundle, 'plan.json'), 'utf8')) as {
    created_at: string;
    attempts: number;
    subjects: { model: string; agent: { name: string; version: string } }[];
    grader: { id: string; version: string; executable: string };
  };
  const tasks = example.ledger.toString('utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { task_id: string }).task_id);
  await mkdir(join(bundle, 'artifacts', 'x y', 'é'), { recursive: true });
  const store = async (name: string, text: string) => {
    await writeFile(join(bundle, 'artifacts', 'x y', 'é', name), text);
    return digestBytes(text);
  };
  const attempts: (Attempt & Record<string, unknown>)[] = [];
  const results: Record<string, unknown>[] = [];
  const start = Date.parse(plan.created_at);
  for (const task of tasks) {
    for (const subject of plan.subjects) {
      for (let index = 1; index <= plan.attempts; index++) {
        const n = attempts.length + 1;
        const patch = await store(`patch-${n}.diff`, `patch ${n}\n`);
        attempts.push({
          attempt_id: `a-${n}`,
          task_id: task,
          model: subject.model,
          agent: subject.agent,
          index,
          observed_model: subject.model,
          outcome: 'completed',
          started_at: new Date(start + n * 60_000).toISOString(),
          ended_at: new Date(start + n * 60_000 + 30_000).toISOString(),
          wall_seconds: 30,
          tokens: null,
          retries: 0,
          cost: { state: 'unavailable', micros: null },
          patch,
        });
        results.push({ attempt_id: `a-${n}`, verdict: n % 2 === 0 ? 'pass' : 'fail', input: patch, output: await store(`out-${n}.log`, `out ${n}\n`), receipt: await store(`r-${n}.json`, `{"n":${n}}\n`) });
      }
    }
  }
  edit(attempts);
  await writeFile(join(bundle, 'attempts.jsonl'), attempts.map((a) => `${JSON.stringify(a)}\n`).join(''));
  await mkdir(join(bundle, 'grades'));
  const grader = { id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable };
  await writeFile(join(bundle, 'grades', '1.json'), `${JSON.stringify({ schema: 'ledgerboard.grades.v1', generation: 1, created_at: '2026-09-15T00:00:00Z', grader, results }, null, 2)}\n`);
  await writeFile(join(bundle, '.harness-log'), 'dot files are evidence too\n');
  return bundle;
}

/** Every file under a directory (relative path -> bytes), manifest.json aside. */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const rel = full.slice(dir.length + 1);
    if (rel !== 'manifest.json') files.set(rel, await readFile(full));
  }
  return files;
}

describe('ledgerboard seal', () => {
  it('writes the manifest the format defines, then verifies: exit 0', async () => {
    const bundle = await filledBundle();
    const result = await cli(['seal', bundle]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const manifest = await readFile(join(bundle, 'manifest.json'));
    const plan = JSON.parse(await readFile(join(bundle, 'plan.json'), 'utf8')) as { plan_id: string };
    // The same bytes the demo writer seals the same files into (canonical JSON, sorted by UTF-8 bytes).
    const files = await filesOf(bundle);
    expect(manifest.equals(sealManifest(files, plan.plan_id))).toBe(true);
    const parsed = JSON.parse(manifest.toString('utf8')) as { bundle_id: string; plan_id: string; files: { path: string }[] };
    expect(parsed.bundle_id).toBe(selfId(parsed as unknown as Record<string, unknown>, 'bundle_id'));
    expect(parsed.plan_id).toBe(plan.plan_id);
    expect(parsed.files.map((f) => f.path)).toContain('.harness-log');
    expect(parsed.files.map((f) => f.path)).toContain('artifacts/x y/é/patch-1.diff');
    expect(parsed.files).toHaveLength(files.size);
    expect(result.stdout).toContain(`sealed ${files.size} files: bundle ${parsed.bundle_id}, plan ${plan.plan_id}\n`);
    expect(result.stdout).toMatch(/^verified +bundle [0-9a-f]{12}/m);
    expect(result.stdout).toMatch(/1 bundle: 1 verified, 0 invalid, 0 no_verdict; \d+ warnings?\n$/);
    // No temporary file is left behind.
    expect((await readdir(bundle)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('seals and verifies a bundle directory named through a symbolic link (the path the user names is followed): exit 0', async () => {
    const bundle = await filledBundle();
    const link = `${bundle}-link`;
    await symlink(bundle, link);
    const result = await cli(['seal', link]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^verified +bundle [0-9a-f]{12}/m);
  });

  it('never overwrites a manifest: exit 1, bytes unchanged', async () => {
    const bundle = await filledBundle();
    expect((await cli(['seal', bundle])).code).toBe(0);
    const before = await readFile(join(bundle, 'manifest.json'));
    await writeFile(join(bundle, 'late.txt'), 'added after sealing\n');
    const again = await cli(['seal', bundle]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/manifest\.json already exists: the bundle is sealed, and a manifest is never overwritten/);
    expect((await readFile(join(bundle, 'manifest.json'))).equals(before)).toBe(true);
  });

  it('refuses a symbolic link instead of sealing it, anywhere in the bundle: exit 2, nothing written', async () => {
    const bundle = await filledBundle();
    await symlink('../plan.json', join(bundle, 'artifacts', 'link.json'));
    await symlink('/nonexistent', join(bundle, 'dangling'));
    const result = await cli(['seal', bundle]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ledgerboard seal: refused (2 problems); nothing was written');
    expect(result.stderr).toContain('  artifacts/link.json: is a symbolic link: a bundle holds only regular files and directories (NOT_REGULAR_FILE)');
    expect(result.stderr).toContain('  dangling: is a symbolic link');
    await expect(lstat(join(bundle, 'manifest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a FIFO without opening it', async () => {
    const bundle = await filledBundle();
    try {
      await promisify(execFile)('mkfifo', [join(bundle, 'pipe')]);
    } catch {
      return; // No mkfifo on this system: nothing to test.
    }
    const result = await cli(['seal', bundle]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('  pipe: is a FIFO');
    await expect(lstat(join(bundle, 'manifest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses names that break the path rules or are not UTF-8', async () => {
    const bundle = await filledBundle();
    await writeFile(join(bundle, 'back\\slash.txt'), 'x');
    await writeFile(join(bundle, 'artifacts', 'n'.repeat(250)), 'x'); // "artifacts/" + 250 bytes > 255
    await writeFile(Buffer.concat([Buffer.from(`${bundle}/bad-`), Buffer.from([0xff]), Buffer.from('.txt')]), 'x');
    const result = await cli(['seal', bundle]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refused (3 problems)');
    expect(result.stderr).toContain('  back\\slash.txt: the path holds a backslash: the path rules of FORMAT.md 2.1 (UNSAFE_PATH); rename it');
    expect(result.stderr).toMatch(/ {2}artifacts\/n{250}: the path is longer than 255 bytes/);
    expect(result.stderr).toContain('  bad-\ufffd.txt: the name is not valid UTF-8');
    await expect(lstat(join(bundle, 'manifest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a temporary file an interrupted seal left behind', async () => {
    const bundle = await filledBundle();
    await writeFile(join(bundle, `.manifest.json.${process.pid}.0123456789ab.tmp`), '{"partial');
    const result = await cli(['seal', bundle]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`  .manifest.json.${process.pid}.0123456789ab.tmp: is a temporary file left by an interrupted freeze or seal; remove it`);
    await expect(lstat(join(bundle, 'manifest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a directory without a plan, or with a plan that names no id', async () => {
    const empty = await scratch.dir();
    await writeFile(join(empty, 'attempts.jsonl'), '');
    const none = await cli(['seal', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/plan\.json: is missing: a bundle holds its frozen plan/);
    await writeFile(join(empty, 'plan.json'), '{"plan_id": 7}\n');
    const noId = await cli(['seal', empty]);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(/plan\.json: has no plan_id digest/);
    await writeFile(join(empty, 'plan.json'), '{"plan_id": "a", "plan_id": "b"}\n');
    expect((await cli(['seal', empty])).stderr).toMatch(/plan\.json:1:\d+: is not valid JSON/);
    expect(await readdir(empty)).toEqual(['attempts.jsonl', 'plan.json']);
  });

  it('seals a broken bundle as it is, prints the findings and exits 1', async () => {
    const bundle = await filledBundle((attempts) => {
      attempts[2]!.observed_model = 'acme/impostor';
      attempts.push({ ...attempts[0]!, attempt_id: 'a-redispatch' });
    });
    const result = await cli(['seal', bundle]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid +bundle [0-9a-f]{12}/m);
    expect(result.stdout).toMatch(/^ {4}error +IDENTITY_MISMATCH: /m);
    expect(result.stdout).toMatch(/^ {4}error +DUPLICATE_SLOT: /m);
    expect(result.stdout).toMatch(/1 bundle: 0 verified, 1 invalid, 0 no_verdict/);
    await expect(lstat(join(bundle, 'manifest.json'))).resolves.toBeTruthy();
  });

  it('--json prints what verify --json prints; the seal line goes to stderr', async () => {
    const bundle = await filledBundle();
    const result = await cli(['seal', '--json', bundle]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { bundles: { path: string; status: string; bundle_id: string }[] };
    expect(doc.bundles).toHaveLength(1);
    expect(Object.keys(doc.bundles[0]!)).toEqual(['path', 'bundle_id', 'plan_id', 'status', 'findings']);
    expect(doc.bundles[0]!.status).toBe('verified');
    expect(result.stderr).toContain(`bundle ${doc.bundles[0]!.bundle_id}`);
    const verify = await cli(['verify', '--json', bundle]);
    expect(verify.stdout).toBe(result.stdout);
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['seal'])).stderr).toMatch(/seal takes one bundle directory \(got 0\)/);
    const dir = await scratch.dir();
    const missing = await cli(['seal', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope: cannot be read \(ENOENT\)/);
    await writeFile(join(dir, 'file'), 'x');
    expect((await cli(['seal', join(dir, 'file')])).stderr).toMatch(/file: is not a directory/);
    const help = await cli(['seal', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: ledgerboard seal/);
  });
});
