/**
 * The figures a page shows, machine-checkable (issue 24, item 1: "the
 * figures in the pages that the in-browser verifier reads"). Every headline
 * figure of a cohort that the leaderboard, a board page or a cohort page
 * prints is written as a leaf element
 *
 *     <span data-figure="<cohort-id hex>:<name>">TEXT</span>
 *
 * whose TEXT is computed here, by the one function the page templates call
 * ({@link cohortFigures}) and a verifier calls too: {@link expectedPageFigures}
 * gives, from report.json alone, every page's figures (URL path -> key ->
 * text), {@link readPageFigures} reads them back from a page's HTML with a
 * string parser (no DOM: it runs in a Web Worker and in Node), and
 * {@link comparePageFigures} lists what differs. A page edited to show
 * another rate, a figure element removed, or one added that the report does
 * not have, is a difference.
 *
 * Pure: imports only the report's types, the board order and the site's
 * pure formatting helpers (no astro, no node:*), so esbuild can bundle it
 * into verify.mjs and the browser verifier's worker.
 */
import type { Report, ReportBoard, ReportCohort } from '../../report/schema.ts';
import { boardsInOrder } from '../../report/board-order.ts';
import { leaderboardLayout } from '../views/board-names.ts';
import { hexOf, interval, percent, points, rankText } from '../views/format.ts';
import { hasUsableGrades } from '../views/usable-grades.ts';

/** The attribute that marks a figure element; its value is the figure's key. */
export const FIGURE_ATTRIBUTE = 'data-figure';

/**
 * The figures of a cohort a page can show:
 * - `rank`: the rank range as the board table shows it ("2-4", "1"; the rank by rate for a report without ranges);
 * - `rank_by_rate`: the rank by headline rate (the cohort page's "rank 3");
 * - `rate`, `resolved`, `graded`, `wilson`: the headline rate ("57.1%"), its counts and its 95% Wilson interval ("[34.0, 77.4]");
 * - `delta`, `delta_interval`: the delta against the baseline in points ("+12.5", "-" without one) and its bootstrap interval (only when there is one);
 * - `verdict`: PASS, NO_GAIN, REGRESSION or NO_VERDICT (only a candidate's);
 * - `improved`, `regressed`: the task classes' counts (only with a verdict's classes).
 */
export const FIGURE_NAMES = ['rank', 'rank_by_rate', 'rate', 'resolved', 'graded', 'wilson', 'delta', 'delta_interval', 'verdict', 'improved', 'regressed'] as const;
export type FigureName = (typeof FIGURE_NAMES)[number];

/** One figure: its key (`<cohort-id hex>:<name>`) and its text exactly as a page prints it. */
export interface PageFigure {
  key: string;
  text: string;
}

/** A figure's key: the cohort id's 64 hex digits, a colon, the figure's name. */
export function figureKey(cohortId: string, name: FigureName): string {
  return `${hexOf(cohortId)}:${name}`;
}

/** The text of each figure a cohort has (a figure it does not have is absent: no verdict for a baseline, no classes without one). */
function figureTexts(cohort: ReportCohort): Map<FigureName, string> {
  const texts = new Map<FigureName, string>();
  texts.set('rank', rankText(cohort));
  texts.set('rank_by_rate', String(cohort.rank));
  texts.set('rate', percent(cohort.headline.rate));
  texts.set('resolved', String(cohort.headline.resolved));
  texts.set('graded', String(cohort.headline.graded));
  texts.set('wilson', interval(cohort.headline.wilson));
  texts.set('delta', points(cohort.delta?.rate ?? null));
  if (cohort.delta?.interval) texts.set('delta_interval', interval(cohort.delta.interval));
  if (cohort.verdict !== null) texts.set('verdict', cohort.verdict);
  if (cohort.classes) {
    texts.set('improved', String(cohort.classes.improved));
    texts.set('regressed', String(cohort.classes.regressed));
  }
  return texts;
}

