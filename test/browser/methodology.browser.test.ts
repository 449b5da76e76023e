/**
 * Issue 13, items 3, 7 and parts of 1 and 8, in Chromium on the demo as
 * `npm run build` makes it:
 *
 * - /methodology/ is reached from the leaderboard's header link; its
 *   acceptance rule is the config's (ledgerboard.config.json, as report.json
 *   records it), and its terms carry stable anchors;
 * - "Verify in this browser" on /verify/ and on a plan page: the button is
 *   disabled while it runs, the status right after it (aria-live) counts and
 *   ends with "N of N files match", data-verify-status reaches "match", the
 *   per-check list is collapsed in a <details>;
 * - a retained report's page cites that report, not the current one;
 * - at 390 px these pages do not scroll sideways (digests, the footer's
 *   citation and the verify status wrap).
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { ROOT, type BrowserSession } from './browser.ts';
import type { StaticServer } from './static-server.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');

let site: DemoSite;
let out: string;
let server: StaticServer;
let report: Report;
let jsOn: BrowserSession;
let jsOff: BrowserSession;

beforeAll(async () => {
  site = await openDemoSite();
  ({ out, server, report, jsOn, jsOff } = site);
}, 240_000);

afterAll(() => site?.close(), 60_000);

const firstCountedPlan = (): string => {
  const bundle = report.bundles.find((b) => b.counted && b.plan_id !== null);
  if (!bundle?.plan_id) throw new Error('no counted bundle');
  return `/plans/${hex(bundle.plan_id)}/`;
};

describe('/methodology/', () => {
  it('is reached from the header link of the leaderboard, and states the acceptance rule of this config', async () => {
    const config = JSON.parse(await readFile(join(ROOT, 'ledgerboard.config.json'), 'utf8')) as { acceptance: { min_improved: number } };
    expect(report.config.acceptance).toEqual(config.acceptance);
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/`);
      const link = page.locator('header nav a', { hasText: 'Methodology' });
      expect(await link.count()).toBe(1);
      await Promise.all([page.waitForURL(`${server.origin}/methodology/`), link.click()]);
      expect(await page.textContent('main > h1')).toBe('Methodology');
      const n = config.acceptance.min_improved;
      expect(await page.getAttribute('#acceptance + p', 'data-acceptance-min-improved')).toBe(String(n));
      const rule = await page.textContent('#acceptance + p');
      expect(rule).toContain(`improved >= ${n}`);
      expect(rule).toContain('regressed = 0');
      expect(await page.textContent('#acceptance ~ p strong')).toBe(String(n));
      // Every term a table links to is a <dfn> with its stable id.
      const dfns = await page.$$eval('dfn[id]', (els) => els.map((e) => [e.id, e.textContent ?? '']));
      const ids = new Map(dfns as [string, string][]);
      for (const [id, term] of [
        ['board', 'Board'],
        ['cohort', 'Cohort'],
        ['headline', 'Headline task'],
        ['delta', 'Delta'],
        ['wilson', 'Wilson interval'],
        ['bootstrap', 'Paired bootstrap interval'],
        ['rank', 'Rank'],
        ['rank-by-rate', 'Rank by rate'],
        ['imported', 'Imported evidence'],
        ['cost-unavailable', 'unavailable'],
        ['cost-not-applicable', 'not applicable'],
        ['verdict-PASS', 'PASS'],
        ['verdict-NO_GAIN', 'NO_GAIN'],
        ['verdict-REGRESSION', 'REGRESSION'],
        ['verdict-NO_VERDICT', 'NO_VERDICT'],
        ['class-IMPROVED', 'IMPROVED'],
        ['class-REGRESSED', 'REGRESSED'],
        ['class-UNCHANGED', 'UNCHANGED'],
        ['class-UNCLEAR', 'UNCLEAR'],
      ]) {
        expect(ids.get(id!), id).toBe(term);
      }
      const body = (await page.textContent('main')) ?? '';
      expect(body).toContain('1.959963984540054');
      expect(body).toContain('competition ranking');
    });
  });

  it('every page links it from the header', async () => {
    for (const path of ['/', '/verify/', `/boards/${hex(report.boards[0]!.board_id)}/`, `/cohorts/${hex(report.cohorts[0]!.cohort_id)}/`, firstCountedPlan(), '/reports/']) {
      const html = await (await fetch(server.origin + path)).text();
      expect(html, path).toMatch(/<header>[\s\S]*<a href="\/methodology\/">Methodology<\/a>[\s\S]*<\/header>/);
    }
  });
});

/** The live status after the button, the button's disabled state and the root's status. */
async function verifyState(page: Page): Promise<{ status: string; live: string; disabled: boolean; liveAfterButton: boolean; ariaLive: string | null; inDetails: boolean; detailsOpen: boolean }> {
  return page.$eval('[data-verify-root]', (root) => {
    const button = root.querySelector('button[data-verify]') as HTMLButtonElement;
    const live = root.querySelector('[data-verify-live]');
    const details = root.querySelector('[data-verify-results]')?.closest('details') ?? null;
    return {
      status: root.getAttribute('data-verify-status') ?? '',
      live: live?.textContent ?? '',
      disabled: button.disabled,
      liveAfterButton: live !== null && button.nextElementSibling === live,
      ariaLive: live?.getAttribute('aria-live') ?? null,
      inDetails: details !== null,
      detailsOpen: details?.hasAttribute('open') ?? false,
    };
  });
}

