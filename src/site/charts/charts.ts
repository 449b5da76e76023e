/**
 * Board charts as static SVG text: the headline pass rate of each cohort with
 * its Wilson 95% interval, cost against pass rate with the Pareto frontier,
 * and each subject's rate over time. Rendered at build time by Observable
 * Plot into a linkedom document (chart-render.ts), so the site ships plain
 * SVG and no script. Each chart is drawn at two sizes (wide and compact,
 * switched by a CSS media query) so that labels stay at least 11 px on
 * screen from a 390 px phone to a desktop (chart-render.ts).
 *
 * Determinism: fixed sizes; explicit ticks and tick formats (no locale; dates
 * as UTC ISO days); the class name Plot puts on the SVG (and in its <style>)
 * and any element id are derived from the board id, never from a counter or
 * the clock; coordinates are rounded to 2 decimals. The same report gives the
 * same bytes.
 *
 * Safety: evidence text (model and agent names) only ever reaches the SVG as
 * text content, which the serializer escapes; no attribute carries it (the
 * serializer escapes only quotes in attributes). `alt` and `notes` are plain
 * text for the page to escape like any other text.
 */
import * as Plot from '@observablehq/plot';
import type { Report, ReportBoard, ReportCohort } from '../../report/schema.ts';
import type { CohortMoney } from '../../facts/money.ts';
import { amount, hexOf, interval, percent, shortIdentity } from '../views/format.ts';
import { paretoFrontier } from './chart-pareto.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { COMPACT, emWidth, render, WIDE, type ChartSize } from './chart-render.ts';
import { hasUsableGrades, NO_USABLE_GRADES } from '../views/usable-grades.ts';

/**
 * A chart: the SVG text at each size (empty strings when nothing can be
 * drawn: `notes` then say why), its plain-text alternative, and the lines of
 * its visible caption.
 */
export interface Chart {
  /** For viewports from 50rem: the full chart. */
  svg: string;
  /** For narrower viewports: fewer ticks, labels above rows or by rank. */
  compact: string;
  /** The whole chart as text (shown in a <details>). */
  alt: string;
  /** The visible caption: how to read the chart, and every cohort that is not drawn with why. */
  notes: string[];
}

const PERCENT_TICKS = [0, 20, 40, 60, 80, 100];
const PERCENT_TICKS_COMPACT = [0, 25, 50, 75, 100];
const DAY_MS = 86_400_000;

/** One cohort of the board as the charts use it. */
interface Row {
  /** Unique per chart: the y value of the rate chart. */
  key: string;
  rank: number;
  label: string;
  baseline: boolean;
  /** Rate and interval bounds in percent. */
  rate: number | null;
  lo: number | null;
  hi: number | null;
  cohort: ReportCohort;
}

const roleOf = (r: Row): string => (r.baseline ? ' (baseline)' : '');

// ---------------------------------------------------------------- rate

/**
 * The headline pass rate per cohort of the board, in board rank order: a dot
 * per cohort (a diamond for the baseline, with a dashed vertical rule at its
 * rate) and its Wilson 95% interval as a horizontal bar, on 0..100%. Wide:
 * labels in a left margin sized to the longest label (at most 42% of the
 * width; longer labels end in "…" with the full text in a <title>). Compact:
 * each label above its row, across the whole width.
 */
export function rateChart(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>): Chart {
  const rows = rowsOf(board, cohorts);
  const aria = `Headline pass rate with Wilson 95% intervals for ${count(rows.length, 'cohort')} of board ${shortId(board)}`;
  const svg = rateSvg(board, rows, WIDE, aria);
  const compact = rateSvg(board, rows, COMPACT, aria);
  const lines = [
    `Headline pass rate of ${count(rows.length, 'cohort')} of board ${shortId(board)}, in rank order, with Wilson 95% intervals (percent):`,
    ...rows.map((r) => {
      if (r.rate === null) return `${r.rank}. ${r.label}${roleOf(r)}: ${unratedWhy(r)}`;
      const h = r.cohort.headline;
      return `${r.rank}. ${r.label}${roleOf(r)}: ${percent(h.rate)}, interval ${interval(h.wilson)}, ${h.resolved} of ${h.graded} graded resolved`;
    }),
  ];
  const notes = ['Dot: headline pass rate; bar: its Wilson 95% interval; diamond and dashed line: the baseline. In rank order, as in the table.'];
  return { svg, compact, alt: lines.join('\n'), notes };
}

