/**
 * Claims in Chromium (FORMAT.md 11, issue 27 items 4 and "Done when"): a
 * site built with the CLI from a config naming a score card whose access
 * tier caps the claims, and one bundle holding a red team's assessment.
 *
 * - With JavaScript off, the candidate's cohort page reads its capped claims
 *   ("Capped: ...: computed strong, capped at supported by access tier
 *   black_box"; the assessed one with who assessed it and its basis linked),
 *   and the leaderboard row its summary, linking the claims;
 * - with JavaScript on, the cohort pages, the board page, the leaderboard and
 *   /methodology/ of a card whose every title and assessor is an XSS payload
 *   open no dialog, and read the payloads back as text.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { shortIdentity } from '../../src/site/views/format.ts';
import { TITLE_CHARS } from '../../src/site/model/claims.ts';
import { CANDIDATE, makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { buildSite, launchBrowser, requireChromium, type BrowserSession } from './browser.ts';
import { hasNoncharacter, readCorpora } from './hostile.ts';
import { serveStatic, type StaticServer } from './static-server.ts';
import { withPage } from './demo-site.ts';
import { exampleCard } from '../helpers/scorecard.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');
const BY = 'red team "<script>alert(\'by\')</script>", example.org';
const BASIS = 'artifacts/assessments/tamper.md';

let server: StaticServer;
let report: Report;
let jsOn: BrowserSession;
let jsOff: BrowserSession;
let xssTitles: string[] = [];

beforeAll(async () => {
  requireChromium();
  const { xss } = await readCorpora();
  xssTitles = [...new Set(xss.filter((s) => s.isWellFormed() && !hasNoncharacter(s)))];
  const work = await makeTempDir('ledgerboard-claims-browser-');
  const card = exampleCard([
      { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'rate', at_least: [0, 0, 0] } },
      { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
      ...xssTitles.map((title, i) => ({ id: `x${i}`, title, computed: { figure: 'rate', at_least: [2, 2, 2] } })),
  ]);
  const model = validBundle();
  const assessments = [{ indicator: 'no_weight_tampering', subject: { model: CANDIDATE.model, agent: { ...CANDIDATE.agent } }, level: 'strong', by: BY, basis: BASIS }];
  model.extra.set('assessments.json', new TextEncoder().encode(JSON.stringify({ schema: 'ledgerboard.assessments.v1', assessments })));
  model.extra.set(BASIS, new TextEncoder().encode('We fine-tuned it for an hour.\n'));
  await cp(await writeModel(model), join(work, 'bundles', 'one'), { recursive: true });
  await writeFile(join(work, 'card.json'), JSON.stringify(card, null, 2));
  await writeFile(join(work, 'config.json'), JSON.stringify({ title: 'claims in a browser', bundles_dir: 'bundles', retained_reports_dir: 'history', scorecard: 'card.json' }));
  const out = join(work, 'site');
  await buildSite({ out, config: join(work, 'config.json') });
  report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  [server, jsOn, jsOff] = await Promise.all([serveStatic(out), launchBrowser({ javaScriptEnabled: true }), launchBrowser({ javaScriptEnabled: false })]);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled([jsOn?.close(), jsOff?.close(), server?.close()]);
  await removeTempDirs();
}, 60_000);

const candidate = () => report.cohorts.find((c) => c.subject.model === CANDIDATE.model)!;

describe('a capped claim, JavaScript off', () => {
  it('the cohort page reads its capped claims, the assessor and the basis', async () => {
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/cohorts/${hex(candidate().cohort_id)}/`);
      const capped = await page.$$eval('li[data-claim-capped="true"] > [data-claim-text]', (els) => els.map((e) => e.textContent));
      expect(capped).toEqual([
        "Capped: Resolves the ledger's headline tasks: computed strong, capped at supported by access tier black_box",
        'Capped: Resists fine-tuning attacks on its weights: assessed strong, capped at supported by access tier black_box',
      ]);
      const assessment = page.locator('li[data-claim="no_weight_tampering"] li[data-assessment]');
      expect((await assessment.textContent())?.replace(/\s+/g, ' ')).toBe(`assessed strong by ${BY}, in its plan; basis ${BASIS}`);
      const basis = await assessment.locator('a[data-assessment-basis]').getAttribute('href');
      expect(basis).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
      expect(await (await fetch(server.origin + basis!)).text()).toBe('We fine-tuned it for an hour.\n');
      expect(await page.textContent('[data-claims-ceiling]')).toBe('supported');
      // The claims come before the verdict and the score vector.
      const order = await page.evaluate(() => {
        const headings = [...document.querySelectorAll('main h2')].map((h) => h.id || h.textContent);
        return headings.slice(0, 2);
      });
      expect(order[0]).toBe('claims');
    });
  });

  it('the leaderboard row carries the summary beside its link to the cohort page, whose claims come first', async () => {
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/`);
      const row = page.locator(`tr:has(a[href="/cohorts/${hex(candidate().cohort_id)}/"])`);
      expect(await row.locator('[data-claims-summary]').textContent()).toBe(`claims: ${xssTitles.length} not_supported, 2 capped`);
      // Text only on the leaderboard (its 150 KB budget): the row's own link leads to the cohort page and its #claims section.
      expect(await row.locator('[data-claims-summary] a').count()).toBe(0);
      await page.goto(`${server.origin}/cohorts/${hex(candidate().cohort_id)}/#claims`);
      expect(await page.locator('#claims').count()).toBe(1);
    });
  });
});

describe('hostile titles and assessors, JavaScript on', () => {
  it('no dialog opens on the pages that show them; the titles read back as text', { timeout: 120_000 }, async () => {
    const dialogs: string[] = [];
    await withPage(jsOn, async (page) => {
      page.on('dialog', (dialog) => {
        dialogs.push(`${page.url()}: ${dialog.message()}`);
        void dialog.dismiss().catch(() => undefined);
      });
      const paths = ['/', '/methodology/', `/boards/${hex(report.boards[0]!.board_id)}/`, ...report.cohorts.map((c) => `/cohorts/${hex(c.cohort_id)}/`)];
      for (const path of paths) {
        await page.goto(server.origin + path);
        await page.waitForLoadState('load');
      }
      await page.goto(`${server.origin}/methodology/`);
      const titles = await page.$$eval('[data-claim-indicators] dfn', (els) => els.map((e) => e.textContent));
      expect(titles.slice(2)).toEqual(xssTitles.map((t) => shortIdentity(t, TITLE_CHARS)));
      await page.goto(`${server.origin}/cohorts/${hex(candidate().cohort_id)}/`);
      const lines = await page.$$eval('li[data-claim-capped="false"] > [data-claim-text]', (els) => els.map((e) => e.textContent));
      expect(lines).toEqual(xssTitles.map((t) => `may say: ${shortIdentity(t, TITLE_CHARS)}: not_supported`));
    });
    expect(dialogs).toEqual([]);
  });
});
