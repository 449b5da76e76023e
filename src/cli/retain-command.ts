/** `ledgerboard retain [--bundles DIR] [--config FILE]`: retain the current report, create-only, manifests first and the report last (the commit point). */
import { bundleDirs, configPath, loadConfigFile, freezeLogPathOf } from '../config/config.ts';
import { runPipeline } from '../run/pipeline.ts';
import { CACHE_HELP, CACHE_OPTIONS, cacheOf } from './cache-option.ts';
import { RetainError, retainReport } from '../history/retained-reports.ts';
import { join } from 'node:path';
import type { IncompleteRetention } from '../history/compare.ts';
import { MANIFESTS_DIR, RetainedManifestError, retainManifests } from '../history/retained-manifests.ts';
import type { BundleResult } from '../pipeline/verify-paths.ts';
import type { Report } from '../report/schema.ts';
import type { Manifest } from '../schema/index.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { removeOwnTempFiles, retainEnvironmentError } from './retain-errors.ts';
import { exists } from '../author/create-only.ts';
import { writeRetainedWithheld } from '../history/retained-withheld.ts';
import { publishedOf } from '../site/build/publish.ts';
import { FREEZE_LOGS_DIR, rewrittenCopies } from '../history/freeze-log.ts';
import { retainFreezeLog } from '../history/freeze-log-files.ts';

/** The manifests of the bundles a report counted, by bundle id. */
function countedManifests(report: Report, results: readonly BundleResult[]): Manifest[] {
  const counted = new Set(report.bundles.filter((b) => b.counted && b.bundle_id !== null).map((b) => b.bundle_id));
  const byId = new Map<string, Manifest>();
  for (const r of results) {
    const manifest = r.verification.evidence.manifest;
    if (manifest && counted.has(manifest.bundle_id)) byId.set(manifest.bundle_id, manifest);
  }
  return [...byId.values()];
}

/** The manifests retain writes, in order: those finishing an earlier, interrupted retention, then the counted bundles'. */
function manifestsToWrite(incomplete: readonly IncompleteRetention[], counted: readonly Manifest[]): Manifest[] {
  const byId = new Map<string, Manifest>();
  for (const i of incomplete) if (i.manifest !== null) byId.set(i.bundle_id, i.manifest);
  for (const m of counted) byId.set(m.bundle_id, m);
  return [...byId.values()];
}

