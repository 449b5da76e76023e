/**
 * The built site in a real browser (Debian's Chromium through playwright-core):
 *
 * - the demo without JavaScript: the leaderboard lists every cohort of
 *   report.json board by board, and the board, cohort and plan links resolve;
 * - the demo with JavaScript: "Verify in this browser" reaches match on a plan
 *   page and on /verify/, and mismatch once a published byte changes;
 * - axe-core on every page type of the demo: no serious or critical violation;
 * - a hostile site (every publisher string an XSS payload or a naughty
 *   string, and a hostile site title): no dialog ever opens, the served HTML
 *   holds no script but the site's own, no event-handler attribute, no
 *   javascript:/data: URL and no embedding element, the hostile strings read
 *   back literally, and NOTES.md cannot take the page's ids;
 * - screenshots of the leaderboard and a cohort page under test-output/.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedIncompatibilities, type Report, type ReportCohort } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { shortIdentity } from '../../src/site/views/format.ts';
import { makeTempDir, removeTempDirs, verifyDir, writeModel } from '../helpers/bundle-builder.ts';
import { buildSite, launchBrowser, requireChromium, ROOT, settle, sitemapPaths, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { HOSTILE_SITE_TITLE, hostileModel, hostileSpecs, readCorpora, rejectedSpec, type HostileSpec } from './hostile.ts';
import { asText, inspectHtml, type DocumentFacts } from './inspect.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');
const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
/** The scripts the site's templates emit, each a file loaded with <script src>; no inline script at all. */
const SITE_SCRIPT = '/verify-browser.js';
/** The leaderboard's sorting and filtering (src/pages/index.astro, src/pages/boards/[hex].astro; docs/site.md). */
const TABLE_SCRIPT = '/leaderboard.js';
/** The digests' copy buttons (src/components/Digest.astro), loaded by the layout on every page (docs/site.md). */
const COPY_SCRIPT = '/copy.js';
/** The one script of its own a page loads, or null: the verifier (src/pages/plans/[hex].astro, reports/[hex].astro, verify.astro), or the table script (a site with boards). */
const scriptOf = (path: string): string | null =>
  path === '/verify/' || /^\/(plans|reports)\/[0-9a-f]{64}\/$/.test(path) ? SITE_SCRIPT : path === '/' || /^\/boards\/[0-9a-f]{64}\/$/.test(path) ? TABLE_SCRIPT : null;
/** /verify/'s in-browser re-derivation (public/rederive-browser.js), before its verifier script. */
const REDERIVE_SCRIPT = '/rederive-browser.js';
/** Every script a page loads, in document order: the layout's copy buttons in <head>, then the page's own. */
const scriptsOf = (path: string): string[] => [COPY_SCRIPT, ...(path === '/verify/' ? [REDERIVE_SCRIPT] : []), ...(scriptOf(path) === null ? [] : [scriptOf(path)!])];

interface Site {
  out: string;
  server: StaticServer;
  report: Report;
  cohorts: Map<string, ReportCohort>;
  /** Every page: sitemap.xml plus the fixed pages. */
  pages: string[];
}

let demo: Site;
let hostile: Site;
let jsOff: BrowserSession;
let jsOn: BrowserSession;
let specs: HostileSpec[];
let rejected: ReturnType<typeof rejectedSpec>;
const statuses: Record<string, string> = {};

async function openSite(out: string): Promise<Site> {
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  const pages = [...new Set([...(await sitemapPaths(out)), '/rejected/', '/incompatibilities/', '/verify/'])];
  return { out, server: await serveStatic(out), report, cohorts: new Map(report.cohorts.map((c) => [c.cohort_id, c])), pages };
}

