/**
 * `.ci/run` runs the suite once from a checkout other users cannot reach
 * (issue 31): as root, when every directory above the checkout is open, it
 * clones the committed HEAD into a fresh `mktemp -d` (0700), runs itself there
 * once, removes it and exits with that run's status, listing the uncommitted
 * changes it leaves out. The script is run for real up to the point where it
 * would install and test: that part is replaced by a line that reports where
 * it runs.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
});

/** Whether some directory at or above `dir` lets no other user traverse it. */
async function underClosedDirectory(dir: string): Promise<boolean> {
  for (; ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** A copy of .ci/run up to its install (`node --version`), ending with `echo` and exit 7, as `<open 0755 dir>/board/.ci/run`. */
async function stubbedCiRun(echo: string): Promise<{ dir: string; tree: string }> {
  const script = await readFile(new URL('../.ci/run', import.meta.url), 'utf8');
  const tail = script.indexOf('\nnode --version\n');
  expect(tail, 'the install-and-test part starts at `node --version`').toBeGreaterThan(0);
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'lb-ci-run-')));
  work.push(dir);
  await chmod(dir, 0o755);
  const tree = join(dir, 'board');
  await mkdir(join(tree, '.ci'), { recursive: true });
  await writeFile(join(tree, '.ci', 'run'), `${script.slice(0, tail)}\n${echo}\nexit 7\n`, { mode: 0o755 });
  return { dir, tree };
}

/** Runs a stub's .ci/run with `env` added; its exit code and output, whatever the code. */
function runStub(tree: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return run('bash', [join(tree, '.ci', 'run')], { env: { ...process.env, LEDGERBOARD_CI_CLONE: undefined, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

describe('.ci/run', () => {
  it('as root under open directories: runs once from a clone of HEAD in a 0700 directory, says so, keeps the exit status, removes the clone', { timeout: 60_000 }, async () => {
    const { dir, tree: repo } = await stubbedCiRun('echo "RUN IN $(pwd -P) PARENT $(stat -c %a ..)"');
    const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', '-c', 'init.defaultBranch=main', ...args], { cwd: repo });
    await git('init', '-q');
    await git('add', '.ci/run');
    await git('commit', '-q', '-m', 'ci');
    const head = (await git('rev-parse', 'HEAD')).stdout.trim();
    await writeFile(join(repo, 'uncommitted.txt'), 'not tested\n');

    const result = await runStub(repo, { TMPDIR: dir });
    expect(result.code, result.stderr).toBe(7);
    if (process.getuid?.() !== 0 || (await underClosedDirectory(repo))) {
      // Not root, or already somewhere closed to others: it runs in place.
      expect(result.stdout).toContain(`RUN IN ${repo} PARENT`);
      return;
    }
    expect(result.stdout).toContain(`only the committed HEAD (${head}) is tested`);
    expect(result.stdout).toContain('?? uncommitted.txt');
    const where = /RUN IN (\S+) PARENT (\d+)/.exec(result.stdout);
    expect(where, result.stdout).not.toBeNull();
    const [, clone, parentMode] = where!;
    expect(dirname(dirname(clone!))).toBe(dir);
    expect(parentMode).toBe('700');
    expect(result.stdout.match(/RUN IN/g)).toHaveLength(1);
    expect(result.stdout).toContain(`exited with 7; removing ${dirname(clone!)}`);
    await expect(stat(dirname(clone!))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('as root under open directories but without a git checkout (an unpacked tarball): runs in place, saying the 0700-parent run is skipped', { timeout: 60_000 }, async () => {
    const { dir, tree } = await stubbedCiRun('echo "RUN IN $(pwd -P)"');
    const result = await runStub(tree, { TMPDIR: dir, GIT_CEILING_DIRECTORIES: dir });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toContain(`RUN IN ${tree}`);
    if (process.getuid?.() === 0 && !(await underClosedDirectory(tree))) {
      expect(result.stdout).toContain('no git checkout to clone: running here (the 0700-parent run is skipped)');
    }
  });
});
