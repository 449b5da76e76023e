/**
 * The site build: the pipeline runs once (read, verify, analyse), then Astro
 * renders the model into a staging directory, the raw evidence and the
 * machine-readable files are written beside the pages, and the directory is
 * renamed into place (atomic.ts). A failed build leaves the previous output
 * untouched.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { basePathOf, type Config } from '../config/config.ts';
import { canonicalJson } from '../json/canonical.ts';
import type { Report } from '../report/schema.ts';
import { hexOf, moneyText } from './format.ts';
import { buildSiteModel, type SiteModel } from './model.ts';
import { absolute, boardsOf, cohortOf } from './view.ts';
import { readRetained, type RetainedReport } from '../history/retained-reports.ts';
import { replaceDirectory } from './atomic.ts';
import { publishedOf, writeEvidence, type Published, type ReadBundle } from './publish.ts';
import { rebaseSite } from './base-path.ts';
import type { HistoryCheck } from '../history/compare.ts';
import { processAlive } from './build-lock.ts';

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

/**
 * Builds the site for a report into `outDir` (replaced atomically: see
 * atomic.ts), from the report and the bundles it was built from as read
 * (where each sits, its content digest and entries: what is published).
 */
export async function buildSite(report: Report, bundles: readonly ReadBundle[], config: Config, options: SiteBuildOptions): Promise<SiteBuildResult> {
  const retained = await readRetained(options.retainedDir);
  const published = publishedOf(report, bundles);
  const model = await buildSiteModel(report, published, config, {
    retained,
    sourceDate: options.sourceDate ?? null,
    ...(options.history ? { history: options.history } : {}),
  });
  await mkdir(dirname(resolve(options.outDir)), { recursive: true });
  return await replaceDirectory(options.outDir, async (staging) => {
    options.log('rendering pages');
    await renderPages(model, staging, options.outDir);
    // Under a base path (site_url with a path), every root-relative link moves under it.
    await rebaseSite(staging, basePathOf(config));
    options.log('writing raw evidence and data files');
    const files = await writeDataFiles(model, published, retained.reports, staging);
    return { outDir: resolve(options.outDir), pages: await countPages(model), files };
  });
}

/** The module id under which the pages import the site model. */
export const SITE_MODEL_MODULE = 'virtual:ledgerboard/site-model';

/**
 * A Vite plugin serving `model` as the module {@link SITE_MODEL_MODULE}
 * (its default export, parsed from JSON): how the model reaches the pages,
 * components and layouts, as data of this one render, never a global.
 */
export function siteModelPlugin(model: SiteModel): VitePlugin {
  const resolved = `\0${SITE_MODEL_MODULE}`;
  const json = JSON.stringify(model);
  return {
    name: 'ledgerboard:site-model',
    resolveId: (id: string) => (id === SITE_MODEL_MODULE ? resolved : undefined),
    load: (id: string) => (id === resolved ? `export default JSON.parse(${JSON.stringify(json)});\n` : undefined),
  };
}

type VitePlugin = { name: string; resolveId: (id: string) => string | undefined; load: (id: string) => string | undefined };

/**
 * Astro renders in a directory of its own beside the output
 * (`<out>.render-XXXXXX`), never inside the project, so a build runs from a
 * read-only checkout or install. That directory is Astro's root: its
 * `.astro/`, its caches and its output all lie there, and the pages and
 * public files are read from the project (srcDir, publicDir). Two things
 * keep Astro's server chunks out of the site and apart between builds:
 * the working directory is the render directory while Astro runs (Astro
 * writes its server chunks into the output, and removes them itself, only
 * when the output lies inside the working directory; otherwise it writes
 * them to a shared `.astro/` and copies that whole directory into the
 * output, which once published manifest_*.mjs and content-*.mjs and mixed
 * concurrent builds' chunks), and every path is a real path (no symbolic
 * link), so that test holds. The chunks import their packages from where
 * they lie, so the render directory's `node_modules` links to the packages
 * the project resolves (see linkPackages). The directory is removed when the
 * render ends; one left by a killed build is removed by the next build into
 * the same output (removeStaleRenders, under the build lock).
 */
async function renderPages(model: SiteModel, staging: string, target: string): Promise<void> {
  const { build } = await import('astro');
  const { default: projectConfig } = (await import(pathToFileURL(join(PROJECT_ROOT, 'astro.config.mjs')).href)) as { default: AstroInlineConfig };
  const work = await realpath(await mkdtemp(renderPrefix(target)));
  const cwd = process.cwd();
  try {
    await writeFile(join(work, RENDER_MARKER), `${process.pid}\n`);
    await linkPackages(join(work, 'node_modules'));
    const out = join(work, 'out');
    process.chdir(work);
    await build({
      ...projectConfig,
      configFile: false,
      root: work,
      srcDir: join(PROJECT_ROOT, 'src'),
      publicDir: join(PROJECT_ROOT, 'public'),
      outDir: out,
      cacheDir: join(work, 'cache'),
      vite: { ...projectConfig.vite, cacheDir: join(work, 'vite'), plugins: [...(projectConfig.vite?.plugins ?? []), siteModelPlugin(model)] },
      logLevel: 'error',
      mode: 'production',
    });
    await rm(staging, { recursive: true, force: true });
    await rename(out, staging);
  } finally {
    process.chdir(cwd);
    await removeRender(work);
  }
}

