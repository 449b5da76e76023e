/**
 * Totals a report cannot hold exactly (issue 10, item 3). One bundle whose
 * attempts' wall time sums to Infinity, or whose tokens, retries or cost sum
 * past 2^53 - 1, is LIMIT_EXCEEDED (no_verdict) on its own, and every other
 * bundle is counted as usual: `report`, `build` and `retain` go on. Bundles
 * fine alone whose pooled cohort sums go past the bound are held at it and
 * named in the cohort's `bounded`. report.json never carries an unsafe
 * integer or a non-finite number, and its schema refuses them.
 */
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { Report, ReportCohort } from '../../src/report/schema.ts';
import { moneyText, tokensText } from '../../src/site/views/format.ts';
import type { Attempt } from '../../src/schema/index.ts';
import { BASELINE, CANDIDATE, makeTempDir, removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';
import { runCli } from '../helpers/cli.ts';
import { BASE, CAND, gridInput, gridModel, type ModelSpec } from '../helpers/report-fixtures.ts';

afterAll(removeTempDirs);

const DEFAULTS = Config.parse({});
const MAX = Number.MAX_SAFE_INTEGER;
const GRID: ModelSpec = { tasks: [{ id: 't1' }, { id: 't2' }], grid: { [CAND]: ['PP', 'PF'], [BASE]: ['FF', 'PF'] } };

/** A bundle of GRID whose candidate attempts get `tweak` (a distinct plan per title). */
function spec(title: string, tweak?: (a: Attempt) => void, over: Partial<ModelSpec> = {}): ModelSpec {
  return { ...GRID, title, prefix: title.replace(/\W/g, ''), tweak: (a) => (a.model === CANDIDATE.model ? tweak?.(a) : undefined), ...over };
}

/** Every number in a JSON value: finite, and a safe integer when an integer. */
function assertExactNumbers(value: unknown, path = '$'): void {
  if (typeof value === 'number') {
    expect(Number.isFinite(value), path).toBe(true);
    if (Number.isInteger(value) && Math.abs(value) >= 2 ** 53) {
      // Only a float that is not a count may be that large (wall seconds).
      expect(path, `${path} = ${value}`).toMatch(/wall_seconds/);
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) assertExactNumbers(v, `${path}.${k}`);
}

/** buildReport, then the checks every report here must pass: its schema, RFC 8785 text, exact numbers. */
function build(inputs: ReportInput[]): Report {
  const report = buildReport(inputs, DEFAULTS);
  const parsed = Report.safeParse(report);
  if (!parsed.success) throw new Error(`report fails its schema: ${parsed.error.message}`);
  expect(() => canonicalJson(report)).not.toThrow();
  assertExactNumbers(report);
  return report;
}

const limitFindings = (input: ReportInput) => input.verification.findings.filter((f) => f.code === 'LIMIT_EXCEEDED');

describe('one bundle whose own totals a report cannot hold', () => {
  const valid = gridInput(spec('valid'));

  const cases: [name: string, total: string, tweak: (a: Attempt) => void][] = [
    ['two wall_seconds of 1.7e308 (the sum is Infinity)', 'wall_seconds.sum', (a) => void (a.wall_seconds = 1.7e308)],
    ['tokens.input of 2^53 - 1 twice', 'tokens.input', (a) => void (a.tokens = { input: MAX, output: 0 })],
    ['tokens.output of 2^53 - 1 twice', 'tokens.output', (a) => void (a.tokens = { input: 0, output: MAX })],
    ['tokens input + output over 2^53 - 1 (each sum alone within it)', 'tokens.total', (a) => void (a.tokens = { input: 2 ** 50, output: 2 ** 50 })],
    ['retries of 2^53 - 1 twice', 'retries', (a) => void (a.retries = MAX)],
    ['cost micros of 2^53 - 1 twice', 'cost.micros', (a) => void (a.cost = { state: 'complete', micros: MAX })],
  ];
  it.each(cases)('%s: LIMIT_EXCEEDED naming %s, no_verdict; the valid bundle beside it is counted', (_name, total, tweak) => {
    const bad = gridInput(spec('bad', tweak));
    const hits = limitFindings(bad);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ file: 'attempts.jsonl', severity: 'error' });
    expect(hits[0]!.message).toContain(` ${total} `);
    expect(bad.verification.status).toBe('no_verdict');
    const report = build([bad, valid]);
    const byId = new Map(report.bundles.map((b) => [b.bundle_id, b]));
    expect(byId.get(bad.verification.bundle_id)).toMatchObject({ status: 'no_verdict', counted: false });
    expect(byId.get(valid.verification.bundle_id)).toMatchObject({ status: 'verified', counted: true });
    expect(report.cohorts.map((c) => c.attempts).sort()).toEqual([4, 4]);
    expect(report.cohorts.every((c) => c.bounded === undefined)).toBe(true);
  });

  it('one attempt at the bound is fine: 2^53 - 1 tokens and a wall time of 1.7e308 verify and are reported as they are', () => {
    let first = true;
    const edge = gridInput(
      spec('edge', (a) => {
        if (!first) return;
        first = false;
        a.tokens = { input: MAX - 7700, output: 0 };
        a.wall_seconds = 1.7e308;
        a.cost = { state: 'complete', micros: MAX - 7000 };
      }),
    );
    expect(edge.verification.status).toBe('verified');
    const report = build([edge]);
    const candidate = report.cohorts.find((c) => c.subject.model === CANDIDATE.model)!;
    // Seven more attempts of 1000 + 100 tokens and 1000 micros each (the grid's defaults) bring the bundle's totals to the bound exactly.
    expect(limitFindings(edge)).toEqual([]);
    expect(candidate.tokens).toMatchObject({ input: MAX - 7700 + 3000, output: 300, total: MAX - 4400, complete: true });
    expect(candidate.cost).toMatchObject({ micros: MAX - 4000, complete: true });
    expect(candidate.wall_seconds.sum).toBe(1.7e308 + 3 * 600);
    expect(candidate.bounded).toBeUndefined();
  });
});