function rateSvg(board: ReportBoard, rows: readonly Row[], size: ChartSize, aria: string): string {
  const labelOf = (r: Row): string => `${r.label}${roleOf(r)}`;
  const labels = new Map(rows.map((r) => [r.key, labelOf(r)]));
  const rated = rows.filter((r) => r.rate !== null);
  const bars = rows.filter((r) => r.lo !== null && r.hi !== null);
  const unrated = rows.filter((r) => r.rate === null);
  const base = board.baseline_cohort_id === null ? undefined : rows.find((r) => r.cohort.cohort_id === board.baseline_cohort_id);
  const wide = size === WIDE;
  const ticks = wide ? PERCENT_TICKS : PERCENT_TICKS_COMPACT;
  const font = size.font;
  const rowHeight = wide ? 2.3 * font : 3.6 * font;
  // Wide: a left margin as wide as the longest label needs, at most 42% of the chart. Compact: labels above the rows.
  const longest = Math.max(0, ...rows.map((r) => emWidth(labelOf(r))));
  const marginLeft = wide ? Math.round(Math.min(0.42 * size.width, Math.max(8 * font, longest * font + 16))) : 14;
  const marginRight = wide ? 24 : 18;
  // Plot shortens with its own width model (Helvetica-like); wider fonts (DejaVu Sans) need an eighth more room.
  const labelEms = (wide ? marginLeft - 16 : size.width - marginLeft - marginRight) / font / 1.125;
  const marginTop = wide ? 12 : 2 * font;
  const marginBottom = 3.4 * font;
  const lift = wide ? 0 : -1.2 * font;

  const marks: Plot.Markish[] = [
    Plot.gridX(ticks, { strokeOpacity: 0.12 }),
    Plot.axisX({ ticks, tickFormat: (d: number) => `${d}%`, label: wide ? 'Headline pass rate, with Wilson 95% interval' : 'Headline pass rate, 95% interval', labelAnchor: 'center', labelArrow: 'none', labelOffset: 2.6 * font }),
  ];
  if (wide) marks.push(Plot.axisY({ tickFormat: (key: string) => labels.get(key) ?? '', textOverflow: 'ellipsis-middle', lineWidth: labelEms, label: null, tickSize: 0 }));
  else marks.push(Plot.text(rows, { x: () => 0, y: 'key', text: labelOf, textAnchor: 'start', dy: lift, textOverflow: 'ellipsis-middle', lineWidth: labelEms }));
  if (base !== undefined && base.rate !== null) marks.push(Plot.ruleX([base.rate], { strokeDasharray: '4,3', strokeOpacity: 0.55 }));
  marks.push(
    Plot.ruleY(bars, { y: 'key', x1: 'lo', x2: 'hi', strokeWidth: wide ? 2.5 : 2, strokeOpacity: 0.6 }),
    Plot.dot(rated.filter((r) => !r.baseline), { x: 'rate', y: 'key', r: wide ? 5 : 4.5, fill: 'currentColor', stroke: 'none', symbol: 'circle', title: rateTitle }),
    Plot.dot(rated.filter((r) => r.baseline), { x: 'rate', y: 'key', r: wide ? 6.5 : 6, fill: 'currentColor', stroke: 'none', symbol: 'diamond2', title: rateTitle }),
    Plot.text(unrated, { x: () => 0, y: 'key', text: (r: Row) => unratedWhy(r), textAnchor: 'start', dx: 4, fillOpacity: 0.75 }),
  );

  return render(classNameOf(board, 'rate'), size, {
    height: Math.round(marginTop + marginBottom + Math.max(1, rows.length) * rowHeight),
    marginTop,
    marginBottom,
    marginLeft,
    marginRight,
    x: { type: 'linear', domain: [0, 100] },
    y: { type: 'point', domain: rows.map((r) => r.key), padding: 0.5, axis: null },
    marks,
  }, aria);
}

