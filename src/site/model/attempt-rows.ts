/**
 * A task page's attempt rows as one HTML string (src/pages/boards/[hex]/tasks/[key].astro
 * puts it in the table body): at 10^6 attempts every attempt is a row of some
 * task page, and rendering each row through Astro's components took about
 * 85 us a row, most of a build of a large board (docs/benchmarks.md (k)).
 * The markup is what the page's template gave, byte for byte (the demo's
 * site was byte for byte the same after the change); every value from
 * evidence is escaped by src/site/views/html.ts (test/site/html.test.ts).
 */
import { amount, duration, grouped, moneyText } from '../views/format.ts';
import { attr, identHtml, text } from '../views/html.ts';
import { TERMINAL_CLASSES } from '../../analysis/grading.ts';
import type { TaskArtifact, TaskAttemptRow, TaskDetail, TaskRest, TaskSummary } from './tasks.ts';

/** An attempt's cost as its row shows it: unavailable, not applicable, or an amount (">= ... (partial)" when partial). */
export function costText(cost: TaskAttemptRow['cost'], currency: string | null): string {
  if (cost.state === 'unavailable') return 'unavailable';
  if (cost.state === 'not_applicable') return 'not applicable';
  const partial = cost.state === 'partial';
  return `${partial ? '>= ' : ''}${amount(cost.micros ?? 0, currency)}${partial ? ' (partial)' : ''}`;
}

/**
 * An attempt's cost as its row writes it: costText, the amount (">= USD 0.02") in a span.nw so it never breaks across lines
 * (public/tables.css); the words around it wrap.
 */
function costHtml(cost: TaskAttemptRow['cost'], currency: string | null): string {
  if (cost.state !== 'complete' && cost.state !== 'partial') return text(costText(cost, currency));
  const partial = cost.state === 'partial';
  return `<span class="nw">${text(`${partial ? '>= ' : ''}${amount(cost.micros ?? 0, currency)}`)}</span>${partial ? ' (partial)' : ''}`;
}

/** The rows of one cohort's attempts table (`<tr>` elements, no whitespace between them); figures (cost, wall time, retries, sizes) each in a span.nw. */
export function attemptRowsHtml(rows: readonly TaskAttemptRow[], currency: string | null): string {
  let html = '';
  for (const a of rows) {
    const grade = a.verdict === null ? 'none (missing)' : `${a.verdict}, generation ${a.generation}`;
    const tokens = a.tokens === null ? 'unknown' : `${grouped(a.tokens.input)} / ${grouped(a.tokens.output)}`;
    const line =
      a.line.url === null
        ? text(`line ${a.line.number}`)
        : `<a${attr('href', a.line.url)} title="the published attempts.jsonl (its blob); the attempt is on this line">line ${text(a.line.number)}</a>`;
    html +=
      `<tr${attr('data-terminal', a.terminal)}> <th scope="row">#${text(a.index)} ${identHtml(a.attempt_id)}</th>` +
      ` <td>${text(a.outcome)}</td>` +
      ` <td>${text(a.terminal)}${a.reason ? text(` (${a.reason})`) : ''}</td>` +
      ` <td>${text(grade)}</td>` +
      ` <td class="num">${costHtml(a.cost, currency)}</td>` +
      ` <td class="num">${text(tokens)}</td>` +
      ` <td class="num"><span class="nw">${text(duration(a.wall_seconds))}</span>${a.retries > 0 ? `, <span class="nw">${text(a.retries)} retries</span>` : ''}</td>` +
      ` <td>${line} of <a${attr('href', `/plans/${a.plan_hex}/`)}>its plan</a></td>` +
      ` <td>${artifactsHtml(a)}</td> </tr>`;
  }
  return html;
}

function artifactsHtml(a: TaskAttemptRow): string {
  // An imported attempt without a transcript page says why (tasks.ts transcriptNote), instead of saying nothing.
  const note = a.transcriptNote === null ? '' : `<li data-no-transcript>${text(a.transcriptNote)}</li>`;
  if (a.artifacts.length === 0 && a.transcript === null) return note === '' ? 'none' : `<ul class="artifacts">${note}</ul>`;
  let html = '<ul class="artifacts">';
  for (const f of a.artifacts) {
    html += `<li>${f.url === null ? `${text(f.role)} (${text(f.textNote ?? '')})` : `<a${attr('href', f.url)}>${text(f.role)}</a>`}${f.bytes !== null ? ` <span class="nw">(${text(grouped(f.bytes))} bytes)</span>` : ''}</li>`;
  }
  if (a.transcript !== null) html += `<li><a${attr('href', a.transcript)} data-transcript-link>transcript</a> (from the original log, as text)</li>`;
  return `${html}${note}</ul>`;
}

