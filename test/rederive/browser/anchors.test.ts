/**
 * The re-derivation of an anchored site as the in-browser worker runs it
 * (issue 30), in Node with node:crypto replaced by the browser's stand-in
 * (src/rederive/browser/crypto.ts) while re-deriving (the site itself is
 * built with Node's): with the worker's Web Crypto pre-check
 * (prepareAnchorSignatures), the tokens are checked and the report
 * re-derives byte for byte, `pinned` included; without it (a signature Web
 * Crypto cannot check), the bundle is verified again without its tokens,
 * its anchor and ANCHOR_* findings are taken as published and said so, and
 * still nothing is a MISMATCH or a false verdict.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePinnedRoots } from '../../../src/anchor/check.ts';
import { Config, withTimestampRoots } from '../../../src/config/config.ts';
import { canonicalJson, digestHex } from '../../../src/json/canonical.ts';
import { verifyPaths } from '../../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../../src/report/build-report.ts';
import { rederiveSite } from '../../../src/rederive/rederive.ts';
import { directorySource } from '../../../src/rederive/site-checks.mjs';
import { prepareAnchorSignatures } from '../../../src/rederive/browser/anchor-signatures.ts';
import { isNotInBrowser } from '../../../src/rederive/browser/not-in-browser.ts';
import { publishedOf, writeEvidence } from '../../../src/site/build/publish.ts';
import { timestampRootFiles } from '../../../src/site/build/timestamp-roots.ts';
import { makeTempDir, removeTempDirs, writeModel } from '../../helpers/bundle-builder.ts';
import { futureBundle, planHexOf, tokenAt, withTokens } from '../../helpers/anchored-bundle.ts';
import { makeTsa } from '../../helpers/tsa-tokens.ts';

const mode = vi.hoisted(() => ({ browser: false }));
vi.mock('node:crypto', async () => {
  const real = await vi.importActual<typeof import('node:crypto')>('node:crypto');
  const browser = await import('../../../src/rederive/browser/crypto.ts');
  // Only the two functions the anchors need switch: the site is built with Node's, re-derived with the stand-in's.
  const createPublicKey = (...args: unknown[]) => (mode.browser ? (browser.createPublicKey as (...a: unknown[]) => unknown) : (real.createPublicKey as (...a: unknown[]) => unknown))(...args);
  const verify = (...args: unknown[]) => (mode.browser ? (browser.verify as (...a: unknown[]) => unknown) : (real.verify as (...a: unknown[]) => unknown))(...args);
  return { ...real, default: { ...real, createPublicKey, verify }, createPublicKey, verify };
});

const tsa = makeTsa();
const root = parsePinnedRoots(tsa.rootPem)[0]!;
let site: string;

beforeAll(async () => {
  const anchored = futureBundle();
  anchored.plan.title = 'anchored';
  // Anchored after its first attempt: the published ANCHOR_AFTER_ATTEMPT must be kept in its place.
  const dirs = [await writeModel(withTokens(anchored, { 'tsa.tsr': tokenAt(tsa, planHexOf(anchored), '2030-09-16T00:00:00Z') }))];
  const results = await verifyPaths(dirs, undefined, { workers: 0, timestampRoots: [root] });
  const report = buildReport(results, withTimestampRoots(Config.parse({}), [root]));
  if (!report.bundles[0]!.findings.some((f) => f.code === 'ANCHOR_AFTER_ATTEMPT')) throw new Error('the fixture bundle should carry ANCHOR_AFTER_ATTEMPT');
  site = await makeTempDir('ledgerboard-browser-anchors-');
  await writeFile(join(site, 'report.json'), `${canonicalJson(report)}\n`);
  await mkdir(join(site, 'cohorts'));
  for (const cohort of report.cohorts) await writeFile(join(site, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));
  await writeEvidence(publishedOf(report, results).bundles, site);
  await mkdir(join(site, 'timestamp-roots'));
  for (const file of timestampRootFiles([root])) await writeFile(join(site, ...file.path.slice(1).split('/')), file.text);
  mode.browser = true;
}, 120_000);

afterAll(async () => {
  tsa.remove();
  await removeTempDirs();
});

describe('an anchored site re-derived as the browser worker does', () => {
  it('without the Web Crypto pre-check: the tokens are not checked here, the anchor is taken as published and said, nothing mismatches', async () => {
    const result = await rederiveSite(directorySource(site), { cannotRunHere: isNotInBrowser });
    expect(result.lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(result.lines).toContainEqual(expect.objectContaining({ status: 'ok', check: 'report', detail: expect.stringMatching(/^re-derived from the evidence, byte for byte/) }));
    expect(result.lines).toContainEqual(expect.objectContaining({ status: 'info', check: 'anchor', detail: expect.stringMatching(/^the time-stamp tokens are not re-derived here \(.*\): the anchor and its findings are taken as published; verify\.mjs checks them$/) }));
    expect(result.lines).toContainEqual(expect.objectContaining({ status: 'info', check: 'anchor', detail: expect.stringMatching(/^"anchors\/tsa\.tsr": not checked here/) }));
  }, 60_000);

  it('with it: every token checked with Web Crypto, pinned, and the report re-derived byte for byte', async () => {
    const result = await rederiveSite(directorySource(site), { cannotRunHere: isNotInBrowser, prepareAnchors: (tokens, plan, roots) => prepareAnchorSignatures(tokens, plan, roots) });
    expect(result.lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(result.lines).toContainEqual(expect.objectContaining({ status: 'ok', check: 'report', detail: expect.stringMatching(/^re-derived from the evidence, byte for byte/) }));
    expect(result.lines.filter((l) => l.check === 'anchor').map((l) => [l.status, l.detail])).toEqual([
      ['ok', expect.stringMatching(/^"anchors\/tsa\.tsr": the imprint is SHA-256 of the plan id's 32 bytes and the signature checks: stamped 2030-09-16T00:00:00Z by .* \(pinned\)$/)],
      ['ok', 'anchor.gen_time 2030-09-16T00:00:00Z is the earliest genTime of the 1 token(s) that check'],
      ['info', expect.stringMatching(/^check "anchors\/tsa\.tsr" with a root you trust: openssl ts -verify -digest [0-9a-f]{64} -token_in -in \/blobs\/[0-9a-f]{64} -CAfile <your-root\.pem>$/)],
    ]);
  }, 60_000);
});
