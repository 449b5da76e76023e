/**
 * `import auto` with options per format: `--<format>-<flag>` (derived from
 * each importer's declared flags) and `--options FILE` (strict JSON, format
 * -> flags), so a directory mixing formats imports in one call; usage errors
 * naming the member; a warning for a format's flags that no input used.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/import/registry.ts';
import { prefixedFlags } from '../../src/import/auto.ts';
import { OPTIONS_MAX_BYTES, OptionsFileError, parseOptionsFile } from '../../src/import/options-file.ts';
import { runCli } from '../helpers/cli.ts';
import { listTree, REAL_LOGS, tempDirs } from './helpers.ts';

const temp = tempDirs();
const CONTENT = new URL('../../content/imported/', import.meta.url).pathname;

/** A directory mixing three formats: a HELM run, an EEE record and an Inspect log (all real, from the demo inputs). */
async function mixed(): Promise<string> {
  const root = await temp();
  await cp(join(CONTENT, 'helm', 'harm_bench-model-qwen_qwen2-72b-instruct'), join(root, 'in', 'helm-run'), { recursive: true });
  await cp(join(CONTENT, 'eee', 'pubmed_qa-gpt-4o-mini'), join(root, 'in', 'pubmed'), { recursive: true });
  await cp(join(REAL_LOGS, 'log_streaming.eval'), join(root, 'in', 'log.eval'));
  return root;
}

/** Each written bundle's plan grader (id and profile), by format, and its bundle id. */
async function bundles(out: string): Promise<Map<string, { grader: { id: string; profile: string }; bundleId: string }>> {
  const found = new Map<string, { grader: { id: string; profile: string }; bundleId: string }>();
  for (const dir of (await readdir(out)).sort()) {
    const plan = JSON.parse(await readFile(join(out, dir, 'plan.json'), 'utf8')) as { origin: { format: string }; grader: { id: string; profile: string } };
    const manifest = JSON.parse(await readFile(join(out, dir, 'manifest.json'), 'utf8')) as { bundle_id: string };
    found.set(plan.origin.format, { grader: plan.grader, bundleId: manifest.bundle_id });
  }
  return found;
}

const auto = (root: string, ...args: string[]) => runCli(['import', 'auto', join(root, 'in'), '-o', join(root, 'out'), '--license', 'MIT', ...args]);

