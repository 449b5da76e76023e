/**
 * verify.mjs's command line (src/rederive/verify-main.ts, run in-process) on
 * a published site with anchored bundles (issue 30, item 3): the report's
 * per-bundle `anchor` (pinned included) re-derives with the roots the site
 * publishes at /timestamp-roots/<hex>.pem; each token is checked again and
 * the openssl ts -verify command is printed with the token's absolute path;
 * a swapped root file, or a token blob tampered with, is a MISMATCH naming
 * it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePinnedRoots, rootDigest } from '../../src/anchor/check.ts';
import { Config, withTimestampRoots } from '../../src/config/config.ts';
import { canonicalJson, digestHex } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { main } from '../../src/rederive/verify-main.ts';
import { checkReaderRoot } from '../../src/rederive/reader-root.ts';
import { directorySource } from '../../src/rederive/site-checks.mjs';
import { publishedOf, writeEvidence } from '../../src/site/build/publish.ts';
import { timestampRootFiles } from '../../src/site/build/timestamp-roots.ts';
import { makeTempDir, removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';
import { futureBundle, planHexOf, tokenAt, withTokens } from '../helpers/anchored-bundle.ts';
import { copySite } from '../helpers/forge-site.ts';
import { makeTsa } from '../helpers/tsa-tokens.ts';

const tsa = makeTsa();
const stranger = makeTsa({ rootSubject: '/C=XX/O=Elsewhere/CN=Another Root' });
const root = parsePinnedRoots(tsa.rootPem)[0]!;
const GEN_TIME = '2030-09-14T13:00:00Z';
let site: string;
let report: Report;
let planHex: string;
let tokenHex: string;

interface Line {
  status: string;
  check: string;
  subject: string;
  detail: string;
}

async function verify(dir: string): Promise<{ status: number; lines: Line[] }> {
  const out: string[] = [];
  const status = await main([dir, '--json'], (line) => out.push(line), () => {});
  return { status, lines: (JSON.parse(out.join('\n')) as { results: Line[] }).results };
}

beforeAll(async () => {
  const anchored = futureBundle();
  anchored.plan.title = 'an anchored plan';
  planHex = planHexOf(anchored);
  const token = tokenAt(tsa, planHex, GEN_TIME);
  const plain = futureBundle();
  plain.plan.title = 'a plan never anchored';
  const dirs = [await writeModel(withTokens(anchored, { 'tsa.example.tsr': token })), await writeModel(plain)];
  const config = withTimestampRoots(Config.parse({}), [root]);
  const results = await verifyPaths(dirs, undefined, { workers: 0, timestampRoots: [root] });
  report = buildReport(results, config);
  site = await makeTempDir('ledgerboard-anchored-site-');
  await writeFile(join(site, 'report.json'), `${canonicalJson(report)}\n`);
  await mkdir(join(site, 'cohorts'));
  for (const cohort of report.cohorts) await writeFile(join(site, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));
  await writeEvidence(publishedOf(report, results).bundles, site);
  await mkdir(join(site, 'timestamp-roots'));
  for (const file of timestampRootFiles([root])) await writeFile(join(site, ...file.path.slice(1).split('/')), file.text);
  tokenHex = results[0]!.entries.find((e) => e.path === 'anchors/tsa.example.tsr')!.sha256!.slice(7);
}, 120_000);

afterAll(async () => {
  tsa.remove();
  stranger.remove();
  await removeTempDirs();
});

describe('verify.mjs on a site with an anchored bundle', () => {
  it('the report states the anchor, pinned to the root the config pins, and its config the root\'s digest', () => {
    expect(report.config.timestamp_roots).toEqual([rootDigest(root)]);
    expect(report.bundles.map((b) => [b.plan?.title, b.anchor])).toEqual(
      expect.arrayContaining([
        ['an anchored plan', { gen_time: GEN_TIME, authority: 'CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX', pinned: true, before_first_attempt: true }],
        ['a plan never anchored', null],
      ]),
    );
  });

  it('re-derives: the root matches its name, the token checks, anchor.gen_time is its genTime, and the openssl command names the blob\'s absolute path', async () => {
    const { status, lines } = await verify(site);
    expect(lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(status).toBe(0);
    const subject = report.bundles.find((b) => b.anchor)!.bundle_id!;
    expect(lines).toContainEqual({ status: 'ok', check: 'report', subject: '/report.json', detail: expect.stringMatching(/^re-derived from the evidence, byte for byte/), count: 1, failed: 0, problems: [] });
    expect(lines).toContainEqual(expect.objectContaining({ status: 'ok', check: 'timestamp root', subject: `/timestamp-roots/${rootDigest(root).slice(7)}.pem` }));
    expect(lines.filter((l) => l.check === 'anchor').map((l) => [l.status, l.subject, l.detail])).toEqual([
      ['ok', subject, `"anchors/tsa.example.tsr": the imprint is SHA-256 of the plan id's 32 bytes and the signature checks: stamped ${GEN_TIME} by "CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\\\, Time,C=XX" (pinned)`],
      ['ok', subject, `anchor.gen_time ${GEN_TIME} is the earliest genTime of the 1 token(s) that check`],
      ['info', subject, `check "anchors/tsa.example.tsr" with a root you trust: openssl ts -verify -digest ${planHex} -token_in -in ${join(site, 'blobs', tokenHex)} -CAfile <your-root.pem>`],
    ]);
  }, 60_000);

  it('a swapped root file (another authority\'s certificate under the pinned name): MISMATCH naming it, and the anchor is no longer pinned', async () => {
    const copy = await copySite(site, 'ledgerboard-swapped-root-');
    await writeFile(join(copy, 'timestamp-roots', `${rootDigest(root).slice(7)}.pem`), stranger.rootPem);
    const { status, lines } = await verify(copy);
    expect(status).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ status: 'MISMATCH', check: 'timestamp root', subject: `/timestamp-roots/${rootDigest(root).slice(7)}.pem`, detail: expect.stringMatching(/a swapped root; not used$/) }));
    expect(lines.filter((l) => l.check === 'anchor')[0]).toMatchObject({ status: 'ok', detail: expect.stringMatching(/\(not pinned\)$/) });
    const subject = report.bundles.find((b) => b.anchor)!.bundle_id!;
    expect(lines).toContainEqual(expect.objectContaining({ status: 'MISMATCH', check: 'report', detail: `bundle ${subject} anchor.pinned: published true, re-derived false` }));
    expect(lines).toContainEqual(expect.objectContaining({ status: 'MISMATCH', check: 'report', detail: 'report config.timestamp_roots length: published 1, re-derived 0' }));
  }, 60_000);

  it('a reader\'s own root (the verify page\'s check, reader-root.ts): the authority\'s chains, another does not, junk is a problem', async () => {
    const subject = report.bundles.find((b) => b.anchor)!.bundle_id!;
    const ours = await checkReaderRoot(directorySource(site), tsa.rootPem);
    expect(ours).toEqual({
      roots: [{ subject: 'CN=Test Root CA,O=Ledgerboard Test,C=XX', digest: rootDigest(root) }],
      problem: null,
      bundles: [{ subject, title: 'an anchored plan', tokens: [{ path: 'anchors/tsa.example.tsr', blob: `/blobs/${tokenHex}`, result: 'chains', detail: `stamped ${GEN_TIME} by "CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\\\, Time,C=XX", whose certificate chains to your root` }] }],
    });
    const theirs = await checkReaderRoot(directorySource(site), stranger.rootPem);
    expect(theirs.bundles.flatMap((b) => b.tokens.map((t) => t.result))).toEqual(['other-root']);
    expect(await checkReaderRoot(directorySource(site), 'not a certificate')).toEqual({ roots: [], problem: 'not a PEM certificate: the PEM text holds no certificate', bundles: [] });
  });

  it('a token blob tampered with: MISMATCH naming the blob', async () => {
    const copy = await copySite(site, 'ledgerboard-tampered-token-');
    const blob = join(copy, 'blobs', tokenHex);
    const bytes = await readFile(blob);
    bytes[bytes.length - 3]! ^= 0xff;
    await writeFile(blob, bytes);
    const { status, lines } = await verify(copy);
    expect(status).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ status: 'MISMATCH', detail: expect.stringContaining(`/blobs/${tokenHex}`) }));
  }, 60_000);
});
