/**
 * (k) The site at scale (issue 14, item 5): one board of 2,000 tasks and 20
 * cohorts, 10^6 attempts in all (5 bundles x 20 subjects x 2,000 tasks x 5
 * attempts per slot, scale-generate.ts with a ScaleShape), built by the
 * compiled `ledgerboard build --no-cache` (every page: leaderboard, board,
 * 20 cohort pages, 190 compare pages, 2,000 task pages, plans, ...) beside a
 * bare Astro build of the same number of empty pages (one dynamic route, a
 * <p> each, the same astro package), side by side in alternating rounds.
 * Reports pages, seconds (median and range) and peak RSS (GNU time through a
 * forking shell, as cache.ts; the routes are p-0, p-1, ...: Astro writes a page
 * named 404 or 500 as 404.html, not 404/index.html), and the ratios the issue sets as targets:
 * within 3x of bare Astro and under 2 GiB.
 *
 *   npx tsx scripts/bench/site-scale.ts [--tasks 2000] [--cohorts 20] [--bundles 5] [--per-slot 5] [--runs 1] [--keep DIR]
 *
 * With --added (issue 28, item 6): one more bundle of the same shape
 * (subjects x tasks x per-slot attempts) is generated and held back; a
 * build with a cache (--cache DIR) makes the output, then (1) the rebuild
 * with nothing changed, (2) the rebuild with the held bundle added (the
 * pages it changes rendered, the others taken from the previous output and
 * stamped), (3) a bare Astro build of as many pages as (2) rendered (a lower
 * bound of rendering them alone), each timed; and the target: (2) within
 * 1.5x of (1) + (3).
 *
 *   npx tsx scripts/bench/site-scale.ts --added --tasks 500 --cohorts 4 --bundles 5 --per-slot 5
 */
import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { run, stats, type Stats } from './measure.ts';
import { generateScaleEvidence } from './scale-generate.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '2000' },
    cohorts: { type: 'string', default: '20' },
    bundles: { type: 'string', default: '5' },
    'per-slot': { type: 'string', default: '5' },
    runs: { type: 'string', default: '1' },
    keep: { type: 'string' },
    added: { type: 'boolean', default: false },
  },
});
const n = Object.fromEntries(['tasks', 'cohorts', 'bundles', 'per-slot', 'runs'].map((k) => [k, Number(values[k as keyof typeof values])])) as Record<string, number>;
for (const [name, value] of Object.entries(n)) {
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
}
const log = (line: string) => process.stderr.write(`[site-scale bench] ${line}\n`);

/** Counts the pages (index.html files) under a built site. */
async function countPages(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name === 'index.html').length;
}

