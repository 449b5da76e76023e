/**
 * ledgerboard.config.json: the publisher's settings, validated strictly with
 * zod. The config in force is part of the report (and so of its id): the
 * acceptance rule and the grading pin change what the numbers mean.
 *
 * This file is the config's loader, the one part of `src/config/` that
 * touches the disk or the process (reading the file and the score card,
 * resolving paths against the working directory). The schema
 * (`schema.ts`, `withhold.ts`), the parsing of bytes (`parse.ts`), the
 * errors and SOURCE_DATE_EPOCH's parser (`source-date.ts`, given the value)
 * are pure: no node:fs, no process (test/architecture/pure-rooms.test.ts).
 * Everything is re-exported here, so a caller that loads imports one file.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigError } from './errors.ts';
import { CONFIG_FILE, parseConfig, scorecardFromBytes } from './parse.ts';
import { Config, withScorecard, withTimestampRoots, type LoadedScorecard } from './schema.ts';
import { parsePinnedRoots, type PinnedRoot } from '../anchor/certificates.ts';

export * from './schema.ts';
export { CONFIG_FILE, parseConfig, scorecardFromBytes } from './parse.ts';

/** The bundles directories of a config, each resolved against the config's directory. */
export function bundleDirs(loaded: LoadedConfig): string[] {
  const dirs = loaded.config.bundles_dir;
  return (typeof dirs === 'string' ? [dirs] : dirs).map((dir) => configPath(loaded, dir));
}

/** A config that cannot be used (src/config/errors.ts). */
export { ConfigError };

/** A loaded config and the directory its relative paths resolve against. */
export interface LoadedConfig {
  config: Config;
  /** The config file's directory (the working directory when no file was read). */
  dir: string;
}

/**
 * Loads the config: the given file (it must exist), else ./ledgerboard.config.json
 * when present, else the defaults.
 */
export async function loadConfig(file?: string): Promise<Config> {
  return (await loadConfigFile(file)).config;
}

/**
 * Loads the config like loadConfig and keeps the file's directory: relative
 * paths in a config (bundles_dir, retained_reports_dir, scorecard) mean
 * relative to the config file, never to wherever the command happens to run.
 * A config naming a score card comes back with the card read and attached
 * (`scorecard` then holds its digest: see withScorecard), and one naming
 * time-stamp roots with their certificates read and attached
 * (`timestamp_roots` then holds their digests: see withTimestampRoots).
 */
export async function loadConfigFile(file?: string): Promise<LoadedConfig> {
  const path = file ?? CONFIG_FILE;
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return { config: Config.parse({}), dir: '.' };
    throw new ConfigError(`cannot read config ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let config = parseConfig(bytes, path);
  const loaded: LoadedConfig = { config, dir: dirname(path) };
  if (config.scorecard !== undefined) config = withScorecard(config, await readScorecard(configPath(loaded, config.scorecard), path));
  if (config.timestamp_roots !== undefined) {
    const files = config.timestamp_roots.map((file) => configPath(loaded, file));
    config = withTimestampRoots(config, await readTimestampRoots(files, path));
  }
  return { ...loaded, config };
}

/** The largest PEM file of `timestamp_roots` read: a root certificate is about 2 KiB of PEM. */
export const MAX_ROOTS_PEM_BYTES = 1024 * 1024;

/**
 * Reads PEM files of root certificates (a config's `timestamp_roots`,
 * FORMAT.md 12, or verify's --timestamp-root), strictly: a file that is
 * missing, not a regular file, over {@link MAX_ROOTS_PEM_BYTES}, not UTF-8,
 * holding no certificate, or one whose certificate does not parse, is a
 * ConfigError starting with `label(i)` (default: the config file's
 * `timestamp_roots[i]`) and naming the file. Returns every certificate of
 * every file, in order.
 */
export async function readTimestampRoots(files: readonly string[], configFile: string, label: (index: number) => string = (i) => `${configFile}: timestamp_roots[${i}]`): Promise<PinnedRoot[]> {
  const roots: PinnedRoot[] = [];
  for (const [i, file] of files.entries()) {
    const where = label(i);
    let bytes: Uint8Array;
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new ConfigError(`${where}: ${file} is not a regular file (a PEM file of root certificates is expected)`);
      if (info.size > MAX_ROOTS_PEM_BYTES) throw new ConfigError(`${where}: ${file} is ${info.size} bytes, over the ${MAX_ROOTS_PEM_BYTES} a PEM file of root certificates may hold`);
      bytes = await readFile(file);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`${where}: cannot read the time-stamp root ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ConfigError(`${where}: ${file} is not UTF-8 text (a PEM file of root certificates is expected)`);
    }
    try {
      roots.push(...parsePinnedRoots(text));
    } catch (error) {
      throw new ConfigError(`${where}: ${file} is not a PEM file of root certificates: ${(error as Error).message}`);
    }
  }
  return roots;
}

/**
 * Reads the score card a config names (FORMAT.md 11.1), strictly: a file
 * that cannot be read, is not strict JSON or breaks a rule of the card is a
 * ConfigError naming the config's `scorecard` member, the card's file and
 * every problem by the card's member.
 */
export async function readScorecard(file: string, configFile: string): Promise<LoadedScorecard> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new ConfigError(`${configFile}: scorecard: cannot read the score card ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return scorecardFromBytes(bytes, file, configFile);
}

/**
 * A config path resolved against the config's directory, shown relative to
 * the working directory when it lies below it (so messages stay short).
 */
export function configPath(loaded: LoadedConfig, path: string): string {
  if (isAbsolute(path)) return path;
  const absolute = resolve(loaded.dir, path);
  const shown = relative(process.cwd(), absolute);
  return shown === '' ? '.' : shown.startsWith('..') || isAbsolute(shown) ? absolute : join(shown);
}
