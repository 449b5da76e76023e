/**
 * retain records the files the site withholds beside a report it retains for
 * the first time (history/retained-withheld.ts), never changing the report or
 * its id, and never writes a record for a report already retained (what was
 * withheld then is not known: "not recorded").
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

let dir: string;
const config = () => join(dir, 'ledgerboard.config.json');
const configure = (withhold: unknown[]) => writeFile(config(), JSON.stringify({ bundles_dir: 'evidence', withhold }));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-retain-withheld-'));
  await cp('content/bundles/2026-11-16-widget-bugs-offline-tools', join(dir, 'evidence', 'b'), { recursive: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('retain and withheld files', () => {
  it('records them beside a newly retained report, with the same report id as without the rule', async () => {
    await configure([]);
    const plain = JSON.parse((await runCli(['report', '--json', '--config', config(), '--no-cache'])).stdout) as { report_id: string };
    await configure([{ path: 'artifacts/grader/**', reason: 'holdout' }]);
    const run = await runCli(['retain', '--config', config(), '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/withheld when retained: \d+ files/);
    const hex = plain.report_id.slice(7);
    expect(await readdir(join(dir, 'content', 'reports'))).toEqual(expect.arrayContaining([`${hex}.json`, 'withheld']));
    const record = JSON.parse(await readFile(join(dir, 'content', 'reports', 'withheld', `${hex}.json`), 'utf8')) as { report_id: string; files: { path: string; reason: string }[] };
    expect(record.report_id).toBe(plain.report_id);
    expect(record.files.length).toBeGreaterThan(0);
    expect(record.files.every((f) => f.path.startsWith('artifacts/grader/') && f.reason === 'holdout')).toBe(true);
  });

  it('writes no record for a report already retained', async () => {
    await rm(join(dir, 'content', 'reports', 'withheld'), { recursive: true });
    const run = await runCli(['retain', '--config', config(), '--no-cache']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/already retained/);
    expect(await readdir(join(dir, 'content', 'reports'))).not.toContain('withheld');
  });
});
