/**
 * Where the caches live by default, and the secret that seals their entries
 * (cache/sealed.ts).
 *
 * - The default cache directory is the user's cache directory, never the
 *   board's repository: `$XDG_CACHE_HOME/ledgerboard/boards/<id>` (else
 *   `~/.cache/...`), `<id>` the first 16 hex digits of the SHA-256 of the
 *   board's real path, so two boards keep apart.
 * - The secret is `LEDGERBOARD_CACHE_KEY` (64 hex digits: a CI job gets it
 *   from a secret, and a CI cache restored without it starts empty in
 *   effect) or the file `$XDG_CONFIG_HOME/ledgerboard/cache-key` (else
 *   `~/.config/...`), created on first use with mode 0600 in a 0700
 *   directory. A key file is used only when it is a regular file (not a
 *   link), owned by this user, readable by nobody else, holding 64 hex digits,
 *   and lies outside the places a contributor writes (the board's directory,
 *   the evidence, the cache directory itself). Otherwise the cache is off for
 *   the run, said in one line, and every bundle is verified in full.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readSync, realpathSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { openNoFollowSync } from '../files/read.ts';

/** The environment variable that gives the secret directly (64 hex digits). */
export const CACHE_KEY_ENV = 'LEDGERBOARD_CACHE_KEY';

/** A directory a key must not lie in, and what it is (for the message). */
export interface Forbidden {
  dir: string;
  what: string;
}

type Env = Readonly<Record<string, string | undefined>>;

function home(env: Env): string {
  const h = env.HOME;
  return h !== undefined && h !== '' ? h : homedir();
}

function base(env: Env, variable: 'XDG_CACHE_HOME' | 'XDG_CONFIG_HOME', fallback: string): string {
  const value = env[variable];
  // The XDG rule: a relative value is ignored.
  return value !== undefined && isAbsolute(value) ? value : join(home(env), fallback);
}

/** The real path of a directory when it exists, else its resolved path. */
function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** The default cache directory of the board whose config lies in `boardDir`. */
export function defaultCacheDir(boardDir: string, env: Env = process.env): string {
  const id = createHash('sha256').update(real(boardDir)).digest('hex').slice(0, 16);
  return join(base(env, 'XDG_CACHE_HOME', '.cache'), 'ledgerboard', 'boards', id);
}

/** The key file used when the environment gives no key. */
export function defaultKeyPath(env: Env = process.env): string {
  return join(base(env, 'XDG_CONFIG_HOME', '.config'), 'ledgerboard', 'cache-key');
}

/** True when `path` is `dir` or lies inside it, comparing real paths. */
export function within(dir: string, path: string): boolean {
  const inside = relative(real(dir), real(path));
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

const HEX_KEY = /^[0-9a-f]{64}\n?$/;

/**
 * The secret for this run, or why there is none (the cache is then off).
 * `forbidden` are the directories a key file must not lie in.
 */
export function cacheSecret(forbidden: readonly Forbidden[], env: Env = process.env): { secret: Uint8Array } | { off: string } {
  const given = env[CACHE_KEY_ENV];
  if (given !== undefined && given !== '') {
    if (!/^[0-9a-fA-F]{64}$/.test(given)) return { off: `${CACHE_KEY_ENV} is not 64 hex digits` };
    return { secret: Buffer.from(given, 'hex') };
  }
  const path = defaultKeyPath(env);
  for (const place of forbidden) {
    if (within(place.dir, dirname(path))) return { off: `the cache key ${path} lies inside ${place.what} ${place.dir}, where others can write: set XDG_CONFIG_HOME or ${CACHE_KEY_ENV}` };
  }
  const read = readKey(path);
  if ('secret' in read || read.off !== 'missing') return read;
  const made = makeKey(path);
  if (made !== null) return { off: `the cache key ${path} could not be created (${made})` };
  return readKey(path);
}

function readKey(path: string): { secret: Uint8Array } | { off: string } {
  let fd: number;
  try {
    fd = openNoFollowSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { off: 'missing' };
    if (code === 'ELOOP') return { off: `the cache key ${path} is a symbolic link: make it a regular file of your own (mode 0600)` };
    return { off: `the cache key ${path} cannot be opened (${code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { off: `the cache key ${path} is not a regular file` };
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) return { off: `the cache key ${path} belongs to another user (uid ${stat.uid})` };
    if ((stat.mode & 0o077) !== 0) return { off: `the cache key ${path} can be read or written by others (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it` };
    const bytes = Buffer.alloc(128);
    const length = readSync(fd, bytes, 0, bytes.length, 0);
    const text = bytes.subarray(0, length).toString('latin1');
    if (!HEX_KEY.test(text)) return { off: `the cache key ${path} does not hold 64 hex digits` };
    return { secret: Buffer.from(text.slice(0, 64), 'hex') };
  } catch (error) {
    return { off: `the cache key ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

/** Creates the key file (0600, in a 0700 directory) unless another process did first; the reason on failure, else null. */
function makeKey(path: string): string | null {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`, 0, 'latin1');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      // link() never replaces: a key another run made first stays, and is read.
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    rmSync(temporary, { force: true });
  }
}
