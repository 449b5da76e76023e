/**
 * `ledgerboard build`: the pipeline runs once (read, verify, analyse into the
 * report), then the static site is rendered from the report into the output
 * directory, replaced atomically (a failed build leaves the old one).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleDirs, configPath, loadConfigFile, freezeLogPathOf } from '../config/config.ts';
import { shortDigest } from '../json/canonical.ts';
import { runPipeline } from '../run/pipeline.ts';
import type { SiteFacts } from '../facts/index.ts';
import { CACHE_HELP, CACHE_OPTIONS, cacheLine, cacheOf } from './cache-option.ts';
import { summaryLine, verifyText } from './format-verify.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { progressReporter } from './progress.ts';
import { incompleteRetentionWarnings } from '../history/compare.ts';
import { parseSourceDateEpoch, SourceDateError } from '../config/source-date.ts';
import { painter, useColour } from './terminal.ts';
import { AttestationKeyError } from '../attest/published.ts';

/** SOURCE_DATE_EPOCH, checked before any work: a malformed value is a usage error. */
function sourceDateOrUsage(value: string | undefined): string | null {
  try {
    return parseSourceDateEpoch(value);
  } catch (error) {
    if (error instanceof SourceDateError) throw new UsageError(error.message);
    throw error;
  }
}

/** Default output directory. */
/** The site's facts the pipeline computed for build (`siteFacts: true`); none is a bug: the site never computes them. */
function factsOf(run: { facts?: SiteFacts }): SiteFacts {
  if (run.facts === undefined) throw new Error('the pipeline returned no site facts for build');
  return run.facts;
}

export const DEFAULT_OUT_DIR = 'dist';

