/**
 * Rendering board charts to SVG text with Observable Plot and linkedom: the
 * two sizes every chart is drawn at, text width estimates for margins, and
 * the stabilisation that makes the bytes depend on the data only.
 *
 * Sizes. Each chart is drawn twice, and the page shows one by a CSS media
 * query at CHART_BREAKPOINT_REM (public/site.css, "issue 13: charts"): the
 * SVG is scaled to the width of its container (width 100%, viewBox kept),
 * so a label's size on screen is its font size x container width / viewBox
 * width. The narrowest container of each size is known from the page layout
 * (main: 1rem padding each side), and each size is chosen so that its text is
 * at least MIN_LABEL_PX there:
 *   compact: viewBox 360 wide, 12 px text, shown below 50rem; at a 390 px
 *            viewport the container is 358 px: 12 x 358 / 360 = 11.9 px.
 *   wide:    viewBox 960 wide, 14 px text, shown from 50rem (800 px), where
 *            the container is at least 768 px: 14 x 768 / 960 = 11.2 px; at
 *            1280 px it is 1120 px wide (main's 72rem): 16.3 px.
 * No Plot text carries its own font size, so every label has the root's.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

export interface ChartSize {
  name: 'wide' | 'compact';
  /** viewBox width (user units). */
  width: number;
  /** Root font size (user units): every label's. */
  font: number;
  /** The narrowest container (CSS px) this size is shown in. */
  minContainer: number;
}

/** The page shows `compact` below this viewport width and `wide` from it (public/site.css). */
export const CHART_BREAKPOINT_REM = 50;
/** The smallest on-screen label size the sizes guarantee (CSS px). */
export const MIN_LABEL_PX = 11;

export const WIDE: ChartSize = { name: 'wide', width: 960, font: 14, minContainer: CHART_BREAKPOINT_REM * 16 - 32 };
/** A 390 px phone: 358 px of container. */
export const COMPACT: ChartSize = { name: 'compact', width: 360, font: 12, minContainer: 390 - 32 };
export const SIZES: readonly ChartSize[] = [WIDE, COMPACT];

/** The on-screen size (CSS px) of text of `font` user units at the narrowest container of `size`. */
export function screenPx(size: ChartSize, font: number = size.font): number {
  return (font * size.minContainer) / size.width;
}

/** Numeric (geometry) attributes whose values are rounded. */
const GEOMETRY = new Set(['x', 'y', 'x1', 'x2', 'y1', 'y2', 'cx', 'cy', 'r', 'd', 'dx', 'dy', 'transform', 'width', 'height', 'viewBox', 'points']);

/**
 * A conservative width of a label in ems (wider than Plot's own estimate for
 * Latin text and digits), used to size margins so that a label fits without
 * being cut; a label longer than the margin allows is shortened by Plot with
 * an ellipsis, its full text in a <title>.
 */
export function emWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    if ('iIjlft.,:;|!\'` ()[]'.includes(ch)) w += 0.36;
    else if ('mwMW@'.includes(ch)) w += 0.92;
    else if (/[A-Z]/.test(ch)) w += 0.7;
    else if (ch.codePointAt(0)! > 0x2e7f) w += 1.05;
    else w += 0.62;
  }
  return w;
}

/**
 * Renders with Plot into a fresh linkedom document and returns stable SVG
 * text: role="img" with `label` as its aria-label, the size's font, and the
 * classes `<className> chart-<size>`.
 */
export function render(className: string, size: ChartSize, options: Plot.PlotOptions, label: string): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const node = Plot.plot({ ...options, width: size.width, className, document: document as unknown as Document }) as unknown as Element;
  if (node.tagName.toLowerCase() !== 'svg') throw new Error(`Plot returned <${node.tagName}>, not <svg>`);
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', label);
  node.setAttribute('font-size', String(size.font));
  node.setAttribute('class', `${className} chart-${size.name}`);
  // The svg (role="img") names the whole chart; Plot's aria-label on inner <g> marks is prohibited there.
  // Kept as data-mark (what the mark is, for tests and styling), never as ARIA.
  for (const inner of node.querySelectorAll('[aria-label], [aria-description]')) {
    const mark = inner.getAttribute('aria-label');
    if (mark !== null) inner.setAttribute('data-mark', mark);
    inner.removeAttribute('aria-label');
    inner.removeAttribute('aria-description');
  }
  stabilize(node, `${className}-${size.name}`);
  return node.outerHTML;
}

/**
 * Makes the serialization independent of render order and float noise (as
 * Plot's own snapshot tests do): every id becomes `<prefix>-<n>` in
 * document order, references to it (url(#id), href="#id") follow, and
 * geometry numbers are rounded to 2 decimals.
 */
function stabilize(root: Element, prefix: string): void {
  const elements = [root, ...Array.from(root.querySelectorAll('*'))];
  const ids = new Map<string, string>();
  for (const el of elements) {
    const id = el.getAttribute('id');
    if (id !== null) {
      const stable = `${prefix}-${ids.size + 1}`;
      ids.set(id, stable);
      el.setAttribute('id', stable);
    }
  }
  for (const el of elements) {
    for (const { name, value } of Array.from(el.attributes)) {
      let next = value;
      if (ids.size > 0) {
        next = next.replace(/url\(#([^)]+)\)/g, (m, id: string) => (ids.has(id) ? `url(#${ids.get(id)})` : m));
        if ((name === 'href' || name === 'xlink:href') && next.startsWith('#') && ids.has(next.slice(1))) next = `#${ids.get(next.slice(1))}`;
      }
      if (GEOMETRY.has(name)) next = next.replace(/-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi, (m) => roundText(Number(m)));
      if (next !== value) el.setAttribute(name, next);
    }
  }
}

function roundText(n: number): string {
  const r = Math.round(n * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
}
