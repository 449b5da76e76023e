/**
 * The README stays true: the CLI output it shows is what the CLI prints for
 * the committed demo evidence, and the commands it names exist.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

async function shownOutput(marker: string): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const match = new RegExp(`<!-- ${marker}:start -->\\n\`\`\`\\n([\\s\\S]*?)\`\`\`\\n<!-- ${marker}:end -->`).exec(readme);
  if (!match) throw new Error(`README has no ${marker} block`);
  return match[1]!;
}

async function cliOutput(args: string[]): Promise<string> {
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined };
  const result = await run(process.execPath, ['bin/ledgerboard.mjs', ...args], { cwd: root, env }).catch(
    (error: { stdout: string }) => error,
  );
  return result.stdout;
}

describe('README', () => {
  it('shows the real output of `ledgerboard verify content/bundles`', async () => {
    expect(await cliOutput(['verify', 'content/bundles'])).toBe(await shownOutput('verify-output'));
  });

  it('shows the real output for the invalid example', async () => {
    expect(await cliOutput(['verify', 'content/examples/invalid'])).toBe(await shownOutput('verify-invalid-output'));
  });

  it('shows the real output of `ledgerboard report content/bundles`', async () => {
    expect(await cliOutput(['report', 'content/bundles'])).toBe(await shownOutput('report-output'));
  });

  it('names npm scripts that exist, and CI runs the README test command', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    for (const [, script] of readme.matchAll(/npm run ([a-z:-]+)/g)) expect(pkg.scripts).toHaveProperty(script!);
    const ci = await readFile(new URL('../.ci/run', import.meta.url), 'utf8');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test$/m);
    expect(readme).toContain('npm install && npm run build');
    expect(readme).toMatch(/^npm test\b/m);
  });
});
