/**
 * The site build: the pipeline runs once (read, verify, analyse), then Astro
 * renders the model into a staging directory, the raw evidence and the
 * machine-readable files are written beside the pages, and the directory is
 * renamed into place (atomic.ts). A failed build leaves the previous output
 * untouched.
 */
import { cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.ts';
import { canonicalJson } from '../json/canonical.ts';
import type { VerifiedBundle } from '../pipeline/verify-paths.ts';
import type { Report } from '../report/schema.ts';
import { hexOf, moneyText } from './format.ts';
import { absolute, buildSiteModel, type SiteModel } from './model.ts';
import { setSiteModel } from './current.ts';
import { readRetained } from './retained.ts';
import { replaceDirectory } from './atomic.ts';
import { writeEvidence } from './publish.ts';
import type { HistoryCheck } from '../history/compare.ts';

/** The repository root (where astro.config.mjs and src/pages are). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What a build did. */
export interface SiteBuildResult {
  outDir: string;
  pages: number;
  files: number;
}

/** Where a build reads retained reports and writes the site, and its progress log. */
export interface SiteBuildOptions {
  /** The retained reports directory (already resolved against the config's directory). */
  retainedDir: string;
  outDir: string;
  /** SOURCE_DATE_EPOCH as RFC 3339 (see source-date.ts), used only when no evidence is dated. */
  sourceDate?: string | null;
  /** The append-only check against the retained manifests. */
  history?: HistoryCheck;
  log: (line: string) => void;
}

/** Builds the site for a report into `outDir` (replaced atomically: see atomic.ts). */
export async function buildSite(report: Report, results: readonly VerifiedBundle[], config: Config, options: SiteBuildOptions): Promise<SiteBuildResult> {
  const model = await buildSiteModel(report, results, config, {
    retained: await readRetained(options.retainedDir),
    sourceDate: options.sourceDate ?? null,
    ...(options.history ? { history: options.history } : {}),
  });
  await mkdir(dirname(resolve(options.outDir)), { recursive: true });
  try {
    return await replaceDirectory(options.outDir, async (staging) => {
      options.log('rendering pages');
      setSiteModel(model);
      await renderPages(staging);
      options.log('writing raw evidence and data files');
      const files = await writeDataFiles(model, staging);
      return { outDir: resolve(options.outDir), pages: await countPages(model), files };
    });
  } finally {
    setSiteModel(null);
  }
}

/**
 * Astro renders from the project root, into a fresh directory inside it, and
 * the result is then moved to `staging`. Both matter: Astro resolves the
 * packages its server chunks import from the working directory, and when its
 * output directory lies outside the working directory it writes those chunks
 * to the shared `.astro/` and copies that whole directory into the output,
 * so a build into /tmp published server files (manifest_*.mjs,
 * content-*.mjs) and concurrent builds mixed theirs. Rendering inside the
 * project into a directory of its own keeps every build's chunks apart, and
 * Astro removes them itself.
 */
async function renderPages(staging: string): Promise<void> {
  const { build } = await import('astro');
  const renders = join(PROJECT_ROOT, RENDER_DIR);
  await mkdir(renders, { recursive: true });
  const out = await mkdtemp(join(renders, 'render-'));
  const cwd = process.cwd();
  process.chdir(PROJECT_ROOT);
  try {
    await build({ root: PROJECT_ROOT, outDir: out, logLevel: 'error', mode: 'production' });
    await rm(staging, { recursive: true, force: true });
    await rename(out, staging).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EXDEV') throw error;
      await cp(out, staging, { recursive: true });
    });
  } finally {
    process.chdir(cwd);
    await rm(out, { recursive: true, force: true });
  }
}

/** Where Astro renders, inside the project (ignored by git); one fresh sub-directory per build. */
export const RENDER_DIR = '.ledgerboard-render';

async function countPages(model: SiteModel): Promise<number> {
  return sitePaths(model).length;
}

/** report.json, cohorts/<hex>.json, the evidence (blobs, manifests, listings: publish.ts), leaderboard.csv, sitemap.xml. */
async function writeDataFiles(model: SiteModel, dir: string): Promise<number> {
  let count = 0;
  const put = async (path: string, bytes: string | Uint8Array) => {
    const file = join(dir, ...path.split('/').filter(Boolean));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes);
    count++;
  };
  await put('/report.json', model.reportText);
  for (const cohort of model.report.cohorts) await put(`/cohorts/${hexOf(cohort.cohort_id)}.json`, canonicalJson(cohort));
  count += await writeEvidence(model.bundles, dir);
  for (const retained of model.retained) await put(`/reports/${retained.hex}.json`, retained.bytes);
  await put('/feed.xml', atomFeed(model));
  await put('/leaderboard.csv', leaderboardCsv(model));
  await put('/sitemap.xml', sitemap(model));
  return count;
}

