/** `ledgerboard report [--json] [--config FILE] [<bundles-dir>...]` (FORMAT.md section 8). */
import { bundleDirs, configPath, loadConfigFile, freezeLogPathOf } from '../config/config.ts';
import { incompleteRetentionWarnings } from '../history/compare.ts';
import { canonicalJson } from '../json/canonical.ts';
import { runPipeline } from '../run/pipeline.ts';
import { CACHE_HELP, CACHE_OPTIONS, cacheLine, cacheOf } from './cache-option.ts';
import { reportText } from './format-report.ts';
import { EXIT, type Command } from './command.ts';
import { progressReporter } from './progress.ts';
import { painter, useColour } from './terminal.ts';

export const reportCommand: Command = {
  summary: 'print the report (cohorts, score vectors, verdicts) without building the site',
  usage: `Usage: ledgerboard report [--json] [--config FILE] [--cache DIR | --no-cache] [<bundles-dir>...]

Verifies every bundle under the directories (default: the config's
bundles_dir, as build reads them) and analyses the verified ones:
cohorts, score vectors, per-task classes and verdicts against the baseline,
drift, incompatibilities. Bundles that are not verified are listed with
their findings and never counted. A plan that a retained report counted
under another bundle, with files removed or rewritten since, is
REWRITTEN_EVIDENCE (the retained reports directory of the config).

Options:
  --json          print the report (schema ledgerboard.report.v1) as RFC 8785 canonical JSON
  --config FILE   the config (default ./ledgerboard.config.json when present, else defaults)
${CACHE_HELP}

Exit: 0 when the report was built (whatever the bundles' statuses), 2 on a usage or config error.`,
  options: { json: { type: 'boolean' }, config: { type: 'string' }, ...CACHE_OPTIONS },
  async run(values, positionals, io) {
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const { config } = loaded;
    const dirs = positionals.length > 0 ? positionals : bundleDirs(loaded);
    const cache = cacheOf(values, loaded, 'report', dirs, (line) => io.stderr.write(`ledgerboard: ${line}\n`));
    const run = await runPipeline({
      paths: dirs,
      config,
      retainedDir: configPath(loaded, config.retained_reports_dir),
      freezeLog: freezeLogPathOf(loaded),
      requireBundles: positionals.length > 0,
      onProgress: progressReporter(io.stderr, 'verified'),
      cache,
    });
    const { history, report } = run;
    // Said when asked for (--cache) or to a terminal: a script reading the report hears nothing it did not ask for.
    const cached = typeof values.cache === 'string' || io.stderr.isTTY === true ? cacheLine(cache, run) : null;
    if (cached !== null) io.stderr.write(`ledgerboard: ${cached}\n`);
    for (const line of incompleteRetentionWarnings(history!)) io.stderr.write(`ledgerboard: ${line}\n`);
    io.stdout.write(values.json ? `${canonicalJson(report)}\n` : reportText(report, painter(useColour(io.stdout))));
    return EXIT.ok;
  },
};
