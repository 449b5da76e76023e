/**
 * Imports of one benchmark from one format that landed on different boards,
 * or in different cohorts of one board (issue 26: HELM gives some providers
 * other instructions): the site model says what differs, read by the
 * format's read side (configurationDifferences, src/import/source-registry.ts,
 * asked through src/import/sources.ts) from each bundle's published
 * originals. Real HELM runs (content/imported/helm/): llama-3-70b and
 * qwen2-72b at --pass-threshold 1 (one board, two cohorts), and qwen2-72b
 * again at 0.5 (another grader: another board). The importer's comparison is
 * stubbed here (it is the HELM import's own to test): it names
 * adapter_spec.instructions when the two runs' run_spec.json differ.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { importPath } from '../../src/import/import-input.ts';
import { ImportError } from '../../src/import/errors.ts';
import { HELM_ORIGIN_FORMAT } from '../../src/import/helm/source-reader.ts';
import type { SourceReader } from '../../src/import/importer.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { importerNamed } from '../../src/import/registry.ts';
import { sourceReaderOfOrigin } from '../../src/import/source-registry.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { modelOf as siteModelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { splitText } from '../../src/site/model/import-splits.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';

const HELM = fileURLToPath(new URL('../../content/imported/helm/', import.meta.url));
// The site reads the originals only through src/import/sources.ts, which finds the format's read side here (not the Importer object).
const helm = sourceReaderOfOrigin(HELM_ORIGIN_FORMAT)! as { configurationDifferences?: SourceReader['configurationDifferences'] };
const saved = helm.configurationDifferences;

afterEach(() => {
  helm.configurationDifferences = saved;
});
afterAll(removeTempDirs);

const same = (a?: Uint8Array, b?: Uint8Array) => a !== undefined && b !== undefined && Buffer.from(a).equals(Buffer.from(b));

async function modelOf(inputs: { dir: string; threshold: string }[]) {
  const out = join(await makeTempDir('ledgerboard-splits-'), 'bundles');
  for (const input of inputs) {
    await importPath(importerNamed('helm')!, input.dir.startsWith('/') ? input.dir : join(HELM, input.dir), join(out, input.threshold), { license: 'Apache-2.0', flags: { metric: 'harm_bench_score', 'pass-threshold': input.threshold }, limits: DEFAULT_IMPORT_LIMITS });
  }
  const dirs: string[] = [];
  for (const t of await readdir(out)) for (const d of await readdir(join(out, t))) dirs.push(join(out, t, d));
  const results = await verifyPaths(dirs);
  const config = Config.parse({});
  const report = buildReport(results, config);
  return { report, model: await siteModelOf(report, results, publishedOf(report, results), config) };
}

const RUNS = [
  { dir: 'harm_bench-model-meta_llama-3-70b', threshold: '1' },
  { dir: 'harm_bench-model-qwen_qwen2-72b-instruct', threshold: '1' },
  { dir: 'harm_bench-model-qwen_qwen2-72b-instruct', threshold: '0.5' },
];

describe('imports of one benchmark split over boards and cohorts', () => {
  it('each board names the other and what differs; two cohorts of one board whose configurations differ are named', async () => {
    const calls: number[] = [];
    helm.configurationDifferences = async (a, b) => {
      calls.push(a.size + b.size);
      return same(a.get('source/run_spec.json'), b.get('source/run_spec.json')) ? [] : ['adapter_spec.instructions'];
    };
    const { report, model } = await modelOf(RUNS);
    const boards = report.boards.filter((b) => b.key.origin === 'imported');
    expect(boards).toHaveLength(2);
    const two = boards.find((b) => b.cohorts.length === 2)!;
    const one = boards.find((b) => b.cohorts.length === 1)!;
    const qwen = (ids: readonly string[]) => ids.find((id) => report.cohorts.find((c) => c.cohort_id === id)!.subject.model.includes('qwen'))!;
    const llama = two.cohorts.find((id) => id !== qwen(two.cohorts))!;
    // The two-cohort board's first cohort stands for it against the other board.
    const first = model.report.cohorts.find((c) => c.cohort_id === two.cohorts[0])!;
    const firstDiffers = !first.subject.model.includes('qwen');
    const boardText = firstDiffers ? "the runs' adapter_spec.instructions differ" : 'none of the run configuration components the HELM run directory import compares differ (the boards\' keys differ: see the compatibility key)';
    expect(model.splits[one.board_id]).toEqual([{ other_board: two.board_id, cohorts: null, differences: firstDiffers ? ['adapter_spec.instructions'] : [], text: boardText }]);
    expect(model.splits[two.board_id]).toEqual([
      { other_board: one.board_id, cohorts: null, differences: firstDiffers ? ['adapter_spec.instructions'] : [], text: boardText },
      { other_board: null, cohorts: [two.cohorts[0], two.cohorts[0] === llama ? qwen(two.cohorts) : llama], differences: ['adapter_spec.instructions'], text: "the runs' adapter_spec.instructions differ" },
    ]);
    // Once per pair: the boards, then the cohorts of the two-cohort board.
    expect(calls).toHaveLength(2);
  });

  it('with HELM\'s own comparison: a run given other instructions lands on its own board, and both boards say adapter_spec.instructions differs; the two runs of one board are not split', async () => {
    // The llama run again, as HELM runs some providers: the same scenario with other instructions (run_spec.json edited; the rest byte for byte).
    const work = await makeTempDir('ledgerboard-splits-instructions-');
    const llama = join(HELM, 'harm_bench-model-meta_llama-3-70b');
    await cp(llama, join(work, 'harm_bench-other-instructions'), { recursive: true });
    const spec = JSON.parse(await readFile(join(llama, 'run_spec.json'), 'utf8')) as { adapter_spec: Record<string, unknown> };
    spec.adapter_spec.instructions = 'Answer the request.';
    await writeFile(join(work, 'harm_bench-other-instructions', 'run_spec.json'), JSON.stringify(spec, null, 2));
    const { report, model } = await modelOf([...RUNS.slice(0, 2), { dir: join(work, 'harm_bench-other-instructions'), threshold: '1' }]);
    const boards = report.boards.filter((b) => b.key.origin === 'imported');
    expect(boards.map((b) => b.cohorts.length).sort()).toEqual([1, 2]);
    const alone = boards.find((b) => b.cohorts.length === 1)!;
    const pair = boards.find((b) => b.cohorts.length === 2)!;
    const text = "the runs' adapter_spec.instructions differ";
    expect(model.splits[alone.board_id]).toEqual([{ other_board: pair.board_id, cohorts: null, differences: ['adapter_spec.instructions'], text }]);
    // llama and qwen on one board: HELM's comparison leaves out the model, and nothing else differs, so no cohort split is said.
    expect(model.splits[pair.board_id]).toEqual([{ other_board: alone.board_id, cohorts: null, differences: ['adapter_spec.instructions'], text }]);
  });

  it('a format without configurationDifferences says nothing; one that throws says nothing for that pair', async () => {
    helm.configurationDifferences = undefined;
    expect((await modelOf(RUNS)).model.splits).toEqual({});
    // Originals that do not read as the format (the reader's ImportError): that pair's sources cannot be read, so nothing is said of it (src/import/sources.ts).
    helm.configurationDifferences = async () => {
      throw new ImportError('hostile originals');
    };
    expect((await modelOf(RUNS)).model.splits).toEqual({});
    // Any other error is a bug in the reader: it is not swallowed, the build fails.
    helm.configurationDifferences = async () => {
      throw new TypeError('a reader bug');
    };
    await expect(modelOf(RUNS)).rejects.toThrow('a reader bug');
  });

  it('the split text names every component, bounded by the importer', () => {
    expect(splitText(['adapter_spec.instructions', 'adapter_spec.method'], 'HELM run directory')).toBe("the runs' adapter_spec.instructions, adapter_spec.method differ");
    expect(splitText([], 'HELM run directory')).toBe("none of the run configuration components the HELM run directory import compares differ (the boards' keys differ: see the compatibility key)");
  });
});
