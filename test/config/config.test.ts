/** ledgerboard.config.json: several bundles directories, and paths relative to the config file. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDirs, ConfigError, configPath, loadConfigFile, parseConfig } from '../../src/config/config.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

const parse = (text: string) => parseConfig(new TextEncoder().encode(text), 'lb.json');

describe('bundles_dir', () => {
  it('is one directory or a non-empty list of them', () => {
    expect(parse('{"bundles_dir":"a"}').bundles_dir).toBe('a');
    expect(parse('{"bundles_dir":["a","b/c"]}').bundles_dir).toEqual(['a', 'b/c']);
    expect(() => parse('{"bundles_dir":[]}')).toThrow(ConfigError);
    expect(() => parse('{"bundles_dir":["a",""]}')).toThrow(ConfigError);
    expect(() => parse('{"bundles_dir":7}')).toThrow(ConfigError);
  });

  it('every directory resolves against the config file, never the working directory', async () => {
    const dir = await makeTempDir();
    await mkdir(join(dir, 'site'));
    await writeFile(join(dir, 'site', 'lb.json'), JSON.stringify({ bundles_dir: ['frozen', '../imported'], retained_reports_dir: '/abs/reports' }));
    const loaded = await loadConfigFile(join(dir, 'site', 'lb.json'));
    const shown = (p: string) => relative(process.cwd(), p) || '.';
    expect(bundleDirs(loaded).map((p) => shown(p))).toEqual([shown(join(dir, 'site', 'frozen')), shown(join(dir, 'imported'))]);
    expect(configPath(loaded, loaded.config.retained_reports_dir)).toBe('/abs/reports');
  });

  it('without a config file, paths are relative to the working directory', async () => {
    const loaded = await loadConfigFile(join(await makeTempDir(), 'none.json')).catch((e: unknown) => e);
    expect(loaded).toBeInstanceOf(ConfigError);
    const defaults = { config: parse('{}'), dir: '.' };
    expect(bundleDirs(defaults)).toEqual(['content/bundles']);
  });
});

describe('$schema', () => {
  it('is accepted for editors, and left out of the report config (same config digest with or without it)', async () => {
    const { reportConfigOf } = await import('../../src/report/schema.ts');
    const { digestCanonical } = await import('../../src/json/canonical.ts');
    const withSchema = parseConfig(new TextEncoder().encode('{"$schema":"./node_modules/ledgerboard/public/schema/config.json","title":"t"}'), 'c.json');
    const without = parseConfig(new TextEncoder().encode('{"title":"t"}'), 'c.json');
    expect(withSchema.$schema).toBe('./node_modules/ledgerboard/public/schema/config.json');
    expect(reportConfigOf(withSchema)).not.toHaveProperty('$schema');
    expect(digestCanonical(reportConfigOf(withSchema))).toBe(digestCanonical(reportConfigOf(without)));
    expect(() => parseConfig(new TextEncoder().encode('{"$schema":1}'), 'c.json')).toThrow(ConfigError);
  });
});
