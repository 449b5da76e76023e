/**
 * The signatures the pages show (issue 16, FORMAT.md 10): for each report the
 * site carries (the current one and every retained one), each published
 * envelope (/attestations/<report-hex>/<keyid>.json) checked at build time
 * against the bytes the site publishes: payloadType, the statement, its
 * subjects (report.json as published, or the retained report's bytes, and
 * the manifest.json of every bundle that report counted, as published) and
 * the Ed25519 signature under the key /keys.json serves with that id.
 *
 * A valid check means only "this key signed these bytes": the key is the
 * site's own, which proves nothing until the reader pins it (the pages say
 * so, and give the verify.mjs --key command). An envelope that does not
 * check is shown with its code, never as signed.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { checkEnvelope, manifestSubjectName, type SubjectFile } from '../../attest/envelope.ts';
import type { PublishedAttestations } from '../../attest/published.ts';
import { canonicalJson } from '../../json/canonical.ts';
import type { Report } from '../../report/schema.ts';
import { hexOf } from '../views/format.ts';
import type { Published } from './published.ts';

/** One published envelope of a report, as checked at build time. */
export interface SiteSignature {
  /** The key id its file is named by (/attestations/<report-hex>/<keyid>.json). */
  keyid: string;
  /** The statement is the expected one and the signature by this key verifies under the key /keys.json serves. */
  valid: boolean;
  /** Why not (FORMAT.md 10 check codes: BAD_ENVELOPE, WRONG_PAYLOAD_TYPE, SUBJECT_MISMATCH, BAD_SIGNATURE, NO_KEY, NOT_SIGNED, UNCHECKED...). */
  problems: { code: string; detail: string }[];
}

/** A report the site carries: its hex, its published bytes and (when it parses) the report. */
export interface SignedReport {
  hex: string;
  bytes: Uint8Array;
  report: Pick<Report, 'report_id' | 'bundles'> | null;
}

/** The current report as the site publishes it (/report.json: RFC 8785 plus a newline). */
export function currentReport(report: Report): SignedReport {
  return { hex: hexOf(report.report_id), bytes: Buffer.from(`${canonicalJson(report)}\n`, 'utf8'), report };
}

/** Every envelope of these reports, checked; by report hex, each list in key id order. */
export async function checkSignatures(reports: readonly SignedReport[], published: Published, attestations: Pick<PublishedAttestations, 'files' | 'byReport' | 'keys'>): Promise<Record<string, SiteSignature[]>> {
  const keys = new Map<string, KeyObject>();
  for (const k of attestations.keys) keys.set(k.keyid, createPublicKey(k.public_key_pem));
  const envelopes = new Map(attestations.files.map((f) => [f.path, f.bytes]));
  // The manifest.json each bundle directory publishes, by directory hex.
  const manifests = new Map<string, string>();
  for (const b of published.bundles) {
    const file = b.manifestUrl === null ? undefined : b.files.find((f) => f.path === 'manifest.json');
    if (file) manifests.set(b.dirHex, file.sha256);
  }
  const out: Record<string, SiteSignature[]> = {};
  const seen = new Set<string>();
  for (const r of reports) {
    if (seen.has(r.hex)) continue;
    seen.add(r.hex);
    const ids = attestations.byReport.get(r.hex) ?? [];
    if (ids.length === 0) continue;
    const files: SubjectFile[] = [{ name: 'report.json', bytes: r.bytes }];
    const unchecked: SiteSignature['problems'] = [];
    if (r.report === null) unchecked.push({ code: 'UNCHECKED', detail: 'the retained report does not check, so what it counted is unknown' });
    for (const b of r.report?.bundles ?? []) {
      if (!b.counted || b.bundle_id === null) continue;
      const sha256 = manifests.get(hexOf(b.bundle_id));
      if (sha256 === undefined) unchecked.push({ code: 'UNCHECKED', detail: `the manifest of counted bundle ${b.bundle_id} is not published on this site any more` });
      else if (!files.some((f) => f.name === manifestSubjectName(b.bundle_id!))) files.push({ name: manifestSubjectName(b.bundle_id), bytes: await published.blob(sha256) });
    }
    out[r.hex] = [...ids].sort().map((keyid): SiteSignature => {
      if (unchecked.length > 0) return { keyid, valid: false, problems: unchecked };
      const bytes = envelopes.get(`/attestations/${r.hex}/${keyid}.json`);
      const key = keys.get(keyid);
      if (bytes === undefined) return { keyid, valid: false, problems: [{ code: 'UNCHECKED', detail: 'the envelope was not read' }] };
      if (key === undefined) return { keyid, valid: false, problems: [{ code: 'NO_KEY', detail: 'the site serves no key with this id in /keys.json: the signature cannot be checked' }] };
      const check = checkEnvelope(bytes, { files, report_id: `sha256:${r.hex}` }, [key]);
      const problems: SiteSignature['problems'] = [...check.problems];
      const own = check.signatures.filter((s) => s.keyid === keyid);
      if (own.length === 0) problems.push({ code: 'NOT_SIGNED', detail: 'the envelope holds no signature by the key its file is named for' });
      else if (!own.some((s) => s.valid)) for (const s of own) problems.push({ code: s.problem ?? 'BAD_SIGNATURE', detail: s.detail ?? 'the signature does not verify' });
      return { keyid, valid: problems.length === 0, problems };
    });
  }
  return out;
}