export const retainCommand: Command = {
  summary: 'retain the current report in the retained reports directory (create-only)',
  usage: `Usage: ledgerboard retain [--bundles DIR] [--config FILE] [--cache DIR | --no-cache]

Builds the report from the bundles (the config's bundles_dir by default) and
writes it to <retained_reports_dir>/<report-hex>.json as RFC 8785 JSON (the
config's paths are relative to the config file's directory). A
retained report is never overwritten: retaining the same report twice is a
no-op; a different file under that name is an error. Every later build
publishes each retained report at /reports/<hex>/ with its own numbers.

It also keeps the manifest of every bundle the report counted, as
<retained_reports_dir>/manifests/<bundle-hex>.json (create-only): when a
retained plan later reappears with another bundle, each file is classified
as unchanged, appended, added, removed or rewritten, and removed or
rewritten files are REWRITTEN_EVIDENCE (the bundle is not counted).

A report retained for the first time also gets a record of the files the
site withholds now (the config's withhold), as
<retained_reports_dir>/withheld/<report-hex>.json (create-only; beside the
report, never part of it: the report id is the same), so that its page can
later say which of them have since been revealed.

All or nothing: the manifests are written first, each fsynced with its
directory, and the report last; the report is the commit point. A retain
that is stopped midway leaves either no report (manifests already written
are history like any other, and running retain again finishes the job), or
the report with all its manifests. A retained report that counted a bundle
whose manifest is missing (an older version stopped midway, a report
retained before manifests existed, a deleted or edited manifest) is an
incomplete retention: when a verified bundle with exactly that bundle_id is
among the evidence, retain writes its manifest (finishes it); otherwise
retain refuses (exit 1) and writes nothing, and until the manifest is
restored (copy that bundle's manifest.json to the name given) every other
bundle of its plan is REWRITTEN_EVIDENCE, never counted unchecked.

With a freeze log (the config's freeze_log), retain keeps a copy of it as
<retained_reports_dir>/freeze-logs/<sha256-hex>.jsonl (create-only; an empty
log needs none), and refuses (exit 1, nothing written) when a copy kept
before is no longer a byte prefix of the log (FREEZE_LOG_REWRITTEN: a line
removed or rewritten since; the message names the copy and the line).

Options:
  --bundles DIR   the bundles directory (default: the config's bundles_dir)
  --config FILE   the config (default ./ledgerboard.config.json when present)
${CACHE_HELP}

A retained reports directory that cannot be written (read-only, no
permission, a full disk) is one line naming it and what to do, exit 2; the
temporary file of the write that failed is removed, no report is written,
and manifests written completely before it stay (running retain again
finishes the job).

Exit: 0 retained (or already retained), 1 refused (a name taken by other
bytes, an incomplete retention that cannot be finished, or a freeze log
rewritten since a copy was kept), 2 usage or a
retained reports directory that cannot be written.`,
  options: { bundles: { type: 'string' }, config: { type: 'string' }, ...CACHE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('retain takes no positional arguments');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const { config } = loaded;
    const dirs = typeof values.bundles === 'string' ? [values.bundles] : bundleDirs(loaded);
    const retainedDir = configPath(loaded, config.retained_reports_dir);
    const { results, history, report, freezeLog } = await runPipeline({ paths: dirs, config, retainedDir, freezeLog: freezeLogPathOf(loaded), requireBundles: typeof values.bundles === 'string', cache: cacheOf(values, loaded, 'retain', dirs, (line) => io.stderr.write(`retain: ${line}\n`)) });
    const { incomplete } = history!;
    const unfinishable = incomplete.filter((i) => i.manifest === null);
    if (unfinishable.length > 0) {
      for (const i of unfinishable) {
        io.stderr.write(
          `ledgerboard: incomplete retention: retained report ${i.reports.map((hex) => `${hex}.json`).join(', ')} counted bundle ${i.bundle_id} (plan ${i.plan_id}), ` +
            `but ${join(retainedDir, MANIFESTS_DIR, `${i.bundle_id.slice(7)}.json`)} is missing or does not check, and no verified bundle with that id is among the evidence\n`,
        );
      }
      io.stderr.write(
        'ledgerboard: nothing retained: later bundles of those plans cannot be compared with what was counted. Copy each bundle\'s manifest.json (from the bundle, a backup, or the site that published it) to the name above, or put the bundle back among the evidence, and run retain again.\n',
      );
      return EXIT.notVerified;
    }
    // The freeze log only ever grows: a copy kept before that is no longer a prefix of it refuses the retain (nothing written).
    const rewritten = freezeLog === null ? [] : rewrittenCopies(freezeLog.input);
    if (rewritten.length > 0) {
      for (const f of rewritten) io.stderr.write(`ledgerboard: FREEZE_LOG_REWRITTEN: ${f.message}\n`);
      io.stderr.write(
        `ledgerboard: nothing retained: the freeze log ${freezeLogPathOf(loaded)} is only ever appended to, and a copy retain kept of it (${join(retainedDir, FREEZE_LOGS_DIR)}/) is no longer its prefix. Put the removed or rewritten lines back (the copy holds them, byte for byte), then run retain again.\n`,
      );
      return EXIT.notVerified;
    }
    try {
      // The freeze log as this report saw it (create-only; an empty log needs no copy), before the report: the commit point.
      const keptLog = freezeLog === null ? null : await retainFreezeLog(retainedDir, freezeLog.bytes);
      if (keptLog?.outcome === 'created') io.stdout.write(`freeze log: ${freezeLog!.input.lines} lines retained as ${keptLog.path}\n`);
      // Manifests first (each durable), then the report: the commit point.
      const manifests = await retainManifests(retainedDir, manifestsToWrite(incomplete, countedManifests(report, results)));
      if (incomplete.length > 0) io.stdout.write(`finished an interrupted retention: the manifests of ${incomplete.length} counted bundles retained\n`);
      // What the site withholds now, recorded beside a report retained for the first time (never part of it: its id is the
      // same), so that a later build can say which of those files have since been revealed (history/retained-withheld.ts).
      if (!(await exists(join(retainedDir, `${report.report_id.slice(7)}.json`)))) {
        const files = publishedOf(report, results, config.withhold).bundles.flatMap((b) => b.withheld.map((w) => ({ bundle: b.dirHex, ...w })));
        const kept = await writeRetainedWithheld(retainedDir, { report_id: report.report_id, files });
        if (kept === 'kept') io.stderr.write(`ledgerboard: warning: a record of the files withheld for ${report.report_id} was already there with other content (an earlier, interrupted retain); it is kept as it is\n`);
        else if (files.length > 0) io.stdout.write(`withheld when retained: ${files.length} files (recorded, so later builds can say which are revealed)\n`);
      }
      const { path, outcome } = await retainReport(retainedDir, report);
      io.stdout.write(outcome === 'created' ? `retained ${report.report_id} as ${path}\n` : `already retained: ${path} (same bytes)\n`);
      io.stdout.write(`manifests of the counted bundles: ${manifests.created} retained, ${manifests.existing} already retained\n`);
      return EXIT.ok;
    } catch (error) {
      // Nothing half-written stays: a write that failed midway leaves its temporary file, removed here.
      await removeOwnTempFiles(retainedDir);
      if (!(error instanceof RetainError) && !(error instanceof RetainedManifestError)) throw (await retainEnvironmentError(error, retainedDir)) ?? error;
      io.stderr.write(`ledgerboard: ${error.message}\n`);
      return EXIT.notVerified;
    }
  },
};
