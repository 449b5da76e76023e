/**
 * `npm install` on the supported Node prints no engine warning (issue 11
 * point 6): every package the lock file installs accepts the oldest Node that
 * package.json's `engines` allows.
 */
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Lock {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean; dev?: boolean }>;
}

describe('engines', () => {
  it('every locked package accepts the oldest supported Node (so npm prints no EBADENGINE)', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(await readFile(new URL('../package-lock.json', import.meta.url), 'utf8')) as Lock;
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    expect(oldest).toBe('20.19.0');
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (path === '' || range === undefined) continue;
      if (!semver.satisfies(oldest, range)) refusing.push(`${path}@${entry.version}: node ${range}`);
    }
    expect(refusing).toEqual([]);
  });
});