/**
 * Every figure of one cohort, in {@link FIGURE_NAMES} order, exactly as the
 * pages print it (the templates take their texts from here). `report` is the
 * report the cohort belongs to.
 */
export function cohortFigures(_report: Report, cohort: ReportCohort): PageFigure[] {
  const texts = figureTexts(cohort);
  return FIGURE_NAMES.flatMap((name) => (texts.has(name) ? [{ key: figureKey(cohort.cohort_id, name), text: texts.get(name)! }] : []));
}

/** A cohort's figures by name, for a template: `get(name)` throws for a figure the cohort does not have (a template bug). */
export interface CohortFigureSet {
  has(name: FigureName): boolean;
  get(name: FigureName): PageFigure;
}

const sets = new WeakMap<ReportCohort, CohortFigureSet>();

/** {@link cohortFigures} by name (made once per cohort object). */
export function figuresOf(report: Report, cohort: ReportCohort): CohortFigureSet {
  let set = sets.get(cohort);
  if (set === undefined) {
    const byName = new Map(cohortFigures(report, cohort).map((f) => [f.key.slice(f.key.indexOf(':') + 1) as FigureName, f]));
    set = {
      has: (name) => byName.has(name),
      get: (name) => {
        const figure = byName.get(name);
        if (figure === undefined) throw new Error(`cohort ${cohort.cohort_id} has no figure ${name}`);
        return figure;
      },
    };
    sets.set(cohort, set);
  }
  return set;
}

/**
 * The figures of a cohort's row in a board table (src/components/BoardTable.astro):
 * the rank and the headline (rate, counts, interval) only with usable grades
 * (src/site/views/usable-grades.ts), the delta always, its interval, the verdict
 * (also in its tooltip's row) and improved / regressed when it has them.
 */
export function boardRowFigureNames(cohort: ReportCohort): FigureName[] {
  const usable = hasUsableGrades(cohort);
  const names: FigureName[] = usable ? ['rank', 'rate', 'resolved', 'graded', 'wilson'] : [];
  names.push('delta');
  if (cohort.delta?.interval) names.push('delta_interval');
  if (cohort.verdict !== null) names.push('verdict');
  if (cohort.classes) names.push('improved', 'regressed');
  return names;
}

/** The figures of a row of the leaderboard's "Imported runs" table: the headline only with usable grades, the verdict when there is one. */
export function runRowFigureNames(cohort: ReportCohort): FigureName[] {
  const names: FigureName[] = hasUsableGrades(cohort) ? ['rate', 'resolved', 'graded', 'wilson'] : [];
  if (cohort.verdict !== null) names.push('verdict');
  return names;
}

/**
 * The figures of a cohort page: the rank by rate, the headline row of the
 * score vector (always, with a warning when no grade is usable), and under a
 * verdict its classes' improved / regressed and the delta with its interval.
 */
export function cohortPageFigureNames(cohort: ReportCohort): FigureName[] {
  const names: FigureName[] = ['rank_by_rate', 'rate', 'resolved', 'graded', 'wilson'];
  if (cohort.verdict !== null) {
    names.push('verdict');
    if (cohort.classes) {
      names.push('improved', 'regressed', 'delta');
      if (cohort.delta?.interval) names.push('delta_interval');
    }
  }
  return names;
}

/** The board's page and the cohorts its "Regraded cohorts" list names with their verdict ("Verdict now PASS"). */
function regradedVerdicts(cohort: ReportCohort): FigureName[] {
  return cohort.regrade && cohort.verdict !== null ? ['verdict'] : [];
}

/** Adds the named figures of a cohort to a page's map (a key shown twice must show one text: it is the same figure). */
function add(page: Map<string, string>, report: Report, cohort: ReportCohort, names: readonly FigureName[]): void {
  const set = figuresOf(report, cohort);
  for (const name of names) {
    const f = set.get(name);
    page.set(f.key, f.text);
  }
}

