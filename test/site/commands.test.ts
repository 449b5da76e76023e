/**
 * Every command the site asks a reader to copy, read as a shell reads it
 * (issue 25, the medium item on shell quoting).
 *
 * - shellQuote (src/site/views/shell-quote.ts) turns every string of the hostile
 *   corpora (RSnake's XSS cheat sheet, the Big List of Naughty Strings, and
 *   hand-made shell probes) into one word that bash and sh give back as argv
 *   byte for byte (`printf '%s\0'`, `set -f`, no PATH: nothing runs).
 * - A site_url outside the plain character set is refused at config load,
 *   naming the member: `https://x.example/;touch$IFS./pwned;/` made the verify
 *   page's command run `touch`.
 * - A site built with values that pass that check but that no shell takes as
 *   they are (an IPv6 host in brackets, a "~" path), hostile frozen bundles,
 *   imported logs whose license and scorer are shell text, withheld files and
 *   a signed report: every command block and inline command of every page is
 *   split as a POSIX shell would (test/site/shell-words.ts) and must equal one
 *   of the commands the site means to show, word for word, built here from
 *   the published values; its literal words are checked against bash's own
 *   reading of the same text.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/config.ts';
import { shellQuote } from '../../src/site/views/shell-quote.ts';
import { hostileModel, hostileSpecs, readCorpora, type HostileCorpora } from '../browser/hostile.ts';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';
import { header, jsonLog, sample } from '../import/helpers.ts';
import { literal, parseShell, wordsOf, type Part, type Script } from './shell-words.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Values no shell takes as they are: each must come back as one word, exactly. */
const SHELL_PROBES = [
  '',
  "'",
  "''",
  "a'b",
  '"',
  '\\',
  '$(touch pwned)',
  '`touch pwned`',
  ';touch$IFS./pwned;',
  '$IFS',
  '${HOME}',
  '!!',
  '!-1',
  '~',
  '~root/x',
  '=ls',
  '-n',
  '--key',
  '*',
  '[a-z]*',
  '{a,b}',
  'a b\tc',
  'line\nbreak',
  'carriage\rreturn',
  '#comment',
  'x # not a comment',
  '&& touch pwned',
  '| touch pwned',
  '> pwned',
  '< /etc/passwd',
  '\u001b[31mred\u001b[0m',
  'https://x.example/;touch$IFS./pwned;/',
];

/** A tiny Inspect log of one scorer named `scorer`. */
function inspectLog(model: string, scorer: string): Buffer {
  const h = header({}, { model, dataset: { name: 'set', sample_ids: [1, 2] } });
  return jsonLog([1, 2].map((i) => sample(i, 1, { output: { model, choices: [] }, model_usage: {}, scores: { [scorer]: { value: i === 1 ? 'C' : 'I' } } })), h);
}

/** A shell's absolute path, looked up on this process's PATH (the shell itself runs with none). */
function shellPath(name: string): string {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`${name} is not installed: this test needs it`);
}

/** Shell words as bash reads them: each command's argv, with `set -f` and no PATH, nothing but the printf builtin run. */
function argvByShell(shell: string, commands: readonly string[][], cwd: string): string[][] {
  const script = ['set -f', ...commands.map((words) => `printf '%s\\0' ${words.length} ${words.join(' ')}`)].join('\n');
  const run = spawnSync(shellPath(shell), shell === 'bash' ? ['--norc', '--noprofile', '-c', script] : ['-c', script], { cwd, env: { PATH: '/nonexistent', LC_ALL: 'C.UTF-8' }, maxBuffer: 1 << 26 });
  if (run.error !== undefined || run.status !== 0 || run.stderr.length > 0) throw new Error(`${shell} failed (${run.status}): ${String(run.error ?? run.stderr)}`);
  const fields = run.stdout.toString('utf8').split('\0');
  fields.pop();
  const out: string[][] = [];
  for (let i = 0; i < fields.length; ) {
    const n = Number(fields[i]);
    out.push(fields.slice(i + 1, i + 1 + n));
    i += n + 1;
  }
  return out;
}

let corpora: HostileCorpora;
let work = '';

beforeAll(async () => {
  corpora = await readCorpora();
  work = await makeTempDir('ledgerboard-commands-');
});
afterAll(removeTempDirs);