describe('bundles fine alone whose pooled cohort totals go past the bound', () => {
  // Two plans of one board (same keys), each with candidate tokens and cost of 2^52 + 1 and wall time 1e308 per plan.
  const half = (a: Attempt) => {
    a.tokens = { input: 2 ** 50 + 1, output: 1 };
    a.cost = { state: 'complete', micros: 2 ** 50 + 1 };
    a.retries = 2 ** 50;
    a.wall_seconds = 2.5e307;
  };
  const first = gridInput(spec('first', half, { created_at: '2026-09-14T12:00:00Z' }));
  const second = gridInput(spec('second', half, { created_at: '2026-09-14T13:00:00Z' }));

  it('each bundle is verified', () => {
    expect(first.verification.status).toBe('verified');
    expect(second.verification.status).toBe('verified');
  });

  it('the cohort holds each total at its bound and names it; tokens and cost become lower bounds', () => {
    const report = build([first, second]);
    expect(report.boards).toHaveLength(1);
    const candidate = report.cohorts.find((c) => c.subject.model === CANDIDATE.model)!;
    expect(candidate.attempts).toBe(8);
    expect(candidate.bounded).toEqual(['tokens.input', 'tokens.total', 'wall_seconds.sum', 'retries', 'cost.micros']);
    expect(candidate.tokens).toMatchObject({ input: MAX, output: 8, total: MAX, complete: false, unknown: 0 });
    expect(candidate.cost).toMatchObject({ micros: MAX, complete: false });
    expect(candidate.retries).toBe(MAX);
    expect(candidate.wall_seconds.sum).toBe(Number.MAX_VALUE);
    expect(candidate.wall_seconds.median).toBe(2.5e307);
    const baseline = report.cohorts.find((c) => c.subject.model === BASELINE.model)!;
    expect(baseline.bounded).toBeUndefined();
    expect(baseline.tokens.total).toBe(8 * 1100);
  });

  it('the readable forms say the held totals are lower bounds', () => {
    const candidate = build([first, second]).cohorts.find((c) => c.subject.model === CANDIDATE.model)!;
    expect(tokensText(candidate.tokens)).toBe('>= 9,007,199,254,740,991');
    expect(moneyText(candidate.cost, candidate.attempts)).toBe('>= USD 9007199254.74');
  });

  it('the same report whatever order the bundles come in', () => {
    expect(canonicalJson(build([second, first]))).toBe(canonicalJson(build([first, second])));
  });
});