/** An artifact's text as the "Artifacts as text" part of a task page shows it. */
export interface TextView {
  index: number;
  attempt_id: string;
  role: TaskArtifact['role'];
  path: string | null;
  url: string;
  text: string;
}

/** The letter each terminal class's mark on the outcome strip carries (the mark's colour is never the only sign). */
export const STRIP_LETTERS: Readonly<Record<(typeof TERMINAL_CLASSES)[number], string>> = {
  resolved: 'R',
  grader_failure: 'G',
  model_failure: 'M',
  safety_failure: 'S',
  harness_failure: 'H',
  environment_failure: 'E',
  invalid_case: 'I',
  timeout: 'T',
  cancelled: 'C',
};

/**
 * A cohort's outcome strip: one mark per attempt in attempt order (`<b>`,
 * its terminal class's letter, a class `o<k>` for its colour), in a
 * `role="img"` whose name is the text equivalent: the classes in attempt
 * order, run by run ("3 resolved, then 1 model_failure, ..."); and a legend
 * of the letters used.
 */
export function stripHtml(strip: string): string {
  if (strip.length === 0) return '';
  let marks = '';
  const runs: string[] = [];
  let run = 0;
  for (let i = 0; i < strip.length; i++) {
    const k = strip.charCodeAt(i) - 48;
    marks += `<b class="o${k}">${STRIP_LETTERS[TERMINAL_CLASSES[k]!]}</b>`;
    run++;
    if (i + 1 === strip.length || strip[i + 1] !== strip[i]) {
      runs.push(`${run} ${TERMINAL_CLASSES[k]}`);
      run = 0;
    }
  }
  const used = TERMINAL_CLASSES.filter((_, k) => strip.includes(String(k)));
  const label = `Outcome of each of the ${strip.length} attempts, in attempt order: ${runs.join(', then ')}`;
  return (
    `<p class="outcome-strip"${attr('role', 'img')}${attr('aria-label', label)} data-marks="${strip.length}">${marks}</p>` +
    `<p class="muted strip-legend">${used.map((c) => `<b class="o${TERMINAL_CLASSES.indexOf(c)}">${STRIP_LETTERS[c]}</b> ${text(c)}`).join(', ')}</p>`
  );
}

