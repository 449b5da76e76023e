/**
 * Badges in Chromium (issue 29 item 11), on the demo, JavaScript off: the
 * cohort page's Badge section shows the badge (an SVG image that loads, at
 * its own 20 px height at 1280 px, scaled to the column on a 390 px screen,
 * the page never wider than the screen), and its two embed snippets, whose
 * text is the HTML and Markdown that link the cohort page; the badge file
 * is an SVG image with role="img" and a <title>, its rate the cohort's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badgeFigures } from '../../src/site/views/badge.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';

let demo: DemoSite;

beforeAll(async () => {
  demo = await openDemoSite();
}, 300_000);
afterAll(() => demo?.close());

describe('a cohort page\'s badge and embeds', () => {
  it('at 1280 and 390 px: the badge loads, the snippets link the cohort page, the page fits the screen', { timeout: 60_000 }, async () => {
    const c = demo.report.cohorts.find((x) => x.verdict === 'PASS')!;
    const hex = c.cohort_id.slice(7);
    await withPage(demo.jsOff, async (page) => {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${demo.server.origin}/cohorts/${hex}/`);
        const facts = await page.evaluate(() => {
          const img = document.querySelector<HTMLImageElement>('[data-badge] img')!;
          const box = img.getBoundingClientRect();
          return {
            loaded: img.complete && img.naturalWidth > 0,
            natural: [img.naturalWidth, img.naturalHeight],
            shown: [box.width, box.height],
            right: box.right,
            html: document.querySelector('[data-embed="html"]')!.textContent,
            markdown: document.querySelector('[data-embed="markdown"]')!.textContent,
            scrollWidth: document.documentElement.scrollWidth,
          };
        });
        expect(facts.loaded).toBe(true);
        expect(facts.natural[1]).toBe(20);
        expect(facts.scrollWidth).toBeLessThanOrEqual(width);
        expect(facts.right).toBeLessThanOrEqual(width);
        if (width === 1280) expect(facts.shown).toEqual(facts.natural);
        else {
          // Wider than the phone's column: scaled down with its aspect kept.
          expect(facts.natural[0]).toBeGreaterThan(width);
          expect(facts.shown[0]).toBeLessThan(width);
          expect(facts.shown[1]! / facts.shown[0]!).toBeCloseTo(facts.natural[1]! / facts.natural[0]!, 2);
        }
        expect(facts.html).toMatch(new RegExp(`^<a href="https://ledgerboard\\.example/cohorts/${hex}/"><img src="https://ledgerboard\\.example/badges/${hex}\\.svg" alt="ledgerboard badge: [^"]+"></a>$`));
        expect(facts.markdown).toMatch(new RegExp(`^\\[!\\[ledgerboard badge: .+\\]\\(https://ledgerboard\\.example/badges/${hex}\\.svg\\)\\]\\(https://ledgerboard\\.example/cohorts/${hex}/\\)$`));
      }
      // The badge itself, opened: an SVG image with its title, showing the cohort's rate.
      await page.goto(`${demo.server.origin}/badges/${hex}.svg`);
      const svg = await page.evaluate(() => {
        const root = document.documentElement;
        return { name: root.nodeName, role: root.getAttribute('role'), title: root.querySelector('title')!.textContent, rate: root.querySelector('[data-figure="rate"]')!.textContent };
      });
      expect(svg.name).toBe('svg');
      expect(svg.role).toBe('img');
      expect(svg.title).toContain(`headline rate ${badgeFigures(demo.report, c, false).rate}`);
      expect(svg.rate).toBe(badgeFigures(demo.report, c, false).rate);
    });
  });
});