describe('Verify in this browser: a status you can read', () => {
  it('/verify/: disabled while running, a running status next to the button, then "1 of 1 file matches" and match', async () => {
    await withPage(jsOn, async (page) => {
      // Hold report.json back so the running state can be seen.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/report.json', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${server.origin}/verify/`);
      const before = await verifyState(page);
      expect(before).toMatchObject({ status: 'idle', disabled: false, liveAfterButton: true, ariaLive: 'polite', inDetails: true, detailsOpen: false });
      await page.click('[data-verify-root] button[data-verify]');
      const running = await verifyState(page);
      expect(running.status).toBe('running');
      expect(running.disabled).toBe(true);
      expect(running.live).toBe('checking 0 of 1 file…');
      release();
      await page.waitForFunction(() => document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') !== 'running', undefined, { timeout: 30_000 });
      const after = await verifyState(page);
      expect(after).toMatchObject({ status: 'match', live: '1 of 1 file matches', disabled: false, liveAfterButton: true, inDetails: true });
      expect(await page.$$eval('[data-verify-results] li[data-verify-result="match"]', (lis) => lis.map((li) => li.textContent ?? ''))).toEqual([
        `match: self-id /report.json report_id: ${report.report_id}`,
      ]);
    });
  });

  it('a plan page (markup without a status element): the status is made next to the button and counts every listed file', async () => {
    const path = firstCountedPlan();
    const bundle = report.bundles.find((b) => b.plan_id !== null && `/plans/${hex(b.plan_id)}/` === path)!;
    const manifest = JSON.parse(await readFile(join(out, 'bundles', hex(bundle.bundle_id!), 'manifest.json'), 'utf8')) as { files: unknown[] };
    // plan.json (self-id), the manifest, and every file it lists.
    const total = 2 + manifest.files.length;
    await withPage(jsOn, async (page) => {
      await page.goto(server.origin + path);
      await page.click('[data-verify-root] button[data-verify]');
      expect((await verifyState(page)).disabled).toBe(true);
      await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
      const after = await verifyState(page);
      expect(after).toMatchObject({ status: 'match', live: `${total} of ${total} files match`, disabled: false, liveAfterButton: true, ariaLive: 'polite', inDetails: true, detailsOpen: false });
    });
  });

  it('a mismatch is named in the status', async () => {
    await withPage(jsOn, async (page) => {
      await page.route('**/report.json', async (route) => {
        const response = await route.fetch();
        const text = (await response.text()).replace('"generator"', '"generator" ').replace(/"title":"/, '"title":"x');
        await route.fulfill({ response, body: text });
      });
      await page.goto(`${server.origin}/verify/`);
      await page.click('[data-verify-root] button[data-verify]');
      await page.waitForFunction(() => document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') === 'mismatch', undefined, { timeout: 30_000 });
      const after = await verifyState(page);
      expect(after.live).toMatch(/^mismatch: self-id \/report\.json report_id: derived sha256:[0-9a-f]{64}, expected sha256:[0-9a-f]{64} \(0 of 1 file match\)$/);
      expect(after.live).toContain(`expected ${report.report_id}`);
    });
  });
});

describe('retained reports cite themselves', () => {
  it("each retained report's page names its own id in the cite block and meta, never the current report's", async () => {
    const archive = await (await fetch(`${server.origin}/reports/`)).text();
    const retained = [...new Set([...archive.matchAll(/href="\/reports\/([0-9a-f]{64})\/"/g)].map((m) => m[1]!))];
    expect(retained.length).toBeGreaterThan(0);
    const older = retained.filter((h) => `sha256:${h}` !== report.report_id);
    expect(older.length).toBeGreaterThan(0);
    await withPage(jsOff, async (page) => {
      for (const h of older) {
        await page.goto(`${server.origin}/reports/${h}/`);
        expect(await page.getAttribute('footer .cite', 'data-cite-report')).toBe(`sha256:${h}`);
        const plain = (await page.textContent('footer .cite .cite-plain')) ?? '';
        expect(plain).toContain(`ledgerboard report sha256:${h}`);
        expect(plain).not.toContain(report.report_id);
        expect(await page.textContent('footer .cite pre')).toContain(`ledgerboard-${h.slice(0, 12)}`);
        expect(await page.getAttribute('meta[name="citation_technical_report_number"]', 'content')).toBe(`sha256:${h}`);
        const retainedReport = JSON.parse(await readFile(join(out, 'reports', `${h}.json`), 'utf8')) as Report;
        if (retainedReport.evidence_date) expect(plain).toContain(`evidence up to ${retainedReport.evidence_date.slice(0, 10)}`);
      }
      // The current pages cite the current report.
      await page.goto(`${server.origin}/`);
      expect(await page.getAttribute('footer .cite', 'data-cite-report')).toBe(report.report_id);
    });
  });
});

describe('placeholder identities', () => {
  it('an imported model named "..." is shown quoted with a note (CSS generated text), its text still the value', async () => {
    const placeholder = report.cohorts.find((c) => c.subject.model === '...');
    expect(placeholder).toBeDefined();
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/`);
      const shown = await page.$$eval('.ident-placeholder', (els) =>
        els.map((e) => ({ text: e.textContent, before: getComputedStyle(e, '::before').content, after: getComputedStyle(e, '::after').content, title: e.getAttribute('title') })),
      );
      expect(shown.length).toBeGreaterThan(0);
      const dots = shown.find((e) => e.text === '...')!;
      expect(dots).toMatchObject({ text: '...', before: '"“"', title: 'quoted: the evidence gives this value as written' });
      expect(dots.after).toMatch(/^"” +\(as in the evidence\)"$/);
    });
  });
});

describe('at 390 px', () => {
  it('/methodology/, /verify/ (after a run, the list open), a retained report and the leaderboard footer do not scroll sideways', async () => {
    const archive = await (await fetch(`${server.origin}/reports/`)).text();
    const retained = [...archive.matchAll(/href="\/reports\/([0-9a-f]{64})\/"/g)].map((m) => `/reports/${m[1]!}/`);
    await withPage(jsOn, async (page) => {
      await page.setViewportSize({ width: 390, height: 844 });
      const widths: Record<string, number> = {};
      for (const path of ['/methodology/', '/verify/', retained[0]!]) {
        await page.goto(server.origin + path);
        await page.$$eval('details', (ds) => ds.forEach((d) => d.setAttribute('open', '')));
        if (path === '/verify/') {
          await page.click('[data-verify-root] button[data-verify]');
          await page.waitForFunction(() => document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') === 'match', undefined, { timeout: 30_000 });
        }
        widths[path] = await page.evaluate(() => document.documentElement.scrollWidth);
      }
      // The footer alone, on the leaderboard (its tables are another helper's).
      await page.goto(`${server.origin}/`);
      await page.$$eval('footer details', (ds) => ds.forEach((d) => d.setAttribute('open', '')));
      widths['/ footer'] = await page.$eval('footer', (f) => Math.max(f.scrollWidth, ...[...f.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right)));
      for (const [path, width] of Object.entries(widths)) expect(width, path).toBeLessThanOrEqual(390);
    });
  });
});