// ---------------------------------------------------------------- cost

/**
 * Total cost against headline pass rate, with the Pareto frontier (lower
 * cost and higher rate are better; chart-pareto.ts) as a step line through
 * the cohorts no other cohort beats on both. A cost that is only a lower
 * bound (some attempts unavailable or partial) is a hollow marker with a
 * dashed ray to the right (the true cost lies on it); the
 * frontier uses the bound. Cohorts with no known cost, in another currency
 * than the chart's, or with no graded task are not drawn; the visible notes
 * name each with why. When no cohort can be drawn the SVGs are empty and the
 * notes say why for every cohort; when fewer than half of the board's cohorts
 * can be drawn (tooFewToPlot) the SVGs are empty too and the notes give the
 * placed ones as text ("Cost known for 3 of 20 cohorts, ...") and the others
 * with why. Which cohorts have a known cost is the
 * site facts' (src/facts/money.ts), by cohort id.
 */
export function costChart(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>, money: ReadonlyMap<string, CohortMoney>): Chart {
  const rows = rowsOf(board, cohorts);
  const knownOf = (r: Row): number => knownAttempts(money, r.cohort);
  const known = rows.filter((r) => knownOf(r) > 0);
  const currency = chartCurrency(board, known);
  const drawn = known.filter((r) => r.rate !== null && sameCurrency(r.cohort.cost.currency, currency));
  const left = rows.filter((r) => !drawn.includes(r));
  const points: CostPoint[] = drawn.map((r) => ({ ...r, rate: r.rate!, cost: r.cohort.cost.micros / 1e6, bound: !r.cohort.cost.complete }));
  const frontier = new Set(paretoFrontier(points.map((p) => ({ key: p.key, cost: p.cost, rate: p.rate }))).map((p) => p.key));
  const onFrontier = points.filter((p) => frontier.has(p.key));

  const unit = currency ?? '';
  const lines = [`Total cost${unit ? ` (${unit})` : ''} against headline pass rate of board ${shortId(board)}, in rank order.`];
  lines.push(`Plotted (${drawn.length}):`);
  for (const p of points) lines.push(`${p.rank}. ${p.label}${roleOf(p)}: ${costWords(p.cohort)}, pass rate ${percent(p.cohort.headline.rate)} ${interval(p.cohort.headline.wilson)}${frontier.has(p.key) ? ', on the Pareto frontier' : ''}`);
  if (left.length > 0) {
    lines.push(`Not plotted (${left.length}):`);
    for (const r of left) lines.push(`${r.rank}. ${r.label}${roleOf(r)}: ${notPlottedWhy(r, currency, knownOf(r))}`);
  }

  const notes: string[] = [];
  // Too few to plot (issue 29): under half of the cohorts placeable leaves a mostly empty frame, so the chart is the text.
  if (points.length > 0 && tooFewToPlot(points.length, rows.length)) {
    notes.push(`Cost known for ${points.length} of ${rows.length} cohorts, too few for a chart (drawn when at least half can be placed): ${points.map((p) => `${p.rank}. ${p.label}${roleOf(p)}: ${costWords(p.cohort)}, pass rate ${percent(p.cohort.headline.rate)}`).join('; ')}.`);
    notes.push(`Not placed (${left.length} of ${rows.length}): ${left.map((r) => `${r.label}${roleOf(r)}: ${notPlottedWhy(r, currency, knownOf(r))}`).join('; ')}.`);
    return { svg: '', compact: '', alt: lines.join('\n'), notes };
  }
  if (points.length > 0) {
    notes.push(`Lower cost and higher rate are better. The step line is the Pareto frontier: ${onFrontier.map((p) => `${p.rank}. ${p.label}`).join('; ')} (no other cohort is both cheaper and better).`);
    if (points.some((p) => p.bound)) notes.push('A hollow marker: the cost is a lower bound (some attempts\' cost unavailable or partial); the true cost lies on the dashed line to the right. The frontier uses the lower bound.');
    notes.push(`Points are labelled by rank in the table: ${points.map((p) => `${p.rank}. ${p.label}${roleOf(p)}`).join('; ')}.`);
  }
  if (left.length > 0) notes.push(`${points.length === 0 ? 'No cohort can be placed' : `Not placed (${left.length} of ${rows.length})`}: ${left.map((r) => `${r.label}${roleOf(r)}: ${notPlottedWhy(r, currency, knownOf(r))}`).join('; ')}.`);

  if (points.length === 0) return { svg: '', compact: '', alt: lines.join('\n'), notes };
  const aria = `Total cost against headline pass rate for ${count(drawn.length, 'cohort')} of board ${shortId(board)}, with the Pareto frontier`;
  return { svg: costSvg(board, points, onFrontier, currency, WIDE, aria), compact: costSvg(board, points, onFrontier, currency, COMPACT, aria), alt: lines.join('\n'), notes };
}

