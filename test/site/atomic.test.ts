/**
 * Atomic output (src/site/build/atomic.ts): a fill that fails midway leaves the
 * previous directory byte for byte; a build killed between the two renames is
 * recovered by the next one; modes never depend on the umask.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceDirectory, stagingPaths } from '../../src/site/build/atomic.ts';

let work: string;
let target: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'lb-atomic-'));
  target = join(work, 'dist');
  await mkdir(join(target, 'a'), { recursive: true });
  await writeFile(join(target, 'index.html'), 'old index');
  await writeFile(join(target, 'verify.mjs'), 'old verify');
  await writeFile(join(target, 'a', 'page.html'), 'old page');
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string, prefix: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = await readFile(join(d, e.name), 'utf8');
    }
  };
  await walk(dir, '');
  return out;
}

const OLD = { 'index.html': 'old index', 'verify.mjs': 'old verify', 'a/page.html': 'old page' };

describe('replaceDirectory', () => {
  it('a fill that throws midway leaves the previous output untouched and no staging directory behind', async () => {
    await expect(
      replaceDirectory(target, async (staging) => {
        await mkdir(staging, { recursive: true });
        await writeFile(join(staging, 'index.html'), 'new index, half written');
        throw new Error('disk full while writing the raw evidence');
      }),
    ).rejects.toThrow('disk full');
    expect(await snapshot(target)).toEqual(OLD);
    expect(await readdir(work)).toEqual(['dist']);
  });

  it('a fill that succeeds replaces the output completely (no stale file survives) and cleans up', async () => {
    const result = await replaceDirectory(target, async (staging) => {
      await mkdir(join(staging, 'b'), { recursive: true });
      await writeFile(join(staging, 'index.html'), 'new index');
      await writeFile(join(staging, 'b', 'other.html'), 'new page');
      return 42;
    });
    expect(result).toBe(42);
    expect(await snapshot(target)).toEqual({ 'index.html': 'new index', 'b/other.html': 'new page' });
    expect(await readdir(work)).toEqual(['dist']);
  });

  it('creates the output when there was none', async () => {
    await rm(target, { recursive: true });
    await replaceDirectory(target, async (staging) => {
      await mkdir(staging);
      await writeFile(join(staging, 'x'), 'x');
    });
    expect(await snapshot(target)).toEqual({ x: 'x' });
  });

  it('a stale staging directory from a killed build is discarded, never published', async () => {
    const { staging } = stagingPaths(target);
    await mkdir(staging);
    await writeFile(join(staging, 'index.html'), 'from a build that was killed');
    await writeFile(join(staging, 'verify.mjs'), '');
    await replaceDirectory(target, async (dir) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'index.html'), 'new');
    });
    expect(await snapshot(target)).toEqual({ 'index.html': 'new' });
  });

  it('a build killed between the two renames: the next build restores the old output first, even if it fails', async () => {
    const { previous } = stagingPaths(target);
    await rm(previous, { recursive: true, force: true });
    const { rename } = await import('node:fs/promises');
    await rename(target, previous); // the state right after the first rename
    await expect(replaceDirectory(target, async () => Promise.reject(new Error('fails')))).rejects.toThrow('fails');
    expect(await snapshot(target)).toEqual(OLD);
    expect(await readdir(work)).toEqual(['dist']);
  });

  it('normalises modes: directories 0755 and files 0644 whatever the umask gave', async () => {
    await replaceDirectory(target, async (staging) => {
      await mkdir(join(staging, 'd'), { recursive: true, mode: 0o700 });
      await writeFile(join(staging, 'd', 'f'), 'f', { mode: 0o600 });
      await writeFile(join(staging, 'g'), 'g', { mode: 0o666 });
    });
    expect((await stat(target)).mode & 0o777).toBe(0o755);
    expect((await stat(join(target, 'd'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(target, 'd', 'f'))).mode & 0o777).toBe(0o644);
    expect((await stat(join(target, 'g'))).mode & 0o777).toBe(0o644);
  });

  it("never removes or restores a <target>.staging or <target>.previous that a build did not leave (someone's data)", async () => {
    const { previous, staging } = stagingPaths(target);
    await rm(target, { recursive: true });
    await mkdir(previous);
    await writeFile(join(previous, 'thesis.txt'), 'years of work');
    await expect(
      replaceDirectory(target, async (dir) => {
        await mkdir(dir);
        await writeFile(join(dir, 'x'), 'x');
      }),
    ).rejects.toThrow('not a directory a ledgerboard build left');
    expect(await readFile(join(previous, 'thesis.txt'), 'utf8')).toBe('years of work');
    expect(await readdir(work)).toEqual(['dist.previous']);
    await rm(previous, { recursive: true });
    await mkdir(staging);
    await writeFile(join(staging, 'thesis.txt'), 'years of work');
    await expect(replaceDirectory(target, async () => undefined)).rejects.toThrow('not a directory a ledgerboard build left');
    expect(await readFile(join(staging, 'thesis.txt'), 'utf8')).toBe('years of work');
  });

  it('refuses to publish a symbolic link the fill left in the output', async () => {
    const { symlink } = await import('node:fs/promises');
    await expect(
      replaceDirectory(target, async (staging) => {
        await mkdir(staging);
        await symlink('/etc/passwd', join(staging, 'link'));
      }),
    ).rejects.toThrow('not a file or directory');
    expect(await snapshot(target)).toEqual(OLD);
  });
});

describe('checkOutputDir', () => {
  it('refuses an output that is or holds a protected path, lies inside the evidence, is a file or a non-empty non-site directory, or whose .previous is not a site', async () => {
    const { checkOutputDir, OutputDirError } = await import('../../src/site/build/atomic.ts');
    const { symlink } = await import('node:fs/promises');
    const project = join(work, 'project');
    await mkdir(join(project, 'content', 'bundles'), { recursive: true });
    await writeFile(join(work, 'file'), 'x');
    await mkdir(join(work, 'stuff'));
    await writeFile(join(work, 'stuff', 'precious.txt'), 'x');
    await symlink(project, join(work, 'link-to-project'));
    const protect = [project, join(project, 'content', 'bundles')];
    const evidence = [join(project, 'content', 'bundles')];
    await mkdir(join(work, 'data.previous'));
    await writeFile(join(work, 'data.previous', 'thesis.txt'), 'x');
    for (const out of [project, work, join(project, 'content'), join(work, 'link-to-project'), join(work, 'file'), join(work, 'stuff'), join(project, 'content', 'bundles', 'site'), join(work, 'data')]) {
      await expect(checkOutputDir(out, protect, evidence), out).rejects.toThrow(OutputDirError);
    }
    // Fine: a new directory, an empty one, a previous site (report.json and verify.mjs), the old target of this suite.
    await mkdir(join(work, 'empty'));
    await mkdir(join(work, 'site'));
    await writeFile(join(work, 'site', 'index.html'), '');
    await writeFile(join(work, 'site', 'verify.mjs'), '');
    for (const out of [join(work, 'new', 'dist'), join(work, 'empty'), join(work, 'site'), join(project, 'dist')]) {
      await expect(checkOutputDir(out, protect, evidence), out).resolves.toBeUndefined();
    }
  });

  it('the CLI refuses `build --out .` in the project before doing any work (exit 2)', async () => {
    const { runCli } = await import('../helpers/cli.ts');
    const result = await runCli(['build', '--out', '.']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to build into .');
  });
});
