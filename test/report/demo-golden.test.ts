/**
 * The demo's report matches the committed golden file byte for byte, from the
 * library and from the CLI, twice. Regenerate the golden only with
 * `npm run golden` (never in CI) and review the diff.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { selfId } from '../../src/json/canonical.ts';
import { Report } from '../../src/report/schema.ts';
import { demoReportText } from '../golden/demo-report.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const golden = () => readFile(new URL('../golden/demo-report.json', import.meta.url), 'utf8');

describe('the demo report', () => {
  it('matches the golden file (run `npm run golden` only for an intended change)', async () => {
    expect(await demoReportText(root)).toBe(await golden());
  });

  it('`ledgerboard report --json content/bundles` prints it, twice byte for byte', async () => {
    const run = () => promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', 'report', '--json', 'content/bundles'], { cwd: root, maxBuffer: 1 << 26 });
    const [first, second] = [await run(), await run()];
    expect(first.stdout).toBe(second.stdout);
    expect(first.stdout).toBe(await golden());
  });

  it('is a valid ledgerboard.report.v1 whose report_id re-derives', async () => {
    const report = JSON.parse(await golden()) as Record<string, unknown>;
    expect(Report.safeParse(report).success).toBe(true);
    expect(selfId(report, 'report_id')).toBe(report.report_id);
  });

  it('carries the verdicts the demo was designed to show', async () => {
    const report = Report.parse(JSON.parse(await golden()));
    const verdicts = report.cohorts
      .filter((c) => c.verdict !== null)
      .map((c) => `${c.board_id.slice(7, 15)} ${c.subject.model} ${c.subject.agent.version} ${c.verdict}`)
      .sort();
    expect(verdicts).toEqual([
      'a7bdcfaf acme/mini-2026-08-01 3.1.0 PASS',
      'a7bdcfaf lumen/sage-2026-10-15 3.1.0 PASS',
      'a7bdcfaf orbit/coder-7b-2026-07 3.1.0 REGRESSION',
      'c895cd60 acme/mini-2026-08-01 3.1.0 PASS',
      'c895cd60 acme/mini-2026-08-01 3.2.0 NO_VERDICT',
      'c895cd60 lumen/sage-2026-05-20 3.1.0 NO_GAIN',
      'c895cd60 lumen/sage-2026-10-15 3.1.0 PASS',
      'c895cd60 orbit/coder-7b-2026-07 3.1.0 REGRESSION',
    ]);
    expect(report.bundles.every((b) => b.counted)).toBe(true);
    expect(report.boards).toHaveLength(2);
  });
});
