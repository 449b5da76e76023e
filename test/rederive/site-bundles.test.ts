/**
 * A bundle read back from a hostile site (src/rederive/site-bundles.ts): a
 * files.json that lists more than the build could have read under the
 * report's limits is refused before any blob is fetched (a host cannot make
 * a verifier download more than the build read), and a blob that is not the
 * digest it is published under is a mismatch, never parsed.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestBytes, digestCanonical } from '../../src/json/canonical.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { readSiteBundle, SiteProblem } from '../../src/rederive/site-bundles.ts';
import type { Report } from '../../src/report/schema.ts';

type Entry = { path: string; kind: string; bytes: number | null; sha256: string | null };

/** A site serving one listing and the given blobs; records every path asked for. */
function site(entries: Entry[], blobs: Map<string, Uint8Array> = new Map()) {
  const content_digest = digestCanonical(entries.map((e) => [e.path, e.kind, e.sha256]));
  const asked: string[] = [];
  const hex = content_digest.slice(7);
  const get = async (path: string): Promise<Uint8Array | null> => {
    asked.push(path);
    if (path === `/bundles/${hex}/files.json`) return new TextEncoder().encode(`${canonicalJson({ content_digest, entries })}\n`);
    const m = /^\/blobs\/([0-9a-f]{64})$/.exec(path);
    return m ? (blobs.get(`sha256:${m[1]}`) ?? null) : null;
  };
  const entry = { bundle_id: null, plan_id: null, content_digest, status: 'invalid', counted: false, findings: [], plan: null, cost: null } as unknown as Report['bundles'][number];
  return { get, asked, entry };
}

const options = { limits: { ...LIMIT_DEFAULTS, structured_file_bytes: 1000 }, importLimits: DEFAULT_IMPORT_LIMITS };

describe('readSiteBundle on a hostile site', () => {
  it('a listed structured file past the limits the report carries: refused, nothing fetched but the listing', async () => {
    const huge = { path: 'plan.json', kind: 'file', bytes: 5_000_000_000, sha256: `sha256:${'a'.repeat(64)}` };
    const s = site([huge]);
    await expect(readSiteBundle(s.get, s.entry, options)).rejects.toThrow(SiteProblem);
    await expect(readSiteBundle(s.get, s.entry, options)).rejects.toThrow(/"plan\.json" at 5000000000 bytes, more than limits\.structured_file_bytes \(1000\)/);
    expect(s.asked.every((p) => p.endsWith('/files.json'))).toBe(true);
  });

  it('the same listing within the limits is fetched; a blob that is not its digest is a MISMATCH and never parsed', async () => {
    const plan = new TextEncoder().encode('{"schema":"ledgerboard.plan.v1"}');
    const listed = { path: 'plan.json', kind: 'file', bytes: plan.length, sha256: digestBytes(plan) };
    const other = new TextEncoder().encode('{"schema":"something else"}');
    const s = site([listed], new Map([[listed.sha256, other]]));
    const read = await readSiteBundle(s.get, s.entry, options);
    expect(s.asked).toContain(`/blobs/${listed.sha256.slice(7)}`);
    expect(read.lines.map((l) => [l.status, l.check])).toContainEqual(['MISMATCH', 'blob']);
    expect(read.lines.find((l) => l.check === 'blob')!.detail).toMatch(/^"plan\.json": \/blobs\/[0-9a-f]{64} is \d+ bytes hashing to sha256:[0-9a-f]{64}, listed as \d+ bytes sha256:/);
    expect(read.result.verification.status).not.toBe('verified');
  });
});
