/**
 * What every importer shares: reading an input (file or directory: order,
 * symlinks, hidden entries, plain paths, limits), the bundle directory name,
 * the check that a directory importer keeps its originals byte for byte,
 * `import auto` (recognised by content, a directory of mixed logs in one
 * call) and `import_limits` from a config.
 */
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatsOf, resolveAuto } from '../../src/import/auto.ts';
import { bundleDirName, mapImportInput } from '../../src/import/import-input.ts';
import type { Importer } from '../../src/import/importer.ts';
import { isPlainPath, readImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { IMPORTERS, importerNamed, importerOfOrigin } from '../../src/import/registry.ts';
import { runCli } from '../helpers/cli.ts';
import { listTree, REAL_LOGS, rejection, tempDirs } from './helpers.ts';

const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

async function tree(files: Record<string, string>): Promise<string> {
  const root = await temp();
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('reading an input', () => {
  it('a file is one entry under its own name; a directory every regular file by relative path, in byte order', async () => {
    const root = await tree({ 'b.json': '2', 'a/z.txt': 'z', 'a/B.txt': 'B', 'A.txt': 'A' });
    const file = await readImportInput(join(root, 'b.json'), L);
    expect(file.kind).toBe('file');
    expect([...file.files.keys()]).toEqual(['b.json']);
    const dir = await readImportInput(root, L);
    expect(dir.kind).toBe('directory');
    expect([...dir.files.keys()]).toEqual(['A.txt', 'a/B.txt', 'a/z.txt', 'b.json']);
    expect(Buffer.from(dir.files.get('a/z.txt')!).toString()).toBe('z');
  });

  it('hidden entries are skipped and listed, never read', async () => {
    const root = await tree({ 'run/results.json': '{}', 'run/.hidden/x': 'x', 'run/.DS_Store': '' });
    const dir = await readImportInput(join(root, 'run'), L);
    expect([...dir.files.keys()]).toEqual(['results.json']);
    expect(dir.skipped).toEqual(['.DS_Store', '.hidden']);
  });

  it('never follows a symlink: as the input, or inside a directory', async () => {
    const root = await tree({ 'secret.txt': 'secret', 'run/results.json': '{}' });
    await symlink(join(root, 'secret.txt'), join(root, 'link.json'));
    expect(await rejection(readImportInput(join(root, 'link.json'), L))).toMatch(/^the input is a symlink: an import never follows one/);
    await symlink(join(root, 'secret.txt'), join(root, 'run', 'samples.jsonl'));
    expect(await rejection(readImportInput(join(root, 'run'), L))).toBe('the input holds a symlink ("samples.jsonl"): an import never follows one');
  });

  it('reads a file whose relative path is not plain under its plain path, and lists it; refuses two that meet at one plain path', async () => {
    const root = await tree({ 'run/a b.json': '{"x":1}', 'run/ollama/qwen2.5:0.5b.jsonl': 'q', 'run/ok.json': '{}', 'run/d:ir/-x.txt': 'd' });
    const dir = await readImportInput(join(root, 'run'), L);
    expect([...dir.files.keys()]).toEqual(['a_b.json', 'd_ir/_x.txt', 'ok.json', 'ollama/qwen2.5_0.5b.jsonl']);
    expect(Buffer.from(dir.files.get('ollama/qwen2.5_0.5b.jsonl')!).toString()).toBe('q');
    expect(dir.renamed).toEqual([
      { from: 'a b.json', to: 'a_b.json' },
      { from: 'd:ir/-x.txt', to: 'd_ir/_x.txt' },
      { from: 'ollama/qwen2.5:0.5b.jsonl', to: 'ollama/qwen2.5_0.5b.jsonl' },
    ]);
    // A directory of plain names only has no renamed list at all (the shape before).
    expect((await readImportInput(join(root, 'run', 'ollama', '..', 'd:ir'), L)).renamed).toEqual([{ from: '-x.txt', to: '_x.txt' }]);
    expect((await tree({ 'ok/a.json': '1' }).then((r) => readImportInput(join(r, 'ok'), L))).renamed).toBeUndefined();
    // Two files that meet at one plain path: refused, naming both (nothing is read under a name two files share).
    const clash = await tree({ 'run/a:b.json': '1', 'run/a_b.json': '2' });
    expect(await rejection(readImportInput(join(clash, 'run'), L))).toBe(
      'the input holds "a:b.json" and "a_b.json", which are read under one plain path "a_b.json" (every character a plain name cannot hold made "_"): rename one',
    );
    const clash2 = await tree({ 'run/a b.json': '1', 'run/a:b.json': '2' });
    expect(await rejection(readImportInput(join(clash2, 'run'), L))).toMatch(/^the input holds "a b\.json" and "a:b\.json", which are read under one plain path "a_b\.json"/);
    // A path with no plain form (past 255 bytes in all) is still refused, and says which.
    const long = await tree({ [`run/${'x'.repeat(130)}/${'y z'.repeat(45)}.json`]: '1' });
    expect(await rejection(readImportInput(join(long, 'run'), L))).toMatch(/is not plain \(letters, digits, "\._@\+=,-", "\/" between names\) and has no plain form/);
    for (const bad of ['a/../b', './a', 'a//b', '-rf', 'a;b', '$(x)', 'a\nb', '', 'é']) expect(isPlainPath(bad), bad).toBe(false);
    for (const good of ['results_2024-01-01T00-00-00.json', 'samples/mmlu_abstract_algebra.jsonl', 'run_spec.json', 'a@b+c=d,e']) expect(isPlainPath(good), good).toBe(true);
  });

  it('enforces the limits: file size, file count, total bytes; an empty directory is refused', async () => {
    const root = await tree({ 'run/a.json': '12345', 'run/b.json': '12345', 'run/c.json': '1' });
    expect(await rejection(readImportInput(join(root, 'run', 'a.json'), { ...L, maxFileBytes: 4 }))).toBe(
      'the input file is 5 bytes, more than the 4 an import reads (import_limits.maxFileBytes)',
    );
    expect(await rejection(readImportInput(join(root, 'run'), { ...L, maxFiles: 2 }))).toBe('the input holds more than 2 files (import_limits.maxFiles)');
    expect(await rejection(readImportInput(join(root, 'run'), { ...L, maxInputBytes: 10 }))).toBe(
      "the input's files hold more than 10 bytes together (import_limits.maxInputBytes)",
    );
    await mkdir(join(root, 'empty'));
    expect(await rejection(readImportInput(join(root, 'empty'), L))).toBe('the input directory holds no files');
    expect(await rejection(readImportInput(join(root, 'nope'), L))).toBe('cannot read the input: ENOENT');
  });
});

describe('the bundle directory name', () => {
  it('of a directory depends on its relative paths and bytes, not on where it sits', async () => {
    const a = await tree({ 'run/x.json': '1', 'run/y/z.json': '2' });
    const b = await tree({ 'run/x.json': '1', 'run/y/z.json': '2' });
    const c = await tree({ 'run/x.json': '1', 'run/y/w.json': '2' });
    const name = bundleDirName(await readImportInput(join(a, 'run'), L));
    expect(name).toMatch(/^run-[0-9a-f]{12}$/);
    expect(bundleDirName(await readImportInput(join(b, 'run'), L))).toBe(name);
    expect(bundleDirName(await readImportInput(join(c, 'run'), L))).not.toBe(name);
  });

  it('of a file drops its last extension', () => {
    const input = { name: 'Results_2024.JSONL', kind: 'file' as const, files: new Map([['Results_2024.JSONL', new Uint8Array([1])]]), skipped: [] };
    expect(bundleDirName(input)).toMatch(/^results-2024-[0-9a-f]{12}$/);
  });
});

describe('what every importer promises', () => {
  const fake = (files: Map<string, Uint8Array>): Importer => ({
    name: 'fake',
    origin: 'fake',
    label: 'fake',
    summary: 'fake',
    input: 'directory',
    flags: {},
    detect: async () => false,
    map: async () => ({ files, planId: 'sha256:x', summary: { status: 'x', tasks: 0, attempts: 0, epochs: 0, scorer: null, missing: [] } }),
  });
  const input = { name: 'run', kind: 'directory' as const, files: new Map([['r.json', Buffer.from('{}')]]), skipped: [] };
  const request = { license: '', flags: {}, limits: L };

  it('a directory importer keeps its originals under source/ byte for byte, and keeps at least one', async () => {
    await expect(mapImportInput(fake(new Map([['source/r.json', Buffer.from('{}')]])), input, request)).resolves.toBeDefined();
    await expect(mapImportInput(fake(new Map([['source/r.json', Buffer.from('{ }')]])), input, request)).rejects.toThrow(/not the input file of that relative path byte for byte/);
    await expect(mapImportInput(fake(new Map([['source/other.json', Buffer.from('{}')]])), input, request)).rejects.toThrow(/not the input file/);
    await expect(mapImportInput(fake(new Map([['plan.json', Buffer.from('{}')]])), input, request)).rejects.toThrow(/kept no original under source\//);
  });

  it('the registry: names are unique, lower-case; origins unique; a shared flag has one type', () => {
    const names = IMPORTERS.map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(IMPORTERS.map((i) => i.origin)).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(names).not.toContain('auto');
    expect(importerNamed('inspect')?.origin).toBe('inspect-eval-log');
    expect(importerOfOrigin('inspect-eval-log')?.name).toBe('inspect');
    const types = new Map<string, string>();
    for (const i of IMPORTERS) {
      for (const [flag, spec] of Object.entries(i.flags)) {
        expect(types.get(flag) ?? spec.type, `--${flag}`).toBe(spec.type);
        types.set(flag, spec.type);
        expect(spec.help).toContain(`--${flag}`);
      }
    }
  });
});

describe('import auto', () => {
  async function mixed(): Promise<string> {
    const root = await temp();
    await mkdir(join(root, 'logs', 'nested'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_streaming.eval'), join(root, 'logs', 'streaming.eval'));
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'logs', 'nested', 'formats.data'));
    await writeFile(join(root, 'logs', 'README.md'), '# notes\n');
    // Named like a log, but not one: recognised by content, never by name.
    await writeFile(join(root, 'logs', 'fake.eval'), '{"version": 2, "status": "success"}');
    return root;
  }

  it('recognises each input by content, opening directories no format claims', async () => {
    const root = await mixed();
    const resolved = await resolveAuto([join(root, 'logs')], IMPORTERS, L);
    const shown = resolved.map((r) => [r.path.slice(root.length + 1), 'importer' in r ? r.importer.name : r.refused]);
    expect(shown).toEqual([
      ['logs/README.md', `not a format ledgerboard imports (checked its content against: ${IMPORTERS.map((i) => i.name).join(', ')})`],
      ['logs/fake.eval', `not a format ledgerboard imports (checked its content against: ${IMPORTERS.map((i) => i.name).join(', ')})`],
      ['logs/nested/formats.data', 'inspect'],
      ['logs/streaming.eval', 'inspect'],
    ]);
  });

  it('imports a directory of mixed logs in one call: one line per input, unrecognised files skipped, exit 0', async () => {
    const root = await mixed();
    const out = join(root, 'out');
    const r = await runCli(['import', 'auto', join(root, 'logs'), '-o', out, '--license', 'MIT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^skipped {3}.*logs\/README\.md: not a format ledgerboard imports/m);
    expect(r.stdout).toMatch(/^verified {3}inspect {9}bundle [0-9a-f]{12} {2}1 attempts \(1 tasks x 1 epochs\), log success {2}.*formats-b36b887e4470$/m);
    expect(r.stdout).toMatch(/^verified {3}inspect {9}bundle [0-9a-f]{12} {2}4 attempts \(2 tasks x 2 epochs\), log success {2}.*streaming-2904309c50fd$/m);
    expect(r.stdout).toContain('2 inputs: 2 imported and verified, 0 failed; 2 files in the directories not recognised (skipped)');
    expect(r.stderr).toMatch(/as Inspect AI eval log \(inspect\)/);
    expect((await listTree(out)).filter((p) => !p.includes('/'))).toEqual(['formats-b36b887e4470', 'streaming-2904309c50fd']);
  });

  it('a file named on the command line that no format recognises is refused, exit 1', async () => {
    const root = await mixed();
    const r = await runCli(['import', 'auto', join(root, 'logs', 'README.md'), '-o', join(root, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^refused {4}.*README\.md: not a format ledgerboard imports/m);
    expect(r.stdout).toContain('1 input: 0 imported and verified, 1 failed');
  });

  it('a bad format flag is a usage error before anything is read', async () => {
    const root = await mixed();
    const r = await runCli(['import', 'auto', join(root, 'logs'), '-o', join(root, 'out'), '--pass-threshold', '1e0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--pass-threshold must be a decimal number');
  });
});

describe('each format is told apart by content', () => {
  it('every demo input (all formats) is claimed by its own importer and no other', async () => {
    const { DEMO_IMPORTS, demoInputs, IMPORTED_DIR } = await import('../../scripts/import-demo.ts');
    let checked = 0;
    for (const demo of DEMO_IMPORTS) {
      for (const name of await demoInputs(demo)) {
        if (demo.expectedFailures?.[name] !== undefined) continue;
        const input = await readImportInput(join(IMPORTED_DIR, demo.dir, name), L);
        expect((await formatsOf(input, IMPORTERS, L)).map((i) => i.name), `${demo.dir}/${name}`).toEqual([demo.format]);
        checked++;
      }
    }
    expect(new Set(DEMO_IMPORTS.map((d) => d.format))).toEqual(new Set(IMPORTERS.map((i) => i.name)));
    expect(checked).toBeGreaterThanOrEqual(20);
  });
});

describe('import_limits in a config', () => {
  it('--config applies them: a log over file_bytes is refused with the limit named; a bad config is a usage error', async () => {
    const root = await temp();
    await writeFile(join(root, 'c.json'), JSON.stringify({ import_limits: { file_bytes: 1000 } }));
    const r = await runCli(['import', 'inspect', join(REAL_LOGS, 'log_streaming.eval'), '-o', join(root, 'out'), '--config', join(root, 'c.json')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the input file is 8854 bytes, more than the 1000 an import reads (import_limits.maxFileBytes)');
    await writeFile(join(root, 'bad.json'), JSON.stringify({ import_limits: { file_bytes: -1 } }));
    const bad = await runCli(['import', 'inspect', join(REAL_LOGS, 'log_streaming.eval'), '-o', join(root, 'out'), '--config', join(root, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/import_limits/);
  });
});
