/* global TextDecoder */
/**
 * The id, digest and signature checks of verify.mjs (docs/site.md,
 * "Re-deriving"): plain JavaScript over Node's standard library, bundled into
 * verify.mjs with the re-derivation of the report (rederive.ts) by
 * scripts/bundle-verifier.mjs; verify-main.ts is the command line.
 *
 * What these checks prove, for the bytes the site serves right now:
 * - /report.json is RFC 8785 canonical JSON plus a newline, and its report_id
 *   is the SHA-256 of its RFC 8785 form without report_id;
 * - every board_id is the digest of the board's key, every cohort_id the
 *   digest of that key plus { subject: { model, agent: { name, version } } },
 *   and /cohorts/<hex>.json is byte for byte the report's cohort entry;
 * - for every counted bundle, /bundles/<bundle_id hex>/manifest.json re-derives
 *   the report's bundle_id, every file it lists is served at
 *   /blobs/<its sha256 hex> with that size and SHA-256, and its plan.json
 *   (the blob the manifest lists for that path) re-derives the plan_id the
 *   report and manifest name;
 * - for every bundle, /bundles/<dir hex>/files.json (what ledgerboard read)
 *   re-derives the report's content_digest.
 * - /changes.json (what changed between reports): each diff it lists is what
 *   the two reports it names give (recomputed with src/history/report-diff.ts
 *   itself, bundled in, from /reports/<hex>.json or /report.json), and both
 *   reports re-derive their ids.
 * Bundles that are not counted are re-hashed and reported as information only:
 * they were rejected, so they are expected to disagree.
 *
 * Signed reports (FORMAT.md 10), with --key PEM-FILE or --key KEYID (pinned
 * out of band; repeatable): /attestations/<report hex>/<keyid>.json must be a
 * DSSE envelope of an in-toto statement naming /report.json and every counted
 * manifest by the SHA-256 of the bytes just fetched, signed (Ed25519 over the
 * DSSE pre-authentication encoding) by each pinned key; otherwise a MISMATCH.
 * Without --key it says who signed (under the keys /keys.json serves), and
 * that no key is pinned: a key served by the site proves nothing.
 *
 */
import { createHash, createPublicKey, verify as edVerify } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { diffReports, diffSummary } from '../history/report-diff.ts';
import { BoundError, boundedFetch, fetchBounds, joinChunks, SiteReadError, tooLargeMessage } from './bounded-fetch.ts';

export { BoundError, fetchBounds, SiteReadError } from './bounded-fetch.ts';

// ---- RFC 8785 (JSON Canonicalization Scheme) --------------------------------

const LONE_SURROGATE = /\p{Cs}/u; // with the u flag only unpaired surrogates match

/** The RFC 8785 text of a JSON value; throws on what I-JSON cannot hold. */
export function canonicalize(value) {
  if (value === null || value === true || value === false) return String(value);
  if (typeof value === 'number') {
    // ES6 Number-to-String, which JSON.stringify uses for every finite number (-0 gives "0").
    if (!Number.isFinite(value)) throw new TypeError('RFC 8785: a number must be finite');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') {
    // JSON.stringify escapes exactly as RFC 8785 section 3.2.2.2 asks.
    if (LONE_SURROGATE.test(value)) throw new TypeError('RFC 8785: a string holds a lone surrogate');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  if (typeof value === 'object') {
    // Array.prototype.sort without a comparator orders strings by UTF-16 code units.
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${canonicalize(k)}:${canonicalize(value[k])}`).join(',')}}`;
  }
  throw new TypeError(`RFC 8785: a ${typeof value} has no JSON form`);
}

/** JSON.parse, refusing a member name twice in one object (JSON.parse silently keeps the last). */
export function parseJson(text) {
  const value = JSON.parse(text); // syntax first: the scan below may then assume valid JSON
  const open = []; // per open container: a Set of member names (object) or null (array)
  let name = false; // the next string is a member name
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') {
      open.push(c === '{' ? new Set() : null);
      name = c === '{';
    } else if (c === '}' || c === ']') {
      open.pop();
      name = false;
    } else if (c === ',') {
      name = open.at(-1) instanceof Set;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (name) {
        const member = JSON.parse(text.slice(i, j + 1)); // compared after unescaping
        if (open.at(-1).has(member)) throw new SyntaxError(`duplicate member name ${JSON.stringify(member)}`);
        open.at(-1).add(member);
        name = false;
      }
      i = j;
    }
  }
  return value;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }); // a BOM stays, and JSON.parse refuses it

