/**
 * The evidence layout of docs/site.md (src/site/build/publish.ts): every file's
 * bytes once at /blobs/<sha256-hex>, /bundles/<dir-hex>/manifest.json and
 * /bundles/<dir-hex>/files.json, and no published path derived from
 * evidence. Built the way `ledgerboard build` writes it (buildSiteModel +
 * writeEvidence), without Astro.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths, type BundleResult } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import type { SiteModel } from '../../src/site/model/model.ts';
import { publishedOf, writeEvidence, type Published } from '../../src/site/build/publish.ts';
import { contentDigestOf } from '../../src/rederive/site-checks.mjs';
import { addArtifact, makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { regularFiles } from '../helpers/site-fixture.ts';
import { modelOf } from '../helpers/site-model.ts';

/** Evidence text planted in file names: none of it may reach a published path. */
const HOSTILE_NAMES = ['index.html', 'evil.html', 'a.htm', 'b.xhtml', 'c.svg', 'd.xml', 'e.js', 'f.mjs', 'sub dir/index.html', 'blobs/x', 'report.json'];
const SHARED = 'the same artifact bytes in two bundles\n';

let model: SiteModel;
let publication: Published;
let report: Report;
let results: BundleResult[];
let out: string;
let published: string[];

beforeAll(async () => {
  const first = validBundle();
  first.plan.title = 'first';
  addArtifact(first, 'artifacts/shared.log', SHARED);
  for (const name of HOSTILE_NAMES) first.extra.set(name, new TextEncoder().encode(`<script>window.pwned=1</script>${name}`));
  const second = validBundle();
  second.plan.title = 'second';
  addArtifact(second, 'other/place/copy.txt', SHARED);
  // A rejected junk directory: plan.json is {} and x.html is not listed anywhere.
  const junk = join(await makeTempDir('lb-publish-junk-'), 'junk');
  await mkdir(junk);
  await writeFile(join(junk, 'plan.json'), '{}');
  await writeFile(join(junk, 'x.html'), '<script>alert(document.domain)</script>');
  const dirs = [await writeModel(first), await writeModel(second), junk];
  results = await verifyPaths(dirs);
  report = buildReport(results, Config.parse({}));
  publication = publishedOf(report, results);
  model = await modelOf(report, results, publication, Config.parse({}));
  out = await makeTempDir('lb-publish-out-');
  await writeEvidence(publication.bundles, out);
  published = await regularFiles(out);
});
afterAll(removeTempDirs);

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('writeEvidence', () => {
  it('the bundles are two verified and one rejected', () => {
    expect(report.bundles.map((b) => b.status).sort()).toEqual(['invalid', 'verified', 'verified']);
  });

  it('publishes only /blobs/<hex> and /bundles/<hex>/{manifest,files}.json: no path holds evidence text', () => {
    for (const path of published) expect(path).toMatch(/^(blobs\/[0-9a-f]{64}|bundles\/[0-9a-f]{64}\/(manifest|files)\.json)$/);
    for (const name of [...HOSTILE_NAMES, 'x.html', 'plan.json', 'shared.log', 'copy.txt']) {
      for (const path of published.filter((p) => p.startsWith('blobs/'))) expect(path).not.toContain(name);
    }
  });

  it('each blob is named by the SHA-256 of its bytes, and every file of every bundle (listed or not, rejected or not) has one', async () => {
    const blobs = new Set(published.filter((p) => p.startsWith('blobs/')).map((p) => p.slice(6)));
    for (const hex of blobs) expect(sha(await readFile(join(out, 'blobs', hex)))).toBe(hex);
    const wanted = new Set(results.flatMap((r) => r.entries.filter((e) => e.kind === 'file').map((e) => e.sha256!.slice(7))));
    expect(blobs).toEqual(wanted);
    const junk = results.find((r) => r.entries.some((e) => e.path === 'x.html'))!;
    expect(blobs).toContain(junk.entries.find((e) => e.path === 'x.html')!.sha256!.slice(7));
  });

  it('one blob per distinct digest: an artifact in two bundles is written once', () => {
    const shared = sha(new TextEncoder().encode(SHARED));
    const holders = results.filter((r) => r.entries.some((e) => e.sha256 === `sha256:${shared}`));
    expect(holders).toHaveLength(2);
    expect(published.filter((p) => p === `blobs/${shared}`)).toHaveLength(1);
    const total = results.reduce((n, r) => n + r.entries.filter((e) => e.kind === 'file').length, 0);
    const blobs = published.filter((p) => p.startsWith('blobs/')).length;
    expect(blobs).toBeLessThan(total);
  });

  it('manifest.json under each verified bundle id is the bundle\'s own bytes; files.json re-derives every content_digest', async () => {
    for (const [i, entry] of report.bundles.entries()) {
      const b = model.bundles[i]!;
      const dirHex = (entry.status === 'verified' ? entry.bundle_id! : entry.content_digest).slice(7);
      expect(b.dirHex).toBe(dirHex);
      const listing = JSON.parse(await readFile(join(out, 'bundles', dirHex, 'files.json'), 'utf8')) as { content_digest: string };
      expect(listing.content_digest).toBe(entry.content_digest);
      expect(contentDigestOf(listing)).toBe(entry.content_digest);
      const source = results.find((r) => r.content_digest === entry.content_digest)!;
      if (entry.status === 'verified') {
        expect(await readFile(join(out, 'bundles', dirHex, 'manifest.json'))).toEqual(await readFile(join(source.path, 'manifest.json')));
      } else {
        expect(published).not.toContain(`bundles/${dirHex}/manifest.json`); // the junk directory has none
      }
    }
  });

  it('pages link evidence at its blob URL only', () => {
    for (const b of model.bundles) {
      for (const f of b.files) expect(f.url).toBe(`/blobs/${f.sha256.slice(7)}`);
      if (b.page) expect(b.page.planUrl).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
    }
  });

  it('evidence changed after verification stops the build', async () => {
    const first = results.find((r) => r.entries.some((e) => e.path === 'evil.html'))!;
    const bundle = publication.bundles.find((b) => b.sourceDir === first.path)!;
    await writeFile(join(first.path, 'evil.html'), 'changed');
    await expect(writeEvidence([bundle], await makeTempDir('lb-publish-again-'))).rejects.toThrow(/now hashes to sha256:[0-9a-f]{64}, verification saw sha256:[0-9a-f]{64}/);
  });
});
