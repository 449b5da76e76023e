/**
 * Board charts as static SVG text: the headline pass rate of each cohort with
 * its Wilson 95% interval, and cost against pass rate. Rendered at build time
 * by Observable Plot into a linkedom document, so the site ships plain SVG
 * and no script.
 *
 * Determinism: a fixed size; explicit ticks and tick formats (no locale); the
 * class name Plot puts on the SVG (and in its <style>) and any element id are
 * derived from the board id, never from a counter or the clock; coordinates
 * are rounded to 2 decimals. The same report gives the same bytes.
 *
 * Safety: evidence text (model and agent names) only ever reaches the SVG as
 * text content, which the serializer escapes; no attribute carries it (the
 * serializer escapes only quotes in attributes). `alt` is plain text for the
 * page to escape like any other text.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import type { ReportBoard, ReportCohort } from '../report/schema.ts';
import { amount, hexOf, interval, percent, shortIdentity } from './format.ts';

/** A chart: the SVG element's text and its plain-text alternative. */
export interface Chart {
  svg: string;
  alt: string;
}

const WIDTH = 640;
const RATE_ROW = 26;
const COST_HEIGHT = 380;
const PERCENT_TICKS = [0, 20, 40, 60, 80, 100];

/** Numeric (geometry) attributes whose values are rounded. */
const GEOMETRY = new Set(['x', 'y', 'x1', 'x2', 'y1', 'y2', 'cx', 'cy', 'r', 'd', 'dx', 'dy', 'transform', 'width', 'height', 'viewBox', 'points']);

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

/**
 * The headline pass rate per cohort of the board, in board rank order: a dot
 * per cohort (a diamond for the baseline, with a dashed vertical rule at its
 * rate) and its Wilson 95% interval as a horizontal bar, on 0..100%.
 */
export function rateChart(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>): Chart {
  const rows = rowsOf(board, cohorts);
  const labels = new Map(rows.map((r) => [r.key, r.baseline ? `${r.label} (baseline)` : r.label]));
  const rated = rows.filter((r) => r.rate !== null);
  const bars = rows.filter((r) => r.lo !== null && r.hi !== null);
  const unrated = rows.filter((r) => r.rate === null);
  const base = board.baseline_cohort_id === null ? undefined : rows.find((r) => r.cohort.cohort_id === board.baseline_cohort_id);
  const marginTop = 16;
  const marginBottom = 42;
  const className = classNameOf(board, 'rate');

  const marks: Plot.Markish[] = [
    Plot.gridX(PERCENT_TICKS, { strokeOpacity: 0.12 }),
    Plot.axisX({ ticks: PERCENT_TICKS, tickFormat: (d: number) => `${d}%`, label: 'Headline pass rate, with Wilson 95% interval', labelAnchor: 'center', labelArrow: 'none' }),
    Plot.axisY({ tickFormat: (key: string) => labels.get(key) ?? '', textOverflow: 'ellipsis-middle', lineWidth: 24.5, label: null, tickSize: 0 }),
  ];
  if (base !== undefined && base.rate !== null) marks.push(Plot.ruleX([base.rate], { strokeDasharray: '4,3', strokeOpacity: 0.55 }));
  marks.push(
    Plot.ruleY(bars, { y: 'key', x1: 'lo', x2: 'hi', strokeWidth: 2, strokeOpacity: 0.6 }),
    Plot.dot(
      rated.filter((r) => !r.baseline),
      { x: 'rate', y: 'key', r: 4.5, fill: 'currentColor', stroke: 'none', symbol: 'circle', title: rateTitle },
    ),
    Plot.dot(
      rated.filter((r) => r.baseline),
      { x: 'rate', y: 'key', r: 6, fill: 'currentColor', stroke: 'none', symbol: 'diamond2', title: rateTitle },
    ),
    Plot.text(unrated, { x: () => 0, y: 'key', text: () => 'no graded tasks', textAnchor: 'start', dx: 4, fillOpacity: 0.75 }),
  );

  const svg = render(className, {
    width: WIDTH,
    height: marginTop + marginBottom + Math.max(1, rows.length) * RATE_ROW,
    marginTop,
    marginBottom,
    marginLeft: 260,
    marginRight: 20,
    x: { type: 'linear', domain: [0, 100] },
    y: { type: 'point', domain: rows.map((r) => r.key), padding: 0.5 },
    marks,
  }, `Headline pass rate with Wilson 95% intervals for ${count(rows.length, 'cohort')} of board ${shortId(board)}`);

  const lines = [
    `Headline pass rate of ${count(rows.length, 'cohort')} of board ${shortId(board)}, in rank order, with Wilson 95% intervals (percent):`,
    ...rows.map((r) => {
      const role = r.baseline ? ' (baseline)' : '';
      if (r.rate === null) return `${r.rank}. ${r.label}${role}: no graded tasks`;
      const h = r.cohort.headline;
      return `${r.rank}. ${r.label}${role}: ${percent(h.rate)}, interval ${interval(h.wilson)}, ${h.resolved} of ${h.graded} graded resolved`;
    }),
  ];
  return { svg, alt: lines.join('\n') };
}