/**
 * Whether a cost chart of `placed` of a board's `cohorts` is left as text:
 * when fewer than half of the cohorts can be placed (a known cost in the
 * chart's currency and a rate), the frame would be mostly empty.
 */
export function tooFewToPlot(placed: number, cohorts: number): boolean {
  return placed * 2 < cohorts;
}

type CostPoint = Row & { rate: number; cost: number; bound: boolean };

function costSvg(board: ReportBoard, points: readonly CostPoint[], frontier: readonly CostPoint[], currency: string | null, size: ChartSize, aria: string): string {
  const wide = size === WIDE;
  const font = size.font;
  const maxMicros = Math.max(...points.map((p) => p.cohort.cost.micros));
  // A tenth more than the largest cost, so that no point sits on the chart's edge.
  const axis = costAxis(Math.ceil((maxMicros * 11) / 10), wide ? 5 : 3);
  const top = axis.ticks[axis.ticks.length - 1] ?? 1;
  const mid = top / 2;
  // Points are labelled by rank (names beside close points would overlap); the notes give the key.
  const pointLabel = (p: CostPoint): string => String(p.rank);
  const textOptions = { x: 'cost', y: 'rate', text: pointLabel } as const;
  const steps = [...frontier].sort((a, b) => a.cost - b.cost);

  const marks: Plot.Markish[] = [
    Plot.gridX(axis.ticks, { strokeOpacity: 0.12 }),
    Plot.gridY(wide ? PERCENT_TICKS : PERCENT_TICKS_COMPACT, { strokeOpacity: 0.12 }),
    Plot.axisX({ ticks: axis.ticks, tickFormat: axis.format, label: currency === null ? 'Total cost' : `Total cost (${currency})`, labelAnchor: 'center', labelArrow: 'none', labelOffset: 2.6 * font }),
    Plot.axisY({ ticks: wide ? PERCENT_TICKS : PERCENT_TICKS_COMPACT, tickFormat: (d: number) => `${d}%`, label: 'Headline pass rate', labelAnchor: 'center', labelArrow: 'none', labelOffset: 4.4 * font }),
    Plot.ruleY(points.filter((p) => p.bound), { y: 'rate', x1: 'cost', x2: () => top, strokeDasharray: '2,3', strokeOpacity: 0.5 }),
    Plot.line(steps, { x: 'cost', y: 'rate', curve: 'step-after', strokeWidth: 2, strokeOpacity: 0.7 }),
  ];
  for (const baseline of [false, true]) {
    const r = baseline ? 6 : 5;
    const symbol = baseline ? 'diamond2' : 'circle';
    const of = points.filter((p) => p.baseline === baseline);
    marks.push(
      Plot.dot(of.filter((p) => !p.bound), { x: 'cost', y: 'rate', r, symbol, fill: 'currentColor', stroke: 'none', title: costTitle }),
      Plot.dot(of.filter((p) => p.bound), { x: 'cost', y: 'rate', r, symbol, fill: 'none', stroke: 'currentColor', strokeWidth: 1.5, title: costTitle }),
    );
  }
  marks.push(
    Plot.text(points.filter((p) => p.cost <= mid), { ...textOptions, textAnchor: 'start', dx: 9 }),
    Plot.text(points.filter((p) => p.cost > mid), { ...textOptions, textAnchor: 'end', dx: -9 }),
  );

  return render(classNameOf(board, 'cost'), size, {
    height: wide ? 420 : 300,
    marginTop: font * 1.5,
    marginBottom: 3.4 * font,
    marginLeft: 4.6 * font,
    marginRight: font * 1.5,
    x: { type: 'linear', domain: [0, top] },
    y: { type: 'linear', domain: [0, 100] },
    marks,
  }, aria);
}