describe('the report schema refuses what a report must never carry', () => {
  const report = build([gridInput(spec('valid'))]);
  const cohort = report.cohorts[0]!;

  it.each([
    ['an unsafe integer count', { ...cohort, tokens: { ...cohort.tokens, total: 2 ** 53 } }],
    ['unsafe cost micros', { ...cohort, cost: { ...cohort.cost, micros: 2 ** 60 } }],
    ['an infinite wall time sum', { ...cohort, wall_seconds: { sum: Infinity, median: 1 } }],
    ['NaN retries', { ...cohort, retries: NaN }],
    ['an unsafe integer in a key difference', { ...cohort, incompatible_with: [{ cohort_id: cohort.cohort_id, board_id: cohort.board_id, differences: [{ component: 'budget', a: { per_attempt_micros: 2 ** 53 }, b: null }] }] }],
    ['an empty bounded list', { ...cohort, bounded: [] }],
  ])('%s', (_name, value) => {
    expect(ReportCohort.safeParse(cohort).success).toBe(true);
    expect(ReportCohort.safeParse(value).success).toBe(false);
  });
});

describe('the CLI', () => {
  it('build: exit 0 beside an overflowing bundle and a 70 KB plan title; both no_verdict, the valid one counted, the title nowhere in the site', { timeout: 300_000 }, async () => {
    const site = await makeTempDir('lb-totals-');
    await cp(await writeModel(gridModel(spec('valid'))), join(site, 'evidence', 'valid'), { recursive: true });
    await cp(await writeModel(gridModel(spec('bad', (a) => void (a.wall_seconds = 1.7e308)))), join(site, 'evidence', 'bad'), { recursive: true });
    const title = `long title ${'t'.repeat(70_000)}`;
    await cp(await writeModel(gridModel(spec('long', undefined, { title }))), join(site, 'evidence', 'long'), { recursive: true });
    await writeFile(join(site, 'lb.json'), JSON.stringify({ bundles_dir: 'evidence' }));
    const out = join(site, 'out');
    const build = await runCli(['build', '--config', join(site, 'lb.json'), '--out', out]);
    expect(build.stderr).not.toContain('unexpected error');
    expect(build.code).toBe(0);
    const report = Report.parse(JSON.parse(await readFile(join(out, 'report.json'), 'utf8')));
    expect(report.bundles.map((b) => [b.status, b.counted, b.findings.map((f) => f.code)]).sort()).toEqual([
      ['no_verdict', false, ['LIMIT_EXCEEDED']],
      ['no_verdict', false, ['LIMIT_EXCEEDED']],
      ['verified', true, []],
    ]);
    // The title is in the published evidence bytes only (plan.json itself), never on a page or in the report.
    for (const file of await pages(out)) expect((await readFile(file, 'utf8')).includes('t'.repeat(1000)), file).toBe(false);
  });

  it('report --json and retain: exit 0 with the bad bundle beside a valid one; the bad one is LIMIT_EXCEEDED', async () => {
    const site = await makeTempDir();
    const evidence = join(site, 'evidence');
    await mkdir(evidence);
    await cp(await writeModel(gridModel(spec('valid'))), join(evidence, 'valid'), { recursive: true });
    await cp(await writeModel(gridModel(spec('bad', (a) => (a.wall_seconds = 1.7e308)))), join(evidence, 'bad'), { recursive: true });
    const report = await runCli(['report', '--json', evidence]);
    expect(report.stderr).not.toContain('unexpected error');
    expect(report.code).toBe(0);
    const parsed = Report.parse(JSON.parse(report.stdout));
    expect(parsed.bundles.map((b) => [b.status, b.counted, b.findings.map((f) => f.code)]).sort()).toEqual([
      ['no_verdict', false, ['LIMIT_EXCEEDED']],
      ['verified', true, []],
    ]);
    const config = join(site, 'lb.json');
    await writeFile(config, JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'reports' }));
    const retain = await runCli(['retain', '--config', config]);
    expect(retain.stderr).not.toContain('unexpected error');
    expect(retain.code).toBe(0);
  });
});

/** Every HTML page and JSON file the build wrote outside the published evidence. */
async function pages(out: string): Promise<string[]> {
  const all = await readdir(out, { recursive: true, withFileTypes: true });
  return all
    .filter((e) => e.isFile() && /\.(html|json)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !p.endsWith('plan.json'));
}
