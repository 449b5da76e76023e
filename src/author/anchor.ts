/**
 * `freeze --anchor <URL>` and `freeze --anchor-only <DIR> --anchor <URL>`
 * (FORMAT.md 12): ask RFC 3161 time-stamp authorities for a token over a
 * frozen plan's id, and keep each answer that is a granted answer to the
 * request as `<DIR>/anchors/<name>.tsr`, create-only, for `seal` to list.
 *
 * The request: HTTP POST of the DER TimeStampReq (anchor-request.ts) with
 * Content-Type application/timestamp-query to an http: or https: URL; the
 * whole exchange within ANCHOR_TIMEOUT_MS; an answer of HTTP 200 only (a
 * redirect is not followed: it fails, naming where it pointed); the body
 * read up to ANCHOR_MAX_BYTES and no further. The answer is kept only when it
 * is a TimeStampResp with status granted or grantedWithMods whose token has
 * the request's imprint and nonce; the token's signature is the verifier's
 * to check. `<name>` is the URL's host name, lower case, every character
 * outside [a-z0-9.-] replaced by "-" (nothing of the answer names the
 * file), with "-2", "-3", ... when the name is taken.
 *
 * A failure is an outcome, not an exception: the plan stays frozen and the
 * caller says what failed (docs/cli.md).
 */
import { join } from 'node:path';
import { DIGEST_PATTERN, selfId } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { readRegularFile } from '../files/read.ts';
import { buildAnchorRequest, checkAnchorAnswer, AnchorAnswerProblem } from './anchor-request.ts';
import { exists, mkdirDurable, writeCreateOnly } from './create-only.ts';
import { AlreadyExistsError, refuse } from './problems.ts';

/** The whole exchange with one authority, in milliseconds. */
export const ANCHOR_TIMEOUT_MS = 30_000;
/** The most bytes of an answer read (a token is a few KiB). */
export const ANCHOR_MAX_BYTES = 1024 * 1024;
/** The most bytes of a plan.json --anchor-only reads. */
const MAX_PLAN_BYTES = 16 * 1024 * 1024;
/** Names tried per host (`<host>.tsr`, `<host>-2.tsr`, ...). */
const MAX_NAMES = 100;

