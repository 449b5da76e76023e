/** `ledgerboard init [dir]`: scaffold a board repository (create-only). */
import { mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Config, ConfigError } from '../config/config.ts';
import { writeCreateOnly } from '../author/create-only.ts';
import { AlreadyExistsError } from '../author/problems.ts';
import { MAX_MATRIX, packageNameOf, scaffoldFiles, SCORECARD_EXAMPLE_README_PATH } from '../author/scaffold.ts';
import { VERSION } from '../version.ts';
import { EXIT, UsageError, type Command } from './command.ts';

export const initCommand: Command = {
  summary: 'scaffold a board repository: config, evidence/, package.json, a GitHub Pages workflow, an example score card',
  usage: `Usage: ledgerboard init [DIR] [--title TEXT] [--site-url URL] [--package SPEC] [--matrix N]

Writes a board repository into DIR (default: the current directory; created
when missing):

  ledgerboard.config.json            the config (its $schema for editors): bundles in evidence/, the history
                                     in history/ (retain's reports, sign's signatures in history/attestations/,
                                     freeze's log of every plan frozen in history/freeze-log.jsonl)
  evidence/README.md                 what goes in evidence/: freeze + seal, import (six formats, or auto),
                                     bundles you were sent
  scorecard.example.json             an example score card (FORMAT.md 11): claims capped by access tier;
                                     not enabled (the config does not name it)
  scorecard.example.md               what the card does, when to enable it and how
  package.json                       build / verify / preview / retain scripts, ledgerboard as a dependency
  .gitignore                         node_modules/, dist/ and what a build leaves
  .github/workflows/leaderboard.yml  verify, build and deploy to GitHub Pages on every push to main

Create-only: a file that exists is never overwritten (it is listed as kept).
Then: npm install, put bundles in evidence/, npm run build, npm run preview.
A build with no evidence yet gives an empty site that says how to add some.

Options:
  --title TEXT     the board's title (default: "<DIR name> leaderboard")
  --site-url URL   where the site will be published, at the root of an origin or under a path
                   (https://<user>.github.io/<repo>/ for a GitHub project site; default http://localhost:4321/)
  --package SPEC   what package.json's dependency on ledgerboard points at
                   (default ${VERSION}; a tarball path or a git URL work too)
  --matrix N       the workflow verifies the evidence in N parallel jobs (2 to ${MAX_MATRIX}), each
                   \`ledgerboard cache fill --shard K/N\` uploading its cache as an artifact, and one
                   job merges them (\`cache merge\`) and builds and deploys; set the repository
                   secret LEDGERBOARD_CACHE_KEY (docs/publishing.md). Default: one job verifies,
                   builds and deploys

Exit: 0 done (also when every file was kept), 2 on a usage error.`,
  options: { title: { type: 'string' }, 'site-url': { type: 'string' }, package: { type: 'string' }, matrix: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 1) throw new UsageError('init takes at most one directory');
    const dir = positionals[0] ?? '.';
    const matrix = typeof values.matrix === 'string' ? matrixOf(values.matrix) : undefined;
    const existing = await stat(dir).catch(() => null);
    if (existing !== null && !existing.isDirectory()) throw new UsageError(`not a directory: ${dir}`);
    const dirName = basename(resolve(dir));
    const title = typeof values.title === 'string' ? values.title : `${dirName} leaderboard`;
    const siteUrl = typeof values['site-url'] === 'string' ? values['site-url'] : 'http://localhost:4321/';
    // The same rules as the config file: what init writes is a config that loads.
    const checked = Config.safeParse({ title, site_url: siteUrl });
    if (!checked.success) throw new ConfigError(`init: ${checked.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}`);
    const files = scaffoldFiles({
      title,
      siteUrl,
      name: packageNameOf(dirName),
      ledgerboard: typeof values.package === 'string' ? values.package : VERSION,
      ...(matrix === undefined ? {} : { matrix }),
    });
    const created: string[] = [];
    const kept: string[] = [];
    for (const file of files) {
      const path = join(dir, ...file.path.split('/'));
      await mkdir(dirname(path), { recursive: true });
      try {
        await writeCreateOnly(path, new TextEncoder().encode(file.text), file.path);
        created.push(file.path);
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        kept.push(file.path);
      }
    }
    for (const path of created) io.stdout.write(`created  ${path}\n`);
    for (const path of kept) io.stdout.write(`kept     ${path} (exists; never overwritten)\n`);
    const cd = dir === '.' ? '' : `cd ${dir} && `;
    io.stdout.write(
      [
        '',
        'Next:',
        `  ${cd}npm install${created.includes('package.json') ? '' : '   (package.json was kept: add the build, verify and preview scripts yourself, see `ledgerboard init --help`)'}`,
        '  put evidence bundles in evidence/ (see evidence/README.md)',
        '  npx ledgerboard build && npx ledgerboard preview',
        `  optional: claims capped by access tier: see ${SCORECARD_EXAMPLE_README_PATH} (the example card is not enabled)`,
        '  push to GitHub and set Settings -> Pages -> Source to "GitHub Actions"',
        ...(matrix === undefined || !created.includes(WORKFLOW_PATH)
          ? []
          : ['  and the repository secret LEDGERBOARD_CACHE_KEY to 64 hex digits (openssl rand -hex 32): the verify jobs seal their results with it']),
        '',
      ].join('\n'),
    );
    return EXIT.ok;
  },
};

const WORKFLOW_PATH = '.github/workflows/leaderboard.yml';

/** --matrix N: a whole number of jobs from 2 to MAX_MATRIX. */
function matrixOf(text: string): number {
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 2 || n > MAX_MATRIX) {
    throw new UsageError(`--matrix ${JSON.stringify(text)}: the number of verify jobs, a whole number from 2 to ${MAX_MATRIX} (without --matrix one job verifies and builds)`, 'init');
  }
  return n;
}
