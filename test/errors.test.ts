/**
 * One error base (src/errors.ts): every error class of src/ extends
 * LedgerboardError with its own code, the codes are unique, docs/cli.md's
 * table says each class's code and exit status, and the CLI's one mapping
 * (main.ts `exitFor`) ends with that status for a constructed error.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_STATUS, LedgerboardError } from '../src/errors.ts';
import { exitFor } from '../src/cli/main.ts';

const root = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every `class X extends Y` of src/, with its file. */
const declarations = sourceFiles(join(root, 'src')).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/^\s*(export\s+)?(abstract\s+)?class\s+(\w+)\s+extends\s+(\w+)/gm)].map((m) => ({ file, exported: m[1] !== undefined, name: m[3]!, base: m[4]! })),
);

type ErrorClass = (abstract new (...args: never[]) => Error) & { code?: string; exitStatus?: number; showsUsage?: boolean };

/** How to construct each class (its constructor's arguments): a class missing here fails the test below. */
const ARGS: Record<string, unknown[]> = {
  UsageError: ['bad option', 'build'],
  ConfigError: ['ledgerboard.config.json: bad'],
  SourceDateError: ['SOURCE_DATE_EPOCH is not a number'],
  PathArgumentError: ['no such path'],
  OptionsFileError: ['not an object'],
  ImportError: ['not a zip'],
  ImportLimitError: ['too many samples', 'samples'],
  AttestationKeyError: ['not a key'],
  OutputDirError: ['refusing to build into x'],
  BuildEnvironmentError: ['x is on a read-only file system'],
  BuildLockedError: ['another build holds x'],
  EvidenceChangedError: ['evidence/a/plan.json', 'size changed'],
  AuthorInputError: [[{ file: 'plan.yaml', line: 2, message: 'bad' }]],
  SiteReadError: ['https://example.org/report.json', 'HTTP 500'],
  BoundError: ['https://example.org/report.json', 'bytes', 'over 1 byte'],
  NoReportError: ['the site has no /report.json'],
  KeptTablesError: ['sha256:00'],
  AlreadyExistsError: ['out/plan.json', 'out/plan.json already exists'],
  RetainError: ['history/a.json already exists with other content'],
  RetainedManifestError: ['history/m.json already exists'],
  BlobMismatch: ['/blobs/ab is 3 bytes'],
  SiteProblem: ['bundle ab', 'files.json is not published'],
  NotInBrowserError: ['re-importing an Inspect .eval archive'],
  OriginalUnreadableError: ['source/log.json is not held by this copy of the site'],
  ChangedWhileRead: [{ code: 'FILE_CHANGED', severity: 'error', message: 'plan.json changed while read' }],
  DerError: ['truncated: a value at byte 0 has no room for its tag and length'],
  TimeStampTokenError: ['the bytes are not a DER SEQUENCE'],
  FreezeLogFileError: ['the freeze log history/freeze-log.jsonl does not parse'],
};

async function errorClasses(): Promise<{ name: string; file: string; cls: ErrorClass }[]> {
  const found: { name: string; file: string; cls: ErrorClass }[] = [];
  for (const file of [...new Set(declarations.map((d) => d.file))]) {
    const module = (await import(file)) as Record<string, unknown>;
    for (const d of declarations.filter((x) => x.file === file)) {
      const cls = module[d.name];
      if (typeof cls === 'function' && cls.prototype instanceof Error) found.push({ name: d.name, file: relative(root, file), cls: cls as ErrorClass });
    }
  }
  return found;
}

/** docs/cli.md's table: class, code, exit status, usage hint. */
function documented(): Map<string, { code: string; status: number; usage: boolean }> {
  const text = readFileSync(join(root, 'docs/cli.md'), 'utf8');
  const table = text.slice(text.indexOf('<!-- error-codes:begin -->'), text.indexOf('<!-- error-codes:end -->'));
  const rows = new Map<string, { code: string; status: number; usage: boolean }>();
  for (const m of table.matchAll(/^\| `(\w+)` \| `(\w+)` \| (\d) \| (yes|no) \|/gm)) rows.set(m[1]!, { code: m[2]!, status: Number(m[3]), usage: m[4] === 'yes' });
  return rows;
}

