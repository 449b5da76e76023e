/**
 * The site build: every page of the URL contract exists, raw evidence is
 * published byte for byte, data files match the report, and two builds from
 * the same evidence are identical byte for byte (whatever the time zone,
 * locale, umask, directory names and discovery order).
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outA = join(tmpdir(), `lb-site-a-${process.pid}`);
const work = join(tmpdir(), `lb-site-work-${process.pid}`);
const outB = join(work, 'elsewhere', 'out-b');

/** Build A: the repository as it is, from the repository root, UTC, the default umask. */
async function buildA(): Promise<void> {
  await promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', 'build', '--out', outA], {
    cwd: root,
    env: { ...process.env, TZ: 'UTC', LANG: 'C', NO_COLOR: '1' },
    maxBuffer: 1 << 26,
  });
}

/**
 * Build B: the same evidence and config, but every bundle directory renamed
 * (so discovery meets them in the reverse order, one of them a level deeper),
 * the evidence, history and score card under other names (the config says so:
 * paths are not part of the report), the config in another directory and the
 * command run from a third, another time zone and locale, and umask 077.
 */
async function buildB(): Promise<void> {
  const site = join(work, 'site');
  for (const [from, to] of [
    [join(root, 'content', 'bundles'), join(site, 'evidence', 'frozen')],
    [join(root, 'content', 'imported', 'bundles'), join(site, 'evidence', 'imported')],
  ] as const) {
    const bundles = (await readdir(from)).sort();
    for (const [i, name] of bundles.entries()) {
      const renamed = i === 0 ? join('nested', 'deeper', `zz-${name}`) : `${String.fromCharCode(0x7a - i)}-bundle`;
      await cp(join(from, name), join(to, renamed), { recursive: true });
    }
  }
  await cp(join(root, 'content', 'reports'), join(site, 'history'), { recursive: true });
  // The score card under another name too: the report carries its digest, never its path.
  await cp(join(root, 'content', 'scorecard.json'), join(site, 'card.json'));
  // The pinned time-stamp root and the freeze log under other names too (FORMAT.md 12): the report carries the root's digest and the log's bytes, never a path.
  await mkdir(join(site, 'roots'), { recursive: true });
  await mkdir(join(site, 'logs'), { recursive: true });
  await cp(join(root, 'content', 'timestamp-roots', 'demo-tsa-root.pem'), join(site, 'roots', 'tsa.pem'));
  await cp(join(root, 'content', 'history', 'freeze-log.jsonl'), join(site, 'logs', 'frozen.jsonl'));
  const config = JSON.parse(await readFile(join(root, 'ledgerboard.config.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(
    join(site, 'ledgerboard.config.json'),
    JSON.stringify({ ...config, bundles_dir: ['evidence/frozen', 'evidence/imported'], retained_reports_dir: 'history', scorecard: 'card.json', timestamp_roots: ['roots/tsa.pem'], freeze_log: 'logs/frozen.jsonl' }),
  );
  await mkdir(join(work, 'elsewhere'), { recursive: true });
  await promisify(execFile)('/bin/sh', ['-c', 'umask 077 && exec "$@"', 'sh', process.execPath, join(root, 'bin', 'ledgerboard.mjs'), 'build', '--config', '../site/ledgerboard.config.json', '--out', 'out-b'], {
    cwd: join(work, 'elsewhere'),
    env: { ...process.env, TZ: 'Pacific/Chatham', LANG: 'de_DE.UTF-8', LC_ALL: 'tr_TR.UTF-8', NO_COLOR: '1' },
    maxBuffer: 1 << 26,
  });
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  await buildA();
  await buildB();
}, 240_000);

afterAll(async () => {
  for (const dir of [outA, work]) await rm(dir, { recursive: true, force: true });
});

/** The demo's imported runs: one board each (content/imported/bundles, every format). */
const IMPORTED_RUNS = (await readdir(new URL('../../content/imported/bundles/', import.meta.url))).length;

describe('ledgerboard build', () => {
  it('writes every page and file of the URL contract', async () => {
    const report = JSON.parse(await readFile(join(outA, 'report.json'), 'utf8')) as {
      boards: { board_id: string }[];
      cohorts: { cohort_id: string }[];
      bundles: { plan_id: string }[];
    };
    const hex = (d: string) => d.slice(7);
    const files = new Set(await listFiles(outA));
    const expected = [
      'index.html',
      'report.json',
      'rejected/index.html',
      'incompatibilities/index.html',
      'verify/index.html',
      'leaderboard.csv',
      'sitemap.xml',
      'feed.xml',
      'reports/index.html',
      'schema/report.json',
      'schema/plan.json',
      ...report.boards.map((b) => `boards/${hex(b.board_id)}/index.html`),
      ...report.cohorts.flatMap((c) => [`cohorts/${hex(c.cohort_id)}/index.html`, `cohorts/${hex(c.cohort_id)}.json`]),
      ...report.bundles.map((b) => `plans/${hex(b.plan_id)}/index.html`),
    ];
    for (const file of expected) expect(files, file).toContain(file);
  });

  it('publishes no server chunks (an output outside the project once got manifest_*.mjs and content-*.mjs)', async () => {
    for (const out of [outA, outB]) {
      const scripts = (await listFiles(out)).filter((f) => /\.(mjs|cjs|js|map)$/.test(f) && !f.startsWith('bundles/'));
      // The site's own scripts only: the verifiers, the leaderboard's sorting and filtering and the digests' copy buttons (public/).
      expect(scripts.sort()).toEqual(['copy.js', 'leaderboard.js', 'rederive-browser.js', 'verify-browser.js', 'verify-worker.js', 'verify.mjs']);
    }
  });

  it('report.json is what `ledgerboard report --json` prints for the config, and holds every cohort of the golden (frozen) report unchanged', async () => {
    const published = await readFile(join(outA, 'report.json'), 'utf8');
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', 'report', '--json'], { cwd: root, maxBuffer: 1 << 26 });
    expect(published).toBe(stdout);
    const golden = JSON.parse(await readFile(join(root, 'test', 'golden', 'demo-report.json'), 'utf8')) as { cohorts: { cohort_id: string }[] };
    const site = JSON.parse(published) as { cohorts: { cohort_id: string }[] };
    for (const cohort of golden.cohorts) expect(site.cohorts.find((c) => c.cohort_id === cohort.cohort_id)).toEqual(cohort);
    expect(site.cohorts.length).toBeGreaterThan(golden.cohorts.length);
  });

  it('the leaderboard: frozen boards first, then "Imported runs"; board headings read as text, by name', async () => {
    const html = await readFile(join(outA, 'index.html'), 'utf8');
    const importedAt = html.indexOf('<h2 id="imported-runs">Imported runs</h2>');
    expect(importedAt).toBeGreaterThan(0);
    // The newest frozen board first (its November plan), titled by what tells it from the other widget-bugs board.
    const newest = html.indexOf('>widget-bugs · tool policy 3ac3b860 · grader 1.2.1</a>');
    const older = html.indexOf('>widget-bugs · tool policy 4ac9ce42 · grader 1.2.0</a>');
    expect(newest).toBeGreaterThan(0);
    expect(older).toBeGreaterThan(newest);
    expect(older).toBeLessThan(importedAt);
    expect(html.lastIndexOf('<h2 id="board-')).toBeLessThan(importedAt);
    // The imported single-run boards are rows of one table after the heading; a board of two imported runs is a section of
    // its own: the demo's two HELM harm_bench runs (llama, qwen), one ledger since issue 26 (it no longer depends on
    // whether scenario_state.json was present), so one board with two cohorts.
    const report = JSON.parse(await readFile(join(outA, 'report.json'), 'utf8')) as { boards: { key: { origin: string }; cohorts: string[] }[] };
    const pooled = report.boards.filter((b) => b.key.origin === 'imported' && b.cohorts.length > 1);
    expect(pooled.map((b) => b.cohorts.length)).toEqual([2]);
    const runsTable = html.indexOf('<table class="board-table runs-table"');
    expect(runsTable).toBeGreaterThan(importedAt);
    expect(html.match(/<h3 id="board-/g)).toHaveLength(1);
    expect(html.indexOf('<h3 id="board-')).toBeGreaterThan(importedAt);
    expect(html.slice(runsTable).match(/<tr data-board=/g)).toHaveLength(IMPORTED_RUNS - 2);
  });

  it('the committed history agrees with the committed evidence: nothing withdrawn or rewritten; grown only by the no-usable-grades notes, the red team\'s assessment and the time-stamp anchors', async () => {
    const html = await readFile(join(outA, 'index.html'), 'utf8');
    for (const heading of ['Withdrawn evidence', 'Rewritten evidence']) expect(html).not.toContain(heading);
    // Issue 15: the three imported logs without a usable grade were imported again after the retained reports, and their
    // NOTES.md gained a last section "No usable grades" (appended bytes: the old file is a prefix). Issue 27: the November
    // demo plan was sealed again with a red team's assessments.json and its basis (two files added, none changed).
    // Issue 30: the November 2 and November 16 demo plans were sealed again with a time-stamp token,
    // anchors/demo-tsa.tsr (one file added each; the plan ids are unchanged).
    // Issue 29: normal growth is listed on /reports/#grown; the leaderboard keeps one line linking there (its boards come first).
    expect(html).not.toContain('<h2 id="grown">');
    expect(html).toMatch(/<p id="grown">[^<]*<a href="\/reports\/#grown">5 plans<\/a>/);
    const archive = await readFile(join(outA, 'reports', 'index.html'), 'utf8');
    const grown = archive.match(/<h2 id="grown">[\s\S]*?<\/section>/)?.[0] ?? '';
    const items = grown.match(/<li>[\s\S]*?<\/li>/g) ?? [];
    expect(items).toHaveLength(5);
    const november = items.filter((item) => item.includes('plan <code>59147f18a228</code>'));
    expect(november).toHaveLength(1);
    expect(november[0]).toContain('0 appended and 3 added files since bundle <code>426a4fc9c24a</code>');
    const offline = items.filter((item) => item.includes('plan <code>eff0d3f9ae1f</code>'));
    expect(offline).toHaveLength(1);
    expect(offline[0]).toContain('0 appended and 1 added files since bundle <code>a1004bd9fafc</code>');
    for (const item of items.filter((i) => i !== november[0] && i !== offline[0])) expect(item).toContain('1 appended and 0 added files');
  });

  it('imported evidence is on its own boards, and every imported page says so plainly', async () => {
    const report = JSON.parse(await readFile(join(outA, 'report.json'), 'utf8')) as {
      boards: { board_id: string; key: { origin: string }; cohorts: string[] }[];
      bundles: { plan_id: string | null; plan: { origin: string } | null }[];
    };
    const imported = report.boards.filter((b) => b.key.origin === 'imported');
    // One board per imported run, but the two HELM harm_bench runs share theirs (one ledger, one configuration: issue 26).
    expect(imported.length).toBe(IMPORTED_RUNS - 1);
    const statement = 'no frozen plan, no declared ceiling, labels not known before the run';
    const hex = (d: string) => d.slice(7);
    for (const board of imported) {
      expect(await readFile(join(outA, 'boards', hex(board.board_id), 'index.html'), 'utf8'), board.board_id).toContain(statement);
      for (const cohort of board.cohorts) expect(await readFile(join(outA, 'cohorts', hex(cohort), 'index.html'), 'utf8')).toContain(statement);
    }
    for (const frozen of report.boards.filter((b) => b.key.origin === 'frozen')) {
      expect(await readFile(join(outA, 'boards', hex(frozen.board_id), 'index.html'), 'utf8')).not.toContain(statement);
    }
    const importedPlans = report.bundles.filter((b) => b.plan?.origin === 'imported');
    expect(importedPlans).toHaveLength(IMPORTED_RUNS);
    const formats = new Map<string, number>();
    for (const bundle of importedPlans) {
      const page = await readFile(join(outA, 'plans', hex(bundle.plan_id!), 'index.html'), 'utf8');
      expect(page).toContain(statement);
      expect(page).toMatch(/The original log, byte for byte: <a href="\/blobs\/[0-9a-f]{64}">/);
      // The re-run command names the format; a log file is fetched as original.<ext>, a run directory file by file.
      const format = /node bin\/ledgerboard\.mjs import ([a-z-]+) original/.exec(page)?.[1];
      expect(format, bundle.plan_id!).toBeDefined();
      formats.set(format!, (formats.get(format!) ?? 0) + 1);
      if (format === 'inspect') expect(page).toContain('node bin/ledgerboard.mjs import inspect original.');
      else expect(page).toMatch(/curl -s --create-dirs -o original\/[A-Za-z0-9_@+=,./-]+ https:\/\//);
      expect(page).not.toContain('npx ledgerboard@');
    }
    expect([...formats.keys()].sort()).toEqual(['eee', 'helm', 'inspect', 'lm-eval', 'swe-bench', 'terminal-bench']);
  });

  it('publishes every bundle file byte for byte at /blobs/<its sha256>, and the manifest under the bundle id', async () => {
    const dirs = [
      ...(await readdir(join(root, 'content', 'bundles'))).map((b) => join(root, 'content', 'bundles', b)),
      ...(await readdir(join(root, 'content', 'imported', 'bundles'))).map((b) => join(root, 'content', 'imported', 'bundles', b)),
    ];
    const blobs = new Set<string>();
    for (const source of dirs) {
      const manifest = JSON.parse(await readFile(join(source, 'manifest.json'), 'utf8')) as { bundle_id: string };
      const published = join(outA, 'bundles', manifest.bundle_id.slice(7));
      expect(await listFiles(published)).toEqual(['files.json', 'manifest.json']);
      expect(await readFile(join(published, 'manifest.json'))).toEqual(await readFile(join(source, 'manifest.json')));
      for (const file of await listFiles(source)) {
        const digest = sha(await readFile(join(source, file)));
        blobs.add(digest);
        expect(sha(await readFile(join(outA, 'blobs', digest))), file).toBe(digest);
      }
    }
    // One file per distinct digest, nothing else under /blobs/.
    expect((await readdir(join(outA, 'blobs'))).sort()).toEqual([...blobs].sort());
  });

  it('is reproducible: renamed and reordered bundle directories, another config directory, working directory, time zone, locale and umask give the same bytes and modes', async () => {
    const a = await listFiles(outA);
    expect(a.length).toBeGreaterThan(100);
    expect(await listFiles(outB)).toEqual(a);
    for (const file of a) {
      expect(sha(await readFile(join(outB, file))), file).toBe(sha(await readFile(join(outA, file))));
      expect((await stat(join(outB, file))).mode & 0o777, file).toBe(0o644);
    }
    expect((await stat(join(outB, 'bundles'))).mode & 0o777).toBe(0o755);
  });

  it('pages carry a canonical URL from the config and citation meta with the evidence date', async () => {
    const html = await readFile(join(outA, 'index.html'), 'utf8');
    expect(html).toContain('<link rel="canonical" href="https://ledgerboard.example/">');
    expect(html).toMatch(/<meta name="citation_publication_date" content="2026\/11\/18">/);
    expect(html).toContain('Cite this');
  });

  it('`node dist/verify.mjs dist` re-derives everything: exit 0, and exit 1 after one published byte changes', async () => {
    const run = (dir: string) => promisify(execFile)(process.execPath, [join(outA, 'verify.mjs'), dir], { maxBuffer: 1 << 24 }).then(() => 0, (e: { code: number }) => e.code);
    expect(await run(outA)).toBe(0);
    const manifest = JSON.parse(await readFile(join(outB, 'bundles', (await readdir(join(outB, 'bundles')))[0]!, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    const file = join(outB, 'blobs', manifest.files.find((f) => f.path === 'attempts.jsonl')!.sha256.slice(7));
    const bytes = await readFile(file);
    bytes[10] = bytes[10]! ^ 1;
    await writeFile(file, bytes);
    expect(await run(outB)).toBe(1);
  });

  it('the leaderboard page stays under 150 KB of HTML + CSS', async () => {
    const bytes = (await readFile(join(outA, 'index.html'))).length + (await readFile(join(outA, 'site.css'))).length;
    expect(bytes).toBeLessThan(150 * 1024);
  });
});

describe('a killed build', () => {
  it('SIGKILL while the new site is being written leaves the previous output byte for byte', { timeout: 120_000 }, async () => {
    const before = new Map<string, string>();
    for (const file of await listFiles(outA)) before.set(file, sha(await readFile(join(outA, file))));
    // --no-cache: with the cache, a build of the same inputs into outA would leave it as it is (output-stamp.ts) and write nothing.
    const child = spawn(process.execPath, ['bin/ledgerboard.mjs', 'build', '--no-cache', '--out', outA], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    // Wait until the build has started writing its staging directory, then kill it without warning.
    const staging = `${outA}.staging`;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const entries = await readdir(staging).catch(() => [] as string[]);
      if (entries.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await readdir(staging)).length, 'the build reached its staging directory').toBeGreaterThan(0);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const after = await listFiles(outA);
    expect(after).toEqual([...before.keys()]);
    for (const file of after) expect(sha(await readFile(join(outA, file))), file).toBe(before.get(file));
    await rm(staging, { recursive: true, force: true });
    // The killed build's lock and render directory (the next build into outA would take the lock over and remove them).
    await rm(`${outA}.lock`, { force: true });
    for (const name of await readdir(tmpdir())) if (name.startsWith(`${basename(outA)}.render-`)) await rm(join(tmpdir(), name), { recursive: true, force: true });
  });
});

describe('SOURCE_DATE_EPOCH', () => {
  it('a malformed value stops the build before any work: exit 2, the message names it, nothing written', async () => {
    const out = join(work, 'never');
    const result = await promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', 'build', '--out', out], {
      cwd: root,
      env: { ...process.env, SOURCE_DATE_EPOCH: '1.7e9' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SOURCE_DATE_EPOCH must be a whole number of seconds');
    await expect(stat(out)).rejects.toThrow();
  });
});