// ---------------------------------------------------------------- over time

/** A report the over-time chart reads: its cohorts, each with its plans (a retained report, or the current one). */
export type DatedReport = Pick<Report, 'cohorts'>;

/**
 * A cohort's headline figures in one of its plans (src/site/model/plan-rates.ts):
 * `usable` counts the attempts that say something about the model.
 */
export interface PlanTally {
  plan_id: string;
  created_at: string;
  resolved: number;
  graded: number;
  usable: number;
}

/** One point of the over-time chart. */
interface TimePoint {
  series: string;
  day: number;
  rate: number;
  rank: number;
}

/**
 * Each subject's headline pass rate over time on this board: for every
 * report (`reports`: the retained ones, oldest first, then the current one),
 * the rate it gave the subject's cohort on this board, pooled over the plans
 * the cohort had then and dated by the newest of them (its created_at, as a
 * UTC day: a cohort of one plan sits at that plan with that plan's rate);
 * then, from `tallies` (the current evidence per plan: plan-rates.ts), the
 * rate pooled over the cohort's plans up to each of its plans' days, which
 * replaces a report's point of the same day (the last of them is the
 * current report's own); and the baseline per plan (the board's `drift`),
 * as a dashed line. A subject with points on two or more days is a solid
 * line through them. Null when these points have fewer than two distinct
 * days: a board whose evidence has one date has no chart.
 */
