/**
 * The time-stamp roots a published report was made with (FORMAT.md 12):
 * the report's config records each pinned root as the SHA-256 of its
 * certificate's DER, and the site publishes the certificate at
 * `/timestamp-roots/<hex>.pem` (docs/site.md, "Time-stamp roots"). Each file
 * is fetched, must hold exactly one certificate whose digest is its name
 * (else a MISMATCH naming the file: a swapped root would make another
 * authority's tokens `pinned`), and is parsed for the re-derivation, which
 * passes the roots to verification so that every bundle's `anchor.pinned`
 * is re-derived with them.
 *
 * Untrusted input: the digests come from the report (checked against a
 * strict pattern before they name a URL), the files from the site.
 */
import { parsePinnedRoots, rootDigest, type PinnedRoot } from '../anchor/check.ts';
import { rfc4514 } from '../anchor/names.ts';
import type { RederiveLine, SiteGet } from './types.ts';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The largest root file read: a certificate is a few KiB. */
export const MAX_ROOT_FILE_BYTES = 64 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The digests the report's config records under `timestamp_roots` (none when absent); null when the member is there but is not a list of digests. */
export function timestampRootDigests(config: unknown): string[] | null {
  const value = config !== null && typeof config === 'object' ? (config as Record<string, unknown>).timestamp_roots : undefined;
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((d): d is string => typeof d === 'string' && DIGEST.test(d))) return null;
  return value;
}

/** The site's pinned roots, read back and checked against their names; a line for each. */
export async function readSiteRoots(get: SiteGet, config: unknown): Promise<{ roots: PinnedRoot[]; lines: RederiveLine[] }> {
  const digests = timestampRootDigests(config);
  if (digests === null) return { roots: [], lines: [{ status: 'MISMATCH', check: 'timestamp root', subject: '/report.json', detail: 'config.timestamp_roots is not a list of "sha256:<hex>" certificate digests' }] };
  const roots: PinnedRoot[] = [];
  const lines: RederiveLine[] = [];
  for (const digest of digests) {
    const path = `/timestamp-roots/${digest.slice(7)}.pem`;
    const bytes = await get(path, undefined);
    if (bytes === null) {
      lines.push({ status: 'MISMATCH', check: 'timestamp root', subject: path, detail: `not published, but the report's config pins the time-stamp root ${digest}: the anchors' "pinned" is re-derived without it` });
      continue;
    }
    if (bytes.length > MAX_ROOT_FILE_BYTES) {
      lines.push({ status: 'MISMATCH', check: 'timestamp root', subject: path, detail: `${bytes.length} bytes, more than a root certificate file may be (${MAX_ROOT_FILE_BYTES}): not read` });
      continue;
    }
    let parsed: PinnedRoot[];
    try {
      parsed = parsePinnedRoots(decoder.decode(bytes));
    } catch (error) {
      lines.push({ status: 'MISMATCH', check: 'timestamp root', subject: path, detail: `not a PEM certificate (${error instanceof Error ? error.message : String(error)})` });
      continue;
    }
    const found = parsed.map(rootDigest);
    if (parsed.length !== 1 || found[0] !== digest) {
      lines.push({ status: 'MISMATCH', check: 'timestamp root', subject: path, detail: `holds ${parsed.length === 1 ? `the certificate ${found[0]}` : `${parsed.length} certificates (${found.join(', ')})`}, not the one certificate ${digest} its name and the report's config give: a swapped root; not used` });
      continue;
    }
    roots.push(parsed[0]!);
    lines.push({ status: 'ok', check: 'timestamp root', subject: path, detail: `the pinned time-stamp root ${JSON.stringify(rfc4514(parsed[0]!.certificate.tbsCertificate.subject))}: its certificate's SHA-256 is its name, ${digest}` });
  }
  return { roots, lines };
}
