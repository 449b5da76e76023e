/**
 * A pinned root certificate as a site publishes it (docs/site.md,
 * "Time-stamp anchors"): one PEM block made from the DER alone (base64 in
 * lines of 64 characters, LF line ends), so the same certificate is always
 * the same bytes whatever the PEM file it was read from looked like. Its
 * name is its digest (certificates.ts rootDigest).
 */

/** One certificate's PEM block, from its DER: `-----BEGIN CERTIFICATE-----`, base64 in 64-character lines, the END line, each ended by LF. */
export function certificatePem(der: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < der.length; i++) binary += String.fromCharCode(der[i]!);
  const base64 = btoa(binary);
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += 64) lines.push(base64.slice(at, at + 64));
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
