/**
 * Issue 26, Every Eval Ever: a sidecar whose referenced name holds ":" (every
 * ollama model's records), on real public records from evaleval/every_eval_ever
 * (test/fixtures/import/eee, SOURCES.md there), and the hostile shapes of
 * the new name mapping (characters no plain path holds, two names for one
 * plain name, names past maxStringBytes, a fuzz of references).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unsafePathReason } from '../../../src/evidence/paths.ts';
import { ImportError, ImportLimitError } from '../../../src/import/errors.ts';
import { eeeImporter } from '../../../src/import/eee/importer.ts';
import { plainPathOf } from '../../../src/import/eee/plain-name.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { isPlainPath, readImportInput, type ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { runCli } from '../../helpers/cli.ts';
import { rejection, tempDirs, verifyDir } from '../helpers.ts';
import { aggregate, bundleIdOf, dirInput, json, jsonl, lines, mapInput, notes, row, verifyMapped } from './helpers.ts';

const FIXTURES = new URL('../../fixtures/import/eee/', import.meta.url).pathname;
const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

/** The real records: the sidecar's name as the aggregate references it, the name it is kept under, the pinned bundle id, and EEE's own figure. */
const REAL: Record<string, { referenced: string; kept: string; bundle: string; tasks: number; resolved: number; source: number }> = {
  'ollama-qwen2.5-0.5b-dcb00c1e': {
    referenced: 'instance_level_data/ai2_arc_ollama_qwen2.5:0.5b_2e4e64ca-5622-42d3-9ef1-0f4e4475cdf7.Format.jsonl',
    kept: 'instance_level_data/ai2_arc_ollama_qwen2.5_0.5b_2e4e64ca-5622-42d3-9ef1-0f4e4475cdf7.Format.jsonl',
    bundle: '279221acd366',
    tasks: 3,
    resolved: 1,
    source: 1 / 3,
  },
  'ollama-qwen2.5-0.5b-061524c9': {
    referenced: 'instance_level_data/ai2_arc_ollama_qwen2.5:0.5b_1761001924.jsonl',
    kept: 'instance_level_data/ai2_arc_ollama_qwen2.5_0.5b_1761001924.jsonl',
    bundle: 'f9667b09eb6e',
    tasks: 3,
    resolved: 1,
    source: 1 / 3,
  },
  'pubmed_qa-gpt-4o-mini-061524c9': {
    referenced: 'instance_level_data/pubmed_qa_openai_azure_gpt-4o-mini-2024-07-18_1751553870.jsonl',
    kept: 'instance_level_data/pubmed_qa_openai_azure_gpt-4o-mini-2024-07-18_1751553870.jsonl',
    bundle: '946fce7eb33a',
    tasks: 2,
    resolved: 2,
    source: 1,
  },
};

const PLAIN_NOTE = 'it is read and kept under its plain name, each such character replaced by "_"';

/** The kept originals of mapped files as a directory input (what a stranger fetches from the site). */
function keptInput(files: ReadonlyMap<string, Uint8Array>): ImportInput {
  return {
    name: 'original',
    kind: 'directory',
    files: new Map([...files].filter(([p]) => p.startsWith('source/')).map(([p, b]) => [p.slice('source/'.length), b])),
    skipped: [],
  };
}