beforeAll(async () => {
  requireChromium();
  const work = await makeTempDir('ledgerboard-browser-');

  // (a) the demo.
  // The demo exactly as `npm run build` makes it: the config's frozen and imported evidence, the committed history.
  // A copy of the run's shared build: a test below changes one of its bytes.
  await cp(await sharedDemoBuild(), join(work, 'demo'), { recursive: true });

  // (b) the hostile site: four verified bundles and one rejected, a hostile title.
  const corpora = await readCorpora();
  specs = hostileSpecs(corpora, 4);
  rejected = rejectedSpec(corpora);
  const bundles = join(work, 'hostile-bundles');
  for (const spec of specs) {
    const dir = await writeModel(hostileModel(spec));
    statuses[spec.tag] = (await verifyDir(dir)).status;
    await cp(dir, join(bundles, spec.tag), { recursive: true });
  }
  const bad = hostileModel(rejected.spec);
  bad.attempts[0]!.observed_model = rejected.observed;
  const badDir = await writeModel(bad);
  statuses.rejected = (await verifyDir(badDir)).status;
  await cp(badDir, join(bundles, 'rejected'), { recursive: true });
  if (specs.some((s) => statuses[s.tag] !== 'verified')) throw new Error(`a hostile bundle is not verified: ${JSON.stringify(statuses)}`);
  const config = join(work, 'hostile.config.json');
  await writeFile(config, JSON.stringify({ title: HOSTILE_SITE_TITLE, site_url: 'https://hostile.example/' }));
  await buildSite({ bundles, out: join(work, 'hostile'), config });

  [demo, hostile, jsOff, jsOn] = await Promise.all([
    openSite(join(work, 'demo')),
    openSite(join(work, 'hostile')),
    launchBrowser({ javaScriptEnabled: false }),
    launchBrowser({ javaScriptEnabled: true }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([jsOff?.close(), jsOn?.close(), demo?.server.close(), hostile?.server.close()]);
  await removeTempDirs();
}, 60_000);

/** A fresh page in a session; closed by the caller. */
async function newPage(session: BrowserSession): Promise<Page> {
  return session.context.newPage();
}

async function fetchText(site: Site, path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(site.server.origin + path);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** Clicks the page's "Verify in this browser" button and waits for a final status. */
async function runVerify(page: Page): Promise<{ status: string; results: { result: string | null; text: string }[] }> {
  await page.click('[data-verify-root] button[data-verify]');
  await page.waitForFunction(
    () => {
      const status = document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status');
      return status === 'match' || status === 'mismatch' || status === 'error';
    },
    undefined,
    { timeout: 30_000 },
  );
  return page.$eval('[data-verify-root]', (root) => ({
    status: root.getAttribute('data-verify-status') ?? '',
    results: [...root.querySelectorAll('[data-verify-results] li')].map((li) => ({ result: li.getAttribute('data-verify-result'), text: li.textContent ?? '' })),
  }));
}

const firstCountedPlan = (site: Site): string => {
  const bundle = site.report.bundles.find((b) => b.counted && b.plan_id !== null);
  if (!bundle?.plan_id) throw new Error('no counted bundle');
  return `/plans/${hex(bundle.plan_id)}/`;
};

describe('demo site, JavaScript disabled', () => {
  it('the leaderboard lists every cohort of report.json, board by board (frozen first, then imported runs, newest plan first), in rank order', async () => {
    const page = await newPage(jsOff);
    try {
      const response = await page.goto(`${demo.server.origin}/`);
      expect(response?.status()).toBe(200);
      const tables = await page.$$eval('main section[aria-labelledby^="board-"]', (sections) =>
        sections.map((section) => ({
          board: section.querySelector('h2 a, h3 a')?.getAttribute('href') ?? null,
          rows: [...section.querySelectorAll('table tbody tr')].map((tr) => {
            const link = tr.querySelector('th[scope="row"] a');
            return { model: link?.textContent ?? null, href: link?.getAttribute('href') ?? null };
          }),
        })),
      );
      // The imported boards of a single cohort are rows of one "Imported runs" table (src/site/views/board-names.ts leaderboardLayout).
      const runs = await page.$$eval('main section[aria-labelledby="imported-runs"] table.runs-table tbody tr', (trs) =>
        trs.map((tr) => {
          const link = tr.querySelector('th[scope="row"] a');
          return { board: tr.querySelector('td a')?.getAttribute('href') ?? null, rows: [{ model: link?.textContent ?? null, href: link?.getAttribute('href') ?? null }] };
        }),
      );
      // Frozen boards first, then the imported runs, each group newest plan first (src/report/board-order.ts).
      const ordered = boardsInOrder(demo.report);
      expect(ordered.findIndex((b) => b.key.origin === 'imported')).toBe(ordered.filter((b) => b.key.origin === 'frozen').length);
      expect(ordered.some((b) => b.key.origin === 'imported')).toBe(true);
      const expected = (boards: typeof ordered) =>
        boards.map((board) => ({
          board: `/boards/${hex(board.board_id)}/`,
          rows: board.cohorts.map((id) => ({ model: demo.cohorts.get(id)!.subject.model, href: `/cohorts/${hex(id)}/` })),
        }));
      const single = (b: (typeof ordered)[number]): boolean => b.key.origin === 'imported' && b.cohorts.length === 1;
      expect(tables).toEqual(expected(ordered.filter((b) => !single(b))));
      expect(runs).toEqual(expected(ordered.filter(single)));
      expect(runs.length).toBeGreaterThan(0);
      const listed = [...tables, ...runs].flatMap((t) => t.rows.map((r) => r.href)).sort();
      expect(listed).toEqual(demo.report.cohorts.map((c) => `/cohorts/${hex(c.cohort_id)}/`).sort());
      expect(demo.report.cohorts.length).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('board, cohort and plan links resolve (200, HTML), and the verify control stays idle without JavaScript', async () => {
    const page = await newPage(jsOff);
    try {
      const links = new Set<string>();
      const collect = async (path: string): Promise<void> => {
        const response = await page.goto(demo.server.origin + path);
        expect(response?.status(), path).toBe(200);
        for (const href of await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href') ?? ''))) {
          if (/^\/(boards|cohorts|plans)\/[0-9a-f]{64}\/$/.test(href)) links.add(href);
        }
      };
      await collect('/');
      await collect(`/boards/${hex(demo.report.boards[0]!.board_id)}/`);
      await collect(`/cohorts/${hex(demo.report.cohorts[0]!.cohort_id)}/`);
      const kinds = new Set([...links].map((l) => l.split('/')[1]));
      expect([...kinds].sort()).toEqual(['boards', 'cohorts', 'plans']);
      // A sample through the browser (every kind), the rest over HTTP.
      const sample = ['boards', 'cohorts', 'plans'].map((kind) => [...links].find((l) => l.startsWith(`/${kind}/`))!);
      for (const path of sample) {
        const response = await page.goto(demo.server.origin + path);
        expect(response?.status(), path).toBe(200);
        expect(await page.locator('main > h1').count(), path).toBe(1);
      }
      for (const path of links) {
        const response = await jsOff.context.request.get(demo.server.origin + path);
        expect(response.status(), path).toBe(200);
        expect(response.headers()['content-type'], path).toMatch(/^text\/html/);
      }
      // Without JavaScript the button does nothing and the page says so; nothing else depends on it.
      await page.goto(demo.server.origin + firstCountedPlan(demo));
      // With JavaScript on, the click handler marks the root running before it returns; off, nothing can change it.
      await page.click('[data-verify-root] button[data-verify]');
      expect(await page.getAttribute('[data-verify-root]', 'data-verify-status')).toBe('idle');
    } finally {
      await page.close();
    }
  });
});

describe('demo site, JavaScript on: Verify in this browser', () => {
  it('a plan page reaches match; after one published byte changes it reaches mismatch', async () => {
    const path = firstCountedPlan(demo);
    const bundle = demo.report.bundles.find((b) => b.plan_id !== null && `/plans/${hex(b.plan_id)}/` === path)!;
    const manifest = JSON.parse(await readFile(join(demo.out, 'bundles', hex(bundle.bundle_id!), 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    const file = join(demo.out, 'blobs', hex(manifest.files.find((f) => f.path === 'attempts.jsonl')!.sha256));
    const page = await newPage(jsOn);
    const original = await readFile(file);
    try {
      await page.goto(demo.server.origin + path);
      const first = await runVerify(page);
      expect(first.status, JSON.stringify(first.results, null, 1)).toBe('match');
      const checks = JSON.parse((await page.getAttribute('[data-verify-root]', 'data-verify-checks')) ?? '[]') as { kind: string }[];
      expect(checks.map((c) => c.kind)).toEqual(['self-id', 'manifest']);
      expect(first.results.filter((r) => r.result === 'match')).toHaveLength(checks.length);
      expect(first.results[1]!.text).toMatch(/(\d+) of \1 listed files match/);

      const tampered = Buffer.from(original);
      const at = Math.floor(tampered.length / 2);
      tampered[at] = tampered[at]! ^ 0x01;
      await writeFile(file, tampered);
      await page.reload();
      const second = await runVerify(page);
      expect(second.status, JSON.stringify(second.results, null, 1)).toBe('mismatch');
      const mismatches = second.results.filter((r) => r.result === 'mismatch');
      expect(mismatches).toHaveLength(1);
      expect(mismatches[0]!.text).toContain('attempts.jsonl');
    } finally {
      await writeFile(file, original);
      await page.close();
    }
    // Restored: match again.
    const again = await newPage(jsOn);
    try {
      await again.goto(demo.server.origin + path);
      expect((await runVerify(again)).status).toBe('match');
    } finally {
      await again.close();
    }
  });

  it('/verify/: the report check reaches match', async () => {
    const page = await newPage(jsOn);
    try {
      await page.goto(`${demo.server.origin}/verify/`);
      const outcome = await runVerify(page);
      expect(outcome.status, JSON.stringify(outcome.results, null, 1)).toBe('match');
      expect(outcome.results[0]?.text).toContain('report_id');
    } finally {
      await page.close();
    }
  });
});

const PAGE_TYPES = ['leaderboard', 'board', 'cohort', 'plan', 'rejected', 'incompatibilities', 'verify', 'model', 'models'] as const;

function demoPath(kind: (typeof PAGE_TYPES)[number]): string {
  switch (kind) {
    case 'leaderboard':
      return '/';
    case 'board':
      return `/boards/${hex(demo.report.boards[0]!.board_id)}/`;
    case 'cohort':
      return `/cohorts/${hex(demo.report.cohorts.find((c) => c.verdict !== null)!.cohort_id)}/`;
    case 'plan':
      return firstCountedPlan(demo);
    case 'model': {
      // The model page of the first cohort (src/site/model/models.ts: the first 16 hex digits of the SHA-256 of the model id).
      const model = demo.report.cohorts.find((c) => c.verdict !== null)!.subject.model;
      return `/models/${createHash('sha256').update(model, 'utf8').digest('hex').slice(0, 16)}/`;
    }
    default:
      return `/${kind}/`;
  }
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary: string }[];
}

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    }));
  });
}

function describeViolations(path: string, violations: AxeViolation[]): string {
  return violations
    .map((v) => `${path}: [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n${v.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.html}\n      ${n.failureSummary.replace(/\n/g, '\n      ')}`).join('\n')}`)
    .join('\n');
}

/**
 * Serious or critical axe violations that src/ has today, by page type and
 * rule id. Each page with an entry gets two tests: one that allows only these
 * rules (so a new violation still fails), and an `it.fails` that demands none
 * at all: when src/ is fixed, that one starts passing and vitest reports it,
 * so delete the entry here.
 */
// Accessibility bugs this suite found and src/ fixed (kept as a place to record any future one, with its file):
// charts' inner aria-labels (src/site/charts/charts.ts) and non-focusable scrolling tables (.table-wrap).
const KNOWN_A11Y_BUGS: Partial<Record<(typeof PAGE_TYPES)[number], Record<string, string>>> = {};

const axeCache = new Map<string, AxeViolation[]>();

/** The serious and critical violations of a demo page type (axe runs once per page type). */
async function seriousViolations(kind: (typeof PAGE_TYPES)[number]): Promise<{ path: string; serious: AxeViolation[] }> {
  const path = demoPath(kind);
  let violations = axeCache.get(path);
  if (violations === undefined) {
    const page = await newPage(jsOn);
    try {
      const response = await page.goto(demo.server.origin + path);
      expect(response?.status(), path).toBe(200);
      violations = await axeViolations(page);
      axeCache.set(path, violations);
    } finally {
      await page.close();
    }
  }
  return { path, serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') };
}

describe('accessibility: axe-core on every page type of the demo', () => {
  for (const kind of PAGE_TYPES) {
    const known = KNOWN_A11Y_BUGS[kind];
    if (known === undefined) {
      it(`${kind} page: no serious or critical violation`, async () => {
        const { path, serious } = await seriousViolations(kind);
        expect(serious, describeViolations(path, serious)).toEqual([]);
      });
      continue;
    }
    it(`${kind} page: no serious or critical violation besides the known bugs (${Object.keys(known).join(', ')})`, async () => {
      const { path, serious } = await seriousViolations(kind);
      const unknown = serious.filter((v) => !(v.id in known));
      expect(unknown, describeViolations(path, unknown)).toEqual([]);
    });
    // KNOWN BUG (see KNOWN_A11Y_BUGS above): fails until src/ is fixed.
    it.fails(`${kind} page: no serious or critical violation at all [known bug: ${Object.values(known).join('; ')}]`, async () => {
      const { path, serious } = await seriousViolations(kind);
      expect(serious, describeViolations(path, serious)).toEqual([]);
    });
  }
});

describe('screenshots', () => {
  it('saves the leaderboard and a cohort page at 1280x900', async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const page = await newPage(jsOn);
    try {
      for (const [name, path] of [
        ['leaderboard', '/'],
        ['cohort', demoPath('cohort')],
      ] as const) {
        await page.goto(demo.server.origin + path);
        const file = join(SCREENSHOTS, `${name}.png`);
        await page.screenshot({ path: file });
        const png = await readFile(file);
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 900]);
      }
    } finally {
      await page.close();
    }
  });
});

describe('the demo stays on its own origin', () => {
  it('no demo page requested anything outside the site (with or without JavaScript)', () => {
    expect([...jsOff.external, ...jsOn.external]).toEqual([]);
  });
});

describe('hostile site: publisher strings are data, never markup', () => {
  const factsCache = new Map<string, DocumentFacts>();
  /** The served HTML of a hostile page, parsed by Chromium's DOMParser. */
  async function facts(page: Page, path: string): Promise<DocumentFacts> {
    const cached = factsCache.get(path);
    if (cached) return cached;
    const served = await fetchText(hostile, path);
    expect(served.status, path).toBe(200);
    expect(served.type, path).toMatch(/^text\/html/);
    const parsed = await inspectHtml(page, served.text);
    factsCache.set(path, parsed);
    return parsed;
  }
  const planPaths = (): string[] => hostile.pages.filter((p) => p.startsWith('/plans/'));

  it('the inspector sees what it looks for (a planted page), so the checks below are not vacuous', async () => {
    const page = await newPage(jsOn);
    try {
      const planted = await inspectHtml(
        page,
        '<!doctype html><title>t</title><body><main id="main"><h1>x<b>y</b></h1>' +
          '<script src="/verify-browser.js"></script><script>alert(1)</script><svg><script>alert(2)</script></svg>' +
          '<img src=x onerror=alert(1)><a href=" \tJaVa&#x09;ScRiPt:alert(1)">j</a><a href="data:text/html,x">d</a><iframe></iframe>' +
          '<section class="notes"><h2 id="notes">n</h2><a id="main">m</a><p name="user-content-ok"></p></section></main>',
      );
      expect(planted.scripts.map((s) => s.src)).toEqual(['/verify-browser.js', null, null]);
      expect(planted.eventAttributes).toHaveLength(1);
      expect(planted.dangerousUrls).toHaveLength(2);
      expect(planted.forbiddenElements).toHaveLength(1);
      expect(planted.unprefixedNotesIds).toEqual([expect.stringContaining('id="main"')]);
      expect(planted.notesIds).toEqual(['id=main', 'name=user-content-ok']);
      expect([planted.mainIds, planted.mainTag, planted.duplicateIds]).toEqual([2, 'MAIN', ['main']]);
      expect(planted.h1ElementChildren).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('the hostile bundles verify and the rejected one does not; the site has every page type', () => {
    expect(statuses).toEqual({ h0: 'verified', h1: 'verified', h2: 'verified', h3: 'verified', rejected: 'invalid' });
    const counted = hostile.report.bundles.filter((b) => b.counted).length;
    expect(counted).toBe(4);
    expect(groupedIncompatibilities(hostile.report).by_ledger.length).toBeGreaterThan(0);
    expect(hostile.pages.filter((p) => p.startsWith('/boards/')).length).toBeGreaterThan(1);
    expect(hostile.pages.filter((p) => p.startsWith('/cohorts/')).length).toBe(hostile.report.cohorts.length);
    // The rejected bundle has no plan page (a rejected bundle never takes one): it is on /rejected/.
    expect(planPaths()).toHaveLength(4);
  });

  it('no dialog opens and no script error occurs on any page (JavaScript on)', { timeout: 120_000 }, async () => {
    const page = await newPage(jsOn);
    const dialogs: string[] = [];
    const errors: string[] = [];
    let current = '';
    page.on('dialog', (dialog) => {
      dialogs.push(`${current}: ${dialog.type()} ${JSON.stringify(dialog.message())}`);
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('pageerror', (error) => errors.push(`${current}: ${error.message}`));
    const externalBefore = jsOn.external.length;
    try {
      for (const path of hostile.pages) {
        current = path;
        const response = await page.goto(hostile.server.origin + path, { waitUntil: 'load' });
        expect(response?.status(), path).toBe(200);
        // Give onload/onerror/autofocus payloads a moment, and hover and focus what is there.
        await page.mouse.move(200, 200);
        await page.keyboard.press('Tab');
        await settle(page);
      }
      // Not a failure (NOTES.md may show https images, as GitHub's sanitize schema allows), but worth seeing:
      // each was aborted by the session's route, so the tests never touch the network.
      const external = [...new Set(jsOn.external.slice(externalBefore))];
      if (external.length > 0) console.log(`hostile pages asked for third-party URLs (aborted): ${external.join(', ')}`);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("served HTML of every page: only the site's own script, no on* attribute, no javascript:/data: URL, no embedding element", { timeout: 60_000 }, async () => {
    const page = await newPage(jsOn);
    const problems: string[] = [];
    try {
      for (const path of hostile.pages) {
        const f = await facts(page, path);
        const expected = scriptsOf(path);
        const own = f.scripts.filter((s) => s.text.trim() === '').map((s) => s.src);
        if (JSON.stringify(own) !== JSON.stringify(expected) || f.scripts.length !== expected.length) {
          problems.push(`${path}: scripts ${JSON.stringify(f.scripts)}, expected ${expected.map((s) => `<script src="${s}">`).join(', ')}`);
        }
        for (const a of f.eventAttributes) problems.push(`${path}: event-handler attribute ${a}`);
        for (const u of f.dangerousUrls) problems.push(`${path}: dangerous URL ${u}`);
        for (const e of f.forbiddenElements) problems.push(`${path}: forbidden element ${e}`);
      }
    } finally {
      await page.close();
    }
    expect(problems).toEqual([]);
  });

  it('hostile strings read back literally as text', { timeout: 60_000 }, async () => {
    const page = await newPage(jsOn);
    try {
      const all = new Map<string, DocumentFacts>();
      for (const path of hostile.pages) all.set(path, await facts(page, path));
      const problems: string[] = [];
      const where = (prefix: string) => [...all].filter(([p]) => p.startsWith(prefix));

      // The site title, on every page: the nav brand and the document title.
      for (const [path, f] of all) {
        if (f.brand !== HOSTILE_SITE_TITLE) problems.push(`${path}: brand ${JSON.stringify(f.brand)}`);
        if (!f.title.endsWith(` · ${HOSTILE_SITE_TITLE}`)) problems.push(`${path}: <title> ${JSON.stringify(f.title)}`);
      }
      const home = all.get('/')!;
      if (home.h1 !== HOSTILE_SITE_TITLE) problems.push(`/: h1 ${JSON.stringify(home.h1)}`);

      // Identities read back as pages show them (src/site/views/format.ts shortIdentity): invisible characters as markers, shortened past 80 characters.
      const shown = (value: string): string => asText(shortIdentity(value));

      // Plan titles: the h1 of a plan page is the title as text, with no element inside.
      const planH1 = new Set(where('/plans/').map(([, f]) => f.h1));
      for (const title of specs.map((s) => s.title)) {
        if (!planH1.has(shown(title))) problems.push(`no plan page has the h1 ${JSON.stringify(title.slice(0, 120))}...`);
      }
      for (const [path, f] of where('/plans/')) if (f.h1ElementChildren !== 0) problems.push(`${path}: h1 holds elements`);

      // Subjects: the leaderboard links each model; each cohort page is titled "model · agent version".
      const homeLinks = new Set(home.links.map((l) => l.text));
      const cohortH1 = new Set(where('/cohorts/').map(([, f]) => f.h1));
      for (const spec of specs) {
        for (const subject of [spec.candidate, spec.baseline]) {
          if (!homeLinks.has(shown(subject.model))) problems.push(`/: no link reads ${JSON.stringify(subject.model)}`);
          const name = `${shown(subject.model)} · ${shown(subject.agent)} ${shown(spec.agentVersion)}`;
          if (!cohortH1.has(name)) problems.push(`no cohort page has the h1 ${JSON.stringify(name)}`);
        }
      }

      // Board pages: task ids, harness name and version, grader id and version, isolation, session topology and ledger name.
      const boardText = where('/boards/').map(([, f]) => f.bodyText).join('\n');
      for (const spec of specs) {
        for (const text of [...spec.tasks, spec.harnessName, spec.harnessVersion, spec.grader.id, spec.grader.version, spec.isolation, spec.sessionTopology, spec.ledgerName]) {
          if (!boardText.includes(shown(text))) problems.push(`no board page shows ${JSON.stringify(text)}`);
        }
      }

      // Plan pages: hostile file names as link text, linked at their blob URL (the digest, never the name).
      for (const spec of specs) {
        const plan = where('/plans/').find(([, f]) => f.h1 === shown(spec.title));
        if (!plan) continue;
        const [path, f] = plan;
        const bundle = hostile.report.bundles.find((b) => b.plan_id !== null && `/plans/${hex(b.plan_id)}/` === path)!;
        const manifest = JSON.parse(await readFile(join(hostile.out, 'bundles', hex(bundle.bundle_id!), 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
        for (const file of Object.keys(spec.files)) {
          const href = `/blobs/${hex(manifest.files.find((e) => e.path === file)!.sha256)}`;
          if (!f.links.some((l) => l.text === file && l.href === href)) problems.push(`${path}: no link ${JSON.stringify(file)} -> ${href}`);
        }
      }

      // The rejected page: the title and the finding quoting the observed model.
      const rejectedText = all.get('/rejected/')!.bodyText;
      if (!rejectedText.includes(rejected.spec.title)) problems.push('/rejected/: the rejected title is missing');
      if (!rejectedText.includes(JSON.stringify(rejected.observed))) problems.push('/rejected/: the IDENTITY_MISMATCH finding does not quote the observed model');

      // Incompatibilities: bundles 0 and 1 differ in harness name and isolation, shown as JSON text.
      const incompatible = all.get('/incompatibilities/')!.bodyText;
      for (const text of [specs[0]!.harnessName, specs[1]!.harnessName, specs[0]!.ledgerName]) {
        if (!incompatible.includes(text)) problems.push(`/incompatibilities/: ${JSON.stringify(text)} is missing`);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('NOTES.md: every id and name carries user-content-, and the page ids stay the page\'s own', { timeout: 60_000 }, async () => {
    const page = await newPage(jsOn);
    const problems: string[] = [];
    try {
      for (const path of planPaths()) {
        const f = await facts(page, path);
        if (!f.hasNotes) problems.push(`${path}: no notes section`);
        for (const id of f.unprefixedNotesIds) problems.push(`${path}: notes carry ${id}`);
        if (f.mainIds !== 1 || f.mainTag !== 'MAIN') problems.push(`${path}: ${f.mainIds} elements with id="main"; getElementById('main') is ${f.mainTag}`);
        if (f.duplicateIds.length > 0) problems.push(`${path}: duplicate ids ${JSON.stringify(f.duplicateIds)}`);
        if (!f.bodyText.includes('clobber main')) problems.push(`${path}: the notes were not rendered`);
      }
    } finally {
      await page.close();
    }
    expect(problems).toEqual([]);
  });

  it('every counted plan verifies in the browser, hostile file names included', { timeout: 90_000 }, async () => {
    const page = await newPage(jsOn);
    const outcomes: Record<string, string> = {};
    try {
      for (const bundle of hostile.report.bundles.filter((b) => b.counted)) {
        const path = `/plans/${hex(bundle.plan_id!)}/`;
        await page.goto(hostile.server.origin + path);
        const outcome = await runVerify(page);
        outcomes[path] = outcome.status === 'match' ? 'match' : `${outcome.status}: ${JSON.stringify(outcome.results.filter((r) => r.result !== 'match'))}`;
      }
    } finally {
      await page.close();
    }
    expect(Object.values(outcomes)).toHaveLength(4);
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(outcomes).map((k) => [k, 'match'])));
  });
});
