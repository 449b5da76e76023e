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

/** The scaffold's files, in the order they are written. */
export function scaffoldFiles(options: ScaffoldOptions): ScaffoldFile[] {
  const config = {
    $schema: './node_modules/ledgerboard/public/schema/config.json',
    title: options.title,
    site_url: options.siteUrl,
    bundles_dir: 'evidence',
    retained_reports_dir: 'history',
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
    { path: '.github/workflows/leaderboard.yml', text: WORKFLOW },
  ];
}

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

- **Imported results** that were never frozen (Inspect AI eval logs), marked
  imported on every page and never ranked against frozen runs:

  \`\`\`sh
  npx ledgerboard import inspect logs/*.eval -o evidence/ --license MIT
  \`\`\`

- **A bundle someone sent you**: copy its directory here as it is. Never edit
  a bundle by hand: its ids and digests would no longer re-derive.

Check what is here with \`npm run verify\`; build the site with
\`npm run build\` and look at it with \`npm run preview\`. Keep history
append-only: \`npm run retain\` after publishing keeps the report (in
\`history/\`) so that evidence rewritten later is caught.
`;

const WORKFLOW = `# Verifies every bundle under evidence/, builds the leaderboard and
# deploys it to GitHub Pages (Settings -> Pages -> Source: GitHub Actions).
# Written by ledgerboard init ${VERSION}.
name: leaderboard

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

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${WORKFLOW_NODE}
          cache: npm
      - run: npm ci
      # --strict: a bundle that is not verified fails the build (it would still be published, never counted).
      - run: npx ledgerboard build --strict
      # Optional keyless signing (docs/publishing.md): a GitHub artifact attestation (Sigstore) of the
      # published report.json, which readers check with \`gh attestation verify report.json --repo OWNER/REPO\`.
      # Set the repository variable LEDGERBOARD_ATTEST to true to turn it on (private repositories need a plan with attestations).
      - if: vars.LEDGERBOARD_ATTEST == 'true'
        uses: actions/attest-build-provenance@v2
        with:
          subject-path: dist/report.json
      - uses: actions/upload-pages-artifact@v3
        with:
          path: dist

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: \${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
`;