/**
 * Total cost against headline pass rate for the board's cohorts with a known
 * cost. A cost that is only a lower bound (some attempts unavailable or
 * partial) is a hollow marker labelled "≥" with a dashed ray to the right
 * (the true cost lies on it). Cohorts with no known cost, in another currency
 * than the chart's, or with no graded task are not drawn; the alt text lists
 * them. Null when no cohort can be drawn.
 */
export function costChart(board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>): Chart | null {
  const rows = rowsOf(board, cohorts);
  const known = rows.filter((r) => knownAttempts(r.cohort) > 0);
  if (known.length === 0) return null;
  const currency = chartCurrency(board, known);
  const drawn = known.filter((r) => r.rate !== null && sameCurrency(r.cohort.cost.currency, currency));
  if (drawn.length === 0) return null;

  const maxMicros = Math.max(...drawn.map((r) => r.cohort.cost.micros));
  const axis = costAxis(maxMicros);
  const top = axis.ticks[axis.ticks.length - 1] ?? 1;
  const points = drawn.map((r) => ({ ...r, cost: r.cohort.cost.micros / 1e6, bound: !r.cohort.cost.complete }));
  const mid = top / 2;
  const className = classNameOf(board, 'cost');
  const pointLabel = (p: (typeof points)[number]): string => (p.bound ? `≥ ${p.label}` : p.label);
  const textOptions = { x: 'cost', y: 'rate', text: pointLabel, textOverflow: 'ellipsis-end', lineWidth: 24 } as const;

  const marks: Plot.Markish[] = [
    Plot.gridX(axis.ticks, { strokeOpacity: 0.12 }),
    Plot.gridY(PERCENT_TICKS, { strokeOpacity: 0.12 }),
    Plot.axisX({ ticks: axis.ticks, tickFormat: axis.format, label: currency === null ? 'Total cost' : `Total cost (${currency})`, labelAnchor: 'center', labelArrow: 'none' }),
    Plot.axisY({ ticks: PERCENT_TICKS, tickFormat: (d: number) => `${d}%`, label: 'Headline pass rate', labelAnchor: 'center', labelArrow: 'none' }),
    Plot.ruleY(points.filter((p) => p.bound), { y: 'rate', x1: 'cost', x2: () => top, strokeDasharray: '2,3', strokeOpacity: 0.5 }),
  ];
  for (const baseline of [false, true]) {
    const r = baseline ? 5.5 : 4.5;
    const symbol = baseline ? 'diamond2' : 'circle';
    const of = points.filter((p) => p.baseline === baseline);
    marks.push(
      Plot.dot(of.filter((p) => !p.bound), { x: 'cost', y: 'rate', r, symbol, fill: 'currentColor', stroke: 'none', title: costTitle }),
      Plot.dot(of.filter((p) => p.bound), { x: 'cost', y: 'rate', r, symbol, fill: 'none', stroke: 'currentColor', strokeWidth: 1.5, title: costTitle }),
    );
  }
  marks.push(
    Plot.text(points.filter((p) => p.cost <= mid), { ...textOptions, textAnchor: 'start', dx: 8 }),
    Plot.text(points.filter((p) => p.cost > mid), { ...textOptions, textAnchor: 'end', dx: -8 }),
  );

  const svg = render(className, {
    width: WIDTH,
    height: COST_HEIGHT,
    marginTop: 20,
    marginBottom: 42,
    marginLeft: 50,
    marginRight: 24,
    x: { type: 'linear', domain: [0, top] },
    y: { type: 'linear', domain: [0, 100] },
    marks,
  }, `Total cost against headline pass rate for ${count(drawn.length, 'cohort')} of board ${shortId(board)}`);

  const unit = currency ?? '';
  const lines = [`Total cost${unit ? ` (${unit})` : ''} against headline pass rate of board ${shortId(board)}, in rank order.`];
  lines.push(`Plotted (${drawn.length}):`);
  for (const p of points) lines.push(`${p.rank}. ${p.label}${p.baseline ? ' (baseline)' : ''}: ${costWords(p.cohort)}, pass rate ${percent(p.cohort.headline.rate)} ${interval(p.cohort.headline.wilson)}`);
  const left = rows.filter((r) => !drawn.includes(r));
  if (left.length > 0) {
    lines.push(`Not plotted (${left.length}):`);
    for (const r of left) lines.push(`${r.rank}. ${r.label}${r.baseline ? ' (baseline)' : ''}: ${notPlottedWhy(r, currency)}`);
  }
  return { svg, alt: lines.join('\n') };
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
    return {
      key: String(i),
      rank: i + 1,
      label: n === 1 ? base : `${base} [${n}]`,
      baseline: cohort.subject.role === 'baseline',
      rate: h.rate === null ? null : h.rate * 100,
      lo: h.wilson === null ? null : h.wilson[0] * 100,
      hi: h.wilson === null ? null : h.wilson[1] * 100,
      cohort,
    };
  });
}

