/**
 * Imported evidence on the site model: the re-run command names the original
 * file by its published URL, runs ledgerboard from a checkout (never `npx
 * <name>@<version>` from the registry, where the name is not ours) and names
 * the version; a version that is not a plain semantic version (it comes from
 * the evidence) gives no command at all, so no bundle can put shell text into
 * a visitor's terminal.
 */
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { prettyJson, sealManifest, withSelfId } from '../../src/evidence/seal.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { runCli } from '../helpers/cli.ts';

afterAll(removeTempDirs);

const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = join(root, 'content', 'imported', 'bundles', 'log-streaming-2904309c50fd');

async function files(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (relative(dir, p) !== 'manifest.json') out.set(relative(dir, p).split('\\').join('/'), await readFile(p));
    }
  };
  await walk(dir);
  return out;
}

/** A copy of the imported bundle whose origin.tool.version is `version`, plan_id and manifest re-derived (so it verifies). */
async function withToolVersion(version: string): Promise<string> {
  const dir = join(await makeTempDir(), 'b');
  await cp(SOURCE, dir, { recursive: true });
  const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { plan_id: string; origin: { tool: { version: string } } };
  plan.origin.tool.version = version;
  const sealed = withSelfId(plan as unknown as Record<string, unknown>, 'plan_id') as unknown as { plan_id: string };
  await writeFile(join(dir, 'plan.json'), prettyJson(sealed));
  await writeFile(join(dir, 'manifest.json'), sealManifest(await files(dir), sealed.plan_id));
  return dir;
}

async function importOf(dir: string) {
  const results = await verifyPaths([dir]);
  expect(results[0]!.verification.status).toBe('verified');
  const config = Config.parse({ site_url: 'https://board.example/' });
  const report = buildReport(results, config);
  const model = await modelOf(report, results, publishedOf(report, results), config);
  return model.bundles[0]!.page!.imported!;
}

describe('the re-run command of an imported bundle', () => {
  it('fetches the original by its URL, pins the version, passes the license and scorer, and names the bundle id to expect', async () => {
    const imported = await importOf(SOURCE);
    const bundleId = JSON.parse(await readFile(join(SOURCE, 'manifest.json'), 'utf8')).bundle_id as string;
    expect(imported.source?.path).toBe('source/inspect-log.eval');
    expect(imported.source?.sha256).toBe(`sha256:${createHash('sha256').update(await readFile(join(SOURCE, 'source', 'inspect-log.eval'))).digest('hex')}`);
    expect(imported.rerun).toEqual([
      `curl -s -o original.eval https://board.example/blobs/${imported.source!.sha256.slice(7)}`,
      '# in a checkout of ledgerboard 0.1.0 (npm ci first):',
      'node bin/ledgerboard.mjs import inspect original.eval -o reimported --license MIT --scorer match',
      `jq -r .bundle_id reimported/*/manifest.json   # expect ${bundleId}`,
    ]);
    // Run it (the original copied instead of fetched): the same bundle id comes back.
    const work = await makeTempDir();
    await cp(join(SOURCE, 'source', 'inspect-log.eval'), join(work, 'original.eval'));
    const args = imported.rerun[2]!.split(' ').slice(2).map((a) => (a === 'original.eval' ? join(work, a) : a === 'reimported' ? join(work, a) : a));
    expect((await runCli(args)).code).toBe(0);
    const [dir] = await readdir(join(work, 'reimported'));
    expect(JSON.parse(await readFile(join(work, 'reimported', dir!, 'manifest.json'), 'utf8')).bundle_id).toBe(bundleId);
  });

  it.each(['0.1.0 $(touch /tmp/pwned) #', 'npm:evil@1', 'github:x/y', '0.1.0;rm -rf ~', 'latest', '1.2'])('no command for the version %j', async (version) => {
    const imported = await importOf(await withToolVersion(version));
    expect(imported.rerun).toEqual([]);
    expect(imported.tool.version).toBe(version);
  });
});