export const buildCommand: Command = {
  summary: 'build the static site from the bundles directory',
  usage: `Usage: ledgerboard build [--bundles DIR] [--out DIR] [--config FILE] [--strict] [--offline] [--cache DIR | --no-cache]

Reads and verifies every bundle under DIR (the config's bundles_dir: one
directory or a list, default content/bundles), prints each bundle's status and findings, analyses the
verified ones into the report, and renders the static site into the output
directory (replaced only when the whole build succeeded). Bundles that are
not verified are published with their findings, never dropped, never counted.

Options:
  --bundles DIR   the bundles directory (default: the config's bundles_dir,
                  relative to the config file's directory)
  --out DIR       the output directory (default ${DEFAULT_OUT_DIR})
  --config FILE   the config (default ./ledgerboard.config.json when present)
  --strict        exit 1 if any bundle is not verified (the site is still built)
  --offline       an offline copy: every internal link relative to its page
                  and naming index.html, so the output opens from a folder
                  (file://), a zip or any sub-path with no server; canonical
                  and citation URLs stay absolute (site_url); the in-browser
                  verifier cannot run from file:// (verify.mjs can)
${CACHE_HELP}

The build writes only beside the output: <out>.lock while it runs (a second
build into the same output is refused, exit 2; a lock left by a killed build
is taken over), Astro's work in <out>.render-XXXXXX, the new site in
<out>.staging; and, unless --no-cache, the verification cache (a cache it
cannot write is skipped). The project itself may be read-only.

Exit codes: 0 built (with --strict: and every bundle verified), 1 --strict
and some bundle not verified, 2 usage error, or the build cannot run as asked:
another build holds the output, the output cannot be written (read-only, no
permission), the disk is full, or the evidence changed during the build (one
line names the path and what to do; the previous site is kept), 3 unexpected.

Environment:
  SOURCE_DATE_EPOCH   seconds since 1970: the site's date when no evidence is
                      dated (the site never reads the clock); malformed: exit 2
  LEDGERBOARD_CACHE_KEY  64 hex digits: the secret that seals cache entries
                      (a CI job gives it from a secret store); else the key
                      file $XDG_CONFIG_HOME/ledgerboard/cache-key is used
  XDG_CACHE_HOME, XDG_CONFIG_HOME  where the cache and its key live
                      (default ~/.cache and ~/.config)`,
  options: { bundles: { type: 'string' }, out: { type: 'string' }, config: { type: 'string' }, strict: { type: 'boolean' }, offline: { type: 'boolean' }, ...CACHE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError(`build takes no positional arguments (got ${JSON.stringify(positionals[0])}); use --bundles DIR`);
    const sourceDate = sourceDateOrUsage(process.env.SOURCE_DATE_EPOCH);
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const { config } = loaded;
    const dirs = typeof values.bundles === 'string' ? [values.bundles] : bundleDirs(loaded);
    const out = typeof values.out === 'string' ? values.out : DEFAULT_OUT_DIR;
    const retainedDir = configPath(loaded, config.retained_reports_dir);
    const cache = cacheOf(values, loaded, 'build', dirs, (line) => io.stderr.write(`build: ${line}\n`));
    const { buildSite, PROJECT_ROOT, removeStaleRenders } = await import('../site/build/build-site.ts');
    const { checkOutputDir, OutputDirError } = await import('../site/build/atomic.ts');
    try {
      // Before any work: an output that holds the project, the evidence, the history or the config is refused.
      // The freeze log too, wherever the config keeps it: it is only ever appended to, never replaced.
      const freezeLog = freezeLogPathOf(loaded);
      await checkOutputDir(out, [PROJECT_ROOT, ...dirs, retainedDir, loaded.dir, ...(freezeLog === null ? [] : [freezeLog])], [...dirs, retainedDir]);
    } catch (error) {
      if (error instanceof OutputDirError) throw new UsageError(error.message);
      throw error;
    }
    const { takeBuildLock } = await import('../site/build/build-lock.ts');
    const { buildEnvironmentError } = await import('../site/build/build-errors.ts');
    let lock;
    try {
      await mkdir(dirname(resolve(out)), { recursive: true });
      // One build at a time into one output; what killed builds left beside it is removed under the lock.
      lock = await takeBuildLock(out);
      await removeStaleRenders(out);
    } catch (error) {
      // Another build holding the output is a BuildEnvironmentError already.
      throw buildEnvironmentError(error, out) ?? error;
    }
    let results, report, site;
    try {
      const run = await runPipeline({ paths: dirs, config, retainedDir, freezeLog: freezeLogPathOf(loaded), requireBundles: typeof values.bundles === 'string', onProgress: progressReporter(io.stderr, 'verified'), cache, siteFacts: true });
      ({ results, report } = run);
      const cached = cacheLine(cache, run);
      if (cached !== null) io.stderr.write(`build: ${cached}\n`);
      const history = run.history!;
      for (const line of incompleteRetentionWarnings(history)) io.stderr.write(`build: ${line}\n`);
      io.stdout.write(verifyText(results, painter(useColour(io.stdout)), false));
      site = await buildSite(report, results, config, {
        retainedDir,
        history,
        attestationsDir: configPath(loaded, config.attestations_dir),
        ...(cache === undefined ? {} : { renderCache: cache }),
        facts: factsOf(run),
        freezeLog: run.freezeLog,
        outDir: out,
        sourceDate,
        ...(values.offline === true ? { offline: true } : {}),
        log: (line) => io.stderr.write(`build: ${line}\n`),
      });
    } catch (error) {
      if (error instanceof AttestationKeyError) throw new UsageError(error.message, 'build');
      throw buildEnvironmentError(error, out) ?? error;
    } finally {
      await lock.release();
    }
    io.stderr.write(
      `build: ${summaryLine(results)}; report ${shortDigest(report.report_id)}: ${report.boards.length} boards, ${report.cohorts.length} cohorts; ${site.pages} pages and ${site.files} files in ${out}\n`,
    );
    const allVerified = results.every((r) => r.verification.status === 'verified');
    return values.strict === true && !allVerified ? EXIT.notVerified : EXIT.ok;
  },
};
