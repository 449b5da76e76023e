/**
 * Signed reports (FORMAT.md section 10): an in-toto Statement v1 naming the
 * published `report.json` and the `manifest.json` of every counted bundle by
 * their SHA-256, in a DSSE envelope signed with Ed25519 over the DSSE
 * pre-authentication encoding. node:crypto only.
 *
 * Checking is strict and says why: an envelope that is not the DSSE shape,
 * another payloadType, a payload that is not the statement, a subject whose
 * digest is not that of the bytes the verifier holds, a subject set that is
 * not exactly the expected one, a key id that is not the SHA-256 of its key,
 * a signature that is not 64 bytes or does not verify. A signature counts
 * only for a key the reader pinned; a key the site serves proves nothing.
 */
import { createHash, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../json/canonical.ts';

export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'urn:ledgerboard:report:v1';

/** A published file a statement names: its site path (no leading slash) and its bytes. */
export interface SubjectFile {
  name: string;
  bytes: Uint8Array;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: { report_id: string; site_url: string };
}

export interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

const sha256Hex = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');
const byName = (a: { name: string }, b: { name: string }) => Buffer.compare(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8'));

/** The site path of a counted bundle's manifest (FORMAT.md 10, docs/site.md). */
export function manifestSubjectName(bundleId: string): string {
  return `bundles/${bundleId.replace(/^sha256:/, '')}/manifest.json`;
}

/** The statement over these files (sorted by name, byte order), for this report and site. */
export function statementFor(files: readonly SubjectFile[], report_id: string, site_url: string): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: [...files].sort(byName).map((f) => ({ name: f.name, digest: { sha256: sha256Hex(f.bytes) } })),
    predicateType: PREDICATE_TYPE,
    predicate: { report_id, site_url },
  };
}

