/**
 * Imported runs on the site (issue 26), on real inputs of every format
 * imported afresh (content/imported/: HELM, SWE-bench, Terminal-Bench,
 * lm-eval, EEE, Inspect), in the site model and on the built pages:
 *
 * - item 4: each plan page states its own format's rule for a resolved
 *   attempt (importer.passRule, else where docs/importing.md states it),
 *   never Inspect's rule for another format;
 * - item 6: a start the source did not record (HELM, SWE-bench: the
 *   importers' 1970-01-01T00:00:00Z) is "not recorded" on the plan, board and
 *   cohort pages, never a 1970 date;
 * - item 7: leaderboard.csv leaves the rank of a cohort without usable grades
 *   empty, as the board shows "-";
 * - the one line where an imported headline differs from the source's own
 *   figure, on the board row and the cohort page;
 * - an imported attempt without a transcript says why on its task page row;
 * - imports of one benchmark split over boards say what differs.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { importPath } from '../../src/import/import-input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { importerNamed, importerOfOrigin } from '../../src/import/registry.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { type SiteModel } from '../../src/site/model/model.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { leaderboardCsv } from '../../src/site/model/data-texts.ts';
import { hexOf } from '../../src/site/views/format.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { textOf } from '../helpers/page-text.ts';
import { buildSite } from '../browser/browser.ts';
import { siteTasks } from '../../src/site/model/tasks.ts';
import { attemptIndexOf, evidenceOf } from '../../src/facts/attempt-index.ts';
import type { SourceReader } from '../../src/import/importer.ts';
import { sourceReaderOfOrigin } from '../../src/import/source-registry.ts';
import { TBENCH_ORIGIN_FORMAT } from '../../src/import/tbench/source-reader.ts';
import { rateRuleOf, sourceLineOf, emptyOutcomes, noTranscriptNote } from '../../src/site/model/imported-facts.ts';
import { inspectImporter } from '../../src/import/inspect/importer.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const IMPORTED = join(root, 'content', 'imported');

/** The inputs: format, path under content/imported/, flags (as the demo imports them: scripts/import-demo.ts). */
export const INPUTS: { format: string; path: string; license: string; flags?: Record<string, string> }[] = [
  { format: 'inspect', path: 'logs/log_tool_call_error.json', license: 'MIT' },
  { format: 'inspect', path: 'logs/2025-05-12T20-28-13-04-00_popularity.json', license: 'MIT' },
  { format: 'helm', path: 'helm/harm_bench-model-meta_llama-3-70b', license: 'Apache-2.0', flags: { metric: 'harm_bench_score', 'pass-threshold': '1' } },
  { format: 'helm', path: 'helm/harm_bench-model-qwen_qwen2-72b-instruct', license: 'Apache-2.0', flags: { metric: 'harm_bench_score', 'pass-threshold': '1' } },
  { format: 'swe-bench', path: 'swe-bench/tonight', license: 'MIT' },
  { format: 'terminal-bench', path: 'terminal-bench/tb1-2025-09-14__15-55-09', license: 'MIT' },
  { format: 'lm-eval', path: 'lm-eval/sshleifer__tiny-gpt2', license: 'MIT' },
  { format: 'eee', path: 'eee/pubmed_qa-gpt-4o-mini', license: 'MIT', flags: { 'pass-threshold': '1' } },
];

/** The Terminal-Bench 1 run whose trial was resolved after the agent's timeout (made in beforeAll). */
const TIMED_OUT = { bundle: '' };
let work = '';
let bundlesDir = '';
let report: Report;
let model: SiteModel;
let out = '';
let results: Awaited<ReturnType<typeof verifyPaths>>;

afterAll(removeTempDirs);