/** Runs a command under GNU time: wall milliseconds and peak RSS (MiB). */
async function measured(args: string[], cwd: string): Promise<{ ms: number; rssMiB: number; stdout: string; stderr: string }> {
  const start = performance.now();
  const result = await run('sh', ['-c', '"$@"; exit $?', 'sh', '/usr/bin/time', '-f', 'peak %M', ...args], cwd);
  const ms = performance.now() - start;
  if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(-2000)}`);
  return { ms, rssMiB: Number(/peak (\d+)/.exec(result.stderr)?.[1] ?? 0) / 1024, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The --added mode: the last generated bundle held back, a cached build, then
 * the rebuild with nothing changed, the rebuild with the bundle added, and a
 * bare Astro build of as many pages as that rebuild rendered.
 */
async function addedBundleRebuild(evidenceDir: string, perBundle: number): Promise<void> {
  const bundles = (await readdir(evidenceDir)).sort();
  const held = join(work, 'held');
  await mkdir(held);
  const last = bundles[bundles.length - 1]!;
  await rename(join(evidenceDir, last), join(held, last));
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, `${JSON.stringify({ title: 'site scale', site_url: 'https://scale.example/', retained_reports_dir: join(work, 'no-reports'), attestations_dir: join(work, 'no-attestations') })}\n`);
  const site = join(work, 'site');
  const args = ['env', 'ASTRO_TELEMETRY_DISABLED=1', `LEDGERBOARD_CACHE_KEY=${'ab'.repeat(32)}`, process.execPath, join(root, 'bin', 'ledgerboard.mjs'), 'build', '--cache', join(work, 'cache'), '--config', config, '--bundles', evidenceDir, '--out', site];
  log(`cached build of ${bundles.length - 1} bundles`);
  await measured(args, root);
  log('(1) rebuild, nothing changed');
  const same = await measured(args, root);
  await rename(join(held, last), join(evidenceDir, last));
  log(`(2) rebuild, one bundle of ${perBundle} attempts added`);
  const more = await measured(args, root);
  const pages = await countPages(site);
  const m = /pages: (\d+) of (\d+) to render/.exec(more.stderr);
  const rendered = m === null ? pages : Number(m[1]);
  const bare = join(work, 'bare-added');
  await mkdir(join(bare, 'src', 'pages'), { recursive: true });
  await symlink(join(root, 'node_modules'), join(bare, 'node_modules'));
  await writeFile(join(bare, 'astro.config.mjs'), "export default { output: 'static', build: { format: 'directory' } };\n");
  await writeFile(join(bare, 'package.json'), '{ "name": "bare", "private": true, "type": "module" }\n');
  await writeFile(join(bare, 'src', 'pages', '[n].astro'), `---\nexport function getStaticPaths() { return Array.from({ length: ${rendered} }, (_, i) => ({ params: { n: 'p-' + i } })); }\nconst { n } = Astro.params;\n---\n<html lang="en"><head><title>{n}</title></head><body><p>{n}</p></body></html>\n`);
  log(`(3) bare Astro build of ${rendered} pages`);
  const alone = await measured(['env', 'ASTRO_TELEMETRY_DISABLED=1', process.execPath, join(root, 'node_modules', 'astro', 'astro.js'), 'build', '--root', bare], bare);
  console.log(`added bundle: ${perBundle} attempts onto ${bundles.length - 1} bundles; ${pages} pages, ${rendered} rendered by the rebuild (${m === null ? 'no page listing line: every page' : m[0]})`);
  console.log(`(1) rebuild, nothing changed     ${(same.ms / 1000).toFixed(1)} s  peak ${same.rssMiB.toFixed(0)} MiB`);
  console.log(`(2) rebuild, one bundle added    ${(more.ms / 1000).toFixed(1)} s  peak ${more.rssMiB.toFixed(0)} MiB`);
  console.log(`(3) bare Astro, ${rendered} pages     ${(alone.ms / 1000).toFixed(1)} s`);
  const ratio = more.ms / (same.ms + alone.ms);
  console.log(`(2) / ((1) + (3)) = ${ratio.toFixed(2)}x (target <= 1.5x: ${ratio <= 1.5 ? 'met' : 'NOT met'})`);
}

const base = values.keep ?? tmpdir();
await mkdir(base, { recursive: true });
const work = await mkdtemp(join(base, 'ledgerboard-site-scale-'));
try {
  // No regrade: a regrade by another grader version would put the regraded attempts on a second board (its grading key).
  const shape = { subjects: n.cohorts!, attemptsPerSlot: n['per-slot']!, tasks: n.tasks!, regrade: false };
  const requested = shape.subjects * shape.attemptsPerSlot * shape.tasks * n.bundles!;
  log(`generating ${requested} attempts: ${n.bundles} bundles x ${shape.subjects} subjects x ${shape.tasks} tasks x ${shape.attemptsPerSlot} per slot`);
  const added = values.added === true;
  const made = added ? n.bundles! + 1 : n.bundles!;
  const evidence = await generateScaleEvidence(join(work, 'evidence'), added ? requested + requested / n.bundles! : requested, 20261201, made, (done, total) => log(`bundle ${done}/${total}`), shape);
  if (added) {
    await addedBundleRebuild(evidence.dir, requested / n.bundles!);
    process.exit(0);
  }
  log(`${evidence.attempts} attempts, ${(evidence.bytes / 1e6).toFixed(1)} MB`);
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, `${JSON.stringify({ title: 'site scale', site_url: 'https://scale.example/', retained_reports_dir: join(work, 'no-reports'), attestations_dir: join(work, 'no-attestations') })}\n`);
  const bin = join(root, 'bin', 'ledgerboard.mjs');

  // One ledgerboard build first: how many pages the bare Astro build must match.
  const site = join(work, 'site');
  const buildArgs = ['env', 'ASTRO_TELEMETRY_DISABLED=1', process.execPath, bin, 'build', '--no-cache', '--config', config, '--bundles', evidence.dir, '--out', site];
  log('ledgerboard build (check run)');
  await measured(buildArgs, root);
  const pages = await countPages(site);
  log(`${pages} pages`);

  // The bare Astro project: the same astro package, one route of `pages` empty pages.
  const bare = join(work, 'bare');
  await mkdir(join(bare, 'src', 'pages'), { recursive: true });
  await symlink(join(root, 'node_modules'), join(bare, 'node_modules'));
  await writeFile(join(bare, 'astro.config.mjs'), "export default { output: 'static', build: { format: 'directory' } };\n");
  await writeFile(join(bare, 'package.json'), '{ "name": "bare", "private": true, "type": "module" }\n');
  await writeFile(
    join(bare, 'src', 'pages', '[n].astro'),
    `---\nexport function getStaticPaths() { return Array.from({ length: ${pages} }, (_, i) => ({ params: { n: 'p-' + i } })); }\nconst { n } = Astro.params;\n---\n<html lang="en"><head><title>{n}</title></head><body><p>{n}</p></body></html>\n`,
  );
  const bareArgs = ['env', 'ASTRO_TELEMETRY_DISABLED=1', process.execPath, join(root, 'node_modules', 'astro', 'astro.js'), 'build', '--root', bare];
  log('bare Astro build (check run)');
  await measured(bareArgs, bare);
  const barePages = await countPages(join(bare, 'dist'));
  if (barePages !== pages) throw new Error(`the bare build wrote ${barePages} pages, not ${pages}`);

  const times: Record<'ledgerboard build' | 'bare Astro', number[]> = { 'ledgerboard build': [], 'bare Astro': [] };
  const peaks: Record<string, number> = {};
  for (let r = 1; r <= n.runs!; r++) {
    for (const [name, args, cwd] of [
      ['bare Astro', bareArgs, bare],
      ['ledgerboard build', buildArgs, root],
    ] as const) {
      log(`round ${r}/${n.runs}: ${name}`);
      const m = await measured([...args], cwd);
      times[name].push(m.ms);
      peaks[name] = Math.max(peaks[name] ?? 0, m.rssMiB);
    }
  }
  const s: Record<string, Stats> = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, stats(v)]));
  const line = (name: string) => `${name.padEnd(18)} median ${(s[name]!.median / 1000).toFixed(1).padStart(6)} s  [${(s[name]!.min / 1000).toFixed(1)}-${(s[name]!.max / 1000).toFixed(1)}]  peak RSS ${peaks[name]!.toFixed(0)} MiB`;
  console.log(`site at scale: ${evidence.attempts} attempts, ${shape.tasks} tasks, ${shape.subjects} cohorts on one board, ${pages} pages, ${n.runs} round(s)`);
  console.log(line('ledgerboard build'));
  console.log(line('bare Astro'));
  const ratio = s['ledgerboard build']!.median / s['bare Astro']!.median;
  console.log(`ledgerboard build / bare Astro = ${ratio.toFixed(2)}x (target <= 3x: ${ratio <= 3 ? 'met' : 'NOT met'}); peak ${(peaks['ledgerboard build']! / 1024).toFixed(2)} GiB (target < 2 GiB: ${peaks['ledgerboard build']! < 2048 ? 'met' : 'NOT met'})`);
} finally {
  if (values.keep === undefined) await rm(work, { recursive: true, force: true });
}