export function timeChart(
  board: ReportBoard,
  cohorts: ReadonlyMap<string, ReportCohort>,
  reports: readonly DatedReport[],
  tallies: ReadonlyMap<string, readonly PlanTally[]> = new Map(),
): Chart | null {
  const rows = rowsOf(board, cohorts);
  const byId = new Map(rows.map((r) => [r.cohort.cohort_id, r]));
  const points = new Map<string, TimePoint>();
  for (const report of reports) {
    for (const c of report.cohorts) {
      const row = byId.get(c.cohort_id);
      // A cohort (of this report or a retained one) without one usable grade has no rate to draw: not a 0% (usable-grades.ts).
      if (row === undefined || c.board_id !== board.board_id || c.headline.rate === null || !hasUsableGrades(c) || c.plans.length === 0) continue;
      // Dated by the newest plan the rate pools; a later report of the same day replaces an earlier one.
      const day = Math.max(...c.plans.map((p) => dayOf(p.created_at)));
      points.set(`${row.key} ${day}`, { series: row.key, day, rate: c.headline.rate * 100, rank: row.rank });
    }
  }
  // The current evidence, plan by plan: pooled up to each plan's day (plans of one day pooled together), as the report pools them.
  for (const row of rows) {
    const plans = tallies.get(row.cohort.cohort_id);
    if (plans === undefined || row.rate === null) continue;
    const sorted = [...plans].sort((a, b) => dayOf(a.created_at) - dayOf(b.created_at) || compareUtf8(a.plan_id, b.plan_id));
    let resolved = 0;
    let graded = 0;
    let usable = 0;
    for (const [i, t] of sorted.entries()) {
      resolved += t.resolved;
      graded += t.graded;
      usable += t.usable;
      const day = dayOf(t.created_at);
      if (graded === 0 || usable === 0 || (i + 1 < sorted.length && dayOf(sorted[i + 1]!.created_at) === day)) continue;
      points.set(`${row.key} ${day}`, { series: row.key, day, rate: (resolved / graded) * 100, rank: row.rank });
    }
  }
  const base = rows.find((r) => r.cohort.cohort_id === board.baseline_cohort_id);
  const drift: TimePoint[] = base === undefined ? [] : board.drift.filter((d) => d.rate !== null).map((d) => ({ series: 'drift', day: dayOf(d.created_at), rate: d.rate! * 100, rank: base.rank }));
  const reported = [...points.values()].sort((a, b) => Number(a.series) - Number(b.series) || a.day - b.day);
  const days = [...new Set([...reported, ...drift].map((p) => p.day))].sort((a, b) => a - b);
  if (days.length < 2) return null;

  const lines = [`Headline pass rate over time on board ${shortId(board)} (percent, dates in UTC):`];
  for (const r of rows) {
    const of = reported.filter((p) => p.series === r.key);
    if (of.length > 0) lines.push(`${r.rank}. ${r.label}${roleOf(r)}, as reported: ${of.map((p) => `${isoDay(p.day)} ${p.rate.toFixed(1)}%`).join(', ')}`);
  }
  if (base !== undefined && drift.length > 0) lines.push(`${base.rank}. ${base.label} (baseline), per plan: ${drift.map((p) => `${isoDay(p.day)} ${p.rate.toFixed(1)}%`).join(', ')}`);
  const notes = [
    'Dots and solid lines: each subject\'s headline rate pooled over its plans up to each plan\'s date (UTC), from this report\'s evidence, and from the retained reports at dates it no longer has. Dashed line and hollow diamonds: the baseline per plan (drift). Labelled by rank in the table:',
    rows.filter((r) => reported.some((p) => p.series === r.key)).map((r) => `${r.rank}. ${r.label}${roleOf(r)}`).join('; '),
  ];
  const aria = `Headline pass rate over time for ${count(rows.length, 'cohort')} of board ${shortId(board)}, ${count(days.length, 'date')} from ${isoDay(days[0]!)} to ${isoDay(days[days.length - 1]!)}`;
  return { svg: timeSvg(board, reported, drift, days, WIDE, aria), compact: timeSvg(board, reported, drift, days, COMPACT, aria), alt: lines.join('\n'), notes };
}

