/**
 * Browser-test helper: what a served HTML document holds, as the browser
 * parses it. The HTML text is parsed with DOMParser inside Chromium (spec
 * parsing, no script runs), so the checks see exactly the tree a visitor's
 * browser builds, whatever any script on the live page did.
 */
import type { Page } from 'playwright-core';

/** Attributes that hold a URL a browser may navigate to or load. */
export const URL_ATTRIBUTES = [
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'data',
  'poster',
  'background',
  'lowsrc',
  'dynsrc',
  'srcset',
  'ping',
  'cite',
  'longdesc',
  'codebase',
  'archive',
  'manifest',
  'icon',
];

/** Elements no page may hold (embedding, navigation and base-URL tricks). */
export const FORBIDDEN_ELEMENTS = 'iframe, frame, frameset, object, embed, applet, base, meta[http-equiv], portal, fencedframe';

/** The findings of one document. */
export interface DocumentFacts {
  title: string;
  h1: string | null;
  h1ElementChildren: number;
  brand: string | null;
  bodyText: string;
  scripts: { src: string | null; text: string; attributes: string[] }[];
  /** `<tag on...="...">` descriptions. */
  eventAttributes: string[];
  /** URL attributes whose value is a javascript:, data: or vbscript: URL. */
  dangerousUrls: string[];
  forbiddenElements: string[];
  /** id and name attributes inside the notes section that lack the `user-content-` prefix. */
  unprefixedNotesIds: string[];
  /** Every id and name inside the notes section. */
  notesIds: string[];
  hasNotes: boolean;
  /** Elements with id="main", and what getElementById('main') is. */
  mainIds: number;
  mainTag: string | null;
  /** Ids that more than one element on the page carries (the notes must not take a page id). */
  duplicateIds: string[];
  /** Links: text and raw href. */
  links: { text: string; href: string }[];
  verifyChecks: string | null;
}

/** Parses `html` in the page's browser and collects the facts. */
export async function inspectHtml(page: Page, html: string): Promise<DocumentFacts> {
  return page.evaluate(
    ({ html, urlAttributes, forbidden }) => {
      const doc = new DOMParser().parseFromString(html, 'text/html');
      const describe = (el: Element): string => el.outerHTML.slice(0, 200);
      const all = [...doc.querySelectorAll('*')];
      const eventAttributes: string[] = [];
      const dangerousUrls: string[] = [];
      for (const el of all) {
        for (const attr of el.attributes) {
          const name = attr.name.toLowerCase();
          if (name.startsWith('on')) eventAttributes.push(`${name} on ${describe(el)}`);
          if (urlAttributes.includes(name) || name.endsWith(':href')) {
            // What a URL parser sees: tabs and newlines removed, leading C0 controls and spaces stripped.
            let url = attr.value.replace(/[\t\n\r]/g, '');
            let start = 0;
            while (start < url.length && url.charCodeAt(start) <= 0x20) start++;
            url = url.slice(start).toLowerCase();
            if (/^(javascript|data|vbscript):/.test(url)) dangerousUrls.push(`${name}=${JSON.stringify(attr.value)} on ${describe(el)}`);
          }
        }
      }
      const notes = doc.querySelector('section.notes');
      const notesIds: string[] = [];
      const unprefixedNotesIds: string[] = [];
      if (notes) {
        for (const el of notes.querySelectorAll('[id], [name]')) {
          for (const name of ['id', 'name']) {
            const value = el.getAttribute(name);
            if (value === null || el === notes) continue;
            // The section's own heading (id="notes") is the template's, not the publisher's.
            if (name === 'id' && value === 'notes' && el.tagName === 'H2' && el.parentElement === notes && el === notes.firstElementChild) continue;
            notesIds.push(`${name}=${value}`);
            if (!value.startsWith('user-content-')) unprefixedNotesIds.push(`${name}=${JSON.stringify(value)} on ${describe(el)}`);
          }
        }
      }
      const seen = new Map<string, number>();
      for (const el of all) {
        if (el.id) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
      }
      const h1 = doc.querySelector('h1');
      return {
        title: doc.title,
        h1: h1 ? h1.textContent : null,
        h1ElementChildren: h1 ? h1.children.length : 0,
        brand: doc.querySelector('header nav a.brand')?.textContent ?? null,
        bodyText: doc.body.textContent ?? '',
        scripts: [...doc.querySelectorAll('script')].map((s) => ({
          src: s.getAttribute('src'),
          text: s.textContent ?? '',
          attributes: [...s.attributes].map((a) => a.name),
        })),
        eventAttributes,
        dangerousUrls,
        forbiddenElements: [...doc.querySelectorAll(forbidden)].map(describe),
        unprefixedNotesIds,
        notesIds,
        hasNotes: notes !== null,
        mainIds: doc.querySelectorAll('[id="main"]').length,
        mainTag: doc.getElementById('main')?.tagName ?? null,
        duplicateIds: [...seen].filter(([, n]) => n > 1).map(([id]) => id),
        links: [...doc.querySelectorAll('a[href]')].map((a) => ({ text: a.textContent ?? '', href: a.getAttribute('href') ?? '' })),
        verifyChecks: doc.querySelector('[data-verify-root]')?.getAttribute('data-verify-checks') ?? null,
      };
    },
    { html, urlAttributes: URL_ATTRIBUTES, forbidden: FORBIDDEN_ELEMENTS },
  );
}

/**
 * A string as it reads back from the DOM's textContent: the HTML parser turns
 * CR LF and lone CR into LF and drops NUL in body text.
 */
export function asText(value: string): string {
  return value.replace(/\r\n?/g, '\n').replace(/\0/g, '');
}