describe('the real records beyond the demo (evaleval/every_eval_ever), ollama ones with ":" in the sidecar name', () => {
  it.each(Object.entries(REAL))('%s imports, verifies, keeps the sidecar under its plain name, and its headline equals EEE\'s own figure', async (dir, want) => {
    const parent = await temp();
    const agg = (await readImportInput(join(FIXTURES, dir), L)).files;
    const aggPath = [...agg.keys()].find((p) => p.endsWith('.json'))!;
    expect((JSON.parse(Buffer.from(agg.get(aggPath)!).toString('utf8')) as { detailed_evaluation_results: { file_path: string } }).detailed_evaluation_results.file_path).toBe(want.referenced);
    const r = await importPath(eeeImporter, join(FIXTURES, dir), parent, { license: 'MIT', flags: { 'pass-threshold': '1' }, limits: L });
    expect(r.status).toBe('verified');
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    const kept = v.evidence.manifest!.files.filter((f) => f.path.startsWith('source/')).map((f) => f.path);
    expect(kept).toEqual([`source/${aggPath}`, `source/${want.kept}`]);
    for (const path of kept) expect(isPlainPath(path.slice('source/'.length))).toBe(true);
    const grades = v.evidence.grades.flatMap((g) => g.file().grades.results);
    expect({ tasks: r.summary.tasks, resolved: grades.filter((g) => g.verdict === 'pass').length }).toEqual({ tasks: want.tasks, resolved: want.resolved });
    const originals = new Map<string, Uint8Array>();
    for (const path of kept) originals.set(path, await readFile(join(r.dir, path)));
    const metrics = await eeeImporter.sourceMetrics!(originals, v.evidence.plan!.grader.id);
    expect(metrics).toEqual([{ name: 'accuracy', value: want.source }]);
    expect(want.resolved / want.tasks).toBeCloseTo(want.source, 12);
    const text = await readFile(join(r.dir, 'NOTES.md'), 'utf8');
    if (want.referenced === want.kept) expect(text).not.toContain(PLAIN_NOTE);
    else expect(text).toContain(`- the sidecar's name as the aggregate references it holds characters a plain path cannot (such as ":" in an ollama model tag): ${PLAIN_NOTE}; the kept aggregate still names it as the source wrote it`);
    expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
  });

  it('on disk under the literal name the aggregate references (":" as upstream has it), the sidecar imports to the same bundle id, and the input lists the rename', async () => {
    for (const [dir, want] of Object.entries(REAL)) {
      if (want.referenced === want.kept) continue;
      const root = await temp();
      const fixture = await readImportInput(join(FIXTURES, dir), L);
      for (const [path, bytes] of fixture.files) {
        const onDisk = path === want.kept ? want.referenced : path;
        await mkdir(join(root, 'run', onDisk, '..'), { recursive: true });
        await writeFile(join(root, 'run', onDisk), bytes);
      }
      const input = await readImportInput(join(root, 'run'), L);
      expect(input.renamed).toEqual([{ from: want.referenced, to: want.kept }]);
      const r = await importPath(eeeImporter, join(root, 'run'), await temp(), { license: 'MIT', flags: { 'pass-threshold': '1' }, limits: L });
      expect(r.status).toBe('verified');
      expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
      // The import command says the rename on stderr (the bundle cannot: its kept original has the plain name only).
      const cli = await runCli(['import', 'eee', join(root, 'run'), '-o', await temp(), '--license', 'MIT', '--pass-threshold', '1']);
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.stderr).toContain(`  note     1 file whose path is not plain read under the plain path: ${JSON.stringify(want.referenced)} as ${JSON.stringify(want.kept)}\n`);
    }
  });

  it('a stranger who fetches the kept originals and re-runs with the plan\'s flags gets the same bundle id (the plain name resolves again)', async () => {
    for (const dir of Object.keys(REAL)) {
      const mapped = await mapInput(await readImportInput(join(FIXTURES, dir), L), { 'pass-threshold': '1' });
      const plan = json(mapped, 'plan.json') as { grader: { id: string } };
      const flags = Object.fromEntries(eeeImporter.rerunFlags!(plan).map(([k, v]) => [k!.slice(2), v!]));
      expect(bundleIdOf(await mapInput(keptInput(mapped.files), flags))).toBe(bundleIdOf(mapped));
    }
  });

  it('the checksum is still checked under the plain name: one changed byte refuses the import, naming both digests', async () => {
    const input = await readImportInput(join(FIXTURES, 'ollama-qwen2.5-0.5b-dcb00c1e'), L);
    const path = REAL['ollama-qwen2.5-0.5b-dcb00c1e']!.kept;
    const bytes = Buffer.from(input.files.get(path)!);
    bytes[10] = bytes[10]! ^ 0x01;
    const files = new Map(input.files);
    files.set(path, bytes);
    const message = await rejection(mapInput({ ...input, files }, { 'pass-threshold': '1' }));
    expect(message).toBe(
      `the sidecar's sha256 is ${createHash('sha256').update(bytes).digest('hex')}, but the aggregate records 4ea0c8f2821192cf8cf6643822a710fcf380d588b7696617900d91516addb21f: the sidecar is not the file the aggregate was made with`,
    );
  });

  it('the sidecar under the name the aggregate references (as an in-memory input holds it) grades the same', async () => {
    const dir = 'ollama-qwen2.5-0.5b-dcb00c1e';
    const input = await readImportInput(join(FIXTURES, dir), L);
    const files = new Map(input.files);
    const bytes = files.get(REAL[dir]!.kept)!;
    files.delete(REAL[dir]!.kept);
    files.set(REAL[dir]!.referenced, bytes);
    const literal = await eeeImporter.map({ ...input, files }, { license: 'MIT', flags: { 'pass-threshold': '1' }, limits: L });
    const plain = await mapInput(input, { 'pass-threshold': '1' });
    expect(Buffer.from(literal.files.get('grades/1.json')!).equals(Buffer.from(plain.files.get('grades/1.json')!))).toBe(true);
    expect(literal.files.has(`source/${REAL[dir]!.referenced}`)).toBe(true);
    expect(notes(literal)).not.toContain(PLAIN_NOTE);
  });

  it('detect claims a record whose sidecar is under its plain name', async () => {
    for (const dir of Object.keys(REAL)) expect(await eeeImporter.detect(await readImportInput(join(FIXTURES, dir), L), L)).toBe(true);
  });
});