/** A URL `--anchor` accepts, or why not. */
export function anchorUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--anchor ${JSON.stringify(text.slice(0, 200))} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--anchor takes http: and https: URLs only (got ${JSON.stringify(url.protocol)})`;
  return null;
}

/** The file name an authority's token gets, from its URL's host alone. */
export function anchorBaseName(url: string): string {
  const name = new URL(url).hostname
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 100)
    .replace(/[.-]+$/, '');
  return name === '' ? 'tsa' : name;
}

/** What asking one authority came to. */
export type AnchorOutcome =
  | { url: string; host: string; ok: true; path: string; genTime: string; status: 'granted' | 'grantedWithMods'; /** The bytes written to `path` (the freeze log names their digest). */ token: Uint8Array }
  | { url: string; host: string; ok: false; message: string };

/** How the authorities are asked (tests shorten the bounds). */
export interface AnchorOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** Whether the request carries a nonce (always, but for tests). */
  nonce?: boolean;
}

/**
 * Asks each authority in turn for a token over `planId` and writes each
 * good answer under `dir/anchors/`. `progress` gets "asking <host> ... " and
 * then the rest of the line ("done ...\n" or "failed\n").
 */
export async function anchorPlan(dir: string, planId: string, urls: readonly string[], progress: (text: string) => void, options: AnchorOptions = {}): Promise<AnchorOutcome[]> {
  const outcomes: AnchorOutcome[] = [];
  for (const url of urls) {
    const host = new URL(url).host;
    progress(`asking ${host} ... `);
    const outcome = await askOne(dir, planId, url, host, options);
    progress(outcome.ok ? `done: ${outcome.status} at ${outcome.genTime}, ${outcome.path}\n` : 'failed\n');
    outcomes.push(outcome);
  }
  return outcomes;
}

async function askOne(dir: string, planId: string, url: string, host: string, options: AnchorOptions): Promise<AnchorOutcome> {
  const request = buildAnchorRequest(planId, { nonce: options.nonce ?? true });
  const fail = (message: string): AnchorOutcome => ({ url, host, ok: false, message });
  let body: Buffer;
  try {
    body = await post(url, request.der, options.timeoutMs ?? ANCHOR_TIMEOUT_MS, options.maxBytes ?? ANCHOR_MAX_BYTES);
  } catch (error) {
    if (error instanceof PostFailure) return fail(error.reason);
    throw error;
  }
  const answer = checkAnchorAnswer(body, request);
  if (answer instanceof AnchorAnswerProblem) return fail(answer.message);
  const anchors = join(dir, 'anchors');
  const cannotWrite = (error: unknown, where: string): AnchorOutcome => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    return fail(`the token came, but ${where} cannot be written (${code})`);
  };
  try {
    await mkdirDurable(anchors);
  } catch (error) {
    return cannotWrite(error, anchors);
  }
  const base = anchorBaseName(url);
  for (let n = 1; n <= MAX_NAMES; n++) {
    const name = `${base}${n === 1 ? '' : `-${n}`}.tsr`;
    const path = join(anchors, name);
    try {
      if (await exists(path)) continue;
      await writeCreateOnly(path, body);
    } catch (error) {
      if (error instanceof AlreadyExistsError) continue;
      return cannotWrite(error, path);
    }
    const genTime = answer.genTime.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/, '$1-$2-$3T$4:$5:$6');
    return { url, host, ok: true, path, genTime, status: answer.status === 0 ? 'granted' : 'grantedWithMods', token: body };
  }
  return fail(`anchors/${base}.tsr and ${MAX_NAMES - 1} numbered names after it are taken`);
}

/** A request that got no usable HTTP answer: why. */
class PostFailure {
  constructor(readonly reason: string) {}
}

/** POSTs the request; the body of an HTTP 200 answer, bounded in time and bytes, or a PostFailure. */
async function post(url: string, der: Buffer, timeoutMs: number, maxBytes: number): Promise<Buffer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const timedOut = () => new PostFailure(`no complete answer within ${timeoutMs / 1000} s`);
  try {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: new Uint8Array(der),
        redirect: 'manual',
        signal: controller.signal,
      });
    } catch (error) {
      if (controller.signal.aborted) throw timedOut();
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new PostFailure(`the request failed (${cause?.code ?? cause?.message ?? (error as Error).message})`);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400) {
        throw new PostFailure(`HTTP ${response.status}, a redirect${location === null ? '' : ` to ${JSON.stringify(location.slice(0, 200))}`}: redirects are not followed (give the authority's final URL)`);
      }
      throw new PostFailure(`HTTP ${response.status} ${response.statusText.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)}`.trimEnd());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    if (reader === undefined) return Buffer.alloc(0);
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        if (controller.signal.aborted) throw timedOut();
        throw new PostFailure(`the answer was cut off (${(error as Error).message})`);
      }
      if (read.done) break;
      size += read.value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new PostFailure(`the answer is over ${maxBytes} bytes: stopped reading`);
      }
      chunks.push(Buffer.from(read.value));
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The plan id of a frozen bundle directory, for `--anchor-only`: plan.json
 * must be strict JSON whose plan_id re-derives (a token over an id that does
 * not would anchor nothing). Refuses (AuthorInputError) otherwise, and when
 * the bundle is sealed: a token enters with a new seal.
 */
export async function frozenPlanId(dir: string): Promise<string> {
  const file = join(dir, 'plan.json');
  if (!(await exists(file))) refuse({ file, message: 'is missing: --anchor-only anchors a plan already frozen (ledgerboard freeze -o DIR)' });
  const bytes = await readRegularFile(file, MAX_PLAN_BYTES);
  if (bytes === null) refuse({ file, message: `is not a regular file of at most ${MAX_PLAN_BYTES} bytes that can be read (a link is not followed)` });
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) refuse({ file, line: parsed.error.line, column: parsed.error.column, message: `is not valid JSON (${parsed.error.message})` });
  const value = parsed.value;
  const id = value !== null && typeof value === 'object' && !Array.isArray(value) ? value.plan_id : undefined;
  if (typeof id !== 'string' || !DIGEST_PATTERN.test(id)) refuse({ file, message: 'has no plan_id digest ("sha256:" + 64 hex)' });
  const derived = selfId(value as Record<string, unknown>, 'plan_id');
  if (derived !== id) refuse({ file, message: `plan_id ${id} does not re-derive (the plan's bytes give ${derived}): a token over it would anchor nothing` });
  if (await exists(join(dir, 'manifest.json'))) {
    refuse({
      file: join(dir, 'manifest.json'),
      message: 'exists: the bundle is sealed, and its manifest would not list a new token. A token got later enters with a new seal: move manifest.json out of the bundle, anchor, then seal again (the bundle id changes, the plan id does not)',
    });
  }
  return id;
}
