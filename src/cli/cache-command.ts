/**
 * `ledgerboard cache fill --shard K/N` and `ledgerboard cache merge DIR...
 * --into DIR`: verification beyond one machine. N jobs each verify one
 * share of the evidence (src/pipeline/shard.ts) into a cache directory of
 * their own (a CI artifact); one job merges the directories, taking only
 * entries sealed under the same secret (src/pipeline/cache-merge.ts), and
 * builds with `--cache` on the merged directory: every verification a shard
 * made is reused, and whatever no shard gave (a shard that failed, an entry
 * refused) is verified by the build itself.
 */
import { bundleDirs, importLimitsOf, limitsOf, loadConfigFile, timestampRootsOf } from '../config/config.ts';
import { CACHE_KEY_ENV } from '../cache/secret.ts';
import { mergeCaches } from '../pipeline/cache-merge.ts';
import { parseShard, verifyShard, type Shard } from '../pipeline/shard.ts';
import { cacheOf } from './cache-option.ts';
import { EXIT, UsageError, type CliIo, type Command } from './command.ts';
import { progressReporter } from './progress.ts';

const USAGE = `Usage: ledgerboard cache fill [--shard K/N] [--cache DIR] [--config FILE] [<bundles-dir>...]
       ledgerboard cache merge <DIR>... --into DIR [--strict] [--config FILE]

Verification on more than one machine: N jobs each verify one share of the
evidence and keep the results in a cache directory of their own; one job
merges those directories and builds with every verification reused
(ledgerboard init --matrix N writes such a GitHub Actions workflow).

cache fill    verifies the bundles of one share (default: every bundle) under
              the directories (default: the config's bundles_dir) and keeps
              each result as a sealed entry in the cache directory. No report,
              no site. Prints each bundle of the share and its status.
cache merge   copies into --into every verification entry of the directories
              whose seal checks under this run's key and which reads as a
              verification of this ledgerboard; refuses anything else, each
              file with the reason. A directory that does not exist (a shard
              that failed, or uploaded nothing) is skipped with a line. Then
              \`ledgerboard build --cache DIR\` on the --into directory reuses
              every merged entry and verifies every other bundle in full.

Options:
  --shard K/N     verify share K of N (1 <= K <= N <= 256): a bundle is in share
                  1 + (the first 48 bits of the SHA-256 of its path under the
                  bundles directory, "/"-separated) mod N, so the N shares of
                  one checkout are disjoint and together are every bundle,
                  whatever order the disk lists them in (default 1/1: all)
  --cache DIR     fill: where the entries are kept (default: the user's cache
                  directory, as for build; never inside the evidence)
  --into DIR      merge: the directory the entries are merged into (created
                  when missing; what build --cache then reads)
  --strict        merge: exit 1 when any file was refused or any directory was
                  missing (what was accepted is merged all the same)
  --config FILE   the config (default ./ledgerboard.config.json when present)

Every job must seal with the same key: ${CACHE_KEY_ENV} (64 hex digits, in
CI from one repository secret). An entry sealed under another key, or changed
after it was sealed, is refused by the merge; a build never takes one either.

Exit: 0 done (fill: whatever the bundles' statuses), 1 merge --strict with a
refusal or a missing directory, 2 usage error (a bad K/N, no --into, no key).`;

export const cacheCommand: Command = {
  summary: 'verify one share of the evidence into a cache directory (fill --shard K/N), or merge such directories (merge)',
  usage: USAGE,
  options: {
    shard: { type: 'string' },
    cache: { type: 'string' },
    into: { type: 'string' },
    strict: { type: 'boolean' },
    config: { type: 'string' },
  },
  async run(values, positionals, io) {
    const [action, ...rest] = positionals;
    if (action === 'fill') return fill(values, rest, io);
    if (action === 'merge') return merge(values, rest, io);
    throw new UsageError(action === undefined ? 'cache needs an action: fill or merge' : `unknown cache action ${JSON.stringify(action)}: the actions are fill and merge`, 'cache');
  },
};