/** A plain decimal number (our own numbers, e.g. a negative delta): never a formula, left as it is. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/;

function csvField(value: string): string {
  const formula = /^[=+\-@\t\r]/.test(value) && !PLAIN_NUMBER.test(value);
  return /[",\n\r]/.test(value) || formula ? `"${(formula ? `'${value}` : value).replace(/"/g, '""')}"` : value;
}

/** The leaderboard as CSV: one row per cohort, boards in report order (cells that could be formulas are neutralised). */
export function leaderboardCsv(model: SiteModel): string {
  const rows = [['board_id', 'rank', 'cohort_id', 'model', 'agent', 'agent_version', 'role', 'resolved', 'graded', 'rate', 'wilson_low', 'wilson_high', 'delta', 'delta_low', 'delta_high', 'improved', 'regressed', 'verdict', 'cost', 'attempts']];
  for (const board of model.boards) {
    for (const id of board.cohorts) {
      const c = model.cohorts.get(id)!;
      rows.push([
        board.board_id,
        String(c.rank),
        c.cohort_id,
        c.subject.model,
        c.subject.agent.name,
        c.subject.agent.version,
        c.subject.role,
        String(c.headline.resolved),
        String(c.headline.graded),
        c.headline.rate === null ? '' : String(c.headline.rate),
        c.headline.wilson ? String(c.headline.wilson[0]) : '',
        c.headline.wilson ? String(c.headline.wilson[1]) : '',
        c.delta === null || c.delta.rate === null ? '' : String(c.delta.rate),
        c.delta?.interval ? String(c.delta.interval[0]) : '',
        c.delta?.interval ? String(c.delta.interval[1]) : '',
        c.classes ? String(c.classes.improved) : '',
        c.classes ? String(c.classes.regressed) : '',
        c.verdict ?? '',
        moneyText(c.cost, c.attempts),
        String(c.attempts),
      ]);
    }
  }
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Every page of the site. */
export function sitePaths(model: SiteModel): string[] {
  return [
    '/',
    ...model.boards.map((b) => `/boards/${hexOf(b.board_id)}/`),
    ...[...model.cohorts.keys()].map((id) => `/cohorts/${hexOf(id)}/`),
    ...[...model.plans.keys()].map((hex) => `/plans/${hex}/`),
    '/incompatibilities/',
    '/rejected/',
    '/verify/',
    '/reports/',
    ...model.retained.map((r) => `/reports/${r.hex}/`),
  ];
}

/** Atom feed: one entry per retained report, dated by its evidence, never by the build clock. */
export function atomFeed(model: SiteModel): string {
  const dated = model.retained.filter((r) => r.report !== null);
  const updated = dated.at(-1)?.report?.evidence_date ?? model.date ?? '1970-01-01T00:00:00Z';
  const entries = [...dated].reverse().map((r) => {
    const report = r.report!;
    const url = absolute(model, `/reports/${r.hex}/`);
    return [
      '  <entry>',
      `    <id>urn:sha256:${r.hex}</id>`,
      `    <title>${xmlEscape(`${report.config.title}: report ${r.hex.slice(0, 12)}`)}</title>`,
      `    <updated>${xmlEscape(report.evidence_date ?? updated)}</updated>`,
      `    <link href="${xmlEscape(url)}"/>`,
      `    <summary>${xmlEscape(`${report.boards.length} boards, ${report.cohorts.length} cohorts, evidence up to ${report.evidence_date ?? 'n/a'}${r.problems.length ? '; the retained file does not re-derive' : ''}`)}</summary>`,
      '  </entry>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <title>${xmlEscape(model.title)}</title>`,
    `  <id>${xmlEscape(model.siteUrl)}</id>`,
    `  <updated>${xmlEscape(updated)}</updated>`,
    `  <link rel="self" href="${xmlEscape(absolute(model, '/feed.xml'))}"/>`,
    `  <link href="${xmlEscape(model.siteUrl)}"/>`,
    `  <author><name>${xmlEscape(model.title)}</name></author>`,
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

function sitemap(model: SiteModel): string {
  const urls = sitePaths(model).map((p) => `  <url><loc>${xmlEscape(absolute(model, p))}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}