/**
 * Every page that carries figures, by URL path relative to the site's base
 * ("/", "/boards/<board hex>/", "/cohorts/<cohort hex>/"), with the figures
 * it must carry (key -> text), from the report alone. `boardOrder` is the
 * boards' display order as indexes into `report.boards` (default:
 * src/report/board-order.ts, what the site uses); it orders the map only.
 *
 * Not here: the compare pages (which exist depends on the site's
 * `compare_max_cohorts`, not in the report; their sign-test figures carry
 * `data-figure` names of their own, without a cohort), task pages, plan
 * pages, retained reports' pages (another report's figures), charts and
 * their text alternatives, the pair tables, `<title>` and meta texts.
 */
export function expectedPageFigures(report: Report, boardOrder?: readonly number[]): Map<string, Map<string, string>> {
  const boards: ReportBoard[] = boardOrder ? boardOrder.map((i) => report.boards[i]!) : boardsInOrder(report);
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const cohort = (id: string): ReportCohort => {
    const c = cohorts.get(id);
    if (c === undefined) throw new Error(`board lists cohort ${id}, which the report does not hold`);
    return c;
  };
  const pages = new Map<string, Map<string, string>>();
  // The leaderboard: a table per frozen board and per imported board of several cohorts, one row per imported run.
  const index = new Map<string, string>();
  const layout = leaderboardLayout(boards);
  for (const board of [...layout.frozen, ...layout.imported]) for (const id of board.cohorts) add(index, report, cohort(id), boardRowFigureNames(cohort(id)));
  for (const board of layout.runs) add(index, report, cohort(board.cohorts[0]!), runRowFigureNames(cohort(board.cohorts[0]!)));
  pages.set('/', index);
  for (const board of boards) {
    const page = new Map<string, string>();
    for (const id of board.cohorts) {
      add(page, report, cohort(id), regradedVerdicts(cohort(id)));
      add(page, report, cohort(id), boardRowFigureNames(cohort(id)));
    }
    pages.set(`/boards/${hexOf(board.board_id)}/`, page);
  }
  for (const c of report.cohorts) {
    const page = new Map<string, string>();
    add(page, report, c, cohortPageFigureNames(c));
    pages.set(`/cohorts/${hexOf(c.cohort_id)}/`, page);
  }
  return pages;
}

/** What a figure element that is not `<span data-figure="KEY">TEXT</span>` (another element, another attribute, an element inside it) reads as. */
export const NOT_A_FIGURE_LEAF = '(not a figure leaf: <span data-figure="KEY">TEXT</span>)';

/** Elements whose content is raw text: nothing in them is markup. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references decoded as a browser would for what Astro writes (&amp; &lt; &gt; &quot; &#39; &#38; &#x..;); any other text is left as it is. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#[xX]([0-9a-fA-F]{1,8});?|#([0-9]{1,10});?|([a-zA-Z]+);)/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return Object.hasOwn(NAMED, name) ? NAMED[name]! : whole;
    const cp = hex !== undefined ? parseInt(hex, 16) : parseInt(dec!, 10);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(cp);
  });
}

interface Tag {
  name: string;
  attributes: [string, string][];
  selfClosing: boolean;
  /** Index just past the tag's `>`. */
  end: number;
}