/** Sorted line numbers as ranges: "3-5, 9, 12-20"; at most `max` ranges, then how many lines more. */
export function lineRanges(lines: readonly number[], max = MAX_RANGES): string {
  const ranges: string[] = [];
  let i = 0;
  for (; i < lines.length && ranges.length < max; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    ranges.push(j === i ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  const more = lines.length - i;
  return `${ranges.join(', ')}${more > 0 ? `, and ${grouped(more)} more ${more === 1 ? 'line' : 'lines'} after line ${lines[i - 1]}` : ''}`;
}

/** The most ranges of lines named per attempts.jsonl (a cohort with thousands of attempts on a task still has a bounded page). */
export const MAX_RANGES = 100;

/**
 * Where a cohort's attempts past the first `shown` are: "Attempts 11-57 of
 * this cohort (47) are not shown here: lines 3-5, 9 of attempts.jsonl of its
 * plan ..." with a link to each attempts.jsonl blob, and their transcript
 * pages, if any.
 */
export function restHtml(rest: TaskRest, shown: number): string {
  if (rest.count === 0) return '';
  const from = shown + 1;
  const to = shown + rest.count;
  const files = rest.files.map((f) => {
    const name = f.url === null ? 'attempts.jsonl (withheld: not published)' : `<a${attr('href', f.url)} data-rest-lines="${f.lines.join(' ')}" title="the published attempts.jsonl (its blob)">attempts.jsonl</a>`;
    return `<li>${f.lines.length === 1 ? 'line' : 'lines'} ${text(lineRanges(f.lines))} of ${name} of <a${attr('href', `/plans/${f.plan_hex}/`)}>its plan</a></li>`;
  });
  const transcripts =
    rest.transcripts.length === 0
      ? ''
      : `<p>Their transcripts: ${rest.transcripts.map((t) => `<a${attr('href', t.url)} data-transcript-link>#${text(t.index)}</a>`).join(', ')}</p>`;
  return (
    `<p class="rest" data-not-shown="${rest.count}">${from === to ? `Attempt ${from}` : `Attempts ${from}-${to}`} of this cohort on this task (${grouped(rest.count)} not shown here) are in the published attempts.jsonl, on these lines:</p>` +
    `<ul class="rest-lines">${files.join('')}</ul>${transcripts}`
  );
}

/** A cohort's summary cells as text: terminal classes, cost, tokens and median wall time. */
export function summaryText(summary: TaskSummary, currency: string | null): { classes: string; cost: string; tokens: string; wall: string } {
  const attempts = summary.classes.reduce((n, c) => n + c, 0);
  const classes =
    attempts === 0
      ? 'none'
      : TERMINAL_CLASSES.flatMap((c, k) => {
          const n = summary.classes[k]!;
          if (n === 0) return [];
          const why = c === 'grader_failure' ? (['failed', 'errored', 'missing'] as const).filter((r) => summary.reasons[r] > 0).map((r) => `${summary.reasons[r]} ${r}`) : [];
          return [`${grouped(n)} ${c}${why.length > 0 ? ` (${why.join(', ')})` : ''}`];
        }).join(', ');
  const { cost, tokens } = summary;
  const money = attempts === 0 ? '-' : moneyText({ currency, ...cost, complete: cost.unavailable === 0 && cost.partial === 0 }, attempts - cost.unavailable - cost.not_applicable);
  const known = attempts - tokens.unknown;
  const tokenText =
    attempts === 0 ? '-' : known === 0 ? `unknown (${tokens.unknown})` : `${tokens.unknown > 0 ? '>= ' : ''}${grouped(tokens.input)} / ${grouped(tokens.output)}${tokens.unknown > 0 ? ` (${tokens.unknown} unknown)` : ''}`;
  return { classes, cost: money, tokens: tokenText, wall: duration(summary.wall_median) };
}

/**
 * A task page's data as the render hands it to the page (render.ts writes one
 * file per page): per cohort, how many attempts it has on the task, its
 * summary row's texts, how many rows the page lists and the text views of
 * those rows; and per cohort three HTML strings (`html`, cohort by cohort:
 * the rows, attemptRowsHtml; the outcome strip, stripHtml; where the rest
 * are, restHtml), which render.ts writePageData keeps out of the JSON. HTML
 * as strings rather than objects: at 10^6 attempts writing and reading the
 * row objects back as JSON was seconds of a build.
 */
export interface TaskPageData {
  board_id: string;
  key: string;
  cohorts: {
    cohort_id: string;
    total: number;
    shown: number;
    /** How many attempts are not shown in full. */
    notShown: number;
    summary: { classes: string; cost: string; tokens: string; wall: string };
    texts: TextView[];
    /** Some listed artifact has bytes to link but no text view (the page says why). */
    linkedOnly: boolean;
  }[];
  /** Per cohort (the same order), three strings: its rows (attemptRowsHtml), its strip (stripHtml), its rest (restHtml). */
  html: string[];
}

/** The page data of a task's page (`currencyOf` gives each cohort's currency). */
export function taskPageData(detail: TaskDetail, currencyOf: (cohort_id: string) => string | null): TaskPageData {
  const html: string[] = [];
  const cohorts = detail.cohorts.map(({ cohort_id, attempts, total, summary, strip, rest }) => {
    const texts: TextView[] = [];
    for (const a of attempts) {
      for (const f of a.artifacts) if (f.text !== null) texts.push({ index: a.index, attempt_id: a.attempt_id, role: f.role, path: f.path, url: f.url!, text: f.text });
    }
    const currency = currencyOf(cohort_id);
    html.push(attemptRowsHtml(attempts, currency), stripHtml(strip), restHtml(rest, attempts.length));
    return {
      cohort_id,
      total,
      shown: attempts.length,
      notShown: rest.count,
      summary: summaryText(summary, currency),
      texts,
      linkedOnly: attempts.some((a) => a.artifacts.some((f) => f.text === null && f.url !== null)),
    };
  });
  return { board_id: detail.board_id, key: detail.key, cohorts, html };
}
