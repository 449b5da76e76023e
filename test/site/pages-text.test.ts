/**
 * What built pages say about evidence text and regrades (issue 10): one build
 * of the demo's regraded bundle beside a bundle whose title forges BibTeX
 * fields and runs to 60,000 characters and whose candidate model ends in a
 * zero-width space.
 *
 * - A regraded cohort's page and its board page show the later generation,
 *   its grader, the outcomes moved each way and the verdict under
 *   generation 1, from the report's `regrade` (item 12).
 * - `acme/base\u200b` is shown visibly; long identities are shortened, the
 *   whole value once in a <details> (item 4, the low item).
 * - Every page's BibTeX block is one @misc entry with its four fields (item 11).
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestHex } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { grouped } from '../../src/site/views/format.ts';
import { buildSite, ROOT, sitemapPaths } from '../browser/browser.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const FORGED = 'x}, author = {Forged Author}, url = {https://evil.example}}\n@misc{forged, title = {';
const LONG_TITLE = `${FORGED}${'t'.repeat(60_000)}`;
const INVISIBLE_MODEL = 'acme/base\u200b';
const LONG_AGENT = `l${'o'.repeat(50_000)}p`;

let out = '';
let report: Report;

/** A page's text: figure spans (inline, src/site/model/page-figures.ts) unwrapped, other tags dropped, entities decoded, whitespace collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<span data-figure="[^"]*">([^<]*)<\/span>/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
const page = async (path: string) => readFile(join(out, path, 'index.html'), 'utf8');

beforeAll(async () => {
  const work = await makeTempDir('ledgerboard-pages-text-');
  const bundles = join(work, 'bundles');
  await cp(join(ROOT, 'content', 'bundles', '2026-11-16-widget-bugs-offline-tools'), join(bundles, 'regraded'), { recursive: true });
  const model = validBundle();
  model.plan.title = LONG_TITLE;
  const candidate = model.plan.subjects.find((s) => s.role === 'candidate')!;
  const old = candidate.model;
  candidate.model = INVISIBLE_MODEL;
  candidate.agent = { ...candidate.agent, name: LONG_AGENT };
  for (const a of model.attempts) {
    if (a.model === old) {
      a.model = INVISIBLE_MODEL;
      a.observed_model = INVISIBLE_MODEL;
      a.agent = { ...a.agent, name: LONG_AGENT };
    }
  }
  await cp(await writeModel(model), join(bundles, 'hostile'), { recursive: true });
  out = join(work, 'site');
  await buildSite({ bundles, out });
  report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
}, 180_000);

afterAll(removeTempDirs);

describe('a regrade on the pages (item 12)', () => {
  it('the regraded cohorts: each page names the generation and grader, the outcomes moved each way, and the verdict under generation 1', async () => {
    const regraded = report.cohorts.filter((c) => c.regrade);
    expect(regraded.length).toBe(4);
    for (const c of regraded) {
      const r = c.regrade!;
      const text = textOf(await page(`cohorts/${digestHex(c.cohort_id)}`));
      expect(text).toContain(`${r.attempts} attempts of this cohort are graded by a later generation: ${r.fail_to_pass} moved fail → pass and ${r.pass_to_fail} pass → fail`);
      for (const g of r.generations) {
        expect(text).toContain(`Generation ${g.generation} of plan ${digestHex(g.plan_id).slice(0, 12)} , ${g.created_at}, grader ${g.grader.id} ${g.grader.version}`);
        expect(text).toContain(`${g.attempts} attempts, ${g.fail_to_pass} fail → pass, ${g.pass_to_fail} pass → fail`);
      }
      for (const e of r.earlier) {
        expect(text).toContain(`${e.headline.resolved} / ${e.headline.graded}`);
        expect(text).toContain(e.verdict ?? 'none (the baseline)');
      }
    }
  });

  it('the demo’s regraded acme/mini cohort: PASS now, 7 outcomes fail → pass, NO_VERDICT under generation 1', async () => {
    const c = report.cohorts.find((x) => x.subject.model === 'acme/mini-2026-08-01' && x.regrade)!;
    expect(c.verdict).toBe('PASS');
    expect(c.regrade).toMatchObject({ attempts: 72, fail_to_pass: 7, pass_to_fail: 0 });
    expect(c.regrade!.earlier.map((e) => e.verdict)).toEqual(['NO_VERDICT']);
    const text = textOf(await page(`cohorts/${digestHex(c.cohort_id)}`));
    expect(text).toContain('Under generation 1 alone (the grader the plan pinned) it was NO_VERDICT');
    const board = textOf(await page(`boards/${digestHex(c.board_id)}`));
    expect(board).toContain('acme/mini-2026-08-01 · loop 3.1.0 : generation 2 by oracle 1.2.1; 72 attempts regraded, 7 fail → pass, 0 pass → fail');
    expect(board).toContain('Verdict now PASS; under generation 1: NO_VERDICT');
    // The verdict cell: the verdict, its reason (shown on hover/focus, read as text), then the regrade note.
    expect(textOf(await page(''))).toContain(`PASS : ${c.classes!.improved} improved, 0 regressed: the acceptance rule (regressed = 0, improved >= 1) holds (regraded; generation 1: NO_VERDICT)`);
  });
});

describe('identities on the pages (item 4, low item)', () => {
  it('a model name ending in a zero-width space is shown with a visible marker, never as the bare name', async () => {
    const leaderboard = await page('');
    expect(leaderboard).toContain('acme/base⟨U+200B⟩');
    expect(leaderboard).not.toContain('\u200b');
    const c = report.cohorts.find((x) => x.subject.model === INVISIBLE_MODEL)!;
    const cohortPage = await page(`cohorts/${digestHex(c.cohort_id)}`);
    expect(cohortPage).toMatch(/<title>acme\/base⟨U\+200B⟩ · /);
    expect(cohortPage).not.toContain('\u200b');
  });

  it('a 50,002-character agent name: shortened with its length everywhere, whole once, in a <details>, on its cohort page only', async () => {
    const c = report.cohorts.find((x) => x.subject.agent.name === LONG_AGENT)!;
    const cohortPage = await page(`cohorts/${digestHex(c.cohort_id)}`);
    expect(cohortPage.split(LONG_AGENT)).toHaveLength(2);
    expect(cohortPage).toMatch(/<details class="ident-full"><summary>[^<]*50,002 characters[^<]*<\/summary><p>lo+p<\/p><\/details>/);
    expect(cohortPage).toContain(`l${'o'.repeat(79)}… (50,002 characters)`);
    const leaderboard = await page('');
    expect(leaderboard).not.toContain(LONG_AGENT);
    expect(leaderboard).toContain(`l${'o'.repeat(79)}… (50,002 characters)`);
  });

  it('a 60,000-character title: shortened with its length in the plan page’s heading and <title>, and no other page carries it whole', async () => {
    const plan = report.bundles.find((b) => b.plan?.title === LONG_TITLE)!;
    const planPage = await page(`plans/${digestHex(plan.plan_id!)}`);
    const length = grouped([...LONG_TITLE].length);
    expect(planPage).toMatch(new RegExp(`<h1>[^<]{0,200}… \\(${length} characters\\)</h1>`));
    expect(planPage).toMatch(new RegExp(`<title>[^<]{0,400}… \\(${length} characters\\) · `));
    for (const path of await sitemapPaths(out)) {
      const html = await page(path.replace(/^\//, '').replace(/\/$/, ''));
      if (path.startsWith('/plans/')) continue;
      // Not whole (no run of 5,000 of its t's), and no page near the title's size.
      expect(html, path).not.toContain('t'.repeat(5_000));
      expect(html.length, path).toBeLessThan(300_000);
    }
  });
});

describe('the BibTeX block of every page (item 11)', () => {
  it('is one @misc entry with exactly title, howpublished, year and note, whatever the title', async () => {
    for (const path of await sitemapPaths(out)) {
      const html = await page(path.replace(/^\//, '').replace(/\/$/, ''));
      const bib = /<pre><code>(@misc[\s\S]*?)<\/code><\/pre>/.exec(html)![1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      expect(bib.split('@')).toHaveLength(2);
      const fields = [...bib.matchAll(/^ {2}([a-z]+) *= \{/gm)].map((m) => m[1]);
      expect(fields, path).toEqual(['title', 'howpublished', 'year', 'note']);
      let depth = 0;
      for (const ch of bib) {
        if (ch === '{') depth++;
        if (ch === '}') depth--;
        expect(depth, path).toBeGreaterThanOrEqual(0);
      }
      expect(depth, path).toBe(0);
    }
  });
});
