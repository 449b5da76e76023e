/**
 * Signed or not, and withheld then revealed, in the site model (issue 16):
 * each published envelope is checked at build time against the bytes the
 * site publishes (src/site/model/signatures.ts), and one that does not check keeps
 * its code (never "signed"); retain's record of what it withheld
 * (src/history/retained-withheld.ts) becomes, per file, revealed, still
 * withheld or absent, and a report without a record is "not recorded".
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeBytes, keyIdOf, manifestSubjectName, publicPemOf, signStatement, statementFor } from '../../src/attest/envelope.ts';
import { Config } from '../../src/config/config.ts';
import { readRetainedWithheld, writeRetainedWithheld, WITHHELD_DIR } from '../../src/history/retained-withheld.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf, type Published } from '../../src/site/build/publish.ts';
import { checkSignatures, currentReport } from '../../src/site/model/signatures.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const SECRET = 'holdout/secret.txt';
const RULE = { path: 'holdout/**', reason: 'holdout tests', until: '2027-01-01' };
let report: Report;
let results: Awaited<ReturnType<typeof verifyPaths>>;
let published: Published;
let manifest: Buffer;
const signer = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const keyid = keyIdOf(signer.publicKey);
const hex = () => report.report_id.slice(7);

/** An envelope over the current report's published bytes, by `key`, with `edit` applied to it. */
function envelope(key = signer.privateKey, edit: (e: ReturnType<typeof signStatement>) => void = () => {}): Buffer {
  const files = [{ name: 'report.json', bytes: currentReport(report).bytes }, { name: manifestSubjectName(report.bundles[0]!.bundle_id!), bytes: manifest }];
  const e = signStatement(statementFor(files, report.report_id, 'https://board.example/'), key);
  edit(e);
  return envelopeBytes(e);
}

const attestations = (byKey: Record<string, Buffer>, keys = [signer.publicKey]) => ({
  files: Object.entries(byKey).map(([id, bytes]) => ({ path: `/attestations/${hex()}/${id}.json`, bytes })),
  byReport: new Map([[hex(), Object.keys(byKey)]]),
  keys: keys.map((k) => ({ keyid: keyIdOf(k), public_key_pem: publicPemOf(k) })),
});

beforeAll(async () => {
  const model = validBundle();
  model.extra.set(SECRET, new TextEncoder().encode('assert answer == 42\n'));
  const dir = await writeModel(model);
  results = await verifyPaths([dir]);
  report = buildReport(results, Config.parse({}));
  expect(report.bundles[0]!.counted).toBe(true);
  published = publishedOf(report, results, [RULE]);
  manifest = await readFile(join(dir, 'manifest.json'));
});
afterAll(removeTempDirs);

describe('signatures on the pages', () => {
  it('an envelope over the published bytes, by the key /keys.json serves: signed', async () => {
    const checked = await checkSignatures([currentReport(report)], published, attestations({ [keyid]: envelope() }));
    expect(checked).toEqual({ [hex()]: [{ keyid, valid: true, problems: [] }] });
  });

  it('no envelope: the report is absent from the map (not signed)', async () => {
    expect(await checkSignatures([currentReport(report)], published, { files: [], byReport: new Map(), keys: [] })).toEqual({});
  });

  it('an envelope that does not check keeps its code and is never valid', async () => {
    const codes = async (byKey: Record<string, Buffer>, keys = [signer.publicKey], r = currentReport(report)) =>
      (await checkSignatures([r], published, attestations(byKey, keys)))[hex()]!.map((s) => [s.valid, ...s.problems.map((p) => p.code)]);
    expect(await codes({ [keyid]: envelope(undefined, (e) => void (e.payloadType = 'text/plain')) })).toEqual([[false, 'WRONG_PAYLOAD_TYPE', 'BAD_SIGNATURE']]);
    expect(await codes({ [keyid]: envelope(undefined, (e) => void (e.signatures[0]!.sig = Buffer.from(e.signatures[0]!.sig, 'base64').subarray(0, 63).toString('base64'))) })).toEqual([[false, 'BAD_SIGNATURE']]);
    // Signed by another key, filed under the signer's id.
    expect(await codes({ [keyid]: envelope(other.privateKey) })).toEqual([[false, 'NOT_SIGNED']]);
    // The key is not served.
    expect(await codes({ [keyid]: envelope() }, [other.publicKey])).toEqual([[false, 'NO_KEY']]);
    // Other report bytes under the same id (one byte flipped).
    const flipped = currentReport(report);
    flipped.bytes = Buffer.from(flipped.bytes);
    flipped.bytes[10] = flipped.bytes[10] === 0x61 ? 0x62 : 0x61;
    expect(await codes({ [keyid]: envelope() }, [signer.publicKey], flipped)).toEqual([[false, 'SUBJECT_MISMATCH']]);
    // A report counting a bundle this site no longer publishes: not checked, not signed.
    const gone = { ...currentReport(report), report: { ...report, bundles: [{ ...report.bundles[0]!, bundle_id: `sha256:${'1'.repeat(64)}` }] } };
    expect(await codes({ [keyid]: envelope() }, [signer.publicKey], gone)).toEqual([[false, 'UNCHECKED']]);
  });
});

