/**
 * The build's effects: the one interface through which `buildSite`
 * (build-site.ts) touches the output and the previous output (as
 * observablehq/framework's BuildEffects). Two implementations:
 *
 * - {@link diskEffects} (the default): the output is written into
 *   `<out>.staging` and renamed into place when the build finished
 *   (atomic.ts replaceDirectory); the previous output is `<out>` as it is.
 * - {@link memoryEffects}: every output file lands in a Map (path to bytes);
 *   the previous output is a Map given to it (a former memory build's files).
 *
 * What is NOT behind this interface: the inputs (the bundles' bytes are read
 * and checked by publish.ts readVerified, the retained reports, attestations
 * and verifiers by their own readers), the caches (cache/sealed.ts), and
 * Astro itself, which needs a directory to render into: both
 * implementations give Astro a private directory beside the output
 * (render.ts, `<out>.render-XXXXXX`, removed when the render ends) and take
 * its pages from there through {@link OutputWriter.takeDirectory} (the disk
 * one renames it into the staging directory, the memory one reads every file
 * into the Map).
 */
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { replaceDirectory } from './atomic.ts';
import { copyVerified, readVerified } from './publish.ts';

/** Where the new output goes, one file at a time (paths `/`-separated, relative to the output's root, plain). */
export interface OutputWriter {
  /** Writes one file (its directories made as needed); a path written twice is a bug. */
  writeFile(path: string, bytes: string | Uint8Array): Promise<void>;
  /** Writes a published evidence file: `source` read without following a link and checked against `sha256` and `size` (publish.ts). */
  copyEvidence(source: string, path: string, sha256: string, size: number): Promise<void>;
  /** The bytes of a file written to this output already, or null. */
  written(path: string): Promise<Uint8Array | null>;
  /** Takes every file under `dir` (the render's directory) into the output at its root; `dir` is consumed. */
  takeDirectory(dir: string): Promise<void>;
}

/** The build's effects (see the module comment). */
export interface BuildEffects {
  /** 'disk' or 'memory'. */
  readonly kind: 'disk' | 'memory';
  /** The output's name: the directory on disk, or the memory output's label. */
  readonly outDir: string;
  /** Makes the new output with `fill` and puts it in place only when `fill` resolves (a failed build leaves the previous output as it was). */
  output<T>(fill: (out: OutputWriter) => Promise<T>): Promise<T>;
  /** The bytes of a file of the previous output (a regular file, no link followed), or null. */
  readPrevious(path: string): Promise<Uint8Array | null>;
  /** The progress log. */
  log(line: string): void;
}

/** Splits a plain relative path into its segments; throws for anything else (a bug: the build makes every path). */
function segments(path: string): string[] {
  const parts = path.replace(/^\//, '').split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..' || /[\\\0]/.test(s))) throw new Error(`not a plain output path: ${JSON.stringify(path)}`);
  return parts;
}

/** Every regular file under `dir`, as sorted `/`-separated relative paths. */
async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesUnder(join(dir, entry.name), path)));
    else if (entry.isFile()) out.push(path);
    else throw new Error(`the render left something that is not a file or a directory: ${path}`);
  }
  return out;
}

/** Reads a regular file without following a link; null when it is missing or anything else. */
async function readNoFollow(file: string): Promise<Uint8Array | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    if (!(await handle.stat()).isFile()) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The disk: the output at `outDir`, replaced atomically (atomic.ts). */
export function diskEffects(outDir: string, log: (line: string) => void): BuildEffects {
  const target = resolve(outDir);
  return {
    kind: 'disk',
    outDir: target,
    log,
    readPrevious: (path) => readNoFollow(join(target, ...segments(path))),
    async output(fill) {
      await mkdir(dirname(target), { recursive: true });
      return replaceDirectory(target, async (staging) => {
        await mkdir(staging, { recursive: true });
        const put = async (path: string): Promise<string> => {
          const file = join(staging, ...segments(path));
          await mkdir(dirname(file), { recursive: true });
          return file;
        };
        const writer: OutputWriter = {
          async writeFile(path, bytes) {
            await writeFile(await put(path), bytes, { flag: 'wx' });
          },
          async copyEvidence(source, path, sha256) {
            // One reused buffer, synchronous (publish.ts copyVerified): the bytes never held whole.
            await copyVerified(source, await put(path), sha256);
          },
          written: (path) => readNoFollow(join(staging, ...segments(path))),
          async takeDirectory(dir) {
            // The render's directory becomes the staging directory when nothing is in it yet (one rename, as before); else file by file.
            const held = await readdir(staging);
            if (held.length === 0) {
              await rm(staging, { recursive: true, force: true });
              await rename(dir, staging);
              return;
            }
            for (const path of await filesUnder(dir)) {
              const file = await put(path);
              await rename(join(dir, ...path.split('/')), file);
            }
          },
        };
        return fill(writer);
      });
    },
  };
}

/** A build in memory: the new output's files in `files` once the build finished (cleared first); `previous` the output before it. */
export function memoryEffects(options: { files: Map<string, Uint8Array>; previous?: ReadonlyMap<string, Uint8Array>; label?: string; log?: (line: string) => void }): BuildEffects {
  const label = resolve(options.label ?? join(process.cwd(), '.ledgerboard-memory-site'));
  return {
    kind: 'memory',
    outDir: label,
    log: options.log ?? (() => undefined),
    readPrevious: async (path) => options.previous?.get(segments(path).join('/')) ?? null,
    async output(fill) {
      const staged = new Map<string, Uint8Array>();
      const put = (path: string, bytes: string | Uint8Array) => {
        const key = segments(path).join('/');
        if (staged.has(key)) throw new Error(`the output file ${key} was written twice`);
        staged.set(key, typeof bytes === 'string' ? new Uint8Array(Buffer.from(bytes, 'utf8')) : bytes);
      };
      const writer: OutputWriter = {
        writeFile: async (path, bytes) => put(path, bytes),
        copyEvidence: async (source, path, sha256, size) => put(path, await readVerified(source, sha256, size)),
        written: async (path) => staged.get(segments(path).join('/')) ?? null,
        async takeDirectory(dir) {
          for (const path of await filesUnder(dir)) {
            const stats = await lstat(join(dir, ...path.split('/')));
            if (!stats.isFile()) throw new Error(`not a file: ${path}`);
            put(path, new Uint8Array(await readFile(join(dir, ...path.split('/')))));
          }
          await rm(dir, { recursive: true, force: true });
        },
      };
      const result = await fill(writer);
      options.files.clear();
      for (const path of [...staged.keys()].sort()) options.files.set(path, staged.get(path)!);
      return result;
    },
  };
}