/** Strictly parsed JSON from UTF-8 bytes. */
export function parseJsonBytes(bytes) {
  return parseJson(UTF8.decode(bytes));
}

export const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The id of a self-identifying object: the digest of its RFC 8785 form without the id member. */
export function selfId(object, member) {
  if (!isObject(object)) throw new TypeError('not a JSON object');
  return sha256(canonicalize(Object.fromEntries(Object.entries(object).filter(([k]) => k !== member))));
}

// ---- Reading the site --------------------------------------------------------

/**
 * A reader of a site (URL path -> bytes, or null when the site has no such
 * file) over `request(urlPath, maxBytes, sink)`, which hands the file's bytes
 * to sink within the bounds (bounded-fetch.ts) and returns how many, or null.
 * `get(urlPath, listedBytes?)` holds the bytes; `get.digest(urlPath,
 * listedBytes?)` only hashes them as they arrive ({ bytes, sha256 }).
 * Once a bound of the verifier's own breaks (time, redirects, a document past
 * its bound: not a blob longer than its listed size), every later read fails
 * with the same error at once (`get.broken()` returns it): a hostile host
 * costs one timeout, not one per file.
 */
function sourceOver(request) {
  let broken = null;
  const read = async (urlPath, listedBytes, sink) => {
    if (broken !== null) throw broken;
    if (listedBytes !== undefined && !(Number.isSafeInteger(listedBytes) && listedBytes >= 0)) throw new Error(`${urlPath}: the listed size ${String(listedBytes)} is not a size`);
    try {
      return await request(urlPath, listedBytes, sink);
    } catch (error) {
      if (error instanceof BoundError && !error.listed) broken ??= error;
      throw error;
    }
  };
  const get = async (urlPath, listedBytes) => {
    const chunks = [];
    const length = await read(urlPath, listedBytes, (chunk) => chunks.push(chunk));
    return length === null ? null : joinChunks(chunks, length);
  };
  get.digest = async (urlPath, listedBytes) => {
    const hash = createHash('sha256');
    const length = await read(urlPath, listedBytes, (chunk) => hash.update(chunk));
    return length === null ? null : { bytes: length, sha256: `sha256:${hash.digest('hex')}` };
  };
  get.broken = () => broken;
  return get;
}

/**
 * A reader for a site directory (URL path /x/y is DIR/x/y): never out of the
 * directory (links resolved first), only regular files (a FIFO or a device is
 * refused, never opened for a blocking read), never past a file's listed
 * size or the bound on a document.
 */
export function directorySource(dir, bounds = fetchBounds()) {
  const root = resolve(dir);
  let realRoot;
  return sourceOver(async (urlPath, listedBytes, sink) => {
    let segments;
    try {
      segments = urlPath.replace(/^\//, '').split('/').map(decodeURIComponent);
    } catch {
      throw new SiteReadError(urlPath, `refusing ${urlPath}: bad percent-encoding`);
    }
    if (segments.some((s) => s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s))) throw new SiteReadError(urlPath, `refusing ${urlPath}: unsafe path`);
    const file = resolve(root, ...segments);
    const max = listedBytes ?? bounds.documentBytes;
    let handle;
    try {
      const real = await realpath(file);
      realRoot ??= await realpath(root);
      if (!real.startsWith(realRoot + sep)) throw new SiteReadError(urlPath, `refusing ${urlPath}: it leaves the site directory`);
      // Non-blocking: opening a FIFO must not wait for a writer (it is refused below).
      handle = await open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      const info = await handle.stat();
      if (info.isDirectory()) return null;
      if (!info.isFile()) throw new SiteReadError(urlPath, `refusing ${urlPath}: not a regular file`);
      if (info.size > max) throw new BoundError(urlPath, 'bytes', tooLargeMessage(urlPath, max, listedBytes !== undefined), listedBytes !== undefined);
      // Read to the end, never past the bound (a file that grows while it is read included).
      let total = 0;
      for (;;) {
        // Sized by the file's stated size (a small file: one small read, then the end); past it (a file that grows), whole chunks.
        const want = total <= info.size ? Math.min(READ_CHUNK, info.size + 1 - total) : READ_CHUNK;
        const buffer = new Uint8Array(Math.min(want, max + 1 - total));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) return total;
        total += bytesRead;
        if (total > max) throw new BoundError(urlPath, 'bytes', tooLargeMessage(urlPath, max, listedBytes !== undefined), listedBytes !== undefined);
        sink(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
      }
    } catch (error) {
      if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes(error?.code)) return null;
      if (error instanceof SiteReadError) throw error;
      throw new SiteReadError(urlPath, `${urlPath}: ${error?.message ?? String(error)}`);
    } finally {
      await handle?.close();
    }
  });
}