describe('the plain name of a reference', () => {
  it('replaces each character a plain name cannot hold (one per code point) and a first character a name cannot start with', () => {
    expect(plainPathOf('instance_level_data/ai2_arc_ollama_qwen2.5:0.5b_1.jsonl')).toBe('instance_level_data/ai2_arc_ollama_qwen2.5_0.5b_1.jsonl');
    expect(plainPathOf('a b/c;d$(x)`y`.jsonl')).toBe('a_b/c_d__x__y_.jsonl');
    expect(plainPathOf('llama3.2:3b/é🙂.jsonl')).toBe('llama3.2_3b/__.jsonl');
    expect(plainPathOf('-rf/.hidden/@x')).toBe('_rf/_hidden/_x');
    expect(plainPathOf('plain/name_1.jsonl')).toBe('plain/name_1.jsonl');
    expect(plainPathOf('a\nb\u0000c')).toBe('a_b_c');
    // Longer than a plain path may be: no plain name.
    expect(plainPathOf(`${'x'.repeat(250)}:.jsonl`)).toBeNull();
    expect(plainPathOf('a//b')).toBeNull();
  });

  it('a fuzz of references: the plain name is null or a plain, safe bundle path; mapping never throws anything but an ImportError', async () => {
    let seed = 26;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = ['a', 'Z', '0', '.', '-', '_', ':', ' ', '/', '\\', '"', "'", '$', ';', '\n', '\u0000', 'é', '🙂', '\u202e', '%', '*', '?', '<', '>', '|', '=', '@'];
    const side = jsonl([row('s1', 'r-acc')]);
    let mappedCount = 0;
    for (let i = 0; i < 300; i++) {
      const length = 1 + (next() % 40);
      let ref = '';
      for (let j = 0; j < length; j++) ref += alphabet[next() % alphabet.length]!;
      const plain = plainPathOf(ref);
      if (plain !== null) {
        expect(isPlainPath(plain)).toBe(true);
        expect(unsafePathReason(`source/${plain}`)).toBeNull();
      }
      // The sidecar put where its plain name says (when it has one), the aggregate beside.
      const files: Record<string, Uint8Array | Record<string, unknown>> = { 'agg.json': aggregate(side, {}, { file_path: ref }) };
      if (plain !== null && plain !== 'agg.json') files[plain] = side;
      try {
        const mapped = await mapInput(dirInput(files), { metric: 'r-acc' });
        expect(verifyMapped(mapped).status).toBe('verified');
        mappedCount++;
      } catch (error) {
        expect(error).toBeInstanceOf(ImportError);
      }
    }
    expect(mappedCount).toBeGreaterThan(50);
  });
});