/** The start tag at `at` (a `<` followed by a letter), attributes unquoted and decoded; attribute values may hold `>`. */
function startTag(html: string, at: number): Tag {
  const nameMatch = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(at, at + 256)) ?? ['<', ''];
  const name = nameMatch[1]!.toLowerCase();
  let i = at + nameMatch[0].length;
  const attributes: [string, string][] = [];
  const n = html.length;
  for (;;) {
    while (i < n && /\s/.test(html[i]!)) i++;
    if (i >= n) return { name, attributes, selfClosing: false, end: n };
    if (html[i] === '>') return { name, attributes, selfClosing: false, end: i + 1 };
    if (html.startsWith('/>', i)) return { name, attributes, selfClosing: true, end: i + 2 };
    if (html[i] === '/') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && !/[\s/>=]/.test(html[j]!)) j++;
    const attr = html.slice(i, j).toLowerCase();
    i = j;
    while (i < n && /\s/.test(html[i]!)) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < n && /\s/.test(html[i]!)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        const stop = close === -1 ? n : close;
        value = html.slice(i + 1, stop);
        i = stop + 1;
      } else {
        let k = i;
        while (k < n && !/[\s>]/.test(html[k]!)) k++;
        value = html.slice(i, k);
        i = k;
      }
    }
    attributes.push([attr, decodeEntities(value)]);
  }
}

/**
 * Every element of a page carrying {@link FIGURE_ATTRIBUTE}: key -> the text
 * of each occurrence, in page order, entities decoded. A figure element must
 * be a leaf `<span data-figure="KEY">TEXT</span>` with no other attribute;
 * anything else carrying the attribute reads as {@link NOT_A_FIGURE_LEAF}.
 * The page is tokenised as HTML is: comments, doctype and processing
 * instructions, and the content of raw-text elements (script, style,
 * textarea, title ...) are not markup, and quoted attribute values may hold
 * any character, so text and attribute values elsewhere on the page (escaped
 * evidence strings) are never read as a figure.
 */
export function readPageFigures(html: string): Map<string, string[]> {
  const figures = new Map<string, string[]>();
  const record = (key: string, text: string): void => {
    const list = figures.get(key);
    if (list === undefined) figures.set(key, [text]);
    else list.push(text);
  };
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close === -1 ? n : close + 3;
      continue;
    }
    const next = html[lt + 1] ?? '';
    if (next === '!' || next === '?' || next === '/') {
      // A doctype, a processing instruction (bogus comment) or an end tag: up to its '>'.
      const close = html.indexOf('>', lt + 1);
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (!/[a-zA-Z]/.test(next)) {
      i = lt + 1;
      continue;
    }
    const tag = startTag(html, lt);
    i = tag.end;
    const figure = tag.attributes.find(([name]) => name === FIGURE_ATTRIBUTE);
    if (figure !== undefined) {
      const close = html.indexOf('<', i);
      const leaf = tag.name === 'span' && tag.attributes.length === 1 && !tag.selfClosing && close !== -1 && html.startsWith('</span>', close);
      record(figure[1], leaf ? decodeEntities(html.slice(i, close)) : NOT_A_FIGURE_LEAF);
      if (leaf) i = close + '</span>'.length;
    }
    if (RAW_TEXT.has(tag.name) && !tag.selfClosing) {
      const end = new RegExp(`</${tag.name}`, 'gi');
      end.lastIndex = i;
      i = end.exec(html)?.index ?? n;
    }
  }
  return figures;
}

/** A figure that differs: the report's text (`expected`, '' for a key the report does not give this page) and every text the page shows for the key (none when it is missing). */
export interface FigureDifference {
  key: string;
  expected: string;
  found: string[];
}

/**
 * The differences between a page's expected figures and its HTML: a figure
 * missing from the page, an occurrence with another text, and a figure key
 * the page carries that the report does not give it. Empty when all match.
 * Expected figures first (in `expected`'s order), then the page's extra keys
 * (in page order).
 */
export function comparePageFigures(expected: ReadonlyMap<string, string>, html: string): FigureDifference[] {
  const found = readPageFigures(html);
  const differences: FigureDifference[] = [];
  for (const [key, text] of expected) {
    const shown = found.get(key) ?? [];
    if (shown.length === 0 || shown.some((s) => s !== text)) differences.push({ key, expected: text, found: shown });
  }
  for (const [key, shown] of found) if (!expected.has(key)) differences.push({ key, expected: '', found: shown });
  return differences;
}