/** Removes a render directory, its marker last: killed midway, it is left with its marker or empty (see removeStaleRenders). */
async function removeRender(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) if (name !== RENDER_MARKER) await rm(join(dir, name), { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}

type AstroInlineConfig = NonNullable<Parameters<typeof import('astro').build>[0]>;

/** The name every render directory of a build into `target` starts with (mkdtemp adds six characters). */
export function renderPrefix(target: string): string {
  return `${resolve(target)}.render-`;
}

/** A file in every render directory holding the pid of the build that made it: how a stale one is recognised. */
export const RENDER_MARKER = '.ledgerboard-render';

/**
 * Makes `dir` a node_modules that resolves every package name as Node
 * resolves it from the project: a link to the package in the first
 * node_modules on the project's lookup path (its own, then its ancestors'),
 * scoped packages one level down. A single link to one node_modules would
 * miss packages hoisted into an ancestor when ledgerboard is installed as a
 * dependency.
 */
async function linkPackages(dir: string): Promise<void> {
  await mkdir(dir);
  const done = new Set<string>();
  for (const modules of lookupPath(PROJECT_ROOT)) {
    const names = await readdir(modules).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        const scoped = await readdir(join(modules, name)).catch(() => [] as string[]);
        for (const inner of scoped.sort()) await linkOnce(join(modules, name, inner), join(dir, name, inner), `${name}/${inner}`, done);
      } else await linkOnce(join(modules, name), join(dir, name), name, done);
    }
  }
}

async function linkOnce(source: string, link: string, name: string, done: Set<string>): Promise<void> {
  if (done.has(name) || name.endsWith('/.bin')) return;
  done.add(name);
  await mkdir(dirname(link), { recursive: true });
  await symlink(source, link);
}

/** Node's node_modules lookup path from a directory (NODE_MODULES_PATHS: a directory named node_modules is not searched inside). */
function lookupPath(from: string): string[] {
  const paths: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') paths.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) return paths;
  }
}

/**
 * Removes the render directories that killed builds into `target` left
 * behind: a directory named `<target>.render-XXXXXX` that holds the render
 * marker, whose build (the pid in the marker) is not running, or that is
 * empty. Call only while
 * holding the build lock on `target`: no live build into `target` can then
 * be rendering. Returns the directories removed.
 */
export async function removeStaleRenders(target: string): Promise<string[]> {
  const prefix = renderPrefix(target);
  const parent = dirname(prefix);
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const path = join(parent, name);
    if (!path.startsWith(prefix) || path.length !== prefix.length + 6) continue;
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isDirectory()) continue;
    const marker = await readFile(join(path, RENDER_MARKER), 'utf8').catch(() => null);
    if (marker === null) {
      // No marker: a render killed while being made or removed leaves it empty; anything else is not provably ours.
      if (await rmdir(path).then(() => true, () => false)) removed.push(path);
      continue;
    }
    const pid = Number(marker.trim());
    // A marker cut short by a kill names no live build either.
    if (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) continue;
    await removeRender(path);
    removed.push(path);
  }
  return removed;
}


async function countPages(model: SiteModel): Promise<number> {
  return sitePaths(model).length;
}

/** report.json, cohorts/<hex>.json, the evidence (blobs, manifests, listings: publish.ts), leaderboard.csv, sitemap.xml. */
async function writeDataFiles(model: SiteModel, published: Published, retained: readonly RetainedReport[], dir: string): Promise<number> {
  let count = 0;
  const put = async (path: string, bytes: string | Uint8Array) => {
    const file = join(dir, ...path.split('/').filter(Boolean));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes);
    count++;
  };
  await put('/report.json', `${canonicalJson(model.report)}\n`);
  for (const cohort of model.report.cohorts) await put(`/cohorts/${hexOf(cohort.cohort_id)}.json`, canonicalJson(cohort));
  count += await writeEvidence(published.bundles, dir);
  for (const r of retained) await put(`/reports/${r.hex}.json`, r.bytes);
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
  for (const board of boardsOf(model)) {
    for (const id of board.cohorts) {
      const c = cohortOf(model, id);
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
    ...boardsOf(model).map((b) => `/boards/${hexOf(b.board_id)}/`),
    ...model.report.cohorts.map((c) => `/cohorts/${hexOf(c.cohort_id)}/`),
    ...Object.keys(model.plans).map((hex) => `/plans/${hex}/`),
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
