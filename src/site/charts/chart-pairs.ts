/**
 * The pair matrix of a board (FORMAT.md 7.6): who beats whom, as static SVG
 * rendered at build time by Observable Plot (a cell mark), at the two sizes
 * of chart-render.ts, with its text alternative. Row against column: a cell
 * is "W" when the row's cohort beats the column's (a winner: Holm-adjusted
 * p < 0.05), "L" when the column's beats the row's, "–" when neither does.
 * Colour-blind safe: two Okabe-Ito colours (sky blue, orange) that stay
 * apart under every common colour-vision deficiency, on light fills read
 * with black text, and the letter in every cell large enough to hold one,
 * so colour is never the only cue. Cohorts are numbered by their place in
 * the board table (the key is in the visible caption); names never enter
 * the SVG but as text content.
 *
 * The matrix carries no links (a role="img" figure may hold nothing
 * focusable): the table beside it (BoardPairs.astro) links each cell to its
 * compare page.
 */
import * as Plot from '@observablehq/plot';
import type { ReportBoard, ReportCohort } from '../../report/schema.ts';
import { hexOf } from '../views/format.ts';
import { labelOf, type Chart } from './charts.ts';
import { COMPACT, render, WIDE, type ChartSize } from './chart-render.ts';

/** Okabe & Ito (2008), "Color Universal Design": sky blue, orange; a light grey for no difference. */
export const PAIR_FILL = { W: '#56B4E9', L: '#E69F00', none: '#EEEEEE' } as const;

/** A p value as the site writes it: up to 3 significant digits, "1" for 1, scientific below 0.0001. */
export function pText(p: number): string {
  if (p === 1) return '1';
  if (p === 0) return '0';
  if (p < 1e-4) return p.toExponential(1);
  return String(Number(p.toPrecision(3)));
}

interface Cell {
  row: string;
  col: string;
  mark: 'W' | 'L' | '–';
  title: string;
}

/** The pair matrix of a board (null for a board of fewer than two cohorts). */
export function pairChart(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>): Chart | null {
  const n = board.cohorts.length;
  const pairs = board.pairs ?? [];
  if (n < 2 || pairs.length === 0) return null;
  const place = new Map(board.cohorts.map((id, i) => [id, i + 1]));
  const label = (id: string): string => `${place.get(id)}. ${labelOf(cohorts.get(id)!)}`;
  const cells: Cell[] = [];
  const lines = [`Pairs of board ${hexOf(board.board_id).slice(0, 12)}: ${pairs.length} pairs of ${n} cohorts, numbered as in the table; the sign test over headline tasks complete on both sides, Holm-adjusted over the board's pairs.`];
  // The text alternative reads in table order: each pair once, the better-placed cohort first.
  const ordered = [...pairs].sort((x, y) => order(x) - order(y));
  function order(p: { a: string; b: string }): number {
    const [i, j] = [place.get(p.a)!, place.get(p.b)!].sort((u, v) => u - v);
    return i! * (n + 1) + j!;
  }
  for (const pair of ordered) {
    const [first, second] = place.get(pair.a)! < place.get(pair.b)! ? [pair.a, pair.b] : [pair.b, pair.a];
    const [firstBetter, secondBetter] = first === pair.a ? [pair.a_better, pair.b_better] : [pair.b_better, pair.a_better];
    lines.push(`${label(first)} against ${label(second)}: ${firstBetter}-${secondBetter} of ${pair.tasks} tasks, p ${pText(pair.p)}, Holm p ${pText(pair.p_holm)}: ${pair.winner === null ? 'no difference' : `${label(pair.winner)} wins`}.`);
  }
  for (const pair of pairs) {
    for (const [row, col] of [[pair.a, pair.b], [pair.b, pair.a]] as const) {
      const mark = pair.winner === null ? '–' : pair.winner === row ? 'W' : 'L';
      const [rowBetter, colBetter] = row === pair.a ? [pair.a_better, pair.b_better] : [pair.b_better, pair.a_better];
      const verb = mark === 'W' ? 'beats' : mark === 'L' ? 'is beaten by' : 'no difference with';
      cells.push({ row: String(place.get(row)), col: String(place.get(col)), mark, title: `${label(row)} ${verb} ${label(col)}: ${rowBetter}-${colBetter} of ${pair.tasks} tasks, Holm p ${pText(pair.p_holm)}` });
    }
  }
  const wins = cells.filter((c) => c.mark === 'W').length;
  const notes = [
    'Read each row against each column: W the row\'s cohort beats the column\'s (Holm-adjusted p < 0.05), L it is beaten, – no difference at this board\'s resolution. Blue: beats; orange: beaten; grey: no difference.',
    `Numbered as in the table: ${board.cohorts.map((id) => label(id)).join('; ')}.`,
    wins === 0 ? 'No pair has a winner on this board.' : `${wins} of ${pairs.length} pairs ${wins === 1 ? 'has' : 'have'} a winner.`,
  ];
  const aria = `Pair matrix of ${n} cohorts of board ${hexOf(board.board_id).slice(0, 12)}: ${wins} of ${pairs.length} pairs ${wins === 1 ? 'has' : 'have'} a winner`;
  return { svg: matrixSvg(board, cells, n, WIDE, aria), compact: matrixSvg(board, cells, n, COMPACT, aria), alt: lines.join('\n'), notes };
}

function matrixSvg(board: ReportBoard, cells: readonly Cell[], n: number, size: ChartSize, aria: string): string {
  const wide = size === WIDE;
  const font = size.font;
  const places = Array.from({ length: n }, (_, i) => String(i + 1));
  const marginLeft = Math.round(font * (String(n).length * 0.7 + 1.6));
  const marginTop = Math.round(font * (wide ? 2.2 : 1.6));
  // Square cells, at most 3.4 em wide; the matrix keeps to the left of a wide chart.
  const cell = Math.min(font * 3.4, (size.width - marginLeft - 8) / n);
  const marginRight = Math.max(8, size.width - marginLeft - cell * n);
  // A cell too small for its letter at the label size shows colour only (the table beside it has every cell in words).
  const letters = cell >= font * 1.3;
  const fill = (c: Cell): string => (c.mark === 'W' ? PAIR_FILL.W : c.mark === 'L' ? PAIR_FILL.L : PAIR_FILL.none);
  const marks: Plot.Markish[] = [
    Plot.cell(cells, { x: 'col', y: 'row', fill, stroke: 'white', strokeWidth: 1, inset: 0.5, title: (c: Cell) => c.title }),
    Plot.cell(places.map((p) => ({ p })), { x: 'p', y: 'p', fill: 'currentColor', fillOpacity: 0.08 }),
    // The compact chart has no room for an axis label beside its first column: the caption says how to read it.
    Plot.axisX({ anchor: 'top', label: wide ? 'against column (numbered as in the table)' : null, labelAnchor: 'left', labelArrow: 'none', tickSize: 0 }),
    Plot.axisY({ label: null, tickSize: 0 }),
  ];
  if (letters) marks.push(Plot.text(cells, { x: 'col', y: 'row', text: 'mark', fill: 'black' }));
  return render(`lb-${hexOf(board.board_id).slice(0, 12)}-pairs`, size, {
    height: Math.round(marginTop + cell * n + 8),
    marginTop,
    marginBottom: 8,
    marginLeft,
    marginRight,
    x: { type: 'band', domain: places, padding: 0 },
    y: { type: 'band', domain: places, padding: 0 },
    marks,
  }, aria);
}
