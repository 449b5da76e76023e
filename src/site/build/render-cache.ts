/**
 * The render cache: what Astro renders is a function of the site model (plain
 * data, render.ts hands it to the pages as JSON) and of the code that renders
 * it, so a build whose model and code are those of a kept render takes the
 * kept pages instead of running Astro again (the larger part of a rebuild
 * with nothing changed, once verification and the report are reused).
 *
 * - The key is the SHA-256 of the format name, the site code identity
 *   ({@link siteCodeIdentity}) and the model's lines (render.ts siteModelLines) exactly as the pages
 *   receive it.
 * - An entry is one file `render-<key-hex>.v8` in the build's cache
 *   directory: a first line with the format, the key and the HMAC (cache/sealed.ts) of the
 *   rest, then the rendered files (relative path and bytes) serialised by V8.
 *   It is taken only when the line matches, the seal checks,
 *   deserialises to a list of files and every path is a plain relative path
 *   (no `.`, `..` or empty segment, no backslash or NUL, not absolute): an
 *   entry that does not check is ignored and the pages rendered again.
 * - Only Astro's output is kept: the raw evidence, data files, attestations
 *   and the base-path rewrite are done on every build, from the bytes read.
 *
 * `--no-cache` renders every page; the cache only saves time.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { readSealed, writeSealed, type CacheStore } from '../../cache/sealed.ts';
import type { SiteModel } from '../model/model-types.ts';
import { plainPath } from './plain-path.ts';
import { PROJECT_ROOT, siteModelLines } from './render.ts';
import type { StampedPage } from './stamp.ts';

/** The name of the entry format, on the first line of every render entry. */
export const RENDER_CACHE_FORMAT = 'ledgerboard.render-cache.v1';

/** A rendered file: its path under the output (`/`-separated) and its bytes. */
export interface RenderedFile {
  path: string;
  bytes: Uint8Array;
}

let identity: string | undefined;

/**
 * What a render depends on besides the model: every file of the project's
 * `src/` and `public/` (pages, components, layouts, styles, scripts, and the
 * site code they import), `astro.config.mjs`, `package.json` and
 * `package-lock.json` when present (the versions of Astro and of what it
 * renders with), and Node's version. Read once per process.
 */
