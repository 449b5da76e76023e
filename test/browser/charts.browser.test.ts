/**
 * Board charts in Chromium (issue 13 item 5), on the demo's widget-bugs board
 * (three plans, six cohorts, three of them without a known cost) at 390 px
 * and 1280 px: one variant of each chart shown (the compact one on the phone),
 * every label at least 11 px on screen and inside its SVG (nothing cut),
 * the charts never wider than the page, the rate chart first and full width,
 * the cost chart's visible caption naming each cohort it does not place and
 * why, the over-time chart present (more than one plan date) with a solid
 * line per subject whose plans span several days (issue 29), each SVG
 * role="img" with an aria-label and a text alternative beside it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, requireChromium, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { serveStatic, type StaticServer } from './static-server.ts';
import type { Report } from '../../src/report/schema.ts';

let server: StaticServer;
let session: BrowserSession;
let out: string;
let boardPath: string;
let oneDatePath: string;

beforeAll(async () => {
  requireChromium();
  out = await sharedDemoBuild();
  const boards = await readdir(join(out, 'boards'));
  // The demo's frozen boards: c895cd60f302 (three plans) and a7bdcfaf9741 (one plan, offline tools).
  boardPath = `/boards/${boards.find((b) => b.startsWith('c895cd60f302'))!}/`;
  oneDatePath = `/boards/${boards.find((b) => b.startsWith('a7bdcfaf9741'))!}/`;
  server = await serveStatic(out);
  session = await launchBrowser({ javaScriptEnabled: false });
}, 300_000);

afterAll(async () => {
  await session?.close();
  await server?.close();
});

interface Shown {
  chart: string;
  variant: string;
  left: number;
  right: number;
  width: number;
  role: string | null;
  label: string | null;
  /** Smallest on-screen font size of its text (CSS px). */
  minFont: number;
  /** Text whose box leaves the SVG's box (cut). */
  outside: string[];
  texts: number;
}