describe('one error base', () => {
  it('no class of src/ extends Error itself except LedgerboardError', () => {
    const direct = declarations.filter((d) => d.base === 'Error').map((d) => `${relative(root, d.file)}: ${d.name}`);
    expect(direct).toEqual(['src/errors.ts: LedgerboardError']);
  });

  it('every error class extends LedgerboardError, is exported, and states its own unique code and an exit status', async () => {
    const classes = await errorClasses();
    const declared = declarations.filter((d) => /Error$|Mismatch$|Problem$|WhileRead$/.test(d.name) || d.base.endsWith('Error')).map((d) => d.name);
    // Every declared error class was found among the exports (an unexported one could not be mapped or tested).
    expect(classes.map((c) => c.name).sort()).toEqual([...new Set(declared)].sort());
    expect(classes.length).toBeGreaterThanOrEqual(23);
    const codes = new Map<string, string>();
    for (const { name, cls } of classes) {
      if (cls === (LedgerboardError as unknown)) continue;
      expect(cls.prototype instanceof LedgerboardError, name).toBe(true);
      expect(Object.hasOwn(cls, 'code'), `${name} states its own code`).toBe(true);
      expect(Object.hasOwn(cls, 'exitStatus'), `${name} states its own exit status`).toBe(true);
      expect(cls.code, name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(Object.values(EXIT_STATUS), name).toContain(cls.exitStatus);
      expect(codes.get(cls.code!), `${cls.code} is ${name}'s and ${codes.get(cls.code!)}'s`).toBeUndefined();
      codes.set(cls.code!, name);
    }
  });

  it("docs/cli.md's table is every class's code, exit status and hint, and the CLI's mapping ends with that status", async () => {
    const classes = (await errorClasses()).filter((c) => c.name !== 'LedgerboardError');
    const table = documented();
    expect([...table.keys()].sort()).toEqual(classes.map((c) => c.name).sort());
    for (const { name, cls } of classes) {
      const row = table.get(name)!;
      expect({ code: cls.code, status: cls.exitStatus, usage: cls.showsUsage }, name).toEqual({ code: row.code, status: row.status, usage: row.usage });
      const args = ARGS[name];
      expect(args, `ARGS has a constructor call for ${name}`).toBeDefined();
      const error = new (cls as unknown as new (...a: unknown[]) => LedgerboardError)(...args!);
      expect(error.code).toBe(row.code);
      expect(error.exitStatus).toBe(row.status);
      // code and exitStatus are the class's, not own properties: errors compare and clone as before.
      expect(Object.keys(error)).not.toContain('code');
      const { status, text } = exitFor(error, ['build', '--out', 'x']);
      expect(status, name).toBe(row.status);
      if (row.status === EXIT_STATUS.internal) expect(text, name).toBe(`ledgerboard: unexpected error: ${error.message}\n(run again with --debug for the stack trace)\n`);
      else if (row.usage) expect(text, name).toBe(`ledgerboard: ${error.message}\nRun 'ledgerboard build --help' for usage.\n`);
      else expect(text, name).toBe(`ledgerboard: ${error.message}\n`);
    }
  });

  it('the statuses the CLI has always used stay: usage 2, a refused overwrite 1, anything else 3', async () => {
    const { UsageError } = await import('../src/cli/command.ts');
    const { ConfigError } = await import('../src/config/errors.ts');
    const { PathArgumentError } = await import('../src/evidence/discover.ts');
    const { BuildEnvironmentError } = await import('../src/site/build/build-errors.ts');
    const { BuildLockedError } = await import('../src/site/build/build-lock.ts');
    const { AlreadyExistsError } = await import('../src/author/problems.ts');
    const { RetainError } = await import('../src/history/retained-reports.ts');
    expect(exitFor(new UsageError('unknown option "--x"', 'report'), ['build'])).toEqual({ status: 2, text: `ledgerboard: unknown option "--x"\nRun 'ledgerboard report --help' for usage.\n` });
    expect(exitFor(new UsageError('no command'), [])).toEqual({ status: 2, text: `ledgerboard: no command\nRun 'ledgerboard --help' for usage.\n` });
    expect(exitFor(new ConfigError('bad config'), ['verify', 'x']).status).toBe(2);
    expect(exitFor(new PathArgumentError('no such path'), ['verify', 'x']).text).toBe(`ledgerboard: no such path\nRun 'ledgerboard verify --help' for usage.\n`);
    expect(exitFor(new BuildEnvironmentError('out is full'), ['build'])).toEqual({ status: 2, text: 'ledgerboard: out is full\n' });
    expect(exitFor(new BuildLockedError('held'), ['build']).status).toBe(2);
    expect(exitFor(new AlreadyExistsError('p', 'p exists'), ['seal']).status).toBe(1);
    expect(exitFor(new RetainError('r'), ['retain']).status).toBe(1);
    expect(exitFor(new Error('boom'), ['build'])).toEqual({ status: 3, text: 'ledgerboard: unexpected error: boom\n(run again with --debug for the stack trace)\n' });
    expect(exitFor('thrown string', ['build']).status).toBe(3);
    const debug = exitFor(new BuildLockedError('held'), ['build'], true);
    expect(debug.text).toBe('ledgerboard: held\n(code BUILD_LOCKED, exit 2)\n');
    expect(exitFor(new Error('boom'), ['build'], true).text).toMatch(/^ledgerboard: unexpected error: boom\nError: boom\n {4}at /);
  });
});
