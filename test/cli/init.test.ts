/**
 * `ledgerboard init` (issue 11 point 3): a board repository scaffolded
 * create-only, whose config loads, whose workflow verifies, builds and deploys
 * to GitHub Pages, and which builds a valid, friendly empty site before any
 * evidence is there; with an example score card (issue 27) that is not
 * enabled, and its explanation beside it.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfigFile } from '../../src/config/config.ts';
import { digestCanonical } from '../../src/json/canonical.ts';
import { packageNameOf, SCORECARD_EXAMPLE, WORKFLOW_NODE } from '../../src/author/scaffold.ts';
import { FIGURES, Scorecard } from '../../src/claims/scorecard.ts';
import { Assessments } from '../../src/schema/assessments.ts';
import { IMPORTERS } from '../../src/import/registry.ts';
import { runCli } from '../helpers/cli.ts';

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-init-'));
  temps.push(dir);
  return dir;
}

const FILES = ['ledgerboard.config.json', 'package.json', '.gitignore', 'evidence/README.md', 'scorecard.example.json', 'scorecard.example.md', '.github/workflows/leaderboard.yml'];

describe('ledgerboard init', () => {
  it('writes a board repository whose config loads and whose workflow verifies, builds and deploys', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'My Board');
    const { code, stdout } = await runCli(['init', dir, '--site-url', 'https://boards.example.org/']);
    expect(code).toBe(0);
    for (const file of FILES) expect(stdout).toContain(`created  ${file}\n`);
    const { config } = await loadConfigFile(join(dir, 'ledgerboard.config.json'));
    // One layout: evidence/ and history/, the signatures over retained reports in the history beside them.
    expect(config).toMatchObject({ title: 'My Board leaderboard', site_url: 'https://boards.example.org/', bundles_dir: 'evidence', retained_reports_dir: 'history', attestations_dir: 'history/attestations', freeze_log: 'history/freeze-log.jsonl' });
    expect(config.$schema).toBe('./node_modules/ledgerboard/public/schema/config.json');
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.name).toBe('my-board');
    expect(pkg.scripts).toEqual({ build: 'ledgerboard build --strict', verify: 'ledgerboard verify evidence', preview: 'ledgerboard preview', retain: 'ledgerboard retain' });
    expect(Object.keys(pkg.devDependencies)).toEqual(['ledgerboard']);
    const workflow = parse(await readFile(join(dir, '.github', 'workflows', 'leaderboard.yml'), 'utf8')) as {
      permissions: Record<string, string>;
      jobs: { build: { steps: { uses?: string; run?: string; if?: string; with?: Record<string, unknown> }[] }; deploy: { needs: string; steps: { uses?: string }[] } };
    };
    expect(workflow.permissions).toEqual({ contents: 'read', pages: 'write', 'id-token': 'write', attestations: 'write' });
    const steps = workflow.jobs.build.steps;
    expect(steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(WORKFLOW_NODE);
    expect(steps.map((s) => s.run).filter(Boolean)).toEqual(['npm ci', 'npx ledgerboard build --strict']);
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-pages-artifact@'))?.with?.path).toBe('dist');
    // Keyless signing (issue 16), opt-in: a GitHub artifact attestation of the published report.json, after the build, before the upload.
    const attest = steps.findIndex((s) => s.uses === 'actions/attest-build-provenance@v2');
    expect(steps[attest]).toEqual({ if: "vars.LEDGERBOARD_ATTEST == 'true'", uses: 'actions/attest-build-provenance@v2', with: { 'subject-path': 'dist/report.json' } });
    expect(attest).toBeGreaterThan(steps.findIndex((s) => s.run === 'npx ledgerboard build --strict'));
    expect(attest).toBeLessThan(steps.findIndex((s) => s.uses?.startsWith('actions/upload-pages-artifact@')));
    expect(workflow.jobs.deploy.needs).toBe('build');
    expect(workflow.jobs.deploy.steps.map((s) => s.uses)).toEqual(['actions/deploy-pages@v4']);
    // What a build leaves beside dist/ (atomic swap, lock, render directories) is never committed.
    expect((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n')).toEqual(['node_modules/', 'dist/', 'dist.staging/', 'dist.previous/', 'dist.lock', 'dist.render-*/', '']);
    // evidence/README.md: freeze + seal, every importer (one command line each, as `import --help` names them) and import auto.
    const evidence = await readFile(join(dir, 'evidence', 'README.md'), 'utf8');
    expect(evidence).toMatch(/^ {2}npx ledgerboard freeze plan\.yaml .* -o evidence\/my-run\/$/m);
    expect(evidence).toMatch(/^ {2}npx ledgerboard seal evidence\/my-run\/$/m);
    const commands = [...evidence.matchAll(/^ {2}npx ledgerboard import ([a-z-]+) /gm)].map((m) => m[1]);
    expect(commands).toEqual([...IMPORTERS.map((i) => i.name), 'auto']);
    expect(evidence).toContain('history/attestations/');
    // freeze, run here, appends to the freeze log the config names (issue 30).
    expect(evidence).toContain('history/freeze-log.jsonl');
  });

  it('writes an example score card, not enabled: a strict card, which the config does not name, explained beside it', async () => {
    const dir = await tempDir();
    const { code, stdout } = await runCli(['init', dir]);
    expect(code).toBe(0);
    expect(stdout).toContain('created  scorecard.example.json\n');
    expect(stdout).toContain('created  scorecard.example.md\n');
    expect(stdout).toContain('  optional: claims capped by access tier: see scorecard.example.md (the example card is not enabled)\n');
    const text = await readFile(join(dir, 'scorecard.example.json'), 'utf8');
    const card = Scorecard.parse(JSON.parse(text));
    expect(card).toEqual(SCORECARD_EXAMPLE);
    // Two tiers or more and an origin ceiling, computed and assessed indicators: every kind of rule the card has.
    expect(card.tiers.map((t) => [t.name, t.ceiling])).toEqual([['black_box', 'supported'], ['grey_box', 'strong'], ['white_box', 'strong']]);
    expect(card.origins).toEqual([{ kind: 'imported', ceiling: 'indicative' }]);
    expect(card.indicators.map((i) => ('assessed' in i ? 'assessed' : i.computed.figure))).toEqual(['wilson_low', 'beats_baseline', 'stability', 'assessed']);
    // Not enabled: the config names no card (a build says its figures carry no claims).
    const config = JSON.parse(await readFile(join(dir, 'ledgerboard.config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).not.toHaveProperty('scorecard');
    // The explanation beside it: every figure a computed indicator may read, when to enable it and how.
    const readme = await readFile(join(dir, 'scorecard.example.md'), 'utf8');
    for (const figure of FIGURES) expect(readme, figure).toContain(`| \`${figure}\` |`);
    expect(readme).toContain('## When to enable it');
    expect(readme).toContain('`"scorecard": "scorecard.json"`');
    expect(readme).toContain('`access tier <name> is not on the score card`');
    // Its assessments.json example is a valid file, assessing the card's assessed indicator.
    const example = Assessments.parse(JSON.parse(/```json\n([\s\S]*?)```/.exec(readme)![1]!));
    expect(example.assessments.map((a) => a.indicator)).toEqual(['no_weight_tampering']);
    expect(card.indicators.find((i) => i.id === 'no_weight_tampering')).toHaveProperty('assessed', true);
    expect(await readFile(join(dir, 'evidence', 'README.md'), 'utf8')).toContain('`../scorecard.example.md`');
  });

  it('enabled as scorecard.example.md says (copy it, name it in the config): the report carries its digest; a broken edit stops with the member named', async () => {
    const dir = await tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    await cp(join(dir, 'scorecard.example.json'), join(dir, 'scorecard.json'));
    const configFile = join(dir, 'ledgerboard.config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(configFile, `${JSON.stringify({ ...config, scorecard: 'scorecard.json' }, null, 2)}\n`);
    const report = await runCli(['report', '--json', '--no-cache', '--config', configFile]);
    expect(report.code).toBe(0);
    const json = JSON.parse(report.stdout) as { config: { scorecard?: string }; cohorts: unknown[] };
    expect(json.config.scorecard).toBe(digestCanonical(SCORECARD_EXAMPLE));
    expect(json.cohorts).toEqual([]);
    // An edit that breaks a rule of the card (a ceiling that is not a declared level) stops the command, naming the member.
    const broken = JSON.parse(JSON.stringify(SCORECARD_EXAMPLE)) as { tiers: { ceiling: string }[] };
    broken.tiers[0]!.ceiling = 'proven';
    await writeFile(join(dir, 'scorecard.json'), JSON.stringify(broken));
    const refused = await runCli(['report', '--json', '--no-cache', '--config', configFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${configFile}: scorecard: `);
    expect(refused.stderr).toContain('tiers[0].ceiling: ceiling "proven" is not a declared level');
  });

  it('never overwrites: a second init keeps every file byte for byte, and an edited file stays edited', async () => {
    const dir = await tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    await writeFile(join(dir, 'ledgerboard.config.json'), '{ "title": "mine" }\n');
    const before = await Promise.all(FILES.map((f) => readFile(join(dir, f))));
    const again = await runCli(['init', dir, '--title', 'other']);
    expect(again.code).toBe(0);
    for (const file of FILES) expect(again.stdout).toContain(`kept     ${file} (exists; never overwritten)\n`);
    expect(again.stdout).toContain('package.json was kept');
    const after = await Promise.all(FILES.map((f) => readFile(join(dir, f))));
    expect(after).toEqual(before);
  });

  it('refuses a site URL the config would refuse, and a file as the directory (exit 2, nothing written)', async () => {
    const dir = await tempDir();
    const bad = await runCli(['init', dir, '--site-url', 'ftp://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('site_url');
    await expect(readFile(join(dir, 'package.json'))).rejects.toThrow();
    await writeFile(join(dir, 'file'), 'x');
    const file = await runCli(['init', join(dir, 'file')]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('not a directory');
  });

  it('then build with no evidence yet: a valid site that says how to add some, not an error', { timeout: 300_000 }, async () => {
    const dir = await tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const out = join(dir, 'dist');
    const built = await runCli(['build', '--config', join(dir, 'ledgerboard.config.json'), '--out', out]);
    expect(built.code).toBe(0);
    expect(built.stdout).toContain('0 bundles: 0 verified');
    const index = await readFile(join(out, 'index.html'), 'utf8');
    expect(index).toContain('No evidence yet');
    expect(index).toContain('ledgerboard seal');
    // Every importer by its format name, and import auto.
    const empty = index.slice(index.indexOf('id="no-evidence"'));
    const named = [...empty.matchAll(/<code>([a-z-]+)<\/code> \(/g)].map((m) => m[1]);
    expect(named).toEqual(IMPORTERS.map((i) => i.name));
    expect(empty).toContain('npx ledgerboard import &lt;format&gt; &lt;input&gt;... -o evidence/ --license MIT');
    expect(empty).toContain('npx ledgerboard import auto logs/ -o evidence/ --license MIT');
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { boards: unknown[]; bundles: unknown[] };
    expect(report.boards).toEqual([]);
    expect(report.bundles).toEqual([]);
  });
});

describe('an init board signed: init, keygen, retain, sign, build', () => {
  it('keeps the signature in the history beside the retained report (history/attestations/), never content/, and the site says it is signed', { timeout: 300_000 }, async () => {
    const parent = await tempDir();
    const dir = join(parent, 'board');
    expect((await runCli(['init', dir, '--site-url', 'https://user.github.io/board/'])).code).toBe(0);
    const config = join(dir, 'ledgerboard.config.json');
    await cp('content/bundles/2026-09-14-widget-bugs', join(dir, 'evidence', '2026-09-14-widget-bugs'), { recursive: true });
    const made = await runCli(['keygen', '-o', join(parent, 'keys'), '--config', config]);
    expect(made.code).toBe(0);
    const keyid = /^key id ([0-9a-f]{64})$/m.exec(made.stdout)![1]!;
    const retained = await runCli(['retain', '--config', config, '--no-cache']);
    expect(retained.code).toBe(0);
    const [reportFile] = (await readdir(join(dir, 'history'))).filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
    const hex = reportFile!.slice(0, 64);
    const signed = await runCli(['sign', '--key', join(parent, 'keys', `ledgerboard-${keyid}.key`), '--config', config, '--no-cache']);
    expect(signed.stderr).toBe('');
    expect(signed.code).toBe(0);
    const envelope = join(dir, 'history', 'attestations', hex, `${keyid}.json`);
    expect(signed.stdout).toBe(`signed report sha256:${hex} with key ${keyid}: ${envelope} (1 counted manifests and report.json)\n`);
    expect((await readdir(join(dir, 'history', 'attestations', 'keys')))).toEqual([`${keyid}.pem`]);
    expect((await readdir(dir)).sort()).toEqual(['.github', '.gitignore', 'evidence', 'history', 'ledgerboard.config.json', 'package.json', 'scorecard.example.json', 'scorecard.example.md']);
    const out = join(dir, 'dist');
    const built = await runCli(['build', '--config', config, '--out', out, '--no-cache']);
    expect(built.code).toBe(0);
    expect(await readFile(join(out, 'attestations', hex, `${keyid}.json`))).toEqual(await readFile(envelope));
    const index = await readFile(join(out, 'index.html'), 'utf8');
    expect(index).toContain(`data-signed-key="${keyid}"`);
    expect(index).toContain(`Signed by key <code>${keyid.slice(0, 12)}</code>`);
  });
});

describe('packageNameOf', () => {
  it('makes a valid npm name of any directory name', () => {
    expect(packageNameOf('My Board')).toBe('my-board');
    expect(packageNameOf('..__')).toBe('leaderboard');
    expect(packageNameOf('Ünïcode 板')).toBe('n-code');
    expect(packageNameOf('a'.repeat(300))).toHaveLength(100);
  });
});