async function chartsAt(width: number, path: string): Promise<{ shown: Shown[]; hidden: number; docWidth: number; figures: string[]; captions: string[]; alts: string[] }> {
  const page = await session.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${server.origin}${path}`);
  const result = await page.evaluate(() => {
    const svgs = [...document.querySelectorAll<SVGSVGElement>('.board-charts svg[role="img"]')];
    const shown = svgs.filter((s) => s.getBoundingClientRect().width > 0).map((s) => {
      const box = s.getBoundingClientRect();
      const scale = box.width / s.viewBox.baseVal.width;
      const texts = [...s.querySelectorAll('text')];
      const outside = texts.filter((t) => {
        const r = t.getBoundingClientRect();
        return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5);
      }).map((t) => t.textContent ?? '');
      return {
        chart: s.closest('figure')!.className,
        variant: s.getAttribute('class')!.split(' ').pop()!,
        left: box.left,
        right: box.right,
        width: box.width,
        role: s.getAttribute('role'),
        label: s.getAttribute('aria-label'),
        minFont: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
        outside,
        texts: texts.length,
      };
    });
    return {
      shown,
      hidden: svgs.length - shown.length,
      docWidth: document.documentElement.scrollWidth,
      figures: [...document.querySelectorAll('.board-charts figure')].map((f) => f.className),
      captions: [...document.querySelectorAll('.board-charts figcaption')].map((f) => [...f.querySelectorAll('.chart-note')].map((p) => (p as HTMLElement).innerText).join('\n')),
      alts: [...document.querySelectorAll('.board-charts figcaption details pre')].map((p) => p.textContent ?? ''),
    };
  });
  await page.close();
  return result;
}

describe('board charts', () => {
  for (const [width, variant] of [[390, 'chart-compact'], [1280, 'chart-wide']] as const) {
    it(`at ${width} px: one ${variant} per chart, labels >= 11 px and inside the chart, no wider than the page`, { timeout: 60_000 }, async () => {
      const { shown, hidden, figures } = await chartsAt(width, boardPath);
      expect(figures).toEqual(['chart chart-rate', 'chart chart-cost', 'chart chart-time']);
      expect(shown.map((s) => s.chart)).toEqual(figures);
      expect(shown.every((s) => s.variant === variant)).toBe(true);
      expect(hidden).toBe(3);
      const content = Math.min(width, 72 * 16) - 32;
      for (const s of shown) {
        expect(s.role).toBe('img');
        expect(s.label).toMatch(/^(Headline pass rate|Total cost)/);
        expect(s.texts).toBeGreaterThan(5);
        expect(s.minFont).toBeGreaterThanOrEqual(11);
        expect(s.outside).toEqual([]);
        expect(s.left).toBeGreaterThanOrEqual(0);
        expect(s.right).toBeLessThanOrEqual(width);
      }
      // Full width of the content column: the rate chart first, as wide as main's content.
      expect(shown[0]!.width).toBeCloseTo(content, 0);
    });
  }

  it('the cost chart\'s visible caption names every cohort it does not place, and why; each chart has its text alternative', { timeout: 60_000 }, async () => {
    const { captions, alts } = await chartsAt(390, boardPath);
    expect(captions[1]).toContain('Not placed (3 of 6): lumen/sage-2026-10-15 · loop 3.1.0: cost not applicable for 72 attempts; orbit/coder-7b-2026-07 · loop 3.1.0: cost unavailable for 216 attempts; lumen/sage-2026-05-20 · loop 3.1.0: cost not applicable for 72 attempts.');
    expect(captions[1]).toContain('The step line is the Pareto frontier: 1. acme/mini-2026-08-01 · loop 3.1.0; 2. acme/mini-2026-08-01 · loop 3.2.0');
    expect(alts).toHaveLength(3);
    expect(alts[0]).toContain('1. acme/mini-2026-08-01 · loop 3.1.0: 82.4%');
    expect(alts[2]).toContain('6. acme/base-2025-01-01 · loop 3.1.0 (baseline), per plan: 2026-09-14 51.0%, 2026-10-05 52.9%, 2026-11-02 43.1%');
  });

  it('the over-time chart draws a solid line per subject with plans on more than one day, ending at its headline rate (issue 29)', { timeout: 60_000 }, async () => {
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    const board = report.boards.find((b) => b.board_id.startsWith('sha256:c895cd60f302'))!;
    const cohorts = board.cohorts.map((id) => report.cohorts.find((c) => c.cohort_id === id)!);
    const multi = cohorts.filter((c) => new Set(c.plans.map((p) => p.created_at.slice(0, 10))).size > 1);
    expect(multi.map((c) => c.subject.model)).toEqual(['acme/mini-2026-08-01', 'orbit/coder-7b-2026-07', 'acme/base-2025-01-01']);
    const page = await session.context.newPage();
    try {
      for (const [width, variant] of [[1280, 'chart-wide'], [390, 'chart-compact']] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(server.origin + boardPath);
        const lines = await page.$$eval(`figure.chart-time svg.${variant} g[data-mark="line"]:not([stroke-dasharray]) path`, (paths) =>
          paths.map((p) => ({ vertices: (p.getAttribute('d')!.match(/[ML]/g) ?? []).length, width: (p as SVGGraphicsElement).getBoundingClientRect().width })),
        );
        // One path per subject drawn; those with plans on several days are lines through a vertex per day, drawn wider than a dot.
        expect(lines).toHaveLength(cohorts.length);
        const drawn = lines.filter((l) => l.vertices > 1);
        expect(drawn.map((l) => l.vertices)).toEqual(multi.map(() => 3));
        for (const l of drawn) expect(l.width, variant).toBeGreaterThan(width === 1280 ? 400 : 150);
      }
      const alt = (await page.textContent('figure.chart-time pre'))!;
      for (const c of multi) {
        const line = alt.split('\n').find((l) => l.includes(`. ${c.subject.model} · ${c.subject.agent.name} ${c.subject.agent.version}`) && l.includes('as reported'))!;
        expect(line.split('as reported: ')[1]!.split(', ')).toHaveLength(3);
        expect(line.endsWith(`${(c.headline.rate! * 100).toFixed(1)}%`), line).toBe(true);
      }
    } finally {
      await page.close();
    }
  });

  it('a board whose evidence has one date has no over-time chart', { timeout: 60_000 }, async () => {
    const { figures } = await chartsAt(1280, oneDatePath);
    expect(figures).toEqual(['chart chart-rate', 'chart chart-cost']);
  });
});