describe('import auto: each format its own flags', () => {
  it('the prefixed flags are every importer flag, named --<format>-<flag>', () => {
    const names = [...prefixedFlags(IMPORTERS, []).keys()];
    expect(names).toEqual(IMPORTERS.flatMap((i) => Object.keys(i.flags).map((f) => `${i.name}-${f}`)));
    expect(names).toEqual(expect.arrayContaining(['helm-metric', 'helm-pass-threshold', 'lm-eval-pass-threshold', 'eee-pass-threshold', 'inspect-scorer', 'terminal-bench-pass-threshold']));
    // A new importer's flags come for free; a name that would shadow another option is a programming error.
    const extra = { ...IMPORTERS[0]!, name: 'new-format', flags: { depth: { type: 'string' as const, help: '--depth N' } } };
    expect([...prefixedFlags([...IMPORTERS, extra], []).keys()]).toContain('new-format-depth');
    expect(() => prefixedFlags(IMPORTERS, ['helm-metric'])).toThrow('import flag --helm-metric has two meanings');
  });

  it('a directory mixing formats imports in one call: a format-prefixed flag goes to its format only, and wins over the unprefixed one', async () => {
    const root = await mixed();
    const r = await auto(root, '--pass-threshold', '1', '--helm-metric', 'harm_bench_score', '--helm-pass-threshold', '0.5');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 inputs: 3 imported and verified, 0 failed');
    expect(r.stderr).not.toContain('warning');
    const b = await bundles(join(root, 'out'));
    expect([...b.keys()].sort()).toEqual(['every-eval-ever', 'helm-run', 'inspect-eval-log']);
    expect(b.get('helm-run')!.grader.id).toBe('harm_bench_score split=test pass>=0.5');
    expect(b.get('every-eval-ever')!.grader.profile).toBe('every-eval-ever score >= 1');
  });

  it('an options file gives the same bundles as the same flags on the command line', async () => {
    const root = await mixed();
    const flags = await auto(root, '--helm-metric', 'harm_bench_score', '--helm-pass-threshold', '0.5', '--eee-pass-threshold', '1');
    expect(flags.code, flags.stderr).toBe(0);
    const byFlags = await bundles(join(root, 'out'));
    const other = await mixed();
    const file = join(other, 'options.json');
    await writeFile(file, JSON.stringify({ helm: { metric: 'harm_bench_score', 'pass-threshold': '0.5' }, eee: { 'pass-threshold': '1' }, 'swe-bench': {} }));
    const byFile = await auto(other, '--options', file);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(byFile.stdout).toContain('3 inputs: 3 imported and verified, 0 failed');
    expect(await bundles(join(other, 'out'))).toEqual(byFlags);
    // The file and a format's prefixed flag combine when they name different flags.
    const third = await mixed();
    await writeFile(join(third, 'options.json'), JSON.stringify({ helm: { metric: 'harm_bench_score' } }));
    const both = await auto(third, '--options', join(third, 'options.json'), '--helm-pass-threshold', '0.5', '--eee-pass-threshold', '1');
    expect(both.code, both.stderr).toBe(0);
    expect(await bundles(join(third, 'out'))).toEqual(byFlags);
  });

  it('a format flag given while no input is that format is said (warning), not silently ignored', async () => {
    const root = await mixed();
    const file = join(root, 'options.json');
    await writeFile(file, JSON.stringify({ 'lm-eval': { metric: 'acc' } }));
    const r = await auto(root, '--eee-pass-threshold', '1', '--terminal-bench-pass-threshold', '0.5', '--options', file, '--results', 'results_x.json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`ledgerboard: warning: lm-eval.metric in ${file} given, but no input was recognised as lm-eval (lm-evaluation-harness run): not used\n`);
    expect(r.stderr).toContain('ledgerboard: warning: --terminal-bench-pass-threshold given, but no input was recognised as terminal-bench (Terminal-Bench run): not used\n');
    expect(r.stderr).toContain("ledgerboard: warning: --results given, but no input's format takes it: not used\n");
    expect(r.stderr).not.toMatch(/warning: --eee-pass-threshold/);
  });
});

describe('import auto: usage errors name the member, nothing is written', () => {
  const cases: [string, unknown, string][] = [
    ['an unknown format', { helmm: { metric: 'x' } }, 'helmm: not a format (the formats: inspect, lm-eval, helm, swe-bench, terminal-bench, eee; "auto" takes no options of its own)'],
    ['auto itself', { auto: {} }, 'auto: not a format'],
    ['an unknown flag', { helm: { metrik: 'x' } }, 'helm.metrik: helm takes no flag of that name (its flags: metric, split, pass-threshold)'],
    ['a flag with its dashes', { helm: { '--metric': 'x' } }, 'helm["--metric"]: helm takes no flag of that name (write it without the leading "--": "metric")'],
    ['a flag of a format that takes none', { 'swe-bench': { metric: 'x' } }, 'swe-bench.metric: swe-bench takes no flag of that name (swe-bench takes no flags)'],
    ['a number for a string flag', { helm: { 'pass-threshold': 0.5 } }, 'helm.pass-threshold: must be a string, as typed on the command line (e.g. "0.5"), not a number'],
    ['true for a string flag', { eee: { metric: true } }, 'eee.metric: must be a string, as typed on the command line (e.g. "0.5"), not true'],
    ['a format as a string', { helm: 'metric' }, 'helm: must be an object of helm\'s flags (e.g. {"metric": "VALUE"}), not a string'],
    ['an array at the top', [{ helm: {} }], 'the top level must be an object mapping format names'],
    ['a nested value', { helm: { metric: ['a'] } }, "helm.metric[0]: a flag's value is a string (or true/false for a switch), never an object or array (line 1, column 20)"],
    ['__proto__ as a format', JSON.parse('{"__proto__": {"metric": "x"}}'), '__proto__: not a format'],
    ['constructor as a flag', { helm: { constructor: 'x' } }, 'helm.constructor: helm takes no flag of that name'],
  ];
  it.each(cases)('%s', async (_, value, message) => {
    const root = await mixed();
    const file = join(root, 'options.json');
    await writeFile(file, JSON.stringify(value));
    const r = await auto(root, '--options', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`ledgerboard: --options ${file}: ${message}`);
    expect(await listTree(root)).not.toContain('out');
  });

  it('a member twice, a file over the limit, invalid UTF-8, a missing file, a directory, a FIFO', async () => {
    const root = await mixed();
    const file = join(root, 'options.json');
    const expectUsage = async (bytes: Uint8Array | string, message: string, path = file) => {
      await writeFile(file, bytes);
      const r = await auto(root, '--options', path);
      expect(r.code, message).toBe(2);
      expect(r.stderr).toContain(`ledgerboard: --options ${path}: ${message}`);
    };
    await expectUsage('{"helm": {"metric": "a"}, "helm": {"metric": "b"}}', 'the top level: duplicate member name "helm" (line 1, column 27)');
    await expectUsage('{"helm": {"metric": "a", "metric": "b"}}', 'helm: duplicate member name "metric" (line 1, column 26)');
    await expectUsage(`{"helm": {"metric": "${'x'.repeat(OPTIONS_MAX_BYTES)}"}}`, `the file is over ${OPTIONS_MAX_BYTES} bytes, the limit of an options file`);
    await expectUsage(`{"helm": {"metric": "${'x'.repeat(5000)}"}}`, 'helm.metric: a string of 5000 bytes, over the limit of 4096');
    await expectUsage(Buffer.concat([Buffer.from('{"helm": {"metric": "a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]), 'not UTF-8 text: invalid UTF-8 at byte 23 (line 1), in helm.metric');
    await expectUsage('{"helm": {"metric": "a"}', "helm: unexpected end of input: expected ',' or '}' (line 1, column 25)");
    await expectUsage('', 'the top level: empty document: expected a JSON value (line 1, column 1)');
    await expectUsage('{}', 'cannot read it: ENOENT', join(root, 'nope.json'));
    await mkdir(join(root, 'dir.json'));
    await expectUsage('{}', 'not a regular file', join(root, 'dir.json'));
    // A FIFO is refused, never waited on.
    execFileSync('mkfifo', [join(root, 'fifo.json')]);
    await expectUsage('{}', 'not a regular file', join(root, 'fifo.json'));
    expect(await listTree(root)).not.toContain('out');
  });

  it('a bad value is checked by its importer before anything is read, naming where it was given', async () => {
    const root = await mixed();
    const file = join(root, 'options.json');
    await writeFile(file, JSON.stringify({ helm: { 'pass-threshold': 'abc' } }));
    const r = await auto(root, '--options', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^ledgerboard: helm \\(helm\\.pass-threshold in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): --pass-threshold `, 'm'));
    const flag = await auto(root, '--helm-split', 'train');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('ledgerboard: helm (--helm-split): --split must be one of test, valid, not "train"');
    expect(await listTree(root)).not.toContain('out');
  });

  it('the same flag of one format in the file and on the command line is refused', async () => {
    const root = await mixed();
    const file = join(root, 'options.json');
    await writeFile(file, JSON.stringify({ helm: { metric: 'harm_bench_score' } }));
    const r = await auto(root, '--options', file, '--helm-metric', 'other');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`ledgerboard: helm's metric is given twice: --helm-metric and helm.metric in ${file}; give it once`);
  });

  it('the prefixed flags and --options are for import auto only', async () => {
    const root = await mixed();
    const helm = await runCli(['import', 'helm', join(root, 'in', 'helm-run'), '-o', join(root, 'out'), '--helm-metric', 'harm_bench_score']);
    expect(helm.code).toBe(2);
    expect(helm.stderr).toContain('ledgerboard: --helm-metric: for import auto only; import helm takes its flags unprefixed (--metric, --split, --pass-threshold)');
    const options = await runCli(['import', 'swe-bench', join(root, 'in', 'helm-run'), '-o', join(root, 'out'), '--options', 'x.json']);
    expect(options.code).toBe(2);
    expect(options.stderr).toContain('ledgerboard: --options: for import auto only; import swe-bench takes its flags unprefixed (none)');
    expect(await listTree(root)).not.toContain('out');
  });

  it('--help documents both ways', async () => {
    const r = await runCli(['import', '--help']);
    expect(r.stdout).toContain('ledgerboard import auto <path>... -o <dir> [same options] [--<format>-<flag> VALUE] [--options FILE]');
    expect(r.stdout).toContain('--helm-metric --helm-split --helm-pass-threshold');
    expect(r.stdout).toContain(`--options FILE         each format's flags from a JSON file (at most ${OPTIONS_MAX_BYTES} bytes)`);
    expect(r.stdout).toContain('{"helm": {"metric": "harm_bench_score", "pass-threshold": "1"}}');
    expect(r.stdout).toContain("A format's own flags given while no input is that format are said (warning), not used.");
    expect(r.stdout).toContain('"already imported (same bundle id)"');
  });
});

describe('parseOptionsFile', () => {
  const parse = (text: string) => parseOptionsFile(new TextEncoder().encode(text), IMPORTERS);
  it('maps each format to its flags; a leading byte-order mark is ignored', () => {
    const options = parse('\ufeff{"helm": {"metric": "m", "pass-threshold": "1"}, "inspect": {"scorer": "match"}}');
    expect([...options]).toEqual([
      ['helm', { metric: 'm', 'pass-threshold': '1' }],
      ['inspect', { scorer: 'match' }],
    ]);
  });
  it('never lets a member name reach an object prototype', () => {
    expect(() => parse('{"helm": {"__proto__": "x"}}')).toThrow(new OptionsFileError('helm.__proto__: helm takes no flag of that name (its flags: metric, split, pass-threshold)'));
    expect(() => parse('{"helm": {"toString": "x"}}')).toThrow('helm.toString: helm takes no flag of that name');
  });
});
