/**
 * `ledgerboard build`: the site build. Today it runs the read + verify stage
 * over the bundles directory and reports; analysis (issue 3) and rendering the
 * Astro site (issue 4) are not implemented yet, and it says so.
 */
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { summaryLine, verifyText } from './format-verify.ts';
import { EXIT, type Command } from './main.ts';
import { progressReporter } from './progress.ts';
import { painter, useColour } from './terminal.ts';

/** Default bundles directory, relative to the working directory. */
export const DEFAULT_BUNDLES_DIR = 'content/bundles';

export const buildCommand: Command = {
  summary: 'build the site from the bundles directory',
  usage: `Usage: ledgerboard build [--bundles DIR] [--strict]

Reads and verifies every bundle under DIR (default ${DEFAULT_BUNDLES_DIR}) and
prints each bundle's status and findings. Bundles that are not verified are
reported, never dropped, and never counted.

Not implemented yet: the analysis report and the static site (dist/). This
command currently stops after verification and writes nothing.

Options:
  --bundles DIR   the bundles directory (default ${DEFAULT_BUNDLES_DIR})
  --strict        exit 1 if any bundle is not verified`,
  options: { bundles: { type: 'string' }, strict: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new (await import('./main.ts')).UsageError(`build takes no positional arguments (got ${JSON.stringify(positionals[0])}); use --bundles DIR`);
    const dir = typeof values.bundles === 'string' ? values.bundles : DEFAULT_BUNDLES_DIR;
    const results = await verifyPaths([dir], progressReporter(io.stderr, 'verified'));
    io.stdout.write(verifyText(results, painter(useColour(io.stdout)), false));
    io.stderr.write(`build: ${summaryLine(results)}. The report and the site are not built yet (analysis and rendering are not implemented); nothing was written.\n`);
    const allVerified = results.every((r) => r.verification.status === 'verified');
    return values.strict === true && !allVerified ? EXIT.notVerified : EXIT.ok;
  },
};
