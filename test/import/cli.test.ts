/**
 * `ledgerboard import inspect`: exit codes, one line per log, create-only
 * refusal, nothing written for a log that cannot be imported, usage errors.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.ts';
import { describe, expect, it } from 'vitest';
import { header, jsonLog, listTree, REAL_LOGS, sample, tempDirs } from './helpers.ts';

const temp = tempDirs();

const run = (args: string[]): Promise<CliRun> => runCli(args);

describe('ledgerboard import inspect', () => {
  it('imports several logs, one line each, exit 0', async () => {
    const out = await temp();
    const logs = ['log_streaming.eval', 'retry-2-then-success.postfix.zstd.eval', 'log_formats.json'].map((f) => join(REAL_LOGS, f));
    const r = await run(['import', 'inspect', ...logs, '-o', out, '--license', 'MIT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verified {3}bundle [0-9a-f]{12} {2}4 attempts \(2 tasks x 2 epochs\), log success {2}.*log-streaming-2904309c50fd$/m);
    expect(r.stdout).toMatch(/^verified {3}bundle [0-9a-f]{12} {2}1 attempts \(1 tasks x 1 epochs\), log success {2}.*retry-2-then-success-postfix-zstd-e15bfd19d5b1$/m);
    expect(r.stdout).toContain('  missing  the log records no scorer: no attempt has a grade (each fails closed as grader_failure)');
    expect(r.stdout).toContain('3 inputs: 3 imported and verified, 0 failed');
    expect(r.stderr).toContain('importing 1/3: ');
    expect(await listTree(out)).toEqual(expect.arrayContaining(['log-formats-b36b887e4470', 'log-streaming-2904309c50fd', 'retry-2-then-success-postfix-zstd-e15bfd19d5b1']));
    expect((await listTree(out)).filter((p) => !p.includes('/'))).toHaveLength(3);
  });

  it('importing again into the same output says "already imported (same bundle id)", exit 0, bytes untouched', async () => {
    const out = await temp();
    const log = join(REAL_LOGS, 'log_formats.json');
    const first = await run(['import', 'inspect', log, '-o', out]);
    expect(first.code).toBe(0);
    const manifest = await readFile(join(out, 'log-formats-b36b887e4470', 'manifest.json'));
    const id = /^verified {3}bundle ([0-9a-f]{12}) /m.exec(first.stdout)![1]!;
    const again = await run(['import', 'inspect', log, '-o', out]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^already {4}bundle ${id} {2}already imported \\(same bundle id\\) {2}.*log-formats-b36b887e4470$`, 'm'));
    expect(again.stdout).toContain('1 input: 0 imported and verified, 1 already imported (same bundle id), 0 failed');
    expect(await readFile(join(out, 'log-formats-b36b887e4470', 'manifest.json'))).toEqual(manifest);
    expect((await listTree(out)).filter((p) => !p.includes('/'))).toEqual(['log-formats-b36b887e4470']);
    // import auto says the same.
    const auto = await run(['import', 'auto', log, '-o', out]);
    expect(auto.code).toBe(0);
    expect(auto.stdout).toMatch(/^already {4}inspect {9}bundle [0-9a-f]{12} {2}already imported \(same bundle id\)/m);
  });

  it('a different bundle at the same name is refused naming both ids, exit 1, nothing overwritten', async () => {
    const out = await temp();
    const log = join(REAL_LOGS, 'log_formats.json');
    expect((await run(['import', 'inspect', log, '-o', out, '--license', 'MIT'])).code).toBe(0);
    const dir = join(out, 'log-formats-b36b887e4470');
    const manifest = await readFile(join(dir, 'manifest.json'));
    const existing = (JSON.parse(manifest.toString('utf8')) as { bundle_id: string }).bundle_id;
    // Another license: the same input (so the same directory name), another bundle.
    const other = await run(['import', 'inspect', log, '-o', out, '--license', 'Apache-2.0']);
    expect(other.code).toBe(1);
    const message = /^refused {4}.*log_formats\.json: (.*)$/m.exec(other.stdout)?.[1] ?? '';
    expect(message).toContain(`the destination ${dir} already holds another bundle (${existing}); this import gives sha256:`);
    expect(message).toMatch(/this import gives (sha256:[0-9a-f]{64}) .*nothing is overwritten/);
    expect(/this import gives (sha256:[0-9a-f]{64})/.exec(message)![1]).not.toBe(existing);
    expect(await readFile(join(dir, 'manifest.json'))).toEqual(manifest);
    expect((await listTree(out)).filter((p) => !p.includes('/'))).toEqual(['log-formats-b36b887e4470']);
  });

  it('the same bundle id whose files were edited since is said, and fails: exit 1', async () => {
    const out = await temp();
    const log = join(REAL_LOGS, 'log_formats.json');
    expect((await run(['import', 'inspect', log, '-o', out])).code).toBe(0);
    const notes = join(out, 'log-formats-b36b887e4470', 'NOTES.md');
    await writeFile(notes, 'edited after the import\n');
    const again = await run(['import', 'inspect', log, '-o', out]);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/^invalid {4}bundle [0-9a-f]{12} {2}already imported \(same bundle id\), but it does not verify now/m);
    expect(again.stdout).toMatch(/^ {2}[A-Z_]+: .*NOTES\.md/m);
    expect(await readFile(notes, 'utf8')).toBe('edited after the import\n');
  });

  it('a destination holding no bundle is refused (create-only), exit 1, untouched', async () => {
    const log = join(REAL_LOGS, 'log_formats.json');
    const other = await temp();
    await mkdir(join(other, 'log-formats-b36b887e4470'));
    await writeFile(join(other, 'log-formats-b36b887e4470', 'x'), 'x');
    const r = await run(['import', 'inspect', log, '-o', other]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^refused {4}.*log_formats\.json: the destination .*log-formats-b36b887e4470 already exists and is not empty \(it holds no bundle manifest\): import is create-only$/m);
    expect(await listTree(other)).toEqual(['log-formats-b36b887e4470', 'log-formats-b36b887e4470/x']);
  });

  it('a log that cannot be imported writes nothing, the others still import, exit 1', async () => {
    const dir = await temp();
    const notInspect = join(dir, 'plan.json');
    await writeFile(notInspect, '{"schema":"ledgerboard.plan.v1"}');
    const noSamples = join(REAL_LOGS, '2025-05-12T20-28-13-04-00_no-samples.json');
    const good = join(dir, 'good.json');
    await writeFile(good, jsonLog([sample(1, 1), sample(2, 1)], header()));
    const out = join(dir, 'out');
    const r = await run(['import', 'inspect', notInspect, noSamples, good, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^refused {4}.*plan\.json: not an Inspect log: the log: /m);
    expect(r.stdout).toMatch(/^refused {4}.*no-samples\.json: the log holds no samples \(status "cancelled"\)/m);
    expect(r.stdout).toContain('3 inputs: 1 imported and verified, 2 failed');
    expect((await listTree(out)).filter((p) => !p.includes('/'))).toEqual([expect.stringMatching(/^good-[0-9a-f]{12}$/)]);
  });

  it('a missing file is a failed log, not a crash', async () => {
    const out = await temp();
    const r = await run(['import', 'inspect', join(out, 'nope.eval'), '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('nope.eval: cannot read the input: ENOENT');
  });

  it('an output path that is a file is a failed log with its reason, exit 1', async () => {
    const dir = await temp();
    await writeFile(join(dir, 'file'), 'x');
    const r = await run(['import', 'inspect', join(REAL_LOGS, 'log_formats.json'), '-o', join(dir, 'file')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/log_formats\.json: cannot create the output directory .*file: EEXIST$/m);
  });

  it('usage errors exit 2', async () => {
    const out = await temp();
    const log = join(REAL_LOGS, 'log_formats.json');
    for (const args of [['import'], ['import', 'langsmith', log, '-o', out], ['import', 'inspect', '-o', out], ['import', 'inspect', log], ['import', 'inspect', log, '-o', out, '--pass-threshold', '0x1']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^ledgerboard: /);
    }
    expect(await listTree(out)).toEqual([]);
  });

  it('--help describes the command', async () => {
    const r = await run(['import', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: ledgerboard import <format> <input>... -o <dir>');
    expect(r.stdout).toContain('--pass-threshold N');
    const top = await run(['--help']);
    expect(top.stdout).toContain('import <format> <input>... -o DIR');
  });
});