function only(values: Record<string, string | boolean | undefined>, action: string, allowed: readonly string[]): void {
  for (const name of ['shard', 'cache', 'into', 'strict']) {
    if (values[name] !== undefined && !allowed.includes(name)) throw new UsageError(`--${name} is not an option of cache ${action}`, 'cache');
  }
}

async function fill(values: Record<string, string | boolean | undefined>, paths: string[], io: CliIo): Promise<number> {
  only(values, 'fill', ['shard', 'cache']);
  let shard: Shard = { index: 1, count: 1 };
  if (typeof values.shard === 'string') {
    const parsed = parseShard(values.shard);
    if ('problem' in parsed) throw new UsageError(parsed.problem, 'cache');
    shard = parsed;
  }
  const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
  const dirs = paths.length > 0 ? paths : bundleDirs(loaded);
  const cache = cacheOf(values, loaded, 'cache', dirs, (line) => io.stderr.write(`ledgerboard: ${line}\n`));
  if (cache === undefined) throw new UsageError(`cache fill keeps verification entries, and the cache is off (said above): set ${CACHE_KEY_ENV}`, 'cache');
  const run = await verifyShard(dirs, shard, {
    limits: limitsOf(loaded.config),
    importLimits: importLimitsOf(loaded.config),
    // The build keys its entries on the pinned roots too: the same roots, the same keys.
    timestampRoots: timestampRootsOf(loaded.config),
    requireBundles: paths.length > 0,
    cache,
    onProgress: progressReporter(io.stderr, 'verified'),
  });
  const verified = run.bundles.filter((b) => b.result.verification.status === 'verified').length;
  const lines = [`shard ${shard.index}/${shard.count}: ${run.bundles.length} of ${run.total} bundles; ${verified} verified, ${run.bundles.length - verified} not`];
  for (const b of run.bundles) lines.push(`  ${b.result.verification.status.padEnd(10)} ${b.name}${b.result.cached === true ? ' (already kept)' : ''}`);
  lines.push(`entries kept in ${cache.dir}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

async function merge(values: Record<string, string | boolean | undefined>, sources: string[], io: CliIo): Promise<number> {
  only(values, 'merge', ['into', 'strict']);
  if (sources.length === 0) throw new UsageError('cache merge needs the directories to merge (cache merge DIR... --into DIR)', 'cache');
  if (typeof values.into !== 'string') throw new UsageError('cache merge needs --into DIR: the directory build --cache will read', 'cache');
  const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
  // The same rules as a build's cache: never inside the evidence; the key from the environment or a safe key file.
  const into = cacheOf({ cache: values.into }, loaded, 'cache', bundleDirs(loaded), (line) => io.stderr.write(`ledgerboard: ${line}\n`));
  if (into === undefined) throw new UsageError(`cache merge checks every entry's seal, and there is no key to check it with (said above): set ${CACHE_KEY_ENV} to the key the shards sealed with`, 'cache');
  const result = await mergeCaches(sources, into);
  for (const dir of result.missing) io.stderr.write(`ledgerboard: cache merge: ${dir} does not exist (a shard that failed or uploaded nothing): the build verifies its bundles itself\n`);
  for (const refusal of result.refused) io.stderr.write(`ledgerboard: cache merge: refused ${refusal.path}: ${refusal.why}\n`);
  for (const path of result.unwritten) io.stderr.write(`ledgerboard: cache merge: ${path} checked, but could not be written into ${into.dir}\n`);
  const sealRefusals = result.refused.filter((r) => r.why.startsWith('its seal')).length;
  const hint = sealRefusals > 0 ? ` (every job must seal with the same ${CACHE_KEY_ENV}; the bundles of refused entries are verified in full by the build)` : '';
  io.stdout.write(
    `merged ${result.merged} ${result.merged === 1 ? 'entry' : 'entries'} from ${sources.length - result.missing.length} of ${sources.length} directories into ${into.dir}; ${result.refused.length} refused${hint}\n`,
  );
  const clean = result.refused.length === 0 && result.missing.length === 0 && result.unwritten.length === 0;
  return values.strict === true && !clean ? EXIT.notVerified : EXIT.ok;
}
