/**
 * Retained reports: create-only writes, ids re-derived at every read, an
 * edited file reported (never accepted), the Atom feed dated by evidence.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { readRetained, retainReport, RetainError, retainedBytes } from '../../src/history/retained-reports.ts';

const root = new URL('../..', import.meta.url).pathname;
let dir: string;
let report: Report;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-retained-'));
  report = buildReport(await verifyPaths([join(root, 'content', 'bundles')]), await loadConfig(join(root, 'ledgerboard.config.json')));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('retain', () => {
  it('writes <hex>.json create-only; the same report again is a no-op; other bytes under the name are refused', async () => {
    const first = await retainReport(dir, report);
    expect(first.outcome).toBe('created');
    expect(first.path).toBe(join(dir, `${report.report_id.slice(7)}.json`));
    expect(await readFile(first.path, 'utf8')).toBe(retainedBytes(report));
    expect((await retainReport(dir, report)).outcome).toBe('exists');
    await writeFile(first.path, retainedBytes(report).replace('"widget-bugs', '"widget-BUGS'));
    await expect(retainReport(dir, report)).rejects.toBeInstanceOf(RetainError);
    await writeFile(first.path, retainedBytes(report));
  });

  it('reading re-derives every id: an intact file checks, an edited one is reported with both digests', async () => {
    const intact = await readRetained(dir);
    expect(intact.reports).toHaveLength(1);
    expect(intact.reports[0]!.problems).toEqual([]);
    expect(intact.reports[0]!.report?.report_id).toBe(report.report_id);
    const path = join(dir, `${report.report_id.slice(7)}.json`);
    await writeFile(path, retainedBytes(report).replace('"rate":0.8235294117647058', '"rate":0.9'));
    const edited = await readRetained(dir);
    expect(edited.reports[0]!.problems.join(' ')).toMatch(/does not re-derive/);
    await writeFile(path, retainedBytes(report));
  });

  it('files that are not <hex>.json are listed as ignored, a missing directory is an empty history', async () => {
    await writeFile(join(dir, 'notes.txt'), 'x');
    await writeFile(join(dir, `.${'a'.repeat(64)}.json.4242.0123456789ab.tmp`), 'half written by a killed retain');
    // The temporary file of an interrupted retain is skipped without a word; anything else is listed.
    expect((await readRetained(dir)).ignored).toEqual(['notes.txt']);
    expect(await readRetained(join(dir, 'missing'))).toEqual({ reports: [], ignored: [] });
  });
});

describe('the committed history (content/reports)', () => {
  it('every retained report still reads as a valid report whose id re-derives, the oldest made before paths left the report config', async () => {
    const { reports, ignored } = await readRetained(join(root, 'content', 'reports'));
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(ignored).toEqual([]);
    for (const r of reports) expect(r.problems, r.hex).toEqual([]);
    expect(reports.some((r) => r.report?.config.bundles_dir !== undefined)).toBe(true);
  });
});
