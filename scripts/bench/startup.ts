/**
 * Start-up of the CLI, side by side (issue 11 point 2): `node -e 0` (the
 * floor), the compiled CLI (`bin/ledgerboard.mjs`, lib/) and the same CLI run
 * from its TypeScript sources through tsx's loader (how it ran before), for
 * `--version` and for `verify content/bundles`. Rounds alternate the
 * competitors (measure.ts interleave); medians and ranges are printed, and
 * the ratios the issue sets as targets.
 *
 *   npx tsx scripts/bench/startup.ts [--runs 9] [--before DIR]
 *
 * --before DIR adds a checkout of an earlier ledgerboard (its own
 * bin/ledgerboard.mjs, e.g. a `git worktree` of the commit before the CLI was
 * compiled, with node_modules) as a third competitor: "today" as the issue
 * measured it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureCompiled } from '../compile.mjs';
import { interleave, run, type Stats } from './measure.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '9' }, before: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
if (values.help) {
  console.log('Usage: npx tsx scripts/bench/startup.ts [--runs N] [--before DIR]   (default 9 alternating rounds after a warm-up; DIR: an earlier checkout to compare with)');
  process.exit(0);
}
const runs = Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error('--runs must be a positive integer');
  process.exit(2);
}

await ensureCompiled();
const dir = await mkdtemp(join(tmpdir(), 'lb-startup-'));
// The CLI from its sources through tsx, as bin/ledgerboard.mjs ran it before it was compiled.
const fromSource = join(dir, 'from-source.mjs');
await writeFile(
  fromSource,
  [
    `import { register } from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs')).href)};`,
    "process.env.ASTRO_TELEMETRY_DISABLED = '1';",
    'register();',
    `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href)});`,
    'process.exitCode = await main(process.argv.slice(2));',
    '',
  ].join('\n'),
);
const bin = join(root, 'bin', 'ledgerboard.mjs');
const bundles = join(root, 'content', 'bundles');
const node = (args: string[], cwd = root) => async () => {
  const result = await run(process.execPath, args, cwd);
  if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
};

try {
  const before = values.before === undefined ? null : join(values.before, 'bin', 'ledgerboard.mjs');
  const competitors: Record<string, () => Promise<void>> = {
    'node -e 0': node(['-e', '0']),
    'compiled --version': node([bin, '--version']),
    'tsx --version': node([fromSource, '--version']),
    'compiled verify content/bundles': node([bin, 'verify', bundles]),
    'tsx verify content/bundles': node([fromSource, 'verify', bundles]),
  };
  if (before !== null) {
    // Run in the earlier checkout, so it reads its own ledgerboard.config.json (an earlier version may refuse this one's).
    competitors['before --version'] = node([before, '--version'], values.before);
    competitors['before verify content/bundles'] = node([before, 'verify', bundles], values.before);
  }
  const results = await interleave(runs, competitors);
  const line = (name: string, s: Stats) => `${name.padEnd(34)} median ${s.median.toFixed(0).padStart(5)} ms  [${s.min.toFixed(0)}-${s.max.toFixed(0)}]`;
  for (const [name, s] of Object.entries(results)) console.log(line(name, s as Stats));
  const r = results as Record<string, Stats>;
  console.log(`\n--version: compiled / node -e 0 = ${(r['compiled --version']!.median / r['node -e 0']!.median).toFixed(2)}x (target <= 2x); tsx / compiled = ${(r['tsx --version']!.median / r['compiled --version']!.median).toFixed(2)}x`);
  console.log(`verify content/bundles: tsx / compiled = ${(r['tsx verify content/bundles']!.median / r['compiled verify content/bundles']!.median).toFixed(2)}x faster`);
  if (before !== null) {
    console.log(`against ${values.before}: --version ${(r['before --version']!.median / r['compiled --version']!.median).toFixed(2)}x faster, verify content/bundles ${(r['before verify content/bundles']!.median / r['compiled verify content/bundles']!.median).toFixed(2)}x faster (target >= 2x)`);
  }
  console.log(`${runs} alternating rounds after a warm-up round`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