describe('shellQuote', () => {
  it('makes every corpus string one word that bash and sh give back byte for byte', async () => {
    // argv cannot hold a NUL.
    const values = [...SHELL_PROBES, ...corpora.blns, ...corpora.xss].filter((v) => !v.includes('\0'));
    expect(values.length).toBeGreaterThan(600);
    const cwd = join(work, 'quote');
    await mkdir(cwd, { recursive: true });
    for (const shell of ['bash', 'sh']) {
      const got = argvByShell(shell, values.map((v) => [shellQuote(v)]), cwd);
      expect(got.length, shell).toBe(values.length);
      values.forEach((v, i) => expect(got[i], `${shell}: ${JSON.stringify(v)}`).toEqual([v]));
    }
    expect(await readdir(cwd)).toEqual([]);
    for (const v of values) expect(parseShell(`x ${shellQuote(v)}`), JSON.stringify(v)).toEqual([[[{ lit: 'x' }], [{ lit: v }]]]);
  });

  it('leaves plain words as they are and never starts an unquoted word with "="', () => {
    expect(shellQuote('https://board.example/a/b.json')).toBe('https://board.example/a/b.json');
    expect(shellQuote('sha256:0123abc')).toBe('sha256:0123abc');
    expect(shellQuote('=ls')).toBe("'=ls'");
    expect(shellQuote('http://[::1]:4321/')).toBe("'http://[::1]:4321/'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});

describe('site_url', () => {
  it('is refused at config load, naming the member, outside the plain character set', () => {
    const refused = [
      'https://x.example/;touch$IFS./pwned;/',
      'https://x.example/$(touch%20pwned)/',
      "https://x.example/a'b/",
      'https://x.example/a%20b/',
      'https://x.example/a b/',
      'https://x.example/`id`/',
      'https://x.example/a/../b/',
      'https://user:secret@x.example/',
      'https://x.example/!/',
      'https://x_y.example/',
      'https://x.example/a*b/',
    ];
    for (const url of refused) {
      let error: unknown;
      try {
        parseConfig(new TextEncoder().encode(JSON.stringify({ site_url: url })), 'c.json');
      } catch (e) {
        error = e;
      }
      expect(error, url).toBeInstanceOf(ConfigError);
      expect((error as Error).message, url).toContain('site_url: expected a URL of plain characters');
    }
    // Not a URL at all: refused as such (the query check used to throw a TypeError here: exit 3 instead of 2).
    for (const url of ['https://[::1;touch]/', 'nope', 'http://']) {
      expect(() => parseConfig(new TextEncoder().encode(JSON.stringify({ site_url: url })), 'c.json'), url).toThrow(/site_url: expected an http\(s\) URL/);
    }
    for (const url of ['https://board.example.org/', 'https://user.github.io/board', 'http://[::1]:4321/~u/b.x_y-z/', 'http://localhost:4321/']) {
      expect(parseConfig(new TextEncoder().encode(JSON.stringify({ site_url: url })), 'c.json').site_url, url).toBe(url);
    }
  });

  it('`ledgerboard build` with the hostile site_url exits 2 naming site_url, and nothing runs', async () => {
    const dir = join(work, 'refused');
    await mkdir(join(dir, 'evidence'), { recursive: true });
    await writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence', site_url: 'https://x.example/;touch$IFS./pwned;/' }));
    const run = await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'ledgerboard.mjs'), 'build', '--no-cache', '--out', join(dir, 'out')], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('site_url: expected a URL of plain characters');
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'ledgerboard.config.json']);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------------------
// The built site.

/** Passes the check, and no shell takes it as it is: "[", "]" glob, "~". */
const SITE_URL = 'http://[::1]:4321/~u/b.x_y-z/';
/** A license and a scorer that are shell text (they reach the import's re-run command). */
const LICENSES = [`MIT'; touch pwned; echo '$(touch pwned)\`id\`"!!`, 'Apache-2.0\n&& touch pwned #'];
const SCORERS = ["match'$(touch pwned)", 'a b;c'];
const WITHHOLD = { path: 'logs/**', reason: 'holdout $(touch pwned)', until: '2027-01-01' };

/** The first words that make a code block a command. */
const COMMAND_NAMES = new Set(['curl', 'node', 'npx', 'jq', 'sha256sum', 'openssl', 'python3', 'ledgerboard', 'for', 'while', 'sh', 'bash']);

/** A command the site means to show: its simple commands (each word's parts) and the operators between them. */
type Intended = Script;
const W = (...parts: (string | Part)[]): Part[] => parts.map((p) => (typeof p === 'string' ? { lit: p } : p));
const words = (...ws: (string | Part[])[]): Part[][] => ws.map((w) => (typeof w === 'string' ? [{ lit: w }] : w));
const pipe = (...commands: Part[][][]): Intended => commands.flatMap((c, i) => (i === 0 ? [c] : ['|', c]));
const lines = (...scripts: Intended[]): Intended => scripts.flatMap((s, i) => (i === 0 ? s : ['\n', ...s]));

let out = '';
let siteUrl = '';
/** Every intended command, by its JSON, with the kind it is (for the coverage check). */
const intended = new Map<string, string>();
/** Each command block found: page, text, parsed. */
const found: { page: string; text: string; script: Script }[] = [];

function intend(kind: string, script: Intended): void {
  intended.set(JSON.stringify(script), kind);
}

async function cli(cwd: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'ledgerboard.mjs'), ...args], { cwd, env: { ...process.env, TZ: 'UTC', NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' }, maxBuffer: 1 << 26 });
    return stdout;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`ledgerboard ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

async function htmlFiles(dir: string, rel = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
    const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (path !== 'blobs') files.push(...(await htmlFiles(dir, path)));
    } else if (entry.name.endsWith('.html')) files.push(path);
  }
  return files.sort();
}

interface Listing {
  files: { path: string; sha256: string }[];
}

beforeAll(async () => {
  const board = join(work, 'board');
  const evidence = join(board, 'evidence');
  // Hostile frozen bundles (every publisher string a corpus payload), and imported logs with shell text in the license and scorer.
  for (const spec of hostileSpecs(corpora, 2)) await cp(await writeModel(hostileModel(spec)), join(evidence, spec.tag), { recursive: true });
  const logs = join(work, 'logs');
  await mkdir(logs, { recursive: true });
  for (const [i, license] of LICENSES.entries()) {
    await writeFile(join(logs, `log-${i}.json`), inspectLog(`acme/model-${i}`, SCORERS[i]!));
    const imported = await cli(board, 'import', 'inspect', join(logs, `log-${i}.json`), '-o', join(evidence, `imported-${i}`), '--license', license, '--scorer', SCORERS[i]!);
    expect(imported).toBeDefined();
  }
  const config = join(board, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ title: 'commands', bundles_dir: 'evidence', site_url: SITE_URL, withhold: [WITHHOLD] }));
  const keys: string[] = [];
  for (const k of ['keys-a', 'keys-b']) keys.push(/^key id ([0-9a-f]{64})$/m.exec(await cli(board, 'keygen', '-o', join(work, k), '--config', config))![1]!);
  await cli(board, 'retain', '--config', config, '--no-cache');
  for (const [i, k] of keys.entries()) await cli(board, 'sign', '--key', join(work, `keys-${'ab'[i]}`, `ledgerboard-${k}.key`), '--config', config, '--no-cache');
  out = join(work, 'site');
  await cli(board, 'build', '--config', config, '--no-cache', '--out', out);

  // The intended commands, from the published values.
  siteUrl = new URL(SITE_URL).href;
  const U = (path: string) => new URL(path.replace(/^\//, ''), siteUrl).href;
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
    report_id: string;
    boards: { board_id: string }[];
    cohorts: { cohort_id: string }[];
    bundles: { content_digest: string }[];
  };
  const reportHex = report.report_id.slice('sha256:'.length);
  const selfId = (url: string, member: string) => {
    intend('self-id', pipe(words('curl', '-s', U(url)), words('jq', '-cjS', `del(.${member})`), words('sha256sum')));
    intend(
      'self-id',
      pipe(
        words('curl', '-s', U(url)),
        words('python3', '-c', `import json,sys,hashlib; o=json.load(sys.stdin); o.pop("${member}"); print(hashlib.sha256(json.dumps(o,sort_keys=True,separators=(",",":"),ensure_ascii=False).encode()).hexdigest())`),
      ),
    );
  };
  selfId('/report.json', 'report_id');
  for (const name of await readdir(join(out, 'reports'))) if (name.endsWith('.json')) selfId(`/reports/${name}`, 'report_id');
  for (const b of report.boards) intend('board id', pipe(words('curl', '-s', U('/report.json')), words('jq', '-cjS', '--arg', 'id', b.board_id, '.boards[] | select(.board_id == $id) | .key'), words('sha256sum')));
  for (const c of report.cohorts) {
    intend(
      'cohort id',
      pipe(
        words('curl', '-s', U('/report.json')),
        words('jq', '-cjS', '--arg', 'id', c.cohort_id, '(.cohorts[] | select(.cohort_id == $id)) as $c | (.boards[] | select(.board_id == $c.board_id) | .key) + {subject: ($c.subject | {model, agent})}'),
        words('sha256sum'),
      ),
    );
  }
  const withheld = (JSON.parse(await readFile(join(out, 'withheld.json'), 'utf8')) as { files: { sha256: string }[] }).files;
  const blob = (sha256: string) => U(`/blobs/${sha256.slice('sha256:'.length)}`);
  for (const dir of await readdir(join(out, 'bundles'))) {
    const manifestUrl = `/bundles/${dir}/manifest.json`;
    const listing = JSON.parse(await readFile(join(out, 'bundles', dir, 'files.json'), 'utf8')) as { entries: { path: string; sha256?: string | null }[] };
    for (const e of listing.entries) {
      if (typeof e.sha256 !== 'string') continue;
      intend('file digest', pipe(words('curl', '-s', blob(e.sha256)), words('sha256sum')));
      if (e.path === 'plan.json') selfId(`/blobs/${e.sha256.slice(7)}`, 'plan_id');
    }
    selfId(manifestUrl, 'bundle_id');
    intend('manifest digests', pipe(words('curl', '-s', U(manifestUrl)), words('jq', '-r', '.files[]|.sha256')));
    const h = { param: 'h', quoted: true } as const;
    intend(
      're-hash loop',
      [
        ...pipe(words('curl', '-s', U(manifestUrl)), words('jq', '-r', '.files[].sha256|ltrimstr("sha256:")'), words('while', 'IFS=', 'read', '-r', 'h')),
        ';',
        words('do', W({ special: '[' }), W({ subst: pipe(words('curl', '-s', W(U('/blobs/'), h)), words('sha256sum'), words('cut', '-d ', '-f1')), quoted: true }), '=', W(h), W({ special: ']' })),
        '&&',
        words('echo', W('ok ', h)),
        '||',
        words('echo', W('MISMATCH ', h)),
        ';',
        words('done'),
      ],
    );
    for (const w of withheld) intend('withheld path', pipe(words('curl', '-s', U(manifestUrl)), words('jq', '-r', '--arg', 'd', w.sha256, '.files[] | select(.sha256 == $d) | .path')));
  }
  intend('blob by hex', pipe(words('curl', '-s', W(U('/blobs/'), { param: 'h', quoted: true })), words('sha256sum')));
  for (const w of withheld) intend('withheld file', pipe(words('curl', '-s', blob(w.sha256)), words('sha256sum')));
  // /verify/ and the signature block.
  intend('verify.mjs', lines([words('curl', '-sO', U('/verify.mjs'))], [words('node', 'verify.mjs', siteUrl)]));
  intend('verify-site', [words('npx', 'ledgerboard', 'verify-site', siteUrl)]);
  intend('verify.mjs --key', lines([words('curl', '-sO', U('/verify.mjs'))], ...[...keys].sort().map((k) => [words('node', 'verify.mjs', siteUrl, '--key', k)])));
  for (const k of keys) {
    intend(
      'key id',
      pipe(words('curl', '-s', U('/keys.json')), words('jq', '-r', '--arg', 'k', k, '.keys[] | select(.keyid == $k) | .public_key_pem'), words('openssl', 'pkey', '-pubin', '-outform', 'DER'), words('sha256sum')),
    );
  }
  expect(reportHex).toMatch(/^[0-9a-f]{64}$/);
  // The imports' re-run commands (src/site/model/model.ts): the original's blob, the license and the scorer as given.
  for (const dir of await readdir(evidence)) {
    if (!dir.startsWith('imported-')) continue;
    const i = Number(dir.slice('imported-'.length));
    for (const bundle of await readdir(join(evidence, dir))) {
      const manifest = JSON.parse(await readFile(join(evidence, dir, bundle, 'manifest.json'), 'utf8')) as Listing & { bundle_id: string };
      const source = manifest.files.find((f) => f.path.startsWith('source/'))!;
      intend(
        're-run import',
        lines(
          [words('curl', '-s', '-o', 'original.json', blob(source.sha256))],
          [words('node', 'bin/ledgerboard.mjs', 'import', 'inspect', 'original.json', '-o', 'reimported', '--license', LICENSES[i]!, '--scorer', SCORERS[i]!)],
          [words('jq', '-r', '.bundle_id', W('reimported/', { special: '*' }, '/manifest.json'))],
        ),
      );
    }
  }
  // The fixed commands of the leaderboard's "add evidence" text and the pages' inline names.
  intend('fixed', [words('npx', 'ledgerboard', 'freeze', 'plan.yaml', '--ledger', 'ledger.jsonl', '-o', 'evidence/my-run/')]);
  intend('fixed', [words('npx', 'ledgerboard', 'seal', 'evidence/my-run/')]);
  intend('fixed', [words('npx', 'ledgerboard', 'import', 'inspect', W('logs/', { special: '*' }, '.eval'), '-o', 'evidence/', '--license', 'MIT')]);
  intend('fixed', [words('npx', 'ledgerboard', 'build')]);
  intend('fixed', [words('ledgerboard', 'retain')]);
  intend('fixed', [words('sha256sum')]);
  // /verify/ names the command verify.mjs prints per anchored bundle (FORMAT.md 12), by its name only.
  intend('fixed', [words('openssl', 'ts', '-verify')]);

  // Every command block of every page: <pre> blocks and inline <code> (not the publisher's notes or plan.json's text).
  for (const page of await htmlFiles(out)) {
    const { document } = parseHTML(await readFile(join(out, page), 'utf8'));
    for (const el of document.querySelectorAll('pre, code')) {
      if (el.tagName === 'CODE' && el.closest('pre') !== null) continue;
      if (el.closest('.notes, [data-plan-section="plan"]') !== null) continue;
      const text = el.textContent ?? '';
      const first = /^\s*([^\s]+)/.exec(text)?.[1] ?? '';
      if (!COMMAND_NAMES.has(first)) continue;
      found.push({ page, text, script: parseShell(text) });
    }
  }
}, 600_000);

describe('every command on every page of a hostile site', () => {
  it('is, word for word as a shell splits it, one of the commands the site means to show', () => {
    expect(found.length).toBeGreaterThan(50);
    const wrong = found.filter((f) => !intended.has(JSON.stringify(f.script))).map((f) => `${f.page}: ${f.text}\n  read as ${JSON.stringify(f.script)}`);
    expect(wrong.slice(0, 5).join('\n')).toBe('');
    expect(wrong).toEqual([]);
  });

  it('covers every kind of command (the site_url, digests, ids, key ids, withheld files, the re-run with a hostile license and scorer)', () => {
    const kinds = new Set(found.map((f) => intended.get(JSON.stringify(f.script))));
    for (const kind of ['self-id', 'board id', 'cohort id', 'file digest', 'manifest digests', 're-hash loop', 'blob by hex', 'withheld path', 'withheld file', 'verify.mjs', 'verify-site', 'verify.mjs --key', 'key id', 're-run import', 'fixed']) {
      expect(kinds, kind).toContain(kind);
    }
    const rerun = found.filter((f) => intended.get(JSON.stringify(f.script)) === 're-run import');
    expect(rerun.length).toBe(LICENSES.length);
  });

  it('has literal words that bash reads exactly as the splitter does (printf, set -f, no PATH: nothing runs)', async () => {
    const literalCommands: string[][] = [];
    const expected: string[][] = [];
    for (const f of found) {
      // Whole commands only when every word is literal text (a substitution is never run here).
      const ws = wordsOf(f.text);
      const parts = ws.map((w) => literal(w.parts));
      if (parts.some((p) => p === null)) continue;
      literalCommands.push(ws.map((w) => w.raw));
      expected.push(parts as string[]);
    }
    expect(literalCommands.length).toBeGreaterThan(30);
    const cwd = join(work, 'bash');
    await mkdir(cwd, { recursive: true });
    expect(argvByShell('bash', literalCommands, cwd)).toEqual(expected);
    expect(await readdir(cwd)).toEqual([]);
  });
});