export async function siteCodeIdentity(): Promise<string> {
  if (identity !== undefined) return identity;
  const hash = createHash('sha256');
  const files: string[] = [];
  for (const top of ['src', 'public']) files.push(...(await listFiles(join(PROJECT_ROOT, top))));
  for (const name of ['astro.config.mjs', 'package.json', 'package-lock.json']) files.push(join(PROJECT_ROOT, name));
  for (const file of files.sort()) {
    const bytes = await readFile(file).catch(() => null);
    if (bytes === null) continue;
    hash.update(`${relative(PROJECT_ROOT, file).split('\\').join('/')}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  hash.update(`node ${process.version}`);
  return (identity = `sha256:${hash.digest('hex')}`);
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The key of the render of this model. */
export async function renderKey(model: SiteModel): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`${RENDER_CACHE_FORMAT}\n${await siteCodeIdentity()}\n`);
  // Line by line, as the pages receive it: the model as one string is past what V8 holds at 10^4 bundles.
  for (const line of siteModelLines(model)) hash.update(line);
  return `sha256:${hash.digest('hex')}`;
}

/** The kept render for a key, or null (none, or one that does not check: see the module comment). */
export async function readKeptRender(cache: CacheStore, key: string): Promise<RenderedFile[] | null> {
  const body = await readSealed(cache, entryPath(cache.dir, key), RENDER_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const files: unknown = deserialize(body);
    if (!Array.isArray(files) || files.length === 0) return null;
    const seen = new Set<string>();
    for (const f of files) {
      if (typeof f !== 'object' || f === null || !plainPath((f as RenderedFile).path) || !((f as RenderedFile).bytes instanceof Uint8Array)) return null;
      if (seen.has((f as RenderedFile).path)) return null;
      seen.add((f as RenderedFile).path);
    }
    return files as RenderedFile[];
  } catch {
    return null;
  }
}

/** Every file under `dir` (sorted paths), as a render to keep. */
export async function renderedFiles(dir: string): Promise<RenderedFile[]> {
  const paths = (await listFiles(dir)).map((p) => relative(dir, p).split('\\').join('/')).sort();
  return Promise.all(paths.map(async (path) => ({ path, bytes: await readFile(join(dir, ...path.split('/'))) })));
}

/** Keeps a render under its key (atomically; a failure is ignored: the cache only saves time). */
export async function keepRender(cache: CacheStore, key: string, files: readonly RenderedFile[]): Promise<void> {
  await writeSealed(cache, entryPath(cache.dir, key), RENDER_CACHE_FORMAT, key, serialize(files.map((f) => ({ path: f.path, bytes: f.bytes }))));
}

/** Writes a kept render's files under `dir`. */
export async function writeRender(dir: string, files: readonly RenderedFile[]): Promise<void> {
  for (const file of files) {
    const target = join(dir, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.bytes, { flag: 'wx' });
  }
}

function entryPath(cacheDir: string, key: string): string {
  return join(cacheDir, `render-${key.slice('sha256:'.length)}.v8`);
}

/** The name of the page listing format (render-cache.ts page listings). */
export const PAGE_LISTING_FORMAT = 'ledgerboard.page-listing.v2';

/**
 * The kept page listing of an output: for each page, the key it was rendered
 * under (page-slices.ts) and the path, size and SHA-256 of its file as the
 * output holds it; and the render's other files (the public files Astro
 * copies), under the site code identity. A claim "key K renders to these
 * bytes", so it is sound for any output: a page is taken from the previous
 * output only when its key is the kept one and its file there re-hashes to
 * the kept digest and size (anything else is rendered again). Each page's
 * file is as stamped (stamp.ts): `stamp` says where its two stamped parts sit
 * (byte offset and length of each) and the page's cite inputs, so a page
 * taken is stamped again there for the current report.
 */
export interface PageListing {
  pages: Record<string, { key: string; file: [string, number, string]; stamp: StampedPage }>;
  assets: { key: string; files: [string, number, string][] };
}

/** The kept page listing of the output named `outDir`, or null (none, or one that does not check). */
export async function readPageListing(cache: CacheStore, outDir: string): Promise<PageListing | null> {
  const key = pageListingKey(outDir);
  const body = await readSealed(cache, join(cache.dir, `pages-${key.slice('sha256:'.length)}.json`), PAGE_LISTING_FORMAT, key);
  if (body === null) return null;
  try {
    const value = JSON.parse(body.toString('utf8')) as PageListing;
    const fileOk = (f: unknown) => Array.isArray(f) && f.length === 3 && plainPath(f[0]) && Number.isSafeInteger(f[1]) && typeof f[2] === 'string' && /^[0-9a-f]{64}$/.test(f[2]);
    if (typeof value !== 'object' || value === null || typeof value.pages !== 'object' || value.pages === null || typeof value.assets !== 'object' || value.assets === null) return null;
    if (typeof value.assets.key !== 'string' || !Array.isArray(value.assets.files) || !value.assets.files.every(fileOk)) return null;
    for (const page of Object.values(value.pages)) if (typeof page !== 'object' || page === null || typeof page.key !== 'string' || !fileOk(page.file) || !stampOk(page.stamp, page.file[1])) return null;
    return value;
  } catch {
    return null;
  }
}

/** Keeps the page listing of the output named `outDir` (atomically; a failure is ignored). */
export async function keepPageListing(cache: CacheStore, outDir: string, listing: PageListing): Promise<void> {
  const key = pageListingKey(outDir);
  await writeSealed(cache, join(cache.dir, `pages-${key.slice('sha256:'.length)}.json`), PAGE_LISTING_FORMAT, key, JSON.stringify(listing));
}

/** A listing's stamp entry: four offsets that fit the file, in order, and cite inputs of the right shape. */
function stampOk(stamp: unknown, size: number): stamp is StampedPage {
  if (typeof stamp !== 'object' || stamp === null) return false;
  const { at, cite } = stamp as StampedPage;
  if (!Array.isArray(at) || at.length !== 4 || !at.every((n) => Number.isSafeInteger(n) && n >= 0)) return false;
  if (!(at[0] + at[1] <= at[2] && at[2] + at[3] <= size)) return false;
  if (typeof cite !== 'object' || cite === null || typeof cite.title !== 'string' || typeof cite.path !== 'string') return false;
  return cite.cites === null || (typeof cite.cites === 'object' && typeof cite.cites.reportId === 'string' && (cite.cites.date === null || typeof cite.cites.date === 'string'));
}

function pageListingKey(outDir: string): string {
  return `sha256:${createHash('sha256').update(`${PAGE_LISTING_FORMAT}\n${outDir}`).digest('hex')}`;
}

/** The digest of the model's lines as the pages receive them (the whole-model part of a page key). */
export function modelDigest(model: SiteModel): string {
  const hash = createHash('sha256');
  for (const line of siteModelLines(model)) hash.update(line);
  return `sha256:${hash.digest('hex')}`;
}
