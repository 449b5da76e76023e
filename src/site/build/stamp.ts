/**
 * The stamp: the report-wide parts of every page, written after the render.
 *
 * The layout (src/layouts/Base.astro) renders two markers instead of the
 * parts of a page that name the report (site/cite.ts): the head marker
 * (`<!--ledgerboard:cite-head [title, path, cites]-->`, the page's cite
 * inputs as JSON with `<`, `>`, `&` escaped) in place of the Highwire
 * citation_* meta tags, and the foot marker (`<!--ledgerboard:cite-foot-->`)
 * in place of the footer's content (the "Cite this" block and the report
 * line). {@link stampPage} replaces them with the HTML the layout rendered
 * before the stamp existed, byte for byte, from the page's cite inputs and
 * the report-wide part of the model ({@link StampContext}). So a page's bytes
 * before the stamp do not depend on the current report's id or date, and a
 * page whose slice did not change is taken from the previous output and
 * stamped again (build-site.ts) instead of rendered.
 *
 * A page must hold exactly one head marker and one foot marker and no
 * other `<!--ledgerboard:` text, else the build fails (a bug: untrusted
 * text cannot write `<!--` into a page, site/cite.ts).
 *
 * Pure: strings and bytes in, bytes out.
 */
import { bibtexEntry, CITE_FOOT_MARKER, CITE_HEAD_MARKER_START, CITE_MARKER_PREFIX, shownPageTitle, type PageCite } from '../views/cite.ts';
import { short } from '../views/format.ts';
import { rebaseHtml } from './base-path.ts';
import { relativeLinks } from './offline.ts';
import { pageFile } from '../model/page-slices.ts';
import { plainCitation } from '../views/cite.ts';

/** The report-wide inputs of the stamp (in no page's key). */
export interface StampContext {
  /** The site's URL (config site_url) and title. */
  siteUrl: string;
  siteTitle: string;
  /** The model's date (site/model.ts: the evidence date, or SOURCE_DATE_EPOCH). */
  date: string | null;
  /** The current report's id, evidence date and generator. */
  reportId: string;
  evidenceDate: string | null;
  generator: { name: string; version: string };
  /** The base path ("/" or "/x/"): root-relative links of the stamped HTML move under it (base-path.ts). */
  base: string;
  /** An offline copy (offline.ts): the stamped HTML's root-relative links are written relative to the page instead. */
  offline?: boolean;
}

/** Where the stamp wrote its two parts in a page's final bytes, and the page's cite inputs: what a later build needs to stamp it again. */
export interface StampedPage {
  /** Byte offset and length of the stamped head part, then of the stamped foot part. */
  at: [number, number, number, number];
  cite: PageCite;
}

/** HTML text escaping as Astro's (html-escaper). */
function text(value: string): string {
  return value.replace(/[&<>'"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&quot;' })[ch]!);
}

/**
 * An attribute as Astro writes a string one: ` name="value"` with `&` and `"`
 * as `&#38;` and `&#34;`, an empty value as the bare name. (Astro writes a
 * value that parses as an http(s) URL and holds `&` unescaped; the stamp
 * escapes it always: the one place its bytes may differ from Astro's, and
 * only for such a value.)
 */
function attribute(name: string, value: string): string {
  if (value === '') return ` ${name}`;
  return ` ${name}="${value.replace(/&/g, '&#38;').replace(/"/g, '&#34;')}"`;
}

