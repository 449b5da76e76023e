/**
 * A task page's attempt rows as one HTML string (src/pages/boards/[hex]/tasks/[key].astro
 * puts it in the table body): at 10^6 attempts every attempt is a row of some
 * task page, and rendering each row through Astro's components took about
 * 85 us a row, most of a build of a large board (docs/benchmarks.md (k)).
 * The markup is what the page's template gave, byte for byte (the demo's
 * site was byte for byte the same after the change); every value from
 * evidence is escaped by src/site/html.ts (test/site/html.test.ts).
 */
import { amount, duration, grouped } from './format.ts';
import { attr, identHtml, text } from './html.ts';
import { firstOf, TASK_ROWS } from './rows.ts';
import type { TaskArtifact, TaskAttemptRow, TaskDetail } from './tasks.ts';

/** An attempt's cost as its row shows it: unavailable, not applicable, or an amount (">= ... (partial)" when partial). */
export function costText(cost: TaskAttemptRow['cost'], currency: string | null): string {
  if (cost.state === 'unavailable') return 'unavailable';
  if (cost.state === 'not_applicable') return 'not applicable';
  const partial = cost.state === 'partial';
  return `${partial ? '>= ' : ''}${amount(cost.micros ?? 0, currency)}${partial ? ' (partial)' : ''}`;
}

/** The rows of one cohort's attempts table (`<tr>` elements, no whitespace between them). */
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
      ` <td class="num">${text(costText(a.cost, currency))}</td>` +
      ` <td class="num">${text(tokens)}</td>` +
      ` <td class="num">${text(duration(a.wall_seconds))}${a.retries > 0 ? text(`, ${a.retries} retries`) : ''}</td>` +
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
    html += `<li>${f.url === null ? `${text(f.role)} (${text(f.textNote ?? '')})` : `<a${attr('href', f.url)}>${text(f.role)}</a>`}${f.bytes !== null ? text(` (${grouped(f.bytes)} bytes)`) : ''}</li>`;
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

/**
 * A task page's data as the render hands it to the page (render.ts writes one
 * file per page): per cohort, how many attempts it has on the task, how many
 * rows the page lists and the text views of those rows; and per cohort the
 * rows as HTML (`html`, in cohort order: render.ts writePageData keeps it out
 * of the JSON). Rows as one string rather than as objects: at 10^6 attempts
 * writing and reading the row objects back as JSON was seconds of a build.
 */
export interface TaskPageData {
  board_id: string;
  key: string;
  cohorts: {
    cohort_id: string;
    total: number;
    shown: number;
    texts: TextView[];
    /** Some listed artifact has bytes to link but no text view (the page says why). */
    linkedOnly: boolean;
  }[];
  /** Per cohort (the same order), its rows' HTML (attemptRowsHtml). */
  html: string[];
}

/** The page data of a task's rows (at most `maxRows` a cohort; `currencyOf` gives each cohort's currency). */
export function taskPageData(detail: TaskDetail, currencyOf: (cohort_id: string) => string | null, maxRows: number = TASK_ROWS): TaskPageData {
  const html: string[] = [];
  const cohorts = detail.cohorts.map(({ cohort_id, attempts, total }) => {
    const { shown } = firstOf(attempts, total, maxRows);
    const texts: TextView[] = [];
    for (const a of shown) {
      for (const f of a.artifacts) if (f.text !== null) texts.push({ index: a.index, attempt_id: a.attempt_id, role: f.role, path: f.path, url: f.url!, text: f.text });
    }
    html.push(attemptRowsHtml(shown, currencyOf(cohort_id)));
    return { cohort_id, total, shown: shown.length, texts, linkedOnly: shown.some((a) => a.artifacts.some((f) => f.text === null && f.url !== null)) };
  });
  return { board_id: detail.board_id, key: detail.key, cohorts, html };
}