beforeAll(async () => {
  work = await makeTempDir('ledgerboard-imported-runs-');
  bundlesDir = join(work, 'bundles');
  for (const input of INPUTS) {
    await importPath(importerNamed(input.format)!, join(IMPORTED, input.path), bundlesDir, { license: input.license, flags: input.flags ?? {}, limits: DEFAULT_IMPORT_LIMITS });
  }
  // A Terminal-Bench 1 trial resolved after the agent's timeout (a real run, test/fixtures/import/terminal-bench, its one trial made one): counted resolved, and the plan page says how many.
  const timedOut = join(work, 'tb1-resolved-after-timeout');
  await cp(join(root, 'test', 'fixtures', 'import', 'terminal-bench', 'tb1-2025-09-14__14-24-59'), timedOut, { recursive: true });
  const tb = JSON.parse(await readFile(join(timedOut, 'results.json'), 'utf8')) as Record<string, unknown> & { results: { is_resolved: boolean | null; failure_mode: string }[] };
  tb.results[0]!.is_resolved = true;
  tb.results[0]!.failure_mode = 'agent_timeout';
  Object.assign(tb, { n_resolved: 1, n_unresolved: 0, resolved_ids: ['analyze-access-logs'], unresolved_ids: [], accuracy: 1.0 });
  await writeFile(join(timedOut, 'results.json'), JSON.stringify(tb, null, 2));
  const meta = JSON.parse(await readFile(join(timedOut, 'run_metadata.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(timedOut, 'run_metadata.json'), JSON.stringify({ ...meta, accuracy: 1.0 }, null, 2));
  // The trial's own results.json says the same (the importer holds the two to each other).
  const trialFile = join(timedOut, 'analyze-access-logs', 'analyze-access-logs.1-of-1.2025-09-14__14-24-59', 'results.json');
  const trial = JSON.parse(await readFile(trialFile, 'utf8')) as { is_resolved: boolean | null; failure_mode: string };
  trial.is_resolved = true;
  trial.failure_mode = 'agent_timeout';
  await writeFile(trialFile, JSON.stringify(trial, null, 2));
  TIMED_OUT.bundle = (await importPath(importerNamed('terminal-bench')!, timedOut, bundlesDir, { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS })).bundleId;
  const dirs = (await readdir(bundlesDir)).map((d) => join(bundlesDir, d));
  results = await verifyPaths(dirs);
  const config = Config.parse({ site_url: 'https://board.example/' });
  report = buildReport(results, config);
  model = await modelOf(report, results, publishedOf(report, results), config);
  out = join(work, 'site');
  await buildSite({ bundles: bundlesDir, out });
}, 600_000);

const html = (path: string) => readFile(join(out, path, 'index.html'), 'utf8');
/** The imported plans shown, with their format. */
const importedPlans = () =>
  model.bundles.flatMap((b) => (b.page?.imported && b.counted ? [{ b, plan: b.page.plan, imported: b.page.imported, hex: hexOf(b.plan_id!) }] : []));
const cohortsOfPlan = (planId: string) => report.cohorts.filter((c) => c.plans.some((p) => p.plan_id === planId));



describe('item 4: each format says its own rule for a resolved attempt', () => {
  it("the model holds the format's own sentence (importer.passRule), never Inspect's for another format", () => {
    const plans = importedPlans();
    expect(new Set(plans.map((p) => p.imported.format)).size).toBe(6);
    for (const { plan, imported } of plans) {
      const importer = importerOfOrigin(imported.format)!;
      expect(imported.rateRule).toBe(rateRuleOf({ name: importer.name, label: importer.label, passRule: (p) => importer.passRule?.(p) ?? null }, imported.format, plan));
      const rule = importer.passRule?.(plan);
      if (rule !== undefined) expect(imported.rateRule.endsWith(`: ${rule}`)).toBe(true);
      expect(imported.rateRule).toMatch(/^The imported rate counts an attempt as resolved by the /);
      if (imported.format !== 'inspect-eval-log') expect(imported.rateRule).not.toContain('C, or P at --pass-threshold');
    }
  });

  it("Inspect's rule reads the threshold back from the grader profile (default 1.0); a profile that is not a number is not repeated", () => {
    const words = (t: string) => `a sample is resolved when it completed and its score passes: C, or P at --pass-threshold 0.5 or below, true, a number at or above the threshold (this import: ${t}); one attempt per epoch, not the epochs' reduction`;
    expect(inspectImporter.passRule!({ grader: { id: 'match', profile: 'inspect-scorer' } } as never)).toBe(words('--pass-threshold 1.0'));
    expect(inspectImporter.passRule!({ grader: { id: 'match', profile: 'inspect-scorer pass>=0.5' } } as never)).toBe(words('--pass-threshold 0.5'));
    expect(inspectImporter.passRule!({ grader: { id: 'match', profile: 'inspect-scorer pass>=<b>$(x)' } } as never)).toBe(words('the threshold its grader profile records'));
  });

  it('a format without passRule names its section of docs/importing.md; a passRule that throws is a bug (the build fails); a format this version does not import says so', () => {
    const helm = importerNamed('helm')!;
    const plan = { grader: { id: 'x' } };
    const without = { name: helm.name, label: helm.label, passRule: () => null };
    expect(rateRuleOf(without, 'helm-run', plan)).toBe('The imported rate counts an attempt as resolved by the HELM run directory import\'s own rule: the rule is in docs/importing.md, section "HELM"');
    const throwing = { name: helm.name, label: helm.label, passRule: (): string => { throw new TypeError('bug'); } };
    expect(() => rateRuleOf(throwing, 'helm-run', plan)).toThrow(TypeError);
    expect(rateRuleOf(undefined, 'other-format', plan)).toBe('The imported rate counts an attempt as resolved by the rule of the format other-format, which this version of ledgerboard does not import: it is not stated here');
  });

  it('each plan page shows its sentence and no other format\'s words', async () => {
    for (const { hex, imported } of importedPlans()) {
      const page = await html(`plans/${hex}`);
      expect(textOf(page.match(/<span data-rate-rule>([\s\S]*?)<\/span>/)![1]!)).toBe(textOf(imported.rateRule.replace(/&/g, '&amp;').replace(/</g, '&lt;')));
      if (imported.format !== 'inspect-eval-log') expect(textOf(page)).not.toContain('C, or P at --pass-threshold');
    }
  });
});

describe("Terminal-Bench: a trial resolved after the agent's timeout", () => {
  it('counts resolved, and its plan page says so (NOTES.md, rendered) beside the rule that counts it', async () => {
    const bundle = model.bundles.find((b) => b.bundle_id === TIMED_OUT.bundle)!;
    expect(bundle.counted).toBe(true);
    const cohort = cohortsOfPlan(bundle.plan_id!)[0]!;
    expect({ resolved: cohort.headline.resolved, graded: cohort.headline.graded }).toEqual({ resolved: 1, graded: 1 });
    const page = textOf(await html(`plans/${hexOf(bundle.plan_id!)}`));
    expect(page).toContain("1 trial resolved after the agent's timeout: counted resolved");
    expect(page).toContain("a trial resolved after the agent's timeout counts resolved, as Terminal-Bench's accuracy does");
  });
});

describe('item 6: a start the source did not record is "not recorded", never a 1970 date', () => {
  it('HELM and SWE-bench plans: the plan page, its boards, cohorts and task pages say "not recorded"', async () => {
    const unrecorded = importedPlans().filter((p) => p.imported.format === 'helm-run' || p.imported.format === 'swe-bench-run');
    expect(unrecorded).toHaveLength(3);
    for (const { plan, hex } of unrecorded) {
      expect(plan.created_at).toBe('1970-01-01T00:00:00Z');
      const page = await html(`plans/${hex}`);
      expect(page).toContain('<dd data-run-started>not recorded</dd>');
      expect(page).toContain('Imported run started not recorded:');
      for (const c of cohortsOfPlan(plan.plan_id)) {
        const cohort = textOf(await html(`cohorts/${hexOf(c.cohort_id)}`));
        expect(cohort).toContain('imported, run started not recorded,');
        expect(cohort).not.toContain('1970');
        const board = textOf(await html(`boards/${hexOf(c.board_id)}`));
        expect(board).toContain('run started not recorded');
        expect(board).not.toContain('1970');
        for (const t of model.tasks[c.board_id]!.tasks.slice(0, 3)) {
          const task = textOf(await html(`boards/${hexOf(c.board_id)}/tasks/${t.key}`));
          expect(task).toContain('Created not recorded');
          expect(task).not.toContain('1970');
        }
      }
    }
  });
});

describe('item 7: a cohort without usable grades has no rank in leaderboard.csv, as on the board', () => {
  it('its rank field is empty; every other cohort keeps its rank', async () => {
    const csv = await readFile(join(out, 'leaderboard.csv'), 'utf8');
    expect(csv).toBe(leaderboardCsv(model));
    const rows = csv.trimEnd().split('\r\n').slice(1).map((line) => line.split(','));
    const unusable = rows.filter((r) => r[22] === 'no');
    expect(unusable.length).toBe(2);
    for (const r of unusable) expect([r[1], r[9]]).toEqual(['', '']);
    for (const r of rows.filter((r) => r[22] === 'yes')) expect(r[1]).toMatch(/^[0-9]+(-[0-9]+)?$/);
    // The board shows "-" for the same cohorts.
    for (const r of unusable) {
      const board = await html(`boards/${r[0]!.slice(7)}`);
      expect(board).toContain('data-no-usable-grades title="not ranked: no usable grades">-</td>');
    }
  });
});

describe('the one line where an imported headline differs from the source\'s own figure', () => {
  it('sourceLineOf: the source\'s figure, the imported count and the attempts not graded and why; null when they agree', () => {
    const o = emptyOutcomes();
    o.terminal.resolved = 25;
    o.terminal.model_failure = 3;
    expect(sourceLineOf([{ name: 'resolved_instances', value: 25 }], o)).toBeNull();
    expect(sourceLineOf([{ name: 'accuracy', value: 25 / 28 }], o)).toBeNull();
    expect(sourceLineOf([{ name: 'accuracy', value: 89.29 }], o)).toBeNull();
    o.terminal.harness_failure = 34;
    expect(sourceLineOf([{ name: 'resolved_instances', value: 25 }, { name: 'resolved_instances / submitted_instances', value: 25 / 37 }], o)).toBe(
      'source: resolved_instances 25, resolved_instances / submitted_instances 0.6757; imported: 25 of 62 resolved; 34 attempts not graded: harness_failure',
    );
    o.terminal.grader_failure = 2;
    o.reasons.missing = 2;
    expect(sourceLineOf(null, o)).toBe('source: no figure of its own; imported: 25 of 64 resolved; 36 attempts not graded: 2 grader_failure (missing), 34 harness_failure');
    const agreeing = emptyOutcomes();
    agreeing.terminal.resolved = 1;
    agreeing.terminal.model_failure = 1;
    expect(sourceLineOf([{ name: 'mean', value: 0.125 }], agreeing)).toBe('source: mean 0.125; imported: 1 of 2 resolved');
    expect(sourceLineOf(null, agreeing)).toBeNull();
  });

  it('the SWE-bench run: the model holds its line once, and its board row and cohort page show it', async () => {
    const swe = importedPlans().find((p) => p.imported.format === 'swe-bench-run')!;
    const [cohort] = cohortsOfPlan(swe.plan.plan_id);
    const lines = model.sourceLines[cohort!.cohort_id]!;
    expect(lines).toHaveLength(1);
    expect(lines[0]!.plan_hex).toBe(swe.hex);
    expect(lines[0]!.text).toMatch(/^source: resolved_instances 25, resolved_instances \/ total_instances 0\.0833, resolved_instances \/ submitted_instances 0\.6757; imported: [0-9]+ of 37 resolved; [0-9]+ attempts not graded: harness_failure$/);
    const page = textOf(await html(`cohorts/${hexOf(cohort!.cohort_id)}`)).replace(/\( /g, '(').replace(/ \)/g, ')');
    expect(page).toContain(`Imported headline beside the source's own figure (its plan): ${lines[0]!.text}.`);
    const board = await html(`boards/${hexOf(cohort!.board_id)}`);
    expect(board).toContain(`<div class="source-line muted" data-source-line>${lines[0]!.text}</div>`);
  });
});

describe('an imported attempt without a transcript says so on its task page row', () => {
  it('every attempt row of an imported board links its transcript or says why there is none', async () => {
    let rows = 0;
    for (const board of report.boards) {
      for (const t of model.tasks[board.board_id]!.tasks) {
        const page = await html(`boards/${hexOf(board.board_id)}/tasks/${t.key}`);
        for (const row of page.match(/<tr data-terminal=[\s\S]*?<\/tr>/g) ?? []) {
          rows++;
          expect(row.includes('data-transcript-link') || /<li data-no-transcript>(the original log has no transcript for this attempt|no transcript: [^<]+ records none|no transcript: the originals are not read for this site \(see the plan page\))<\/li>/.test(row), row).toBe(true);
        }
      }
    }
    expect(rows).toBeGreaterThan(40);
  });

  it('a format without transcripts: "no transcript: <format> records none"; a format with some: "the original log has no transcript for this attempt"', async () => {
    expect(noTranscriptNote('HELM run directory', 'format')).toBe('no transcript: HELM run directory records none');
    // The site reads transcripts only through src/import/sources.ts, which finds the format's read side by its origin (not the Importer object).
    const tb = sourceReaderOfOrigin(TBENCH_ORIGIN_FORMAT)! as { transcripts?: SourceReader['transcripts'] };
    const saved = tb.transcripts;
    tb.transcripts = undefined;
    try {
      const tasks = await siteTasks(report, publishedOf(report, results), attemptIndexOf(report, evidenceOf(results)));
      const board = report.boards.find((b) => b.key.origin === 'imported' && b.ledger.name === 'terminal-bench-core==head')!;
      const n = tasks.details.pages.findIndex((p) => p.board_id === board.board_id);
      const detail = await tasks.details.detail(n);
      const rows = detail.cohorts.flatMap((c) => c.attempts);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect([row.transcript, row.transcriptNote]).toEqual([null, 'no transcript: Terminal-Bench run records none']);
    } finally {
      tb.transcripts = saved;
    }
    // With the format's transcripts read, an attempt the log has none for says so (Inspect's log_tool_call_error sample has messages; every row has one or the note).
    const tasks = await siteTasks(report, publishedOf(report, results), attemptIndexOf(report, evidenceOf(results)));
    for (let n = 0; n < tasks.details.pages.length; n++) {
      for (const row of (await tasks.details.detail(n)).cohorts.flatMap((c) => c.attempts)) {
        expect(row.transcript === null ? row.transcriptNote : null).not.toBe(undefined);
        if (row.transcript !== null) expect(row.transcriptNote).toBeNull();
        else expect(row.transcriptNote).toMatch(/^(the original log has no transcript for this attempt|no transcript: .+ records none)$/);
      }
    }
  });
});
