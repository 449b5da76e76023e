/**
 * The figures the pages print (src/site/model/page-figures.ts), read back from
 * each page's HTML and compared with the same figures made from the
 * re-derived report: a page edited to show another rate, verdict or rank is
 * a MISMATCH naming the page and the figure.
 */
import type { Report } from '../report/schema.ts';
import { comparePageFigures, expectedPageFigures } from '../site/model/page-figures.ts';
import type { RederiveLine, SiteGet } from './types.ts';

const decoder = new TextDecoder();

/** Checks every page that prints figures (only the chosen ledgers' boards and cohorts when some are chosen). */
export async function checkPages(get: SiteGet, report: Report, ledgers: ReadonlySet<string> | undefined, onProgress?: (done: number, total: number) => void): Promise<RederiveLine[]> {
  const lines: RederiveLine[] = [];
  const expected = expectedPageFigures(report);
  const boardOf = new Map(report.boards.map((b) => [b.board_id.slice(7), b.ledger.digest]));
  const cohortLedger = new Map(report.cohorts.map((c) => [c.cohort_id.slice(7), boardOf.get(c.board_id.slice(7))]));
  const inScope = (path: string): boolean => {
    if (ledgers === undefined) return true;
    const m = /^\/(boards|cohorts)\/([0-9a-f]{64})\//.exec(path);
    if (m === null) return false;
    const ledger = m[1] === 'boards' ? boardOf.get(m[2]!) : cohortLedger.get(m[2]!);
    return ledger !== undefined && ledgers.has(ledger);
  };
  const pages = [...expected].filter(([path]) => inScope(path));
  let figures = 0;
  let done = 0;
  let missing = 0;
  for (const [path, wanted] of pages) {
    const bytes = await get(`${path}index.html`);
    onProgress?.(++done, pages.length);
    if (bytes === null) {
      missing++;
      continue;
    }
    const differences = comparePageFigures(wanted, decoder.decode(bytes));
    figures += wanted.size;
    for (const d of differences.slice(0, 5)) {
      const found = d.found.length === 0 ? 'not on the page' : d.found.map((t) => JSON.stringify(t)).join(', ');
      // A key may come from the page (one the report does not have): untrusted text, shown quoted unless it is a plain key.
      const key = /^[0-9a-f]{64}:[a-z_]{1,32}$/.test(d.key) ? d.key : JSON.stringify(d.key.slice(0, 200));
      lines.push({ status: 'MISMATCH', check: 'page', subject: path, detail: `figure ${key}: the page shows ${found}, the re-derived report gives ${JSON.stringify(d.expected)}` });
    }
    if (differences.length > 5) lines.push({ status: 'MISMATCH', check: 'page', subject: path, detail: `and ${differences.length - 5} more figures differ` });
  }
  // A page that is not published shows no figure: nothing to compare, said once.
  if (missing > 0) lines.push({ status: 'info', check: 'page', subject: '/', detail: `${missing} of ${pages.length} pages that would print figures are not published: nothing to compare there` });
  if (!lines.some((l) => l.status === 'MISMATCH') && missing < pages.length) {
    lines.unshift({ status: 'ok', check: 'page', subject: '/', detail: `${figures} figures on ${pages.length - missing} pages are the re-derived report's` });
  }
  return lines;
}
