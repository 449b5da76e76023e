/**
 * The render directory's node_modules (src/site/build/render.ts
 * linkPackages): the chunks Astro writes there import packages by name, so
 * it must resolve every name as Node resolves it from the project. One
 * node_modules on the lookup path: one link to it. More (ledgerboard
 * installed as a dependency, packages hoisted above it): a link per package
 * to the nearest node_modules that has it, scoped packages one level down,
 * `.bin` and dot names left out.
 */
import { lstat, mkdir, readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkPackages } from '../../src/site/build/render.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

async function packages(modules: string, names: string[]): Promise<void> {
  for (const name of names) {
    await mkdir(join(modules, ...name.split('/')), { recursive: true });
    await writeFile(join(modules, ...name.split('/'), 'package.json'), `{"name":"${name}"}`);
  }
}

describe('linkPackages', () => {
  it('links the one node_modules on the lookup path as a whole', async () => {
    const root = await makeTempDir('lb-link-one-');
    await packages(join(root, 'node_modules'), ['astro', '@scope/a']);
    const dir = join(root, 'render', 'node_modules');
    await mkdir(join(root, 'render'));
    await linkPackages(dir, [join(root, 'project', 'node_modules'), join(root, 'node_modules'), join(root, 'missing', 'node_modules')]);
    expect((await lstat(dir)).isSymbolicLink()).toBe(true);
    expect(await readlink(dir)).toBe(join(root, 'node_modules'));
  });

  it('with hoisted packages, links each package to the nearest node_modules that has it', async () => {
    const root = await makeTempDir('lb-link-many-');
    const near = join(root, 'app', 'node_modules', 'ledgerboard', 'node_modules');
    const far = join(root, 'app', 'node_modules');
    await packages(near, ['shared', '@scope/near']);
    await packages(far, ['shared', 'hoisted', '@scope/far', '@scope/near', '.bin/tool', '.package-lock.json/x']);
    await mkdir(join(far, '@scope', '.bin'), { recursive: true });
    const dir = join(root, 'render', 'node_modules');
    await mkdir(join(root, 'render'));
    await linkPackages(dir, [near, far]);
    expect((await lstat(dir)).isDirectory()).toBe(true);
    // ledgerboard itself is a package of the outer node_modules, linked like any other.
    expect((await readdir(dir)).sort()).toEqual(['@scope', 'hoisted', 'ledgerboard', 'shared']);
    expect((await readdir(join(dir, '@scope'))).sort()).toEqual(['far', 'near']);
    expect(await readlink(join(dir, 'shared'))).toBe(join(near, 'shared'));
    expect(await readlink(join(dir, 'hoisted'))).toBe(join(far, 'hoisted'));
    expect(await readlink(join(dir, '@scope', 'near'))).toBe(join(near, '@scope', 'near'));
    expect(await readlink(join(dir, '@scope', 'far'))).toBe(join(far, '@scope', 'far'));
  });
});