describe('hostile names', () => {
  const side = jsonl([row('s1', 'r-acc'), row('s2', 'r-acc', { evaluation: { score: 0, is_correct: false } })]);

  it('the sidecar under both the referenced name and its plain name is refused: which one is meant is not recorded', async () => {
    const input = dirInput({ 'agg.json': aggregate(side, {}, { file_path: 'xx:y.jsonl' }), 'xx:y.jsonl': side, 'xx_y.jsonl': side });
    expect(await rejection(mapInput(input, { metric: 'r-acc' }))).toBe(
      'the input holds both "xx:y.jsonl", the sidecar the aggregate references, and "xx_y.jsonl", the plain name it is kept under: remove one of them',
    );
    // A one-letter name before ":" reads as a drive letter: refused as absolute, before anything is looked up.
    expect(await rejection(mapInput(dirInput({ 'agg.json': aggregate(side, {}, { file_path: 'x:y.jsonl' }), 'x_y.jsonl': side }), { metric: 'r-acc' }))).toBe(
      "the aggregate's sidecar reference (detailed_evaluation_results.file_path) is refused: it is absolute; an import only reads files inside its input",
    );
  });

  it('two other names for one plain name: only the plain name is read, the checksum decides, the other file is said as not read', async () => {
    const other = jsonl([row('s9', 'r-acc')]);
    const input = dirInput({ 'agg.json': aggregate(side, {}, { file_path: 'xx:y.jsonl' }), 'xx?y.jsonl': other, 'xx_y.jsonl': side });
    const mapped = await mapInput(input, { metric: 'r-acc' });
    expect([...mapped.files.keys()].filter((p) => p.startsWith('source/'))).toEqual(['source/agg.json', 'source/xx_y.jsonl']);
    expect(lines(mapped, 'ledger.jsonl').map((t) => t.task_id)).toEqual(['s1', 's2']);
    expect(mapped.summary.unkept).toEqual(['1 other file of the input not read (only the aggregate and its sidecar are kept)']);
    // A plain-named file that is not the sidecar the aggregate was made with is refused by its checksum.
    const wrong = dirInput({ 'agg.json': aggregate(side, {}, { file_path: 'xx:y.jsonl' }), 'xx_y.jsonl': other });
    expect(await rejection(mapInput(wrong, { metric: 'r-acc' }))).toMatch(/^the sidecar's sha256 is [0-9a-f]{64}, but the aggregate records [0-9a-f]{64}: /);
  });

  it('a reference with no plain name, or whose file is absent, is refused listing where it looked', async () => {
    const long = `${'x'.repeat(300)}:.jsonl`;
    expect(await rejection(mapInput(dirInput({ 'agg.json': aggregate(side, {}, { file_path: long }) }), { metric: 'r-acc' }))).toBe(
      `the sidecar the aggregate references is not in the input (looked for ${JSON.stringify(long.slice(0, 200))}): give the directory that holds both`,
    );
    expect(await rejection(mapInput(dirInput({ 'd/agg.json': aggregate(side, {}, { file_path: 'm/a:b.jsonl' }) }), { metric: 'r-acc' }))).toBe(
      'the sidecar the aggregate references is not in the input (looked for "m/a:b.jsonl", "d/a:b.jsonl", "m/a_b.jsonl" and "d/a_b.jsonl"): give the directory that holds both',
    );
  });

  it('a reference past maxStringBytes is refused at the limit, never cut', async () => {
    const ref = `${'y'.repeat(100)}:z.jsonl`;
    const input = dirInput({ 'agg.json': aggregate(side, {}, { file_path: ref }), [plainPathOf(ref)!]: side });
    const error = await mapInput(input, { metric: 'r-acc' }, { maxStringBytes: 64 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportLimitError);
    expect((error as Error).message).toBe(
      "the aggregate's sidecar reference (detailed_evaluation_results.file_path) is 108 bytes long, more than the 64 an import keeps (import_limits.maxStringBytes)",
    );
    // Within the limit the same input imports.
    expect(verifyMapped(await mapInput(input, { metric: 'r-acc' })).status).toBe('verified');
  });

  it('a plain name that is the aggregate itself is never taken for the sidecar', async () => {
    const input = dirInput({ 'ab_c.json': aggregate(side, {}, { file_path: 'ab:c.json' }) });
    expect(await rejection(mapInput(input, { metric: 'r-acc' }))).toMatch(/^the sidecar the aggregate references is not in the input/);
  });
});
