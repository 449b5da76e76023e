/**
 * Issue 25, High 4: 10^4 small bundles on 10^4 distinct ledgers failed the
 * build with "Invalid string length": the site model reached Astro as one
 * JSON string (twice: the JSON, then a JS string literal of it), and at 10^4
 * ledgers the model's JSON is past the longest string V8 makes. The model now
 * reaches the pages as lines of JSON (render.ts siteModelLines), each one part
 * of it (a report entry, one bundle's plan page, one board's charts), read
 * back line by line.
 *
 * A full build at 10^4 bundles takes far longer than a test may (10^3 such
 * bundles: 523 s, peak RSS 1.15 GiB on a shared 2-core machine; about 10
 * pages per bundle, most of the time in Astro), so the model here is an
 * honest small one (4 bundles on 4 ledgers, built as `build` builds it)
 * grown to 10^4 bundles, boards and cohorts by repeating its parts under
 * distinct keys (shared objects: the JSON is what 10^4 such bundles make,
 * the memory is not). One string of it cannot be made; its lines are bounded.
 */
import { constants } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { type SiteModel } from '../../src/site/model/model.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { siteModelPlugin, SITE_MODEL_MODULE, writeSiteModel } from '../../src/site/build/render.ts';
import { siteTasks } from '../../src/site/model/tasks.ts';
import { attemptIndexOf, evidenceOf } from '../../src/facts/attempt-index.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { writeManyLedgers } from '../helpers/many-ledgers.ts';

let small: SiteModel;

beforeAll(async () => {
  const dir = await writeManyLedgers(await makeTempDir('ledgerboard-model-scale-'), 4);
  const results = await verifyPaths([dir]);
  const config = Config.parse({});
  const report = buildReport(results, config);
  expect(report.boards).toHaveLength(4);
  const published = publishedOf(report, results);
  const tasks = await siteTasks(report, published, attemptIndexOf(report, evidenceOf(results)));
  small = await modelOf(report, results, published, config, { tasks: tasks.boards, transcripts: tasks.transcripts.pages });
}, 120_000);

afterAll(removeTempDirs);

/** The small model grown to `n` bundles, boards and cohorts: its parts repeated (shared, not copied) under distinct keys. */
function grown(model: SiteModel, n: number): SiteModel {
  const cycle = <T>(list: readonly T[]): T[] => Array.from({ length: n }, (_, i) => list[i % list.length]!);
  const record = <T>(from: Record<string, T>): Record<string, T> => {
    const values = Object.values(from);
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`sha256:${i.toString(16).padStart(64, '0')}`, values[i % values.length]!]));
  };
  const report: Report = { ...model.report, bundles: cycle(model.report.bundles), boards: cycle(model.report.boards), cohorts: cycle(model.report.cohorts) };
  return {
    ...model,
    report,
    boardOrder: Array.from({ length: n }, (_, i) => i),
    cohortIndex: Object.fromEntries(Array.from({ length: n }, (_, i) => [`sha256:${i.toString(16).padStart(64, '0')}`, i])),
    bundles: cycle(model.bundles),
    plans: Object.fromEntries(Array.from({ length: n }, (_, i) => [i.toString(16).padStart(64, '0'), i])),
    charts: record(model.charts),
    compare: record(model.compare),
    tasks: record(model.tasks),
  };
}

describe('the site model at 10^4 bundles on 10^4 ledgers', () => {
  it('is past what one string holds, and is written as lines none longer than one part of it', async () => {
    const model = grown(small, 10_000);
    // The old module: JSON.stringify(model), then JSON.stringify of that text.
    expect(() => JSON.stringify(model)).toThrow(RangeError);
    const file = join(await makeTempDir('ledgerboard-model-scale-'), 'site-model.jsonl');
    const started = performance.now();
    const { lines, chars: total, longest } = await writeSiteModel(model, file);
    const seconds = (performance.now() - started) / 1000;
    console.log(`site model at 10^4: ${lines} lines, ${(total / 2 ** 20).toFixed(0)} MiB, longest line ${(longest / 1024).toFixed(1)} KiB, written in ${seconds.toFixed(1)} s`);
    expect(total).toBeGreaterThan(constants.MAX_STRING_LENGTH);
    expect((await stat(file)).size).toBeGreaterThanOrEqual(total);
    // One bundle's plan page, one board's charts: the largest part of one small bundle is well under 1 MiB.
    expect(longest).toBeLessThan(1024 * 1024);
    expect(lines).toBeGreaterThan(6 * 10_000);
    expect(seconds).toBeLessThan(120);
  }, 240_000);

  it('reads back, line by line, into exactly the model (grown to 10^3, whose reading fits a test)', async () => {
    const model = grown(small, 1_000);
    const file = join(await makeTempDir('ledgerboard-model-scale-'), 'site-model.jsonl');
    await writeSiteModel(model, file);
    const plugin = siteModelPlugin(file);
    const code = plugin.load(plugin.resolveId(SITE_MODEL_MODULE)!)!;
    // The module's source is the reader alone: it does not grow with the model.
    expect(code.length).toBeLessThan(4096);
    const served = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { default: unknown };
    expect(served.default).toStrictEqual(JSON.parse(JSON.stringify(model)));
    expect((await readFile(file, 'utf8')).split('\n').at(-1)).toBe('');
  }, 240_000);
});
