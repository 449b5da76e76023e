/**
 * A pinned root certificate as a site publishes it (docs/site.md,
 * "Time-stamp roots"): its digest, `sha256:` and the hex of the SHA-256 of
 * its DER (the name the report's config records and the file's name under
 * /timestamp-roots/), and one PEM block made from the DER alone (base64 in
 * lines of 64 characters, LF line ends), so the same certificate is always
 * the same bytes whatever the PEM file it was read from looked like.
 */
import { digestBytes } from '../json/canonical.ts';

/** `sha256:<hex>` of a certificate's DER. */
export function certificateDigest(der: Uint8Array): string {
  return digestBytes(der);
}

/** One certificate's PEM block, from its DER: `-----BEGIN CERTIFICATE-----`, base64 in 64-character lines, the END line, each ended by LF. */
export function certificatePem(der: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < der.length; i++) binary += String.fromCharCode(der[i]!);
  const base64 = btoa(binary);
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += 64) lines.push(base64.slice(at, at + 64));
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