/** The DSSE pre-authentication encoding: "DSSEv1" SP len(type) SP type SP len(payload) SP payload (lengths in bytes, ASCII decimal). */
export function pae(type: string, payload: Uint8Array): Buffer {
  const t = Buffer.from(type, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `, 'ascii'), t, Buffer.from(` ${payload.length} `, 'ascii'), payload]);
}

/** The key id: lower-case hex SHA-256 of the public key's DER SubjectPublicKeyInfo. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256Hex(pub.export({ type: 'spki', format: 'der' }));
}

/** The SPKI PEM of a key's public half. */
export function publicPemOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'pem' }).toString();
}

/** Signs a statement: the envelope, its payload the statement's RFC 8785 bytes. */
export function signStatement(statement: Statement, privateKey: KeyObject): Envelope {
  if (privateKey.asymmetricKeyType !== 'ed25519' || privateKey.type !== 'private') throw new Error('the signing key must be an Ed25519 private key');
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  const sig = edSign(null, pae(PAYLOAD_TYPE, payload), privateKey);
  return { payloadType: PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid: keyIdOf(privateKey), sig: sig.toString('base64') }] };
}

/** The envelope file's bytes: RFC 8785 JSON plus a newline. */
export function envelopeBytes(envelope: Envelope): Buffer {
  return Buffer.from(`${canonicalJson(envelope)}\n`, 'utf8');
}

/** Why an envelope or a signature is not accepted. */
export type AttestationProblem =
  | 'BAD_ENVELOPE'
  | 'WRONG_PAYLOAD_TYPE'
  | 'BAD_STATEMENT'
  | 'WRONG_REPORT'
  | 'SUBJECT_MISMATCH'
  | 'SUBJECTS_DIFFER'
  | 'KEYID_MISMATCH'
  | 'BAD_SIGNATURE'
  | 'NOT_PINNED';

export interface SignatureCheck {
  keyid: string;
  /** Verified over the PAE by a pinned key whose id is the keyid. */
  valid: boolean;
  problem: AttestationProblem | null;
  detail: string | null;
}

export interface EnvelopeCheck {
  /** Problems of the envelope as a whole (shape, type, statement, subjects); none when the statement is the one expected. */
  problems: { code: AttestationProblem; detail: string }[];
  statement: Statement | null;
  signatures: SignatureCheck[];
  /** The statement is the expected one and at least one signature verifies under a pinned key. */
  valid: boolean;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX64 = /^[0-9a-f]{64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses an envelope's bytes, strictly (the DSSE members and nothing else). */
export function parseEnvelope(bytes: Uint8Array): { envelope: Envelope } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    return { problem: `not JSON: ${(e as Error).message}` };
  }
  if (!isObject(value)) return { problem: 'not a JSON object' };
  const extra = Object.keys(value).filter((k) => !['payloadType', 'payload', 'signatures'].includes(k));
  if (extra.length > 0) return { problem: `unknown member ${JSON.stringify(extra[0])}` };
  const { payloadType, payload, signatures } = value;
  if (typeof payloadType !== 'string') return { problem: 'payloadType is not a string' };
  if (typeof payload !== 'string' || !BASE64.test(payload)) return { problem: 'payload is not standard base64' };
  if (!Array.isArray(signatures) || signatures.length === 0) return { problem: 'signatures is not a non-empty array' };
  const sigs: Envelope['signatures'] = [];
  for (const s of signatures) {
    if (!isObject(s) || typeof s.keyid !== 'string' || typeof s.sig !== 'string' || Object.keys(s).some((k) => k !== 'keyid' && k !== 'sig')) {
      return { problem: 'a signature is not {"keyid": string, "sig": string}' };
    }
    if (!BASE64.test(s.sig)) return { problem: `the signature of key ${s.keyid.slice(0, 12)} is not standard base64` };
    sigs.push({ keyid: s.keyid, sig: s.sig });
  }
  return { envelope: { payloadType, payload, signatures: sigs } };
}

/** The statement in a payload, strictly, or why not. */
function parseStatement(payload: Buffer): Statement | string {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return 'the payload is not JSON';
  }
  if (!isObject(value)) return 'the payload is not a JSON object';
  if (value._type !== STATEMENT_TYPE) return `_type is not ${STATEMENT_TYPE}`;
  if (value.predicateType !== PREDICATE_TYPE) return `predicateType is not ${PREDICATE_TYPE}`;
  const p = value.predicate;
  if (!isObject(p) || typeof p.report_id !== 'string' || typeof p.site_url !== 'string') return 'predicate is not {report_id, site_url}';
  if (!Array.isArray(value.subject)) return 'subject is not an array';
  const subject: Statement['subject'] = [];
  for (const s of value.subject) {
    if (!isObject(s) || typeof s.name !== 'string' || !isObject(s.digest) || typeof s.digest.sha256 !== 'string' || !HEX64.test(s.digest.sha256)) {
      return 'a subject is not {name, digest: {sha256: <64 hex>}}';
    }
    subject.push({ name: s.name, digest: { sha256: s.digest.sha256 } });
  }
  return { _type: STATEMENT_TYPE, subject, predicateType: PREDICATE_TYPE, predicate: { report_id: p.report_id, site_url: p.site_url } };
}

/**
 * Checks an envelope against the files the verifier holds (the report.json
 * and counted manifests it fetched, by site path) and the report id, under
 * the pinned public keys (none: every signature is NOT_PINNED, and a
 * signature's key cannot be checked, only named).
 */
export function checkEnvelope(bytes: Uint8Array, expected: { files: readonly SubjectFile[]; report_id: string }, pinned: readonly KeyObject[]): EnvelopeCheck {
  const out: EnvelopeCheck = { problems: [], statement: null, signatures: [], valid: false };
  const parsed = parseEnvelope(bytes);
  if ('problem' in parsed) {
    out.problems.push({ code: 'BAD_ENVELOPE', detail: parsed.problem });
    return out;
  }
  const { envelope } = parsed;
  if (envelope.payloadType !== PAYLOAD_TYPE) out.problems.push({ code: 'WRONG_PAYLOAD_TYPE', detail: `payloadType is ${JSON.stringify(envelope.payloadType)}, not ${PAYLOAD_TYPE}` });
  const payload = Buffer.from(envelope.payload, 'base64');
  const statement = parseStatement(payload);
  if (typeof statement === 'string') out.problems.push({ code: 'BAD_STATEMENT', detail: statement });
  else {
    out.statement = statement;
    if (statement.predicate.report_id !== expected.report_id) {
      out.problems.push({ code: 'WRONG_REPORT', detail: `the statement is about report ${statement.predicate.report_id}, not ${expected.report_id}` });
    }
    const want = statementFor(expected.files, expected.report_id, statement.predicate.site_url).subject;
    const have = new Map(statement.subject.map((s) => [s.name, s.digest.sha256]));
    for (const s of want) {
      const digest = have.get(s.name);
      if (digest === undefined) out.problems.push({ code: 'SUBJECTS_DIFFER', detail: `the statement does not name ${s.name}` });
      else if (digest !== s.digest.sha256) out.problems.push({ code: 'SUBJECT_MISMATCH', detail: `${s.name}: the statement says sha256 ${digest.slice(0, 12)}..., the bytes fetched hash to ${s.digest.sha256.slice(0, 12)}...` });
    }
    const named = new Set(want.map((s) => s.name));
    for (const s of statement.subject) if (!named.has(s.name)) out.problems.push({ code: 'SUBJECTS_DIFFER', detail: `the statement names ${s.name}, which is not a counted file of this report` });
  }
  const message = pae(envelope.payloadType, payload);
  const keys = new Map(pinned.map((k) => [keyIdOf(k), k]));
  for (const { keyid, sig } of envelope.signatures) {
    const raw = Buffer.from(sig, 'base64');
    const key = keys.get(keyid);
    const check = (problem: AttestationProblem | null, detail: string | null): SignatureCheck => ({ keyid, valid: problem === null, problem, detail });
    if (!HEX64.test(keyid)) out.signatures.push(check('KEYID_MISMATCH', 'the keyid is not 64 lower-case hex digits (the SHA-256 of a DER SubjectPublicKeyInfo)'));
    else if (key === undefined) out.signatures.push(check('NOT_PINNED', 'no pinned key has this id: the signature is not checked'));
    else if (raw.length !== 64) out.signatures.push(check('BAD_SIGNATURE', `the signature is ${raw.length} bytes, not the 64 of Ed25519`));
    else if (!edVerify(null, message, key, raw)) out.signatures.push(check('BAD_SIGNATURE', 'the Ed25519 signature does not verify over the payload'));
    else out.signatures.push(check(null, null));
  }
  out.valid = out.problems.length === 0 && out.signatures.some((s) => s.valid);
  return out;
}

/**
 * A public key the reader pinned, from PEM text. Throws with a reason when
 * it is not an Ed25519 public key; when an expected key id is given (a key
 * named by id and PEM together), a PEM whose id differs is KEYID_MISMATCH.
 */
export function pinnedKey(pem: string, expectedKeyId?: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (e) {
    throw new Error(`not a public key in PEM: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${key.asymmetricKeyType ?? 'of no type'}, not Ed25519`);
  if (expectedKeyId !== undefined && keyIdOf(key) !== expectedKeyId) throw new Error(`KEYID_MISMATCH: the key's id is ${keyIdOf(key)}, not ${expectedKeyId}`);
  return key;
}
