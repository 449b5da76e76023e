/**
 * The README's screenshots: `npm run screenshots` builds the demo site (the
 * config's frozen and imported evidence, as `npm run build` does) into a
 * temporary directory, serves it on 127.0.0.1 with the site's own server and
 * writes full-page PNGs to docs/screenshots/ with Debian's Chromium
 * (/usr/bin/chromium, as the browser tests):
 *
 *   leaderboard-1280-light.png  leaderboard-1280-dark.png  leaderboard-390-light.png  leaderboard-390-dark.png
 *   cohort-1280-light.png       cohort-390-light.png
 *
 * The cohort is the first candidate with a verdict on the first board the
 * leaderboard shows. A page taller than MAX_HEIGHT is cut there, so each PNG
 * stays small enough to commit. A documentation tool: no test runs it; run it
 * after a change to how the site looks, and commit the PNGs.
 */
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCompiled } from './compile.mjs';
import { boardsInOrder } from '../src/report/board-order.ts';
import type { Report } from '../src/report/schema.ts';
import { buildSite, launchBrowser, ROOT } from '../test/browser/browser.ts';
import { serveStatic } from '../test/browser/static-server.ts';

/** The tallest part of a page kept, in CSS pixels, by viewport width. */
const MAX_HEIGHT: Record<number, number> = { 1280: 1800, 390: 2800 };
const VIEWPORT_HEIGHT: Record<number, number> = { 1280: 900, 390: 844 };

interface Shot {
  name: string;
  path: string;
  width: 1280 | 390;
  colorScheme: 'light' | 'dark';
}

const hex = (digest: string): string => digest.replace(/^sha256:/, '');

await ensureCompiled();
const work = await mkdtemp(join(tmpdir(), 'ledgerboard-screenshots-'));
const outDir = join(ROOT, 'docs', 'screenshots');
try {
  const site = join(work, 'site');
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  await buildSite({ out: site });
  const report = JSON.parse(await readFile(join(site, 'report.json'), 'utf8')) as Report;
  const first = boardsInOrder(report)[0];
  const cohort = first?.cohorts.map((id) => report.cohorts.find((c) => c.cohort_id === id)!).find((c) => c.verdict !== null);
  if (!cohort) throw new Error('the demo has no candidate with a verdict on its first board');
  const cohortPath = `/cohorts/${hex(cohort.cohort_id)}/`;

  const shots: Shot[] = [];
  for (const width of [1280, 390] as const) {
    for (const colorScheme of ['light', 'dark'] as const) shots.push({ name: 'leaderboard', path: '/', width, colorScheme });
    shots.push({ name: 'cohort', path: cohortPath, width, colorScheme: 'light' });
  }

  const server = await serveStatic(site);
  const session = await launchBrowser({ javaScriptEnabled: true });
  try {
    await mkdir(outDir, { recursive: true });
    const page = await session.context.newPage();
    for (const shot of shots) {
      await page.setViewportSize({ width: shot.width, height: VIEWPORT_HEIGHT[shot.width]! });
      await page.emulateMedia({ colorScheme: shot.colorScheme, reducedMotion: 'reduce' });
      const response = await page.goto(server.origin + shot.path, { waitUntil: 'load' });
      if (response?.status() !== 200) throw new Error(`${shot.path}: HTTP ${response?.status()}`);
      const fullHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      const height = Math.min(fullHeight, MAX_HEIGHT[shot.width]!);
      const file = join(outDir, `${shot.name}-${shot.width}-${shot.colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: shot.width, height }, animations: 'disabled', caret: 'hide' });
      const bytes = (await stat(file)).size;
      console.log(`wrote ${file.slice(ROOT.length)} (${shot.width}x${height} of ${fullHeight}, ${Math.round(bytes / 1024)} KiB)`);
    }
    await page.close();
    if (session.external.length > 0) throw new Error(`the demo asked for URLs outside the site: ${session.external.join(', ')}`);
  } finally {
    await session.close();
    await server.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
