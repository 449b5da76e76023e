/**
 * What makes a page scroll sideways: the document's width against the
 * viewport's, and when it is wider, the elements and text that stick out
 * (test/browser/demo-pages.browser.test.ts checks every page at 390 px).
 */
import type { Page } from 'playwright-core';

/** What sticks out of the viewport: the widest element past the right edge and the innermost ones (not inside a scroll box). */
export interface Overflow {
  scrollWidth: number;
  innerWidth: number;
  /** Empty when the document is no wider than the viewport (nothing to name). */
  offenders: { selector: string; width: number; right: number }[];
}

/** Measures the page as it is laid out now: one evaluate. */
export async function measureOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    // A page that fits has nothing to name: the search below only explains a failure.
    if (scrollWidth <= innerWidth) return { scrollWidth, innerWidth, offenders: [] };
    const selector = (el: Element): string => {
      const parts: string[] = [];
      for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
        if (e.id) {
          parts.unshift(`${e.tagName.toLowerCase()}#${e.id}`);
          break;
        }
        const classes = [...e.classList].slice(0, 2).map((c) => `.${c}`).join('');
        const parent = e.parentElement;
        const same = parent ? [...parent.children].filter((c) => c.tagName === e!.tagName) : [];
        const nth = same.length > 1 ? `:nth-of-type(${same.indexOf(e) + 1})` : '';
        parts.unshift(`${e.tagName.toLowerCase()}${classes}${nth}`);
      }
      return parts.join(' > ');
    };
    // An element or text inside a box that scrolls or clips horizontally cannot widen the document.
    const clipped = (el: Node): boolean => {
      for (let e = el.parentElement; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
        if (getComputedStyle(e).overflowX !== 'visible') return true;
      }
      return false;
    };
    const past = [...document.body.querySelectorAll('*')]
      .map((el) => ({ el, what: selector(el), rect: el.getBoundingClientRect() }))
      .filter(({ el, rect }) => rect.right > innerWidth + 0.5 && rect.width > 0 && !clipped(el));
    const pastSet = new Set(past.map((p) => p.el));
    const innermost = past.filter(({ el }) => ![...el.querySelectorAll('*')].some((c) => pastSet.has(c)));
    // Text that runs past its element's box (an unbreakable word in a paragraph) widens the page while its element does not.
    const texts: { el: Element; what: string; rect: DOMRect }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || pastSet.has(parent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      // The box first: the ancestors' styles only for text past the edge.
      if (rect.right > innerWidth + 0.5 && rect.width > 0 && !clipped(node)) {
        texts.push({ el: parent, what: `${selector(parent)} text ${JSON.stringify((node.textContent ?? '').trim().slice(0, 40))}`, rect });
      }
    }
    const widest = [...past, ...texts].sort((a, b) => b.rect.width - a.rect.width).slice(0, 1);
    const leaves = [...innermost, ...texts].sort((a, b) => b.rect.right - a.rect.right).slice(0, 4);
    const offenders = [...new Set([...widest, ...leaves])].map(({ what, rect }) => ({
      selector: what,
      width: Math.round(rect.width),
      right: Math.round(rect.right),
    }));
    return { scrollWidth, innerWidth, offenders };
  });
}
