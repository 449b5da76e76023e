/**
 * The files `ledgerboard init` writes: a board repository that keeps its own
 * evidence and builds and deploys its own site. Pure: names and bytes only
 * (init-command.ts writes them, create-only).
 */
import { VERSION } from '../version.ts';

/** What the scaffold is made from. */
export interface ScaffoldOptions {
  /** The board's title (config `title`). */
  title: string;
  /** Where the site will be published (config `site_url`). */
  siteUrl: string;
  /** The package name for package.json (a valid npm name). */
  name: string;
  /** What package.json's devDependency on ledgerboard points at (a version, a tarball path, a git URL). */
  ledgerboard: string;
  /** With N (2..256): the workflow verifies the evidence in N parallel jobs and one job merges their caches and builds ({@link matrixWorkflow}). */
  matrix?: number;
}

/** One file of the scaffold: its path (relative, "/"-separated) and text. */
export interface ScaffoldFile {
  path: string;
  text: string;
}

/** The Node version the workflow pins (the oldest ledgerboard supports, as package.json's engines says). */
export const WORKFLOW_NODE = '20.19.0';

/** A package name from a directory name: lower case, [a-z0-9-._], never empty. */
export function packageNameOf(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, 100);
  return name === '' ? 'leaderboard' : name;
}

/**
 * The example score card init writes (FORMAT.md 11.1), not enabled: the
 * config does not name it. JSON has no comments and the card is strict, so
 * its explanation is a file of its own beside it.
 */
