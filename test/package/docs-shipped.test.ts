/**
 * The docs the CLI cites are in the package (issue 29 point 2): every
 * "FORMAT.md N" in any command's help names a section docs/format.md has,
 * and every docs/<name>.md a help names is a file of `npm pack`, where the
 * main help says it is (node_modules/ledgerboard/docs/).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('the docs the CLI help cites', () => {
  it('are in the package, and every FORMAT.md section cited exists', { timeout: 120_000 }, async () => {
    // --dry-run lists what `npm pack` would put in the tarball without writing it; --ignore-scripts: lib/ is compiled (test/global-setup.ts).
    const { stdout } = await promisify(execFile)(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 1 << 26 });
    const packed = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    const main = await runCli(['--help']);
    expect(main.code).toBe(0);
    const helps = [main.stdout];
    for (const name of COMMAND_NAMES) {
      const run = await runCli([name, '--help']);
      expect(run.code, name).toBe(0);
      helps.push(run.stdout);
    }
    expect(helps).toHaveLength(COMMAND_NAMES.length + 1);
    const text = helps.join('\n');

    // "FORMAT.md" is docs/format.md, shipped, and the main help says where an installed copy has it.
    const formatCitations = [...text.matchAll(/FORMAT\.md(?: section)?(?: ([0-9]+(?:\.[0-9]+)?))?/g)];
    expect(formatCitations.length).toBeGreaterThan(10);
    expect(packed).toContain('docs/format.md');
    expect(main.stdout).toContain('node_modules/ledgerboard/docs/format.md');
    const format = await readFile(new URL('../../docs/format.md', import.meta.url), 'utf8');
    const sections = new Set([...format.matchAll(/^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? /gm)].map((m) => m[1]));
    const cited = formatCitations.map((m) => m[1]).filter((n): n is string => n !== undefined);
    expect(cited.length).toBeGreaterThan(5);
    for (const section of cited) expect(sections, `FORMAT.md ${section}`).toContain(section);

    // Every docs/<name>.md a help names.
    const docs = [...new Set([...text.matchAll(/\bdocs\/[a-z-]+\.md\b/g)].map((m) => m[0]))].sort();
    expect(docs).toEqual(expect.arrayContaining(['docs/finding-codes.md', 'docs/format.md', 'docs/harness-authors.md', 'docs/importing.md', 'docs/publishing.md']));
    for (const doc of docs) expect(packed, doc).toContain(doc);
  });
});
