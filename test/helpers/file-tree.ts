/**
 * Every file under a directory, as path (relative, the platform's separator)
 * to the SHA-256 of its bytes, sorted by path: what two builds' outputs are
 * compared by. Anything that is not a regular file (a link put in) maps to
 * "not a file".
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export async function fileTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(dir, p)] = e.isFile() ? createHash('sha256').update(await readFile(p)).digest('hex') : 'not a file';
    }
  };
  await walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
