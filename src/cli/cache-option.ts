/**
 * `--cache DIR` and `--no-cache`, shared by build, report, retain and sign:
 * which verification cache (src/pipeline/verify-cache.ts) a run uses, and
 * the secret that authenticates its entries (src/cache/secret.ts).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { CACHE_KEY_ENV, cacheSecret, defaultCacheDir } from '../cache/secret.ts';
import { configPath, type LoadedConfig } from '../config/config.ts';
import type { VerifyCache } from '../pipeline/verify-cache.ts';
import { UsageError } from './command.ts';

/** The parseArgs options. */
export const CACHE_OPTIONS = { cache: { type: 'string' }, 'no-cache': { type: 'boolean' } } as const;

/** The lines of --help that describe them. */
export const CACHE_HELP = `  --cache DIR     the verification cache (default: the user's cache directory,
                  $XDG_CACHE_HOME/ledgerboard/boards/<board> or ~/.cache/...,
                  never inside the board): every file is still read and
                  hashed; a bundle whose files, limits and verifier code
                  match a kept result is not parsed and checked again, and
                  the report of the same inputs is not analysed again
                  (build: nor the pages of the same site rendered again).
                  Entries are sealed with a secret key kept outside every
                  repository (${CACHE_KEY_ENV}, else
                  $XDG_CONFIG_HOME/ledgerboard/cache-key, made on first use,
                  mode 0600): an entry the key did not seal is ignored
  --no-cache      verify every bundle in full and analyse afresh; keep nothing`;

/**
 * The cache a run uses, or undefined with --no-cache or when no secret can
 * be had safely (said through `say`: the run then verifies every bundle in
 * full). A cache inside one of the evidence directories is refused: its
 * files would become part of the evidence the next run reads.
 */
export function cacheOf(
  values: Record<string, string | boolean | undefined>,
  loaded: LoadedConfig,
  command: string,
  evidence: readonly string[],
  say: (line: string) => void = () => undefined,
): VerifyCache | undefined {
  if (values['no-cache'] === true) {
    if (typeof values.cache === 'string') throw new UsageError('--cache and --no-cache cannot be given together', command);
    return undefined;
  }
  const dir = typeof values.cache === 'string' ? values.cache : defaultCacheDir(loaded.dir);
  for (const holder of evidence) {
    const inside = relative(resolve(holder), resolve(dir));
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw new UsageError(`the verification cache ${dir} lies inside the evidence directory ${holder}: give --cache a directory outside it (or --no-cache)`, command);
    }
  }
  const key = cacheSecret([
    { dir: loaded.dir, what: 'the board directory' },
    ...evidence.map((holder) => ({ dir: holder, what: 'the evidence directory' })),
    { dir: configPath(loaded, loaded.config.retained_reports_dir), what: 'the retained reports directory' },
    { dir, what: 'the cache directory' },
  ]);
  if ('off' in key) {
    say(`verification cache off: ${key.off}; every bundle verified in full`);
    return undefined;
  }
  return { dir, secret: key.secret };
}

/**
 * One line for stderr: how many bundles the cache gave, and whether it gave
 * the report (or how many of its ledgers' sections, and of the bundles of
 * the ledgers analysed again, how many kept poolings).
 */
export function cacheLine(
  cache: VerifyCache | undefined,
  run: { results: readonly { cached?: true }[]; reportCached?: true; sections?: { reused: number; total: number }; poolings?: { reused: number; total: number } },
): string | null {
  if (cache === undefined) return null;
  const { results, sections, poolings } = run;
  const reused = results.filter((r) => r.cached === true).length;
  const pooled = poolings === undefined || poolings.reused === 0 ? '' : ` (${poolings.reused} of ${poolings.total} of their bundles pooled before)`;
  const report =
    run.reportCached === true
      ? 'the report reused'
      : sections === undefined || (sections.reused === 0 && pooled === '')
        ? 'the report analysed afresh'
        : `the report assembled: ${sections.reused} of ${sections.total} ledgers reused, ${sections.total - sections.reused} analysed${pooled}`;
  return `verification cache ${cache.dir}: ${reused} of ${results.length} bundles reused, ${results.length - reused} verified in full; ${report}`;
}