function timeSvg(board: ReportBoard, reported: readonly TimePoint[], drift: readonly TimePoint[], days: readonly number[], size: ChartSize, aria: string): string {
  const wide = size === WIDE;
  const font = size.font;
  const ticks = spread(days, wide ? 6 : 3);
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const pad = Math.max(1, Math.round((last - first) * 0.04));
  const ends = [...new Map(reported.map((p) => [p.series, p])).values()];
  const title = (p: TimePoint): string => `${isoDay(p.day)}: ${p.rate.toFixed(1)}%`;
  const marks: Plot.Markish[] = [
    Plot.gridX(ticks, { strokeOpacity: 0.12 }),
    Plot.gridY(wide ? PERCENT_TICKS : PERCENT_TICKS_COMPACT, { strokeOpacity: 0.12 }),
    Plot.axisX({ ticks, tickFormat: isoDay, label: 'Plan date (UTC)', labelAnchor: 'center', labelArrow: 'none', labelOffset: 2.6 * font }),
    Plot.axisY({ ticks: wide ? PERCENT_TICKS : PERCENT_TICKS_COMPACT, tickFormat: (d: number) => `${d}%`, label: 'Headline pass rate', labelAnchor: 'center', labelArrow: 'none', labelOffset: 4.4 * font }),
    Plot.line(drift, { x: 'day', y: 'rate', strokeDasharray: '5,4', strokeWidth: 1.5, strokeOpacity: 0.7 }),
    Plot.dot(drift, { x: 'day', y: 'rate', r: 5, symbol: 'diamond2', fill: 'none', stroke: 'currentColor', title }),
    Plot.line(reported, { x: 'day', y: 'rate', z: 'series', strokeWidth: 2, strokeOpacity: 0.8 }),
    Plot.dot(reported, { x: 'day', y: 'rate', r: 4, fill: 'currentColor', stroke: 'none', title }),
    Plot.text(ends, { x: 'day', y: 'rate', text: (p: TimePoint) => String(p.rank), textAnchor: 'start', dx: 8 }),
  ];
  return render(classNameOf(board, 'time'), size, {
    height: wide ? 340 : 260,
    marginTop: font * 1.5,
    marginBottom: 3.4 * font,
    marginLeft: 4.6 * font,
    // Room for the rank labels right of the last points, and half a date label.
    marginRight: 3.2 * font,
    x: { type: 'linear', domain: [first - pad, last + pad] },
    y: { type: 'linear', domain: [0, 100] },
    marks,
  }, aria);
}

/** The UTC day of an RFC 3339 timestamp, as days since 1970-01-01 (no time zone, no locale). */
function dayOf(timestamp: string): number {
  const ms = Date.parse(timestamp);
  if (!Number.isFinite(ms)) throw new Error(`not a timestamp: ${timestamp}`);
  return Math.floor(ms / DAY_MS);
}

function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** At most `k` of the sorted `values`, evenly spread, first and last included. */
function spread(values: readonly number[], k: number): number[] {
  if (values.length <= k) return [...values];
  return [...new Set(Array.from({ length: k }, (_, i) => values[Math.round((i * (values.length - 1)) / (k - 1))]!))];
}

// ---------------------------------------------------------------- rows

function rowsOf(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>): Row[] {
  const seen = new Map<string, number>();
  return board.cohorts.map((id, i) => {
    const cohort = cohorts.get(id);
    if (!cohort) throw new Error(`board ${board.board_id} lists cohort ${id}, which the report does not hold`);
    const base = labelOf(cohort);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const h = cohort.headline;
    // A cohort without one usable grade has no rate to draw (src/site/views/usable-grades.ts): not a 0%.
    const usable = hasUsableGrades(cohort);
    return {
      key: String(i),
      rank: i + 1,
      label: n === 1 ? base : `${base} [${n}]`,
      baseline: cohort.subject.role === 'baseline',
      rate: h.rate === null || !usable ? null : h.rate * 100,
      lo: h.wilson === null || !usable ? null : h.wilson[0] * 100,
      hi: h.wilson === null || !usable ? null : h.wilson[1] * 100,
      cohort,
    };
  });
}

/** "model · agent version", each shortened with invisible characters shown (format.ts shortIdentity); any control or bidi character left made a space. */
export function labelOf(cohort: ReportCohort): string {
  const { model, agent } = cohort.subject;
  // eslint-disable-next-line no-control-regex
  return `${shortIdentity(model)} · ${shortIdentity(agent.name)} ${shortIdentity(agent.version)}`.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, ' ');
}

function rateTitle(r: Row): string {
  return `${r.label}${r.baseline ? ' (baseline)' : ''}: ${percent(r.cohort.headline.rate)} ${interval(r.cohort.headline.wilson)}`;
}

