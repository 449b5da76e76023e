/**
 * Test helper: a small published site on disk, in the docs/site.md layout
 * that verify.mjs (lib/site-verifier/verify.mjs) reads: /report.json, /cohorts/<hex>.json, and the
 * evidence as the build writes it (src/site/build/publish.ts): /blobs/<sha256-hex>,
 * /bundles/<dir-hex>/manifest.json and /bundles/<dir-hex>/files.json.
 *
 * Bundles: two valid ones on two boards (the second with another harness
 * version), the first carrying a listed file whose name needs
 * percent-encoding, and one tampered bundle that is not verified (published
 * under its content_digest, re-hashed by verify.mjs as information only).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, digestHex } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { modelOf } from './site-model.ts';
import { publishedOf, writeEvidence } from '../../src/site/build/publish.ts';
import { makeTempDir, validBundle, verifyDir, writeModel } from './bundle-builder.ts';

/** A listed file whose name holds a space, '#', '%', '?' and a non-ASCII letter. */
export const ODD_PATH = 'logs/run 1 #a%b?é.txt';

/** A published bundle: where it sits in the site and what it holds. */
export interface PublishedBundle {
  bundle_id: string | null;
  status: string;
  counted: boolean;
  /** The hex of its directory under /bundles/. */
  dirHex: string;
  /** Its directory on disk, inside the site (manifest.json and files.json). */
  dir: string;
  /** Bundle-relative paths of every regular file of the bundle, manifest.json included, sorted. */
  files: string[];
  /** The SHA-256 (sha256:<hex>) of each of those files, by path: its bytes are at /blobs/<hex>. */
  digests: Map<string, string>;
}

/** The site: its directory, the report it publishes, and its bundles in report order. */
export interface SiteFixture {
  dir: string;
  report: Report;
  bundles: PublishedBundle[];
}

/** Every regular file under a directory, as `/`-separated relative paths, sorted. */
export async function regularFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** Builds the bundles, verifies them, builds the report and writes the site; returns its directory and contents. */
export async function buildSiteFixture(): Promise<SiteFixture> {
  const first = validBundle();
  first.extra.set(ODD_PATH, new TextEncoder().encode('a log line\n'));
  const second = validBundle();
  second.plan.title = 'widget-bugs bake-off, September (harness rc.8)';
  second.plan.harness.version = '0.1.0-rc.8';
  // The tampered bundle's sealed NOTES.md is its own (blobs are shared by digest: the other bundles' notes would serve it).
  const third = validBundle();
  third.notes = 'the notes as sealed, edited afterwards\n';
  const sources = [
    await writeModel(first),
    await writeModel(second),
    await writeModel(third, { after: { 'NOTES.md': 'edited after sealing\n' } }),
  ];
  for (const source of sources.slice(0, 2)) {
    const verification = await verifyDir(source);
    if (verification.status !== 'verified') throw new Error(`fixture bundle ${source} is ${verification.status}`);
  }

  const results = await verifyPaths(sources);
  const report = buildReport(results, Config.parse({}));
  const site = await makeTempDir('ledgerboard-site-');
  await writeFile(join(site, 'report.json'), `${canonicalJson(report)}\n`);
  await mkdir(join(site, 'cohorts'));
  for (const cohort of report.cohorts) await writeFile(join(site, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));

  const published = publishedOf(report, results);
  await modelOf(report, results, published, Config.parse({}));
  await writeEvidence(published.bundles, site);
  const bundles: PublishedBundle[] = [];
  for (const entry of report.bundles) {
    const result = results.find((r) => r.verification.bundle_id === entry.bundle_id && r.content_digest === entry.content_digest);
    if (result === undefined) throw new Error(`no source for report bundle ${entry.content_digest}`);
    const dirHex = digestHex(entry.status === 'verified' ? entry.bundle_id! : entry.content_digest);
    const files = await regularFiles(result.path);
    const digests = new Map(result.entries.filter((e) => e.sha256 !== null).map((e) => [e.path, e.sha256!]));
    bundles.push({ bundle_id: entry.bundle_id, status: entry.status, counted: entry.counted, dirHex, dir: join(site, 'bundles', dirHex), files, digests });
  }
  return { dir: site, report, bundles };
}