describe('withheld files then and now', () => {
  it('a bundle lists its withheld files (path, digest, size, reason, until) and the model counts them', async () => {
    const model = await modelOf(report, results, published, Config.parse({}));
    expect(model.withheldCount).toBe(1);
    expect(model.bundles[0]!.withheld).toEqual([expect.objectContaining({ path: SECRET, bytes: 20, reason: RULE.reason, until: RULE.until })]);
    expect(model.bundles[0]!.files.map((f) => f.path)).not.toContain(SECRET);
    expect(model.signatures).toEqual({});
  });

  it('retain records what it withheld, create-only, beside the report; a later build says revealed or still withheld', async () => {
    const dir = await makeTempDir('ledgerboard-retained-withheld-');
    const files = published.bundles.flatMap((b) => b.withheld.map((w) => ({ bundle: b.dirHex, ...w })));
    expect(await writeRetainedWithheld(dir, { report_id: report.report_id, files })).toBe('created');
    expect(await writeRetainedWithheld(dir, { report_id: report.report_id, files })).toBe('exists');
    expect(await writeRetainedWithheld(dir, { report_id: report.report_id, files: [] })).toBe('kept');
    const read = await readRetainedWithheld(dir, hex());
    expect(read).toEqual({ record: { report_id: report.report_id, files }, problem: null });
    const retained = { reports: [{ hex: hex(), report, problems: [] }], ignored: [] };
    const now = async (p: Published, entry: typeof read | undefined) => (await modelOf(report, results, p, Config.parse({}), { retained, retainedWithheld: entry ? { [hex()]: entry } : {} })).retained[0]!.withheld;
    expect(await now(published, read)).toMatchObject({ count: 1, revealed: 0, still: 1, absent: 0, files: [{ path: SECRET, now: 'withheld' }] });
    expect(await now(publishedOf(report, results), read)).toMatchObject({ count: 1, revealed: 1, still: 0, files: [{ path: SECRET, now: 'revealed' }] });
    // No record: not recorded (null), never guessed.
    expect(await now(publishedOf(report, results), undefined)).toBeNull();
    expect(await readRetainedWithheld(dir, 'f'.repeat(64))).toEqual({ record: null, problem: null });
    // A record about another report, or not a record: named, not used.
    await mkdir(join(dir, WITHHELD_DIR), { recursive: true });
    await writeFile(join(dir, WITHHELD_DIR, `${'e'.repeat(64)}.json`), JSON.stringify({ report_id: report.report_id, files: [] }));
    expect((await readRetainedWithheld(dir, 'e'.repeat(64))).problem).toMatch(/about another report/);
    const bad = await readRetainedWithheld(dir, 'e'.repeat(64));
    expect(await now(published, bad)).toMatchObject({ problem: expect.stringMatching(/another report/), count: 0 });
  });
});