/** Bytes read from a file at a time. */
const READ_CHUNK = 1024 ** 2;

/** A reader for a site URL: every request bounded in time, bytes and redirects (bounded-fetch.ts). */
export function urlSource(base, bounds = fetchBounds()) {
  const root = new URL(base).href.replace(/[?#].*$/, '').replace(/\/?$/, '/');
  return sourceOver((urlPath, listedBytes, sink) => boundedFetch(root + urlPath.replace(/^\//, ''), listedBytes, bounds, sink, { manualRedirects: true }));
}

const hexOf = (digest) => (typeof digest === 'string' && DIGEST.test(digest) ? digest.slice(7) : null);
/** Where a file's bytes are published: named by their digest only (docs/site.md). */
const blobUrl = (hex) => `/blobs/${hex}`;

const isSize = (n) => Number.isSafeInteger(n) && n >= 0;

/** The size and SHA-256 of a file of the site, read within `listedBytes`: streamed when the reader can, else held. */
async function digestOf(get, urlPath, listedBytes) {
  if (typeof get.digest === 'function') return get.digest(urlPath, listedBytes);
  const bytes = await get(urlPath, listedBytes);
  return bytes === null ? null : { bytes: bytes.length, sha256: sha256(bytes) };
}

/** Re-hashes the files a manifest lists, each at /blobs/<its sha256 hex>: [matching, listed, problems]. */
const NEVER_WITHHELD = /^(?:manifest\.json|plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/[^/]+\.json)$/;

async function checkFiles(get, files, withheld = new Set()) {
  const problems = [];
  let matching = 0;
  const all = Array.isArray(files) ? files : [];
  // Withheld files (the site's /withheld.json): their digest is committed in the manifest, their bytes not published.
  // A file a stranger needs (manifest, plan, ledger, attempts, grades) is always checked, whatever /withheld.json claims of its digest.
  const list = all.filter((entry) => !withheld.has(entry?.sha256) || NEVER_WITHHELD.test(String(entry?.path)));
  const held = all.length - list.length;
  for (let start = 0; start < list.length; start += 8) {
    const batch = list.slice(start, start + 8).map(async (entry) => {
      const path = entry?.path;
      const hex = hexOf(entry?.sha256);
      if (hex === null) return `${JSON.stringify(path)}: the listed sha256 is not a digest`;
      if (!isSize(entry.bytes)) return `${JSON.stringify(path)}: the listed size ${JSON.stringify(entry.bytes)} is not a size`;
      // Hashed as it arrives, never read past the listed size (a reader without digest holds it, as a test's may).
      let got;
      try {
        got = await digestOf(get, blobUrl(hex), entry.bytes);
      } catch (error) {
        return `${JSON.stringify(path)}: ${error.message}`;
      }
      if (got === null) return `${JSON.stringify(path)}: not found`;
      if (got.bytes !== entry.bytes) return `${JSON.stringify(path)}: ${got.bytes} bytes, listed ${entry.bytes}`;
      if (got.sha256 !== entry.sha256) return `${JSON.stringify(path)}: ${got.sha256}, listed ${entry.sha256}`;
      return null;
    });
    for (const problem of await Promise.all(batch)) {
      if (problem === null) matching++;
      else problems.push(problem);
    }
  }
  return [matching, all.length, problems, held];
}

// ---- The checks ----------------------------------------------------------------

/** The content digest a files.json re-derives: SHA-256 of RFC 8785 [[path, kind, sha256], ...] over its entries in order. */
export function contentDigestOf(listing) {
  if (!isObject(listing) || !Array.isArray(listing.entries)) throw new Error('files.json has no entries list');
  return sha256(canonicalize(listing.entries.map((e) => [e?.path, e?.kind, e?.sha256])));
}

/**
 * Runs every check against a reader and returns the results in report order:
 * { status: 'ok' | 'MISMATCH' | 'info', check, subject, detail, count, failed, problems }.
 */
export async function verifySite(get, reportBytes) {
  const results = [];
  const record = (ok, check, subject, detail = '', problems = [], count = 1, failed = ok ? 0 : 1) =>
    results.push({ status: ok ? 'ok' : 'MISMATCH', check, subject, detail, count, failed, problems });
  const compare = (check, stated, derived, also = []) => {
    const wrong = [['derived', derived], ...also].filter(([, v]) => v !== stated);
    record(wrong.length === 0, check, String(stated), wrong.map(([what, v]) => `${what} ${v}`).join(', '));
  };
  /** Runs one group; a thrown error (bad JSON, a missing member) is that group's mismatch. */
  const group = async (check, subject, fn) => {
    try {
      await fn();
    } catch (error) {
      record(false, check, subject, error.message);
    }
  };
  const json = async (urlPath, listedBytes) => {
    const bytes = await get(urlPath, listedBytes);
    if (bytes === null) throw new Error(`${urlPath} not found`);
    return { bytes, value: parseJsonBytes(bytes) };
  };

  let report;
  try {
    report = parseJsonBytes(reportBytes);
    if (!isObject(report)) throw new Error('not a JSON object');
  } catch (error) {
    record(false, 'report.json', '/report.json', `not strict JSON: ${error.message}`);
    return results;
  }
  await group('report.json', '/report.json', () => {
    const canonical = Buffer.from(`${canonicalize(report)}\n`);
    record(canonical.equals(Buffer.from(reportBytes)), 'report.json', '/report.json', 'is RFC 8785 plus a newline');
  });
  await group('report_id', String(report.report_id), () => compare('report_id', report.report_id, selfId(report, 'report_id')));

  const boards = new Map();
  for (const board of Array.isArray(report.boards) ? report.boards : []) {
    await group('board_id', String(board?.board_id), () => {
      boards.set(board.board_id, board);
      compare('board_id', board.board_id, sha256(canonicalize(board.key)));
    });
  }
  for (const cohort of Array.isArray(report.cohorts) ? report.cohorts : []) {
    await group('cohort_id', String(cohort?.cohort_id), () => {
      const board = boards.get(cohort.board_id);
      if (board === undefined) throw new Error(`board ${cohort.board_id} is not in the report`);
      const { model, agent } = cohort.subject;
      compare('cohort_id', cohort.cohort_id, sha256(canonicalize({ ...board.key, subject: { model, agent: { name: agent.name, version: agent.version } } })));
    });
    const hex = hexOf(cohort?.cohort_id);
    const url = `/cohorts/${hex}.json`;
    await group('cohort json', url, async () => {
      if (hex === null) throw new Error('cohort_id is not a digest');
      const bytes = await get(url);
      if (bytes === null) throw new Error('not found');
      record(Buffer.from(canonicalize(cohort)).equals(Buffer.from(bytes)), 'cohort json', url, 'is the RFC 8785 form of the report entry');
    });
  }

  // Withheld files: listed with digest and reason; never one a stranger needs to re-derive the numbers.
  const withheld = new Set();
  await group('withheld', '/withheld.json', async () => {
    const bytes = await get('/withheld.json');
    if (bytes === null) return;
    const listed = parseJsonBytes(bytes)?.files;
    if (!Array.isArray(listed)) throw new Error('not {"files": [...]}');
    const needed = listed.filter((f) => NEVER_WITHHELD.test(String(f?.path)));
    record(needed.length === 0, 'withheld', '/withheld.json', needed.length === 0 ? `${listed.length} files withheld: committed digest, not published` : `withholds ${needed.map((f) => f.path).join(', ')}, which a stranger needs to re-derive the numbers`);
    for (const f of listed) if (typeof f?.sha256 === 'string' && !needed.includes(f)) withheld.add(f.sha256);
  });
  for (const bundle of Array.isArray(report.bundles) ? report.bundles : []) {
    const dirHex = hexOf(bundle?.status === 'verified' ? bundle?.bundle_id : bundle?.content_digest);
    await group('content_digest', String(bundle?.content_digest), async () => {
      if (dirHex === null) throw new Error('the bundle has no digest to publish it under');
      const listing = (await json(`/bundles/${dirHex}/files.json`)).value;
      compare('content_digest', bundle.content_digest, contentDigestOf(listing), [['files.json states', listing.content_digest]]);
    });
    if (bundle?.counted === true) {
      const hex = hexOf(bundle.bundle_id);
      let manifest;
      await group('bundle_id', String(bundle.bundle_id), async () => {
        if (hex === null) throw new Error('bundle_id is not a digest');
        manifest = (await json(`/bundles/${hex}/manifest.json`)).value;
        compare('bundle_id', bundle.bundle_id, selfId(manifest, 'bundle_id'), [['manifest.json states', manifest.bundle_id]]);
      });
      if (manifest === undefined) continue;
      await group('files', String(bundle.bundle_id), async () => {
        if (!Array.isArray(manifest.files)) throw new Error('manifest.json has no files list');
        const [matching, listed, problems, held] = await checkFiles(get, manifest.files, withheld);
        const heldText = held > 0 ? `, ${held} withheld (committed digest, not published)` : '';
        record(problems.length === 0, 'files', bundle.bundle_id, `${matching} of ${listed} listed files match${heldText}`, problems, listed - held, problems.length);
      });
      await group('plan_id', String(bundle.plan_id), async () => {
        const listed = (Array.isArray(manifest.files) ? manifest.files : []).find((f) => f?.path === 'plan.json');
        const planHex = hexOf(listed?.sha256);
        if (planHex === null) throw new Error('manifest.json lists no plan.json digest');
        const plan = (await json(blobUrl(planHex), isSize(listed.bytes) ? listed.bytes : undefined)).value;
        compare('plan_id', bundle.plan_id, selfId(plan, 'plan_id'), [['plan.json states', plan.plan_id], ['manifest.json names', manifest.plan_id]]);
      });
    } else {
      const info = (detail) => results.push({ status: 'info', check: 'bundle', subject: `/bundles/${dirHex}/`, detail, count: 0, failed: 0, problems: [] });
      try {
        const bytes = dirHex === null ? null : await get(`/bundles/${dirHex}/manifest.json`);
        if (bytes === null) info(`(${bundle?.status}, not counted): no manifest.json published`);
        else {
          const [matching, listed, , held] = await checkFiles(get, parseJsonBytes(bytes)?.files, withheld);
          info(`(${bundle.status}, not counted): ${matching} of ${listed} listed files match${held > 0 ? `, ${held} withheld` : ''}`);
        }
      } catch (error) {
        info(`(${bundle?.status}, not counted): ${error.message}`);
      }
    }
  }
  // What changed between reports (/changes.json): each listed diff recomputed from the two published reports, whose ids re-derive.
  const changesBytes = await get('/changes.json');
  if (changesBytes === null) results.push({ status: 'info', check: 'changes', subject: '/changes.json', detail: 'not published (a site built before it existed)', count: 0, failed: 0, problems: [] });
  else {
    let entries = [];
    await group('changes', '/changes.json', () => {
      const listed = parseJsonBytes(changesBytes);
      if (!isObject(listed) || listed.schema !== 'ledgerboard.changes.v1' || !Array.isArray(listed.reports)) throw new Error('not {"schema": "ledgerboard.changes.v1", "reports": [...]}');
      entries = listed.reports;
    });
    const currentHex = hexOf(report.report_id);
    const reportAt = async (hex) => {
      if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${String(hex)} is not a report hex`);
      const value = hex === currentHex ? report : (await json(`/reports/${hex}.json`)).value;
      if (selfId(value, 'report_id') !== `sha256:${hex}` || value.report_id !== `sha256:${hex}`) throw new Error(`report ${hex} does not re-derive its id`);
      return value;
    };
    for (const entry of entries) {
      await group('changes', `report ${String(entry?.report)}`, async () => {
        const newer = await reportAt(entry.report);
        if (entry.previous === null) {
          record(entry.diff === null, 'changes', `report ${entry.report}`, entry.diff === null ? 'nothing before it to compare with' : 'a diff without a report before it');
          return;
        }
        const derived = diffReports(await reportAt(entry.previous), newer);
        const same = canonicalize(derived) === canonicalize(entry.diff) && diffSummary(derived) === entry.summary;
        record(same, 'changes', `report ${entry.report}`, same ? `what changed since ${entry.previous.slice(0, 12)} re-derives: ${entry.summary}` : `the listed diff is not what the two reports give: ${diffSummary(derived)}`);
      });
    }
  }
  return results;
}

// ---- What changed between reports: the build's own rules (src/history/report-diff.ts), bundled in ----

export { diffReports, diffSummary };

// ---- Signed reports (FORMAT.md 10; the same rules as src/attest/envelope.ts) ----

const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const HEX64 = /^[0-9a-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const keyIdOf = (key) => createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
const pae = (type, payload) => {
  const t = Buffer.from(type, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${payload.length} `), payload]);
};

/** An Ed25519 public key from PEM text, or an Error saying why not. */
export function publicKeyOf(pem) {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ed25519' ? key : new Error(`a ${key.asymmetricKeyType} key, not Ed25519`);
  } catch (error) {
    return new Error(`not a public key in PEM (${error.message})`);
  }
}

/**
 * Why an envelope does not sign `files` (name -> bytes) for `reportId` with `key`, as a list of
 * "CODE: detail" strings (empty: it does).
 */
export function envelopeProblems(bytes, files, reportId, keyid, key) {
  let env;
  try {
    env = parseJsonBytes(bytes);
  } catch (error) {
    return [`BAD_ENVELOPE: not strict JSON (${error.message})`];
  }
  if (!isObject(env) || Object.keys(env).some((k) => !['payloadType', 'payload', 'signatures'].includes(k))) return ['BAD_ENVELOPE: not {payloadType, payload, signatures}'];
  if (typeof env.payloadType !== 'string' || typeof env.payload !== 'string' || !BASE64.test(env.payload) || !Array.isArray(env.signatures)) return ['BAD_ENVELOPE: not {payloadType, payload (base64), signatures}'];
  const problems = [];
  if (env.payloadType !== PAYLOAD_TYPE) problems.push(`WRONG_PAYLOAD_TYPE: ${JSON.stringify(env.payloadType)}`);
  const payload = Buffer.from(env.payload, 'base64');
  let statement = null;
  try {
    statement = parseJsonBytes(payload);
  } catch {
    problems.push('BAD_STATEMENT: the payload is not JSON');
  }
  if (statement !== null) {
    if (!isObject(statement) || statement._type !== 'https://in-toto.io/Statement/v1' || statement.predicateType !== 'urn:ledgerboard:report:v1' || !isObject(statement.predicate) || !Array.isArray(statement.subject)) {
      problems.push('BAD_STATEMENT: not an in-toto Statement v1 with predicateType urn:ledgerboard:report:v1');
    } else {
      if (statement.predicate.report_id !== reportId) problems.push(`WRONG_REPORT: the statement is about ${statement.predicate.report_id}`);
      const stated = new Map(statement.subject.map((x) => [x?.name, x?.digest?.sha256]));
      for (const [name, fileBytes] of files) {
        const digest = createHash('sha256').update(fileBytes).digest('hex');
        if (!stated.has(name)) problems.push(`SUBJECTS_DIFFER: the statement does not name ${name}`);
        else if (stated.get(name) !== digest) problems.push(`SUBJECT_MISMATCH: ${name} hashes to ${digest.slice(0, 12)}..., the statement says ${String(stated.get(name)).slice(0, 12)}...`);
      }
      for (const name of stated.keys()) if (!files.has(name)) problems.push(`SUBJECTS_DIFFER: the statement names ${name}, not a counted file of this report`);
    }
  }
  const mine = env.signatures.filter((x) => isObject(x) && x.keyid === keyid);
  if (mine.length === 0) problems.push(`NOT_SIGNED: no signature with keyid ${keyid.slice(0, 12)}...`);
  else if (!mine.some((x) => typeof x.sig === 'string' && BASE64.test(x.sig) && Buffer.from(x.sig, 'base64').length === 64 && edVerify(null, pae(env.payloadType, payload), key, Buffer.from(x.sig, 'base64')))) {
    problems.push('BAD_SIGNATURE: the Ed25519 signature does not verify over the payload (or is not 64 bytes)');
  }
  return problems;
}

/**
 * The signature checks of a site: `pinned` is a list of { keyid, key? } the reader gave (--key).
 * Results as verifySite's: a pinned key without a valid signature is a MISMATCH; without pinned
 * keys, who signed is information only.
 */
export async function verifySignatures(get, reportBytes, report, pinned) {
  const results = [];
  const record = (status, subject, detail, problems = []) =>
    results.push({ status, check: 'signature', subject, detail, count: status === 'info' ? 0 : 1, failed: status === 'MISMATCH' ? 1 : 0, problems });
  const hex = hexOf(report?.report_id);
  if (hex === null) return results;
  // The keys the site serves, each checked against its stated id.
  const served = new Map();
  const keysBytes = await get('/keys.json').catch(() => null);
  if (keysBytes !== null) {
    let listed = [];
    try {
      listed = parseJsonBytes(keysBytes)?.keys;
      if (!Array.isArray(listed)) throw new Error('no keys list');
    } catch (error) {
      record('MISMATCH', '/keys.json', `not {"keys": [...]}: ${error.message}`);
      listed = [];
    }
    for (const entry of listed) {
      const key = publicKeyOf(String(entry?.public_key_pem));
      if (key instanceof Error) record('MISMATCH', '/keys.json', `key ${String(entry?.keyid).slice(0, 12)}...: ${key.message}`);
      else if (keyIdOf(key) !== entry.keyid) record('MISMATCH', '/keys.json', `KEYID_MISMATCH: the key listed as ${String(entry.keyid).slice(0, 12)}... has the id ${keyIdOf(key)}`);
      else served.set(entry.keyid, key);
    }
  }
  // What a statement must name: report.json as fetched and every counted manifest as fetched.
  const files = new Map([['report.json', Buffer.from(reportBytes)]]);
  for (const bundle of Array.isArray(report.bundles) ? report.bundles : []) {
    const b = hexOf(bundle?.bundle_id);
    if (bundle?.counted !== true || b === null) continue;
    const bytes = await get(`/bundles/${b}/manifest.json`).catch(() => null);
    files.set(`bundles/${b}/manifest.json`, bytes ?? Buffer.alloc(0));
  }
  const envelopeOf = (keyid) => get(`/attestations/${hex}/${keyid}.json`).catch(() => null);
  for (const pin of pinned) {
    const key = pin.key ?? served.get(pin.keyid);
    const subject = `key ${pin.keyid}`;
    if (key === undefined) {
      record('MISMATCH', subject, 'the site serves no key with this id in /keys.json, and no PEM was given: nothing to check the signature with');
      continue;
    }
    const bytes = await envelopeOf(pin.keyid);
    if (bytes === null) {
      record('MISMATCH', subject, `not signed by this key: no /attestations/${hex}/${pin.keyid}.json`);
      continue;
    }
    const problems = envelopeProblems(bytes, files, report.report_id, pin.keyid, key);
    record(problems.length === 0 ? 'ok' : 'MISMATCH', subject, problems.length === 0 ? 'a valid signature by this pinned key over report.json and every counted manifest' : 'the signature does not hold', problems);
  }
  if (pinned.length === 0) {
    let any = false;
    for (const [keyid, key] of served) {
      const bytes = await envelopeOf(keyid);
      if (bytes === null) continue;
      any = true;
      const problems = envelopeProblems(bytes, files, report.report_id, keyid, key);
      record('info', `key ${keyid}`, problems.length === 0 ? 'signed this report (valid under the key the site serves; that key is NOT pinned: compare its id with one you got elsewhere and pass --key)' : 'an attestation that does not hold', problems);
    }
    if (!any) record('info', `/attestations/${hex}/`, 'not signed (no attestation by a key in /keys.json)');
  }
  return results;
}
