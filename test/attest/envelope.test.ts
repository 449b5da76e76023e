/**
 * Signed reports (FORMAT.md 10): the DSSE envelope over an in-toto
 * statement, checked strictly with a reason for each refusal, and standard:
 * a signature made by OpenSSL verifies here, and one made here verifies
 * with OpenSSL (`pkeyutl -rawin`, Ed25519 over the PAE bytes).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkEnvelope,
  envelopeBytes,
  keyIdOf,
  manifestSubjectName,
  pae,
  PAYLOAD_TYPE,
  pinnedKey,
  signStatement,
  statementFor,
  type Envelope,
} from '../../src/attest/envelope.ts';

const dir = mkdtempSync(join(tmpdir(), 'lb-attest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const REPORT_ID = `sha256:${'1'.repeat(64)}`;
const BUNDLE = `sha256:${'b'.repeat(64)}`;
const files = [
  { name: 'report.json', bytes: Buffer.from('{"report_id":"x"}\n') },
  { name: manifestSubjectName(BUNDLE), bytes: Buffer.from('{"files":[]}') },
];
const expected = { files, report_id: REPORT_ID };
const signed = signStatement(statementFor(files, REPORT_ID, 'https://example.org/board/'), keys.privateKey);
const bytes = envelopeBytes(signed);
const edit = (f: (e: Envelope) => void): Buffer => {
  const e = structuredClone(signed);
  f(e);
  return envelopeBytes(e);
};
const codes = (check: ReturnType<typeof checkEnvelope>) => [...check.problems.map((p) => p.code), ...check.signatures.map((s) => s.problem ?? 'VALID')];

describe('the envelope', () => {
  it('is DSSE over an in-toto Statement v1 whose subjects are sorted by name, keyid the SHA-256 of the DER SPKI', () => {
    expect(signed.payloadType).toBe(PAYLOAD_TYPE);
    const statement = JSON.parse(Buffer.from(signed.payload, 'base64').toString('utf8'));
    expect(statement).toEqual({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [
        { name: `bundles/${'b'.repeat(64)}/manifest.json`, digest: { sha256: createHash('sha256').update(files[1]!.bytes).digest('hex') } },
        { name: 'report.json', digest: { sha256: createHash('sha256').update(files[0]!.bytes).digest('hex') } },
      ],
      predicateType: 'urn:ledgerboard:report:v1',
      predicate: { report_id: REPORT_ID, site_url: 'https://example.org/board/' },
    });
    expect(signed.signatures[0]!.keyid).toBe(createHash('sha256').update(keys.publicKey.export({ type: 'spki', format: 'der' })).digest('hex'));
    expect(pae('t', Buffer.from('ab')).toString()).toBe('DSSEv1 1 t 2 ab');
    // Lengths are bytes, not characters.
    expect(pae('é', Buffer.from('é')).toString()).toBe('DSSEv1 2 é 2 é');
  });

  it('verifies under the pinned key; without a pinned key it names the signer and checks nothing', () => {
    const check = checkEnvelope(bytes, expected, [keys.publicKey]);
    expect(codes(check)).toEqual(['VALID']);
    expect(check.valid).toBe(true);
    const unpinned = checkEnvelope(bytes, expected, []);
    expect(unpinned.valid).toBe(false);
    expect(unpinned.signatures).toEqual([{ keyid: keyIdOf(keys.publicKey), valid: false, problem: 'NOT_PINNED', detail: expect.stringMatching(/not checked/) }]);
  });
});

describe('each refusal, with its reason', () => {
  it('a report with one flipped byte: SUBJECT_MISMATCH naming report.json (the signature itself still verifies)', () => {
    const flipped = Buffer.from(files[0]!.bytes);
    flipped[2]! ^= 1;
    const check = checkEnvelope(bytes, { files: [{ name: 'report.json', bytes: flipped }, files[1]!], report_id: REPORT_ID }, [keys.publicKey]);
    expect(codes(check)).toEqual(['SUBJECT_MISMATCH', 'VALID']);
    expect(check.problems[0]!.detail).toMatch(/^report\.json: /);
    expect(check.valid).toBe(false);
  });

  it('a counted manifest missing from the statement, or one too many: SUBJECTS_DIFFER', () => {
    const more = [...files, { name: manifestSubjectName(`sha256:${'c'.repeat(64)}`), bytes: Buffer.from('m') }];
    expect(codes(checkEnvelope(bytes, { files: more, report_id: REPORT_ID }, [keys.publicKey]))).toEqual(['SUBJECTS_DIFFER', 'VALID']);
    expect(codes(checkEnvelope(bytes, { files: [files[0]!], report_id: REPORT_ID }, [keys.publicKey]))).toEqual(['SUBJECTS_DIFFER', 'VALID']);
  });

  it('another report id: WRONG_REPORT', () => {
    expect(codes(checkEnvelope(bytes, { files, report_id: `sha256:${'2'.repeat(64)}` }, [keys.publicKey]))).toEqual(['WRONG_REPORT', 'VALID']);
  });

  it('a signature by another key: NOT_PINNED under the pinned key; under a pinned key whose id it borrows, BAD_SIGNATURE', () => {
    const byOther = signStatement(statementFor(files, REPORT_ID, 'https://example.org/board/'), other.privateKey);
    expect(codes(checkEnvelope(envelopeBytes(byOther), expected, [keys.publicKey]))).toEqual(['NOT_PINNED']);
    byOther.signatures[0]!.keyid = keyIdOf(keys.publicKey);
    const check = checkEnvelope(envelopeBytes(byOther), expected, [keys.publicKey]);
    expect(codes(check)).toEqual(['BAD_SIGNATURE']);
    expect(check.signatures[0]!.detail).toMatch(/does not verify/);
  });

  it('a wrong payloadType: WRONG_PAYLOAD_TYPE, and the signature (over the PAE, which holds the type) fails', () => {
    expect(codes(checkEnvelope(edit((e) => (e.payloadType = 'application/json')), expected, [keys.publicKey]))).toEqual(['WRONG_PAYLOAD_TYPE', 'BAD_SIGNATURE']);
  });

  it('a truncated signature: BAD_SIGNATURE, 63 bytes', () => {
    const check = checkEnvelope(edit((e) => (e.signatures[0]!.sig = Buffer.from(e.signatures[0]!.sig, 'base64').subarray(0, 63).toString('base64'))), expected, [keys.publicKey]);
    expect(codes(check)).toEqual(['BAD_SIGNATURE']);
    expect(check.signatures[0]!.detail).toMatch(/63 bytes/);
  });

  it('a key id that does not match its key: refused when pinning; a malformed keyid in an envelope: KEYID_MISMATCH', () => {
    const pem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(keyIdOf(pinnedKey(pem, keyIdOf(keys.publicKey)))).toBe(keyIdOf(keys.publicKey));
    expect(() => pinnedKey(pem, keyIdOf(other.publicKey))).toThrow(/KEYID_MISMATCH/);
    expect(codes(checkEnvelope(edit((e) => (e.signatures[0]!.keyid = 'ABC')), expected, [keys.publicKey]))).toEqual(['KEYID_MISMATCH']);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => pinnedKey(rsa)).toThrow(/not Ed25519/);
  });

  it('a payload edited after signing: BAD_SIGNATURE; not an envelope: BAD_ENVELOPE; a payload that is not the statement: BAD_STATEMENT', () => {
    const statement = JSON.parse(Buffer.from(signed.payload, 'base64').toString('utf8'));
    statement.predicate.site_url = 'https://evil.example/';
    expect(codes(checkEnvelope(edit((e) => (e.payload = Buffer.from(JSON.stringify(statement)).toString('base64'))), expected, [keys.publicKey]))).toEqual(['BAD_SIGNATURE']);
    for (const bad of ['', '[]', '{"payloadType":"x","payload":"!!","signatures":[]}', JSON.stringify({ ...signed, extra: 1 }), JSON.stringify({ ...signed, signatures: [] })]) {
      expect(codes(checkEnvelope(Buffer.from(bad), expected, [keys.publicKey])), bad).toEqual(['BAD_ENVELOPE']);
    }
    expect(codes(checkEnvelope(edit((e) => (e.payload = Buffer.from('{"_type":"x"}').toString('base64'))), expected, [keys.publicKey]))).toEqual(['BAD_STATEMENT', 'BAD_SIGNATURE']);
  });
});

describe('standard Ed25519 over the PAE, both ways with OpenSSL', () => {
  const privatePem = join(dir, 'key.pem');
  const publicPem = join(dir, 'pub.pem');
  writeFileSync(privatePem, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicPem, keys.publicKey.export({ type: 'spki', format: 'pem' }));
  const message = join(dir, 'pae.bin');
  writeFileSync(message, pae(PAYLOAD_TYPE, Buffer.from(signed.payload, 'base64')));

  it('a signature made by `openssl pkeyutl -sign -rawin` verifies here', () => {
    const sigFile = join(dir, 'openssl.sig');
    execFileSync('openssl', ['pkeyutl', '-sign', '-rawin', '-inkey', privatePem, '-in', message, '-out', sigFile]);
    const theirs = readFileSync(sigFile);
    expect(theirs).toHaveLength(64);
    const envelope = edit((e) => (e.signatures[0]!.sig = theirs.toString('base64')));
    expect(codes(checkEnvelope(envelope, expected, [pinnedKey(readFileSync(publicPem, 'utf8'))]))).toEqual(['VALID']);
  });

  it('a signature made here verifies with `openssl pkeyutl -verify -rawin`, and a flipped bit does not', () => {
    const sigFile = join(dir, 'ours.sig');
    writeFileSync(sigFile, Buffer.from(signed.signatures[0]!.sig, 'base64'));
    const out = execFileSync('openssl', ['pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', publicPem, '-in', message, '-sigfile', sigFile]).toString();
    expect(out).toMatch(/Signature Verified Successfully/);
    const bad = Buffer.from(signed.signatures[0]!.sig, 'base64');
    bad[0]! ^= 1;
    writeFileSync(sigFile, bad);
    expect(() => execFileSync('openssl', ['pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', publicPem, '-in', message, '-sigfile', sigFile], { stdio: 'pipe' })).toThrow();
  });
});