/** The page's URL (site/view.ts absolute). */
function absoluteUrl(siteUrl: string, path: string): string {
  return new URL(path.replace(/^\//, ''), siteUrl).href;
}

/** What both parts compute from the page and the context (as the layout did). */
function citeFacts(ctx: StampContext, page: PageCite) {
  const cites = page.cites;
  const url = absoluteUrl(ctx.siteUrl, page.path);
  const citedId = cites?.reportId ?? ctx.reportId;
  // Evidence dated only by the importers' placeholder (src/site/views/not-recorded.ts) is not dated.
  const rawDate = cites ? cites.date : ctx.date;
  const date = (rawDate !== null && rawDate === (cites ? cites.date : ctx.evidenceDate) && Date.parse(rawDate) === 0 ? null : rawDate) ?? '';
  return { url, citedId, date, citeDate: date.slice(0, 10), citeYear: date.slice(0, 4), upTo: date ? `evidence up to ${date}` : 'no dated evidence' };
}

/** The Highwire citation meta tags of a page (what the head marker stands for). */
export function citeHead(ctx: StampContext, page: PageCite): string {
  const f = citeFacts(ctx, page);
  return [
    `<meta${attribute('name', 'citation_title')}${attribute('content', `${ctx.siteTitle}: ${shownPageTitle(page.title)}`)}>`,
    f.citeDate ? `<meta${attribute('name', 'citation_publication_date')}${attribute('content', f.citeDate.replaceAll('-', '/'))}>` : '',
    `<meta${attribute('name', 'citation_public_url')}${attribute('content', f.url)}>`,
    `<meta${attribute('name', 'citation_technical_report_number')}${attribute('content', f.citedId)}>`,
  ].join('');
}

/** The footer's content of a page (what the foot marker stands for): the "Cite this" block and the report line. */
export function citeFoot(ctx: StampContext, page: PageCite): string {
  const f = citeFacts(ctx, page);
  const cites = page.cites;
  const citation = { key: `ledgerboard-${short(f.citedId)}`, siteTitle: ctx.siteTitle, title: page.title, url: f.url, year: f.citeYear, note: `ledgerboard report ${f.citedId}, ${f.upTo}` };
  const bibtex = bibtexEntry(citation);
  const plain = plainCitation({ ...citation, note: `ledgerboard report ${f.citedId}, ${f.date ? `evidence up to ${f.citeDate}` : f.upTo}` });
  const from = !cites && f.date ? `evidence up to ${f.date}` : ctx.date && !(ctx.date === ctx.evidenceDate && Date.parse(ctx.date) === 0) ? `evidence up to ${ctx.date}` : 'no dated evidence';
  const holes: Record<string, string> = {
    citedAttr: f.citedId.replace(/&/g, '&#38;').replace(/"/g, '&#34;'),
    plain: text(plain),
    bibtex: text(bibtex),
    retained: cites && cites.reportId !== ctx.reportId ? `This page shows the retained report <code class="wrap">${text(cites.reportId)}</code>. ` : '',
    which: cites ? 'Current report' : 'Report',
    reportId: text(ctx.reportId),
    generator: `${text(ctx.generator.name)} ${text(ctx.generator.version)}`,
    from: text(from),
  };
  // One pass: a hole's text (evidence in a title) is never read again as a hole.
  return FOOT_TEMPLATE.replace(/\{(\w+)\}/g, (_, name: string) => holes[name]!);
}

/** The footer as Astro rendered it (compressed whitespace), with its holes. */
const FOOT_TEMPLATE =
  '<section aria-labelledby="cite-heading" class="cite" data-cite-report="{citedAttr}"> <h2 id="cite-heading">Cite this</h2> <p class="cite-plain">{plain}</p> <details> <summary>BibTeX</summary> <pre><code>{bibtex}</code></pre> </details> </section> <p class="meta"> {retained} {which} <code class="wrap">{reportId}</code>, built by {generator} from {from}.\n        Every number on this site is re-derivable from its published evidence: a stranger\'s verifier re-runs the format\'s rules, the imports and the analysis and compares, byte for byte (<a href="/verify/">how to verify</a>; <a href="/methodology/#trust">what stays trust</a>).\n</p>';

/** The cite inputs of a head marker's JSON; throws when it is not one (a bug: the layout writes it). */
function parseCite(json: string): PageCite {
  const value: unknown = JSON.parse(json);
  const ok =
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    (value[2] === null || (Array.isArray(value[2]) && value[2].length === 2 && typeof value[2][0] === 'string' && (value[2][1] === null || typeof value[2][1] === 'string')));
  if (!ok) throw new Error(`the stamp: a head marker whose inputs are not [title, path, cites]: ${json.slice(0, 200)}`);
  const v = value as [string, string, [string, string | null] | null];
  return { title: v[0], path: v[1], cites: v[2] === null ? null : { reportId: v[2][0], date: v[2][1] } };
}

const PREFIX = Buffer.from(CITE_MARKER_PREFIX);
const HEAD_START = Buffer.from(CITE_HEAD_MARKER_START);
const FOOT = Buffer.from(CITE_FOOT_MARKER);
const END = Buffer.from('-->');

/** Every offset of `needle` in `bytes`. */
function offsetsOf(bytes: Buffer, needle: Buffer): number[] {
  const found: number[] = [];
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/**
 * Stamps one rendered page (`file` names it in errors): its two markers
 * replaced by the stamped HTML (rebased under ctx.base). Throws unless the
 * page holds exactly one head marker, one foot marker after it, and no other
 * `<!--ledgerboard:` text.
 */
export function stampPage(ctx: StampContext, file: string, rendered: Uint8Array): { bytes: Buffer; stamped: StampedPage } {
  const bytes = Buffer.from(rendered.buffer, rendered.byteOffset, rendered.byteLength);
  const all = offsetsOf(bytes, PREFIX);
  const heads = offsetsOf(bytes, HEAD_START);
  const foots = offsetsOf(bytes, FOOT);
  if (heads.length !== 1 || foots.length !== 1 || all.length !== 2 || heads[0]! > foots[0]!) {
    throw new Error(`the stamp: ${file} holds ${heads.length} head and ${foots.length} foot markers and ${all.length} "${CITE_MARKER_PREFIX}" in all (exactly one head, then one foot, and nothing else, is a page of the layout)`);
  }
  const headAt = heads[0]!;
  const headEnd = bytes.indexOf(END, headAt + HEAD_START.length);
  if (headEnd === -1 || headEnd > foots[0]!) throw new Error(`the stamp: ${file}: a head marker that does not end`);
  const cite = parseCite(bytes.subarray(headAt + HEAD_START.length, headEnd).toString('utf8'));
  // An offline copy's stamped links are relative to the page's file, named by its path (a bug if they differ).
  if (ctx.offline === true && pageFile(cite.path) !== file.replace(/^\//, '')) throw new Error(`the stamp: ${file} holds the cite inputs of ${JSON.stringify(cite.path)}`);
  return restamp(ctx, bytes, [headAt, headEnd + END.length - headAt, foots[0]!, FOOT.length], cite);
}

/**
 * A page whose two parts sit at `at` (byte offset and length of the head
 * part, then of the foot part) stamped for `ctx`: what {@link stampPage}
 * does to a rendered page, and what a build does to a page taken from the
 * previous output (the parts the previous stamp wrote replaced).
 */
export function restamp(ctx: StampContext, bytes: Uint8Array, at: readonly [number, number, number, number], cite: PageCite): { bytes: Buffer; stamped: StampedPage } {
  const [hs, hl, fs, fl] = at;
  if (!(hs >= 0 && hl >= 0 && fs >= hs + hl && fl >= 0 && fs + fl <= bytes.length)) throw new Error(`the stamp: parts out of the page (${at.join(', ')} of ${bytes.length} bytes)`);
  const links = (html: string): string => (ctx.offline === true ? relativeLinks(html, pageFile(cite.path)) : rebaseHtml(html, ctx.base));
  const head = Buffer.from(links(citeHead(ctx, cite)));
  const foot = Buffer.from(links(citeFoot(ctx, cite)));
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = Buffer.concat([before.subarray(0, hs), head, before.subarray(hs + hl, fs), foot, before.subarray(fs + fl)]);
  const footAt = hs + head.length + (fs - hs - hl);
  return { bytes: out, stamped: { at: [hs, head.length, footAt, foot.length], cite } };
}
