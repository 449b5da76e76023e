/**
 * A stranger re-running an import from the published site gets the published
 * bundle (issue 26): the demo site is built once (the build CLI, into a temp
 * directory), and for every demo import its plan page's re-run command is
 * followed as written. The words are split as a POSIX shell splits them
 * (test/site/shell-words.ts); each `curl ... -o <path> <site_url>/blobs/<sha>`
 * line is served from the built site's own blob (no network: the file is
 * copied, and must hash to <sha>); the `node bin/ledgerboard.mjs import ...`
 * line runs as a real process in a fresh temp directory; the bundle id it
 * writes must be the one the page names (`# expect ...` and the page's
 * bundle id). Every format must be covered: a demo import, or a whole format,
 * without a command fails the test.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/import/registry.ts';
import { literal, wordsOf } from '../site/shell-words.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DEMO_BUNDLES = join(root, 'content', 'imported', 'bundles');
const SITE_URL = (JSON.parse(readFileSync(join(root, 'ledgerboard.config.json'), 'utf8')) as { site_url: string }).site_url;

/** Every committed demo import: its directory, bundle id and plan id (read at collection time, so each is a test of its own). */
const DEMO = readdirSync(DEMO_BUNDLES)
  .sort()
  .map((dir) => {
    const manifest = JSON.parse(readFileSync(join(DEMO_BUNDLES, dir, 'manifest.json'), 'utf8')) as { bundle_id: string; plan_id: string };
    return { dir, bundleId: manifest.bundle_id, planId: manifest.plan_id };
  });

let site: string;
const work: string[] = [];
/** The format each demo import's command named, by bundle directory. */
const formatsSeen = new Map<string, string>();

beforeAll(async () => {
  site = await mkdtemp(join(tmpdir(), 'lb-rerun-site-'));
  await promisify(execFile)(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'build', '--out', site], {
    cwd: root,
    env: { ...process.env, TZ: 'UTC', LANG: 'C', NO_COLOR: '1' },
    maxBuffer: 1 << 26,
  });
}, 300_000);

afterAll(async () => {
  for (const dir of [site, ...work]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The HTML entities the pages write in a code block, decoded. */
function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#34;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The re-run command block of a plan page, as lines of text (null when the page has none). */
function rerunBlock(html: string): string[] | null {
  const m = /<summary>Re-run the import<\/summary>[\s\S]*?<pre><code>([\s\S]*?)<\/code><\/pre>/.exec(html);
  return m === null ? null : unescapeHtml(m[1]!).split('\n');
}

/** A line's words, each only literal text (quotes removed); a word a shell would expand fails the test. */
function literalWords(line: string): string[] {
  return wordsOf(line).map((w) => {
    const text = literal(w.parts);
    if (text === null) throw new Error(`the word ${w.raw} of ${JSON.stringify(line)} is not literal text`);
    return text;
  });
}

describe('the published re-run command of every demo import gives the published bundle id', () => {
  it('the demo has imports of every format', () => {
    expect(DEMO.length).toBeGreaterThanOrEqual(IMPORTERS.length);
  });

  it.each(DEMO)('$dir', async ({ dir, bundleId, planId }) => {
    // A demo bundle the build no longer re-derives (an importer changed since `npm run import-demo`) has no plan page: say so.
    const report = JSON.parse(await readFile(join(site, 'report.json'), 'utf8')) as { bundles: { bundle_id: string | null; status: string; findings?: { code: string; severity: string }[] }[] };
    const entry = report.bundles.find((b) => b.bundle_id === bundleId);
    expect(entry, `${dir}: not on the built site`).toBeDefined();
    expect(`${entry!.status} ${(entry!.findings ?? []).filter((f) => f.severity === 'error').map((f) => f.code).join(' ')}`.trim(), `${dir}: the site does not publish it as verified (stale demo bundles? npm run import-demo)`).toBe('verified');
    const html = await readFile(join(site, 'plans', planId.slice('sha256:'.length), 'index.html'), 'utf8');
    const lines = rerunBlock(html);
    expect(lines, `${dir}: the plan page has no re-run command`).not.toBeNull();
    // The page names the bundle id the command must give, twice: the comment of the jq line, and the page's bundle id.
    const expected = /# expect (sha256:[0-9a-f]{64})$/.exec(lines!.at(-1)!)?.[1];
    expect(expected).toBe(bundleId);
    expect(html).toContain(`<code class="digest-full">${bundleId}</code>`);

    const cwd = await mkdtemp(join(tmpdir(), 'lb-rerun-'));
    work.push(cwd);
    let command: string[] | null = null;
    for (const line of lines!) {
      // The jq line's glob (reimported/*/manifest.json) is a shell's to expand: it is read as the one bundle written, below.
      if (literal(wordsOf(line)[0]?.parts ?? []) === 'jq') continue;
      const words = literalWords(line);
      if (words.length === 0) continue; // a comment
      if (words[0] === 'curl') {
        const out = words[words.indexOf('-o') + 1]!;
        const url = words.at(-1)!;
        expect(normalize(out).split(sep), line).not.toContain('..');
        const sha = new RegExp(`^${SITE_URL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}blobs/([0-9a-f]{64})$`).exec(url)?.[1];
        expect(sha, `${line}: a URL of the site's blobs`).toBeDefined();
        // What curl would fetch: the built site's blob, which is what its name says.
        const blob = join(site, 'blobs', sha!);
        expect(createHash('sha256').update(await readFile(blob)).digest('hex')).toBe(sha);
        await mkdir(dirname(join(cwd, out)), { recursive: true });
        await copyFile(blob, join(cwd, out));
      } else if (words[0] === 'node') {
        expect(words.slice(0, 3)).toEqual(['node', 'bin/ledgerboard.mjs', 'import']);
        command = words;
      } else throw new Error(`an unexpected line in the re-run command: ${line}`);
    }
    expect(command, `${dir}: no import line`).not.toBeNull();
    formatsSeen.set(dir, command![3]!);
    // Run as written, from the temp directory (bin/ledgerboard.mjs is the checkout's, as "in a checkout" says).
    const run = await promisify(execFile)(process.execPath, [join(root, command![1]!), ...command!.slice(2)], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 1 << 26,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in run ? run.code : 0, `${run.stdout}${run.stderr}`).toBe(0);
    const written = await readdir(join(cwd, 'reimported'));
    expect(written).toHaveLength(1);
    const manifest = JSON.parse(await readFile(join(cwd, 'reimported', written[0]!, 'manifest.json'), 'utf8')) as { bundle_id: string };
    expect(manifest.bundle_id, `${dir}: the re-import gives another bundle`).toBe(bundleId);
  });

  it('covered every format (a format whose imports have no command, or that the demo lacks, fails)', () => {
    expect(formatsSeen.size, 'every demo import had a command').toBe(DEMO.length);
    expect([...new Set(formatsSeen.values())].sort()).toEqual(IMPORTERS.map((i) => i.name).sort());
  });
});
