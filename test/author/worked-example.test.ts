/**
 * docs/harness-authors.md cannot drift: the worked example's commands are
 * taken from the page (between its markers) and run as written by bash, in a
 * scratch copy of examples/harness, with `npx ledgerboard` meaning this
 * checkout's bin/ledgerboard.mjs. The bundle they make must verify, and the
 * outputs the page shows must be the outputs the commands print.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDirectory } from '../../src/pipeline/verify-paths.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledgerboard.mjs');

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, without its code fence. */
function section(doc: string, name: string): string {
  const start = doc.indexOf(`<!-- ${name}:start -->`);
  const end = doc.indexOf(`<!-- ${name}:end -->`);
  if (start === -1 || end === -1 || end < start) throw new Error(`docs/harness-authors.md has no ${name} section`);
  const body = doc.slice(start, end).split('\n').slice(1).join('\n').trim();
  const fence = /^```[a-z]*\n([\s\S]*?)\n```$/.exec(body);
  if (!fence) throw new Error(`the ${name} section is not one code block`);
  return fence[1]!;
}

/** Runs shell commands as a harness author would, `npx ledgerboard` being this checkout. */
async function shell(commands: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const prelude = `set -euo pipefail\nnpx() { if [ "$1" = ledgerboard ]; then shift; node "$LEDGERBOARD_BIN" "$@"; else echo "unexpected npx $*" >&2; return 127; fi; }\n`;
  const env: NodeJS.ProcessEnv = { ...process.env, LEDGERBOARD_BIN: bin, NO_COLOR: '1', FORCE_COLOR: '0' };
  delete env.SOURCE_DATE_EPOCH;
  try {
    const { stdout, stderr } = await run('bash', ['-c', prelude + commands], { cwd, env, maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function hasJq(): Promise<boolean> {
  try {
    await run('jq', ['--version']);
    return true;
  } catch {
    return false;
  }
}

let doc: string;
let scratch: string;
let jq: boolean;
let result: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  doc = await readFile(join(root, 'docs', 'harness-authors.md'), 'utf8');
  scratch = await mkdtemp(join(tmpdir(), 'ledgerboard-worked-example-'));
  await cp(join(root, 'examples', 'harness'), join(scratch, 'examples', 'harness'), { recursive: true });
  jq = await hasJq();
  let commands = section(doc, 'worked-example');
  // jq re-derives the plan id by hand; without it that one line is left out (the id is still checked below).
  if (!jq) commands = commands.split('\n').filter((line) => !line.startsWith('jq ')).join('\n');
  result = await shell(commands, scratch);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('docs/harness-authors.md worked example', () => {
  it('has a dozen commands', () => {
    const commands = section(doc, 'worked-example')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('  '));
    expect(commands).toHaveLength(13); // Twelve steps; step 4 is two commands (mkdir, cp).
  });

  it('runs from freeze to seal without an error', () => {
    expect(result.stderr).not.toMatch(/unexpected|refused/);
    expect(result.code, result.stderr).toBe(0);
  });

  it('makes a bundle that verify accepts, without a finding', async () => {
    const { verification } = await verifyDirectory(join(scratch, 'tmp', 'harness-bundle'));
    expect(verification.findings).toEqual([]);
    expect(verification.status).toBe('verified');
    expect(result.stdout).toMatch(/^verified +bundle [0-9a-f]{12} +plan [0-9a-f]{12} +tmp\/harness-bundle$/m);
  });

  it('prints what the page says seal prints', () => {
    const shown = section(doc, 'worked-example-seal');
    expect(result.stdout, `update the worked-example-seal section of docs/harness-authors.md; the commands printed:\n${result.stdout}`).toContain(`${shown}\n`);
  });

  it('prints the plan id and ledger pin the page shows, and they are the plan\'s', async () => {
    const [planLine, ledgerLine] = section(doc, 'worked-example-ids').split('\n');
    const plan = JSON.parse(await readFile(join(scratch, 'tmp', 'harness-bundle', 'plan.json'), 'utf8')) as { plan_id: string; ledger: { digest: string } };
    expect(planLine).toBe(`${plan.plan_id.slice(7)}  -`);
    expect(ledgerLine).toBe(`${plan.ledger.digest.slice(7)}  tmp/harness-bundle/ledger.jsonl`);
    if (jq) expect(result.stdout).toContain(`${planLine}\n`);
    expect(result.stdout).toContain(`${ledgerLine}\n`);
  });

  it('pins the tool policy file the bundle carries', async () => {
    const plan = JSON.parse(await readFile(join(scratch, 'tmp', 'harness-bundle', 'plan.json'), 'utf8')) as { environment: { tool_policy: string } };
    const policy = await readFile(join(root, 'examples', 'harness', 'tool-policy.json'));
    expect(plan.environment.tool_policy).toBe(`sha256:${createHash('sha256').update(policy).digest('hex')}`);
  });

  it('refuses the typo the page shows, as the page shows', async () => {
    const typo = await shell(section(doc, 'worked-example-typo-commands'), scratch);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr.trimEnd()).toBe(section(doc, 'worked-example-typo'));
    expect(typo.stderr).toContain('did you mean "attempts"?');
  });
});