/** "model · agent version", each shortened with invisible characters shown (format.ts shortIdentity); any control or bidi character left made a space. */
function labelOf(cohort: ReportCohort): string {
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

/** Attempts whose cost is known (possibly partially). */
function knownAttempts(cohort: ReportCohort): number {
  return cohort.attempts - cohort.cost.unavailable - cohort.cost.not_applicable;
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

function notPlottedWhy(r: Row, currency: string | null): string {
  const { cost } = r.cohort;
  if (knownAttempts(r.cohort) <= 0) {
    return cost.unavailable > 0 ? `cost unavailable (${cost.unavailable} of ${r.cohort.attempts} attempts)` : 'cost not applicable';
  }
  if (!sameCurrency(cost.currency, currency)) return `${costWords(r.cohort)}, in another currency than ${currency ?? 'the chart'}`;
  return `${costWords(r.cohort)}, no graded tasks`;
}

/**
 * Ticks for 0..max micros: a step of 1, 2 or 5 times a power of ten micros
 * giving at most 5 intervals, in integer arithmetic; labels with as many
 * decimals as the step needs.
 */
function costAxis(maxMicros: number): { ticks: number[]; format: (d: number) => string } {
  if (maxMicros <= 0) return costAxis(1_000_000);
  let step = 1;
  let power = 1;
  for (;;) {
    const s = [1, 2, 5].map((m) => m * power).find((c) => Math.ceil(maxMicros / c) <= 5);
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

// ---------------------------------------------------------------- rendering

/** Renders with Plot into a fresh linkedom document and returns stable SVG text. */
function render(className: string, options: Plot.PlotOptions, label: string): string {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const node = Plot.plot({ ...options, className, document: document as unknown as Document }) as unknown as Element;
  if (node.tagName.toLowerCase() !== 'svg') throw new Error(`Plot returned <${node.tagName}>, not <svg>`);
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', label);
  // The svg (role="img") names the whole chart; Plot's aria-label on inner <g> marks is prohibited there.
  // Kept as data-mark (what the mark is, for tests and styling), never as ARIA.
  for (const inner of node.querySelectorAll('[aria-label], [aria-description]')) {
    const mark = inner.getAttribute('aria-label');
    if (mark !== null) inner.setAttribute('data-mark', mark);
    inner.removeAttribute('aria-label');
    inner.removeAttribute('aria-description');
  }
  stabilize(node, className);
  return node.outerHTML;
}

/**
 * Makes the serialization independent of render order and float noise (as
 * Plot's own snapshot tests do): every id becomes `<className>-<n>` in
 * document order, references to it (url(#id), href="#id") follow, and
 * geometry numbers are rounded to 2 decimals.
 */
function stabilize(root: Element, className: string): void {
  const elements = [root, ...Array.from(root.querySelectorAll('*'))];
  const ids = new Map<string, string>();
  for (const el of elements) {
    const id = el.getAttribute('id');
    if (id !== null) {
      const stable = `${className}-${ids.size + 1}`;
      ids.set(id, stable);
      el.setAttribute('id', stable);
    }
  }
  for (const el of elements) {
    for (const { name, value } of Array.from(el.attributes)) {
      let next = value;
      if (ids.size > 0) {
        next = next.replace(/url\(#([^)]+)\)/g, (m, id: string) => (ids.has(id) ? `url(#${ids.get(id)})` : m));
        if ((name === 'href' || name === 'xlink:href') && next.startsWith('#') && ids.has(next.slice(1))) next = `#${ids.get(next.slice(1))}`;
      }
      if (GEOMETRY.has(name)) next = next.replace(/-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi, (m) => roundText(Number(m)));
      if (next !== value) el.setAttribute(name, next);
    }
  }
}

function roundText(n: number): string {
  const r = Math.round(n * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
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
