/**
 * The kept server bundle (src/site/build/astro-steps.ts): Astro's Vite step
 * made once and reused by every build from the same site code. A build that
 * takes it writes the same bytes as one that bundles the pages itself, from
 * a render directory at another depth than the one it was made in (Astro's
 * page keys are paths relative to the render's root, moved on reuse); a kept
 * bundle that is stale, tampered with, of another shape, for other pages,
 * another format or another Astro, or whose file is a link, is not taken.
 */
import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { ASTRO_VERSION, keptBundleIdentity, readBundle, SERVER_BUNDLE_FORMAT } from '../../src/site/build/astro-steps.ts';
import { siteCodeIdentity } from '../../src/site/build/render-cache.ts';
import { prebuildServerBundle, PROJECT_ROOT } from '../../src/site/build/render.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { regularFiles } from '../helpers/site-fixture.ts';

afterAll(removeTempDirs);

let dir: string;
let kept: string;
let identity: string;
beforeAll(async () => {
  dir = await makeTempDir('lb-server-bundle-');
  kept = join(dir, 'kept', 'server-bundle');
  identity = await siteCodeIdentity();
  expect(await prebuildServerBundle(kept, identity)).toBe(true);
}, 120_000);

/** Every file of a site: path to bytes. */
async function siteBytes(out: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const path of await regularFiles(out)) files.set(path, await readFile(join(out, path)));
  return files;
}

interface Record {
  format: string;
  astro: string;
  identity: string;
  srcDir: string;
  srcFromRoot: string;
  pages: [string, string, unknown][];
  files: [string, string][];
}
const record = async (at: string): Promise<Record> => JSON.parse(await readFile(join(at, 'bundle.json'), 'utf8')) as Record;

describe('a build with the kept server bundle', () => {
  it('writes the same bytes as a build that bundles the pages itself, rendering at another depth than the bundle was made', { timeout: 180_000 }, async () => {
    expect(await keptBundleIdentity(kept)).toBe(identity);
    // Made in a render directory beside the kept bundle (kept/server-bundle.render-XXXXXX).
    expect((await record(kept)).srcFromRoot).toBe(relative(join(dir, 'kept', 'server-bundle.render-XXXXXX'), join(PROJECT_ROOT, 'src')).split('\\').join('/'));
    const results = await verifyPaths([await writeModel(validBundle())]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    const seen: string[] = [];
    const build = (out: string, serverBundle: string | null) =>
      buildSiteOf(report, results, config, { retainedDir: join(dir, 'no-retained'), outDir: out, log: () => undefined, serverBundle, onRender: (bundle) => seen.push(bundle) });
    const full = join(dir, 'full', 'site');
    const reused = join(dir, 'a', 'b', 'c', 'site');
    await build(full, null);
    await build(reused, kept);
    expect(seen).toEqual(['built', 'reused']);
    const [a, b] = await Promise.all([siteBytes(full), siteBytes(reused)]);
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect(a.size).toBeGreaterThan(40);
    for (const [path, bytes] of a) expect(b.get(path)!.equals(bytes), path).toBe(true);
  });
});

describe('a kept server bundle is taken only when it checks', () => {
  // A render whose root lies two levels below the temporary directory.
  const place = () => ({ config: { root: pathToFileURL(`${join(dir, 'x', 'y')}/`), srcDir: pathToFileURL(`${join(PROJECT_ROOT, 'src')}/`) } });
  const keysOf = async (at: string): Promise<string[]> => {
    const { pages, srcFromRoot } = await record(at);
    const now = relative(join(dir, 'x', 'y'), join(PROJECT_ROOT, 'src')).split('\\').join('/');
    // Astro's page key: the route, '&', the component path from the render's root.
    return pages.map(([route, component]) => `${route}&${now}${component.slice(srcFromRoot.length)}`);
  };
  /** A copy of the kept bundle changed by `edit`. */
  const copy = async (name: string, edit: (r: Record) => void, files?: (at: string) => Promise<void>): Promise<string> => {
    const at = join(dir, 'copies', name);
    await cp(kept, at, { recursive: true });
    const r = await record(at);
    edit(r);
    await writeFile(join(at, 'bundle.json'), JSON.stringify(r));
    await files?.(at);
    return at;
  };

  it('is taken as kept, its page keys moved to the render root, its entry map with them', async () => {
    const taken = await readBundle(kept, identity, place(), await keysOf(kept));
    expect(taken).not.toBeNull();
    const now = relative(join(dir, 'x', 'y'), join(PROJECT_ROOT, 'src')).split('\\').join('/');
    const pageEntries = taken!.entries.filter(([specifier]) => specifier.startsWith('\0@astro-page:'));
    expect(pageEntries.length).toBeGreaterThan(10);
    for (const [specifier] of pageEntries) expect(specifier.startsWith(`\0@astro-page:${now}/pages/`), specifier).toBe(true);
    expect(taken!.bytes.size).toBe((await record(kept)).files.length);
  });

  it('is not taken for another identity, format, Astro or source directory, for other pages, of another shape, or with a file that does not match its digest or is a link', async () => {
    const keys = await keysOf(kept);
    expect(await readBundle(kept, 'sha256:another', place(), keys)).toBeNull();
    expect(await readBundle(join(dir, 'none'), identity, place(), keys)).toBeNull();
    expect(await readBundle(kept, identity, place(), keys.slice(1))).toBeNull();
    expect(await readBundle(kept, identity, place(), [...keys, '/extra&elsewhere/pages/extra.astro'])).toBeNull();
    const variants: [string, (r: Record) => void, ((at: string) => Promise<void>)?][] = [
      ['format', (r) => (r.format = `${SERVER_BUNDLE_FORMAT}x`)],
      ['astro', (r) => (r.astro = `${ASTRO_VERSION}-other`)],
      ['src', (r) => (r.srcDir = join(dir, 'src'))],
      ['root', (r) => (r.srcFromRoot = 'elsewhere')],
      ['path', (r) => (r.files[0]![0] = '../outside.mjs')],
      ['shape', (r) => ((r as unknown as { inlinedScripts: unknown }).inlinedScripts = {})],
      ['page shape', (r) => ((r.pages[0] as unknown[])[2] = { styles: [] })],
      ['digest form', (r) => (r.files[0]![1] = 'not-a-digest')],
      ['link', () => undefined, async (at) => {
        // The file replaced by a link to a copy of the same bytes: a kept file is read without following links.
        const [first] = (await record(at)).files;
        const path = join(at, 'files', ...first![0].split('/'));
        await cp(path, `${path}.real`);
        await rm(path);
        await symlink(`${path}.real`, path);
      }],
      ['digest', () => undefined, async (at) => {
        const [first] = (await record(at)).files;
        await writeFile(join(at, 'files', ...first![0].split('/')), '// changed\n', { flag: 'a' });
      }],
      ['missing', () => undefined, async (at) => {
        const [first] = (await record(at)).files;
        await writeFile(join(at, 'files', ...first![0].split('/')), '');
      }],
    ];
    for (const [name, edit, files] of variants) {
      const at = await copy(name, edit, files);
      expect(await readBundle(at, identity, place(), keys), name).toBeNull();
    }
    expect(await keptBundleIdentity(await copy('astro-id', (r) => (r.astro = 'other')))).toBeNull();
    await writeFile(join(await copy('garbled', () => undefined), 'bundle.json'), '{');
    expect(await readBundle(join(dir, 'copies', 'garbled'), identity, place(), keys)).toBeNull();
    expect(await keptBundleIdentity(join(dir, 'copies', 'garbled'))).toBeNull();
  });
});
