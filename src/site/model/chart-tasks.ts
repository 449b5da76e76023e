/**
 * The task x cohort matrix of a board page: one cell per headline task and
 * cohort, coloured by the share of the cohort's attempts on the task that
 * resolved, each cell a link to the task's page. Observable Plot's cell mark
 * rendered to SVG at build time (chart-render.ts: the two sizes, rounding,
 * stable ids), so the page ships no script.
 *
 * Colour: the cividis scale (dark blue for none resolved to yellow for all),
 * built to read the same with red-green colour blindness and in greyscale;
 * where the columns are wide enough each cell also says "resolved/graded" in
 * text, and the text table under the chart (BoardTasks.astro) has every
 * figure. Columns are cohorts in rank order, labelled by rank (the caption
 * gives the key); rows are task ids, shortened with "…" past the margin.
 *
 * Safety: task ids only reach the SVG as text (axis ticks, <title>), which
 * the serializer escapes; each link's href is built from the board id and
 * the task key (task-key.ts), hex digits only.
 */
import * as Plot from '@observablehq/plot';
import type { ReportBoard } from '../../report/schema.ts';
import { hexOf, shortIdentity } from '../views/format.ts';
import { COMPACT, emWidth, render, WIDE, type ChartSize } from '../charts/chart-render.ts';
import { taskPath } from '../views/task-key.ts';
import type { SiteTask } from './tasks.ts';

/** The most headline tasks drawn; all of them are in the text table. */
export const MATRIX_TASKS = 100;

/** The matrix at both sizes (empty strings when the board has no headline task or no cohort) and its caption lines. */
export interface TaskMatrix {
  svg: string;
  compact: string;
  notes: string[];
  /** How many tasks are drawn (the first MATRIX_TASKS headline tasks, in ledger order). */
  drawn: number;
}

interface Cell {
  row: string;
  col: string;
  resolved: number;
  graded: number;
  rate: number;
  href: string;
  title: string;
}

export function taskMatrix(board: ReportBoard, tasks: readonly SiteTask[]): TaskMatrix {
  const headline = tasks.filter((t) => t.splits.includes('headline'));
  const shown = headline.slice(0, MATRIX_TASKS);
  const notes = [
    `Each cell: the share of a cohort's attempts on a headline task that resolved, from dark blue (none) to yellow (all); a blank cell: no attempt. Columns are the cohorts in the table's order, numbered ${board.cohorts.length === 0 ? 'none' : `1 to ${board.cohorts.length}`} (the key is with the table below). Every cell links to the task's page.`,
  ];
  if (headline.length > shown.length) notes.push(`The first ${shown.length} of ${headline.length} headline tasks are drawn; every task is in the table below.`);
  if (shown.length === 0 || board.cohorts.length === 0) return { svg: '', compact: '', notes: ['No headline task to draw.'], drawn: 0 };
  const cells: Cell[] = [];
  const boardHex = hexOf(board.board_id);
  shown.forEach((task, r) => {
    task.cells.forEach(([resolved, graded], c) => {
      if (graded === 0) return;
      cells.push({
        row: String(r),
        col: String(c + 1),
        resolved,
        graded,
        rate: resolved / graded,
        href: taskPath(boardHex, task.key),
        title: `${shortIdentity(task.task_id)}, cohort ${c + 1}: ${resolved} of ${graded} resolved`,
      });
    });
  });
  const labels = new Map(shown.map((t, r) => [String(r), shortIdentity(t.task_id)]));
  const columns = board.cohorts.map((_, c) => String(c + 1));
  const aria = `Resolved share of each cohort's attempts on ${shown.length} headline tasks of board ${hexOf(board.board_id).slice(0, 12)}`;
  const draw = (size: ChartSize): string => {
    const wide = size === WIDE;
    const font = size.font;
    const longest = Math.max(0, ...[...labels.values()].map((l) => emWidth(l)));
    const marginLeft = Math.round(Math.min((wide ? 0.36 : 0.42) * size.width, Math.max(5 * font, longest * font + 12)));
    const marginRight = 8;
    const labelEms = (marginLeft - 12) / font / 1.125;
    const columnWidth = (size.width - marginLeft - marginRight) / columns.length;
    const rowHeight = Math.round(1.9 * font);
    const marginTop = 2.6 * font;
    const withText = columnWidth >= 3.2 * font;
    const marks: Plot.Markish[] = [
      Plot.axisX({ anchor: 'top', label: 'cohort (in table order)', labelAnchor: 'center', labelArrow: 'none', tickSize: 0, labelOffset: 1.9 * font }),
      Plot.axisY({ tickFormat: (row: string) => labels.get(row) ?? '', textOverflow: 'ellipsis-middle', lineWidth: labelEms, label: null, tickSize: 0 }),
      Plot.cell(cells, { x: 'col', y: 'row', fill: 'rate', inset: 1, href: 'href', title: 'title' }),
    ];
    if (withText) {
      const text = (d: Cell): string => `${d.resolved}/${d.graded}`;
      marks.push(Plot.text(cells.filter((d) => d.rate >= 0.5), { x: 'col', y: 'row', text, fill: 'black', pointerEvents: 'none' }), Plot.text(cells.filter((d) => d.rate < 0.5), { x: 'col', y: 'row', text, fill: 'white', pointerEvents: 'none' }));
    }
    return render(`lb-${hexOf(board.board_id).slice(0, 12)}-tasks`, size, {
      height: Math.round(marginTop + 8 + shown.length * rowHeight),
      marginTop,
      marginBottom: 8,
      marginLeft,
      marginRight,
      x: { type: 'band', domain: columns, padding: 0, axis: null },
      y: { type: 'band', domain: shown.map((_, r) => String(r)), padding: 0, axis: null },
      color: { type: 'linear', scheme: 'cividis', domain: [0, 1] },
      marks,
    }, aria);
  };
  // Its cells are links: role="img" may hold no interactive content (axe nested-interactive), so the SVG is a named group.
  const group = (svg: string): string => svg.replace(/^<svg ([^>]*?)role="img"/, '<svg $1role="group"');
  return { svg: group(draw(WIDE)), compact: group(draw(COMPACT)), notes, drawn: shown.length };
}