export const SCORECARD_EXAMPLE = {
  schema: 'ledgerboard.scorecard.v1',
  levels: ['not_supported', 'indicative', 'supported', 'strong'],
  tiers: [
    { name: 'black_box', ceiling: 'supported' },
    { name: 'grey_box', ceiling: 'strong' },
    { name: 'white_box', ceiling: 'strong' },
  ],
  origins: [{ kind: 'imported', ceiling: 'indicative' }],
  indicators: [
    { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'wilson_low', at_least: [0.1, 0.4, 0.7] } },
    { id: 'beats_baseline', title: 'Better than the frozen baseline, task by task', computed: { figure: 'beats_baseline', at_least: [0.5, 0.5, 1] } },
    { id: 'stable_across_attempts', title: 'Gives the same result on every attempt at a task', computed: { figure: 'stability', at_least: [0.5, 0.75, 0.9] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
  ],
} as const;

/** Where init writes the example card, and its explanation. */
export const SCORECARD_EXAMPLE_PATH = 'scorecard.example.json';
export const SCORECARD_EXAMPLE_README_PATH = 'scorecard.example.md';

/** The scaffold's files, in the order they are written. */
export function scaffoldFiles(options: ScaffoldOptions): ScaffoldFile[] {
  const config = {
    $schema: './node_modules/ledgerboard/public/schema/config.json',
    title: options.title,
    site_url: options.siteUrl,
    bundles_dir: 'evidence',
    retained_reports_dir: 'history',
    // One layout: the signatures over retained reports live in the history beside them (ledgerboard sign).
    attestations_dir: 'history/attestations',
    // The freeze log (ledgerboard freeze appends to it) is history too: retain keeps copies of it beside the reports.
    freeze_log: 'history/freeze-log.jsonl',
  };
  const pkg = {
    name: options.name,
    private: true,
    type: 'module',
    scripts: {
      build: 'ledgerboard build --strict',
      verify: 'ledgerboard verify evidence',
      preview: 'ledgerboard preview',
      retain: 'ledgerboard retain',
    },
    devDependencies: { ledgerboard: options.ledgerboard },
    // Astro's optional font code asks for undici 8, which wants Node 22; ledgerboard never loads it. Pinning 7 keeps
    // `npm install` on Node 20 free of engine warnings.
    overrides: { undici: '7.30.2' },
  };
  return [
    { path: 'ledgerboard.config.json', text: `${JSON.stringify(config, null, 2)}\n` },
    { path: 'package.json', text: `${JSON.stringify(pkg, null, 2)}\n` },
    { path: '.gitignore', text: ['node_modules/', 'dist/', 'dist.staging/', 'dist.previous/', 'dist.lock', 'dist.render-*/', ''].join('\n') },
    { path: 'evidence/README.md', text: EVIDENCE_README },
    { path: SCORECARD_EXAMPLE_PATH, text: `${JSON.stringify(SCORECARD_EXAMPLE, null, 2)}\n` },
    { path: SCORECARD_EXAMPLE_README_PATH, text: SCORECARD_EXAMPLE_README },
    { path: '.github/workflows/leaderboard.yml', text: options.matrix === undefined ? WORKFLOW : matrixWorkflow(options.matrix) },
  ];
}

const SCORECARD_EXAMPLE_README = `# The score card (an example, not enabled)

\`scorecard.example.json\` is an example **score card** (FORMAT.md section
11). The board does not use it: \`ledgerboard.config.json\` does not name it,
and until it does, the site shows figures (rates, intervals, verdicts) and
says that they carry no claims.

A card turns figures into **claims**: for every cohort and every indicator
of the card, a level ("resolves the ledger's headline tasks: supported"),
and never a level above what the evidence can support. Each plan declares
its \`access_tier\`; the card says the strongest level each tier may reach.
An evaluation that saw only inputs and outputs (\`black_box\`) cannot support
a claim that needed weights or training data, however good its numbers: its
claims are capped, and the cohort's page says so ("assessed strong, capped at
supported by access tier black_box"). A cohort pooled from several plans is
capped by the weakest of them.

A computed indicator reads one figure of the cohort. Its level is the
\`i\`-th of \`levels\` (counting from 0), where \`i\` is how many of its
\`at_least\` thresholds the figure reaches (>=); a figure that is not
available is the weakest level.

| figure | what it is |
|---|---|
| \`rate\` | the headline rate: resolved / graded attempts on headline tasks |
| \`wilson_low\` | the lower end of that rate's 95% Wilson interval (high only when the rate is high and sure) |
| \`beats_baseline\` | 1 when the sign test tells the cohort apart from the board's baseline, in its favour; else 0 |
| \`stability\` | the share of headline tasks with two or more graded attempts on which those attempts agree |

## When to enable it

Enable a card when the board should say more than its numbers, and you are
ready to stand behind what it says:

- your plans declare \`access_tier\` truthfully, with names the card lists
  (a tier the card does not list caps every claim of its plans at the
  weakest level, with the reason \`access tier <name> is not on the score card\`);
- you have decided, before looking at this board's results, which figures
  and thresholds support which level (the card is part of the report's id:
  changing it later is a visible config change, not a quiet edit);
- someone will assess every \`assessed\` indicator, or you remove them
  (an indicator nobody assessed is the weakest level, \`not assessed\`).

Leave it off while the board only collects runs, or while the thresholds are
still being argued about: a card is a public commitment, not decoration.

## How to enable it

1. Copy it, \`cp scorecard.example.json scorecard.json\`, and edit it:
   - \`levels\`: at least two distinct names, weakest first;
   - \`tiers\`: every \`access_tier\` your plans declare, each with its ceiling
     (a declared level); \`origins\` (optional): the same for imported
     evidence (\`origin.kind\`), which was never frozen before it ran;
   - \`indicators\`: ids of \`a-z\`, \`0-9\` and \`_\`, each either computed from a
     figure (\`at_least\`: one threshold per level above the first,
     non-decreasing) or \`"assessed": true\`.
2. Name it in \`ledgerboard.config.json\`: \`"scorecard": "scorecard.json"\`
   (a path relative to the config file).
3. \`npm run build\`. The card is strict like the plan: a member it does not
   know, a name declared twice, a threshold list of the wrong length or a
   ceiling that is not a declared level stops the build with the member
   named. The site publishes the card at \`/scorecard.json\`, byte for byte,
   and its verifiers recompute every claim from the report and the card.

## Assessed indicators

An assessed indicator takes its level from \`assessments.json\` in a bundle
(FORMAT.md 11.2), a file of the evidence like any other:

\`\`\`json
{ "schema": "ledgerboard.assessments.v1",
  "assessments": [
    { "indicator": "no_weight_tampering",
      "subject": { "model": "acme/mini-2026-08-01", "agent": { "name": "loop", "version": "3.1.0" } },
      "level": "supported", "by": "red team, example.org", "basis": "artifacts/assessments/tamper.md" } ] }
\`\`\`

The subject must be one of the plan's, and the basis (optional) a file of
the bundle. Put both in the bundle directory and seal it again (remove its
\`manifest.json\`, then \`npx ledgerboard seal evidence/<bundle>/\`): the plan
id stays, the files are added, nothing is rewritten. Where bundles of one
cohort assess an indicator differently, the weakest level counts.
`;

const EVIDENCE_README = `# Evidence

Every evidence bundle of this board lives here, one directory per bundle
(a directory holding \`manifest.json\`). \`ledgerboard build\` verifies every
bundle under this directory, counts the verified ones and publishes all of
them, byte for byte: a bundle that fails verification is shown with its
findings and never counted.

Three ways to put a bundle here:

- **Frozen runs** (the trustworthy kind): freeze the plan before the run,
  let the harness fill the bundle, then seal it.

  \`\`\`sh
  npx ledgerboard freeze plan.yaml --ledger ledger.jsonl -o evidence/my-run/
  # ... the harness writes evidence/my-run/attempts.jsonl, grades/1.json, artifacts/ ...
  npx ledgerboard seal evidence/my-run/
  \`\`\`

- **Imported results** that were never frozen, from another harness's
  logs, marked imported on every page and never ranked against frozen runs.
  Six formats, each \`ledgerboard import <format>\`:

  \`\`\`sh
  npx ledgerboard import inspect logs/*.eval -o evidence/ --license MIT   # Inspect AI .eval and .json logs
  npx ledgerboard import lm-eval output/ -o evidence/ --license MIT       # lm-evaluation-harness (--log_samples)
  npx ledgerboard import helm runs/my-run/ -o evidence/ --license MIT     # a HELM run directory
  npx ledgerboard import swe-bench run/ -o evidence/ --license MIT        # a SWE-bench evaluation run
  npx ledgerboard import terminal-bench runs/ -o evidence/ --license MIT  # Terminal-Bench 1 runs, Harbor jobs
  npx ledgerboard import eee records/ -o evidence/ --license MIT          # Every Eval Ever aggregate + samples
  npx ledgerboard import auto logs/ -o evidence/ --license MIT            # any mix: each input's format recognised
  \`\`\`

  \`npx ledgerboard import --help\` lists each format's inputs and options.

- **A bundle someone sent you**: copy its directory here as it is. Never edit
  a bundle by hand: its ids and digests would no longer re-derive.

A red team's levels for the indicators of a score card (\`assessments.json\`,
with the report they rest on) are evidence too: they go into the bundle of
the plan they assessed, which is sealed again (files added, none rewritten).
See \`../scorecard.example.md\`.

Check what is here with \`npm run verify\`; build the site with
\`npm run build\` and look at it with \`npm run preview\`. Keep history
append-only: \`npm run retain\` after publishing keeps the report (in
\`history/\`) so that evidence rewritten later is caught; \`npx ledgerboard
sign --key <private key>\` signs it, beside it in \`history/attestations/\`.
Run \`npx ledgerboard freeze\` here: it appends every plan it freezes to the
freeze log, \`history/freeze-log.jsonl\` (commit it; never edit it), so the
site lists the plans frozen and never published.
`;

/** The parts both workflows share (the one-job workflow and `init --matrix N`'s), written once. */
const WORKFLOW_TRIGGERS = `name: leaderboard

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write
  attestations: write

concurrency:
  group: pages
  cancel-in-progress: false
`;
const WORKFLOW_SETUP = `      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${WORKFLOW_NODE}
          cache: npm
      - run: npm ci
`;
const WORKFLOW_PUBLISH = `      # Optional keyless signing (docs/publishing.md): a GitHub artifact attestation (Sigstore) of the
      # published report.json, which readers check with \`gh attestation verify report.json --repo OWNER/REPO\`.
      # Set the repository variable LEDGERBOARD_ATTEST to true to turn it on (private repositories need a plan with attestations).
      - if: vars.LEDGERBOARD_ATTEST == 'true'
        uses: actions/attest-build-provenance@v2
        with:
          subject-path: dist/report.json
      - uses: actions/upload-pages-artifact@v3
        with:
          path: dist
`;
const WORKFLOW_DEPLOY = `    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: \${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
`;

const WORKFLOW = `# Verifies every bundle under evidence/, builds the leaderboard and
# deploys it to GitHub Pages (Settings -> Pages -> Source: GitHub Actions).
# Written by ledgerboard init ${VERSION}.
${WORKFLOW_TRIGGERS}
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
${WORKFLOW_SETUP}      # --strict: a bundle that is not verified fails the build (it would still be published, never counted).
      - run: npx ledgerboard build --strict
${WORKFLOW_PUBLISH}
  deploy:
    needs: build
${WORKFLOW_DEPLOY}`;

/** The most verify jobs `init --matrix` writes (GitHub Actions runs at most 256 jobs of one matrix). */
export const MAX_MATRIX = 256;

/** Where a verify job keeps its entries, and the directory the build job merges them into (both in the job's workspace, outside evidence/). */
export const SHARD_CACHE_DIR = 'ledgerboard-cache';
/** Where the build job downloads the shards' artifacts (one directory per artifact, named after it). */
export const SHARDS_DIR = 'ledgerboard-shards';

/**
 * The workflow of `init --matrix N`: N verify jobs (a matrix), each running
 * `ledgerboard cache fill --shard K/N` and uploading its cache directory as
 * the artifact `ledgerboard-cache-K`; one build job that downloads every
 * artifact there is, merges them (`cache merge`, entries sealed under the
 * repository secret LEDGERBOARD_CACHE_KEY only) and builds with the merged
 * cache; then the deploy job, as in the one-job workflow. The build job runs
 * when a verify job failed too: the share nobody verified (a missing
 * artifact, a refused entry) is verified by the build itself.
 */
export function matrixWorkflow(n: number): string {
  if (!Number.isSafeInteger(n) || n < 2 || n > MAX_MATRIX) throw new RangeError(`a matrix of ${n} jobs: from 2 to ${MAX_MATRIX}`);
  const shards = Array.from({ length: n }, (_, i) => i + 1);
  const sources = shards.map((k) => `${SHARDS_DIR}/ledgerboard-cache-${k}`).join(' ');
  return `# Verifies every bundle under evidence/ in ${n} parallel jobs, builds the
# leaderboard from their results and deploys it to GitHub Pages
# (Settings -> Pages -> Source: GitHub Actions).
# Written by ledgerboard init --matrix ${n} (ledgerboard ${VERSION}).
#
# Set the repository secret LEDGERBOARD_CACHE_KEY (Settings -> Secrets and
# variables -> Actions) to 64 hex digits, e.g. \`openssl rand -hex 32\`: every
# job seals its cache entries with it, and the merge takes only entries it
# sealed. Without it each job makes a key of its own, the merge refuses every
# entry, and the build verifies every bundle itself (correct, only slower).
# A verify job that fails does not stop the build: the build verifies its
# share itself. docs/publishing.md, "Verifying in parallel".
${WORKFLOW_TRIGGERS}
env:
  LEDGERBOARD_CACHE_KEY: \${{ secrets.LEDGERBOARD_CACHE_KEY }}

jobs:
  verify:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        shard: [${shards.join(', ')}]
    steps:
${WORKFLOW_SETUP}      # Share K of ${n}: a bundle's share is decided by the SHA-256 of its path under evidence/ (docs/cli.md).
      - run: npx ledgerboard cache fill --shard \${{ matrix.shard }}/${n} --cache ${SHARD_CACHE_DIR}
      - uses: actions/upload-artifact@v4
        with:
          name: ledgerboard-cache-\${{ matrix.shard }}
          path: ${SHARD_CACHE_DIR}
          if-no-files-found: ignore
          retention-days: 1

  build:
    needs: verify
    # Also when a verify job failed: what no shard verified, the build verifies.
    if: \${{ !cancelled() }}
    runs-on: ubuntu-latest
    steps:
${WORKFLOW_SETUP}      - uses: actions/download-artifact@v4
        continue-on-error: true
        with:
          pattern: ledgerboard-cache-*
          path: ${SHARDS_DIR}
      # Only entries sealed with LEDGERBOARD_CACHE_KEY are taken; a missing shard's directory is skipped.
      - run: npx ledgerboard cache merge ${sources} --into ${SHARD_CACHE_DIR}
      # --strict: a bundle that is not verified fails the build (it would still be published, never counted).
      - run: npx ledgerboard build --strict --cache ${SHARD_CACHE_DIR}
${WORKFLOW_PUBLISH}
  deploy:
    needs: build
    # A failed verify job would otherwise skip this job too (a job's default condition looks at every job
    # before it, not only the one it needs): deploy whenever the build itself succeeded.
    if: \${{ !cancelled() && needs.build.result == 'success' }}
${WORKFLOW_DEPLOY}`;
}
