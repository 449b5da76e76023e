/**
 * The demo site's kinds of page, told from a page's path: the browser suites
 * group their per-page checks by kind (test/browser/ux.browser.test.ts,
 * test/browser/demo-pages.browser.test.ts).
 */

/** Every kind of page the site has; each must be present in the demo (methodology once the site has it). */
export const KINDS = ['leaderboard', 'board', 'task', 'cohort', 'plan', 'report', 'reports', 'incompatibilities', 'rejected', 'verify', 'methodology', 'compare', 'transcript', 'model', 'agent', 'models', 'freeze-log'] as const;

/** One kind of page. */
export type Kind = (typeof KINDS)[number];

/** The pages every site has that sitemap.xml does not list (methodology only when the site has it). */
export function fixedPages(hasMethodology: boolean): string[] {
  return ['/rejected/', '/incompatibilities/', '/verify/', '/reports/', ...(hasMethodology ? ['/methodology/'] : [])];
}

/** The kind of the page at `path`; throws for a path of no known kind. */
export function kindOf(path: string): Kind {
  if (path === '/') return 'leaderboard';
  if (/^\/boards\/[0-9a-f]{64}\/compare\/[0-9a-f]{64}\/[0-9a-f]{64}\/$/.test(path)) return 'compare';
  if (/^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/.test(path)) return 'task';
  if (/^\/transcripts\/[0-9a-f]{64}\/[0-9a-f]{64}\/$/.test(path)) return 'transcript';
  const m = /^\/(boards|cohorts|plans|reports)\/[0-9a-f]{64}\/$/.exec(path);
  if (m) return ({ boards: 'board', cohorts: 'cohort', plans: 'plan', reports: 'report' } as const)[m[1] as 'boards' | 'cohorts' | 'plans' | 'reports'];
  // Model and agent pages (src/site/model/models.ts): 16 hex digits of the name's SHA-256, or 64 when another name shares them.
  const subject = /^\/(models|agents)\/(?:[0-9a-f]{16}|[0-9a-f]{64})\/$/.exec(path);
  if (subject) return subject[1] === 'models' ? 'model' : 'agent';
  // The freeze log's page (src/pages/freeze-log/): in sitemap.xml since the anchors (issue 30).
  const fixed = /^\/(reports|incompatibilities|rejected|verify|methodology|models|freeze-log)\/$/.exec(path);
  if (fixed) return fixed[1] as Kind;
  throw new Error(`a page of no known kind: ${path} (add its kind to test/browser/page-kinds.ts)`);
}

/** Every page of a built site (sitemap.xml's and the fixed ones), grouped by kind, each list in sitemap order. */
export function pagesByKind(sitemap: readonly string[], hasMethodology: boolean): Map<Kind, string[]> {
  const pages = new Map<Kind, string[]>();
  for (const path of new Set([...sitemap, ...fixedPages(hasMethodology)])) {
    const kind = kindOf(path);
    pages.set(kind, [...(pages.get(kind) ?? []), path]);
  }
  return pages;
}