function costTitle(r: Row): string {
  return `${r.label}${r.baseline ? ' (baseline)' : ''}: ${costWords(r.cohort)}, ${percent(r.cohort.headline.rate)}`;
}

// ---------------------------------------------------------------- cost

/** Attempts whose cost is known (possibly partially), as the site facts hold it (a cohort they do not hold is a bug). */
function knownAttempts(money: ReadonlyMap<string, CohortMoney>, cohort: ReportCohort): number {
  const facts = money.get(cohort.cohort_id);
  if (facts === undefined) throw new Error(`no money facts for cohort ${cohort.cohort_id}`);
  return facts.known;
}

/** The board's budget currency when a cohort with a known cost uses it; else the first such cohort's. */
function chartCurrency(board: ReportBoard, known: readonly Row[]): string | null {
  const budget = board.key.budget?.currency;
  if (budget !== undefined && known.some((r) => r.cohort.cost.currency === budget)) return budget;
  return known.find((r) => r.cohort.cost.currency !== null)?.cohort.cost.currency ?? null;
}

/** A cohort without a currency (nothing spent) fits any axis. */
function sameCurrency(c: string | null, axis: string | null): boolean {
  return c === null || c === axis;
}

function costWords(cohort: ReportCohort): string {
  const { cost } = cohort;
  const value = amount(cost.micros, cost.currency);
  if (cost.complete) return `cost ${value}`;
  const missing = [cost.unavailable ? `${cost.unavailable} unavailable` : '', cost.partial ? `${cost.partial} partial` : ''].filter(Boolean).join(', ');
  return `cost at least ${value} (lower bound: ${missing})`;
}

function notPlottedWhy(r: Row, currency: string | null, known: number): string {
  const { cost } = r.cohort;
  if (known <= 0) {
    const parts = [
      cost.unavailable > 0 ? `unavailable for ${count(cost.unavailable, 'attempt')}` : '',
      cost.not_applicable > 0 ? `not applicable for ${count(cost.not_applicable, 'attempt')}` : '',
    ].filter(Boolean);
    return parts.length > 0 ? `cost ${parts.join(', ')}` : 'no attempts';
  }
  if (!sameCurrency(cost.currency, currency)) return `${costWords(r.cohort)}, in another currency than ${currency ?? 'the chart'}`;
  return `${costWords(r.cohort)}, ${unratedWhy(r)}`;
}

/** Why a row has no rate to draw: no graded task, or no usable grade (issue 15: never drawn as a measured 0%). */
function unratedWhy(r: Row): string {
  return hasUsableGrades(r.cohort) ? 'no graded tasks' : NO_USABLE_GRADES;
}

/**
 * Ticks for 0..max micros: a step of 1, 2 or 5 times a power of ten micros
 * giving at most `most` intervals, in integer arithmetic; labels with as many
 * decimals as the step needs.
 */
function costAxis(maxMicros: number, most = 5): { ticks: number[]; format: (d: number) => string } {
  if (maxMicros <= 0) return costAxis(1_000_000, most);
  let step = 1;
  let power = 1;
  for (;;) {
    const s = [1, 2, 5].map((m) => m * power).find((c) => Math.ceil(maxMicros / c) <= most);
    if (s !== undefined) {
      step = s;
      break;
    }
    power *= 10;
  }
  const intervals = Math.max(1, Math.ceil(maxMicros / step));
  const ticks = Array.from({ length: intervals + 1 }, (_, i) => (i * step) / 1e6);
  const decimals = Math.max(0, 6 - String(power).length + 1);
  return { ticks, format: (d: number) => d.toFixed(decimals) };
}


/** A CSS class name from the board id: `lb-<12 hex digits>-<chart>`. */
function classNameOf(board: ReportBoard, chart: string): string {
  return `lb-${shortId(board)}-${chart}`;
}

function shortId(board: ReportBoard): string {
  return hexOf(board.board_id).toLowerCase().replace(/[^0-9a-z]/g, '').slice(0, 12) || 'board';
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
