/**
 * The importers' read side as the site asks for it (src/import/sources.ts):
 * for each of the six formats, a readable source gives its own figure and
 * its transcripts; a corrupted original gives `unreadable` with the reader's
 * reason (never a silent "no figure"); withheld, absent and over-limit
 * originals are unreadable before a byte is read; and a bug (a reader or a
 * blob reader that throws a TypeError) propagates instead of being hidden.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { importerNamed } from '../../src/import/registry.ts';
import { sourceReaderOfOrigin } from '../../src/import/source-registry.ts';
import { importedSource, OriginalUnreadableError, type SourceAccess } from '../../src/import/sources.ts';
import type { Importer, SourceReader } from '../../src/import/importer.ts';
import { ImportError } from '../../src/import/errors.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const IMPORTED = join(root, 'content', 'imported');

/** One readable input per format (the demo's: scripts/import-demo.ts), and the figure its source reports. */
const INPUTS: { format: string; path: string; flags?: Record<string, string>; figure: { name: string; value: number }; transcripts: number }[] = [
  { format: 'inspect', path: 'logs/2025-05-12T20-28-13-04-00_popularity.json', figure: { name: 'accuracy', value: 2 / 3 }, transcripts: 3 },
  { format: 'helm', path: 'helm/harm_bench-model-meta_llama-3-70b', flags: { metric: 'harm_bench_score', 'pass-threshold': '1' }, figure: { name: 'mean (HELM stats.json, test)', value: 0.125 }, transcripts: 2 },
  { format: 'swe-bench', path: 'swe-bench/tonight', figure: { name: 'resolved_instances', value: 25 }, transcripts: 3 },
  // This Terminal-Bench 1 run keeps no trial log files: a figure, and no transcript (the read gives an empty map, not a failure).
  { format: 'terminal-bench', path: 'terminal-bench/tb1-2025-09-14__15-55-09', figure: { name: 'accuracy', value: 0 }, transcripts: 0 },
  { format: 'lm-eval', path: 'lm-eval/sshleifer__tiny-gpt2', figure: { name: 'copa acc,none', value: 0.6 }, transcripts: 20 },
  { format: 'eee', path: 'eee/pubmed_qa-gpt-4o-mini', flags: { 'pass-threshold': '1' }, figure: { name: 'accuracy', value: 1 }, transcripts: 2 },
];

interface Mapped {
  importer: Importer;
  origin: { format: string };
  graderId: string;
  files: Map<string, Uint8Array>;
}

const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A SourceAccess over a mapped bundle's files (by digest), with paths to withhold and files to replace. */
function accessOf(files: ReadonlyMap<string, Uint8Array>, options: { withheld?: string[]; limits?: SourceAccess['limits']; blob?: SourceAccess['blob'] } = {}): SourceAccess {
  const listed = [...files].filter(([p]) => !(options.withheld ?? []).includes(p)).map(([path, bytes]) => ({ path, sha256: sha(bytes), bytes: bytes.byteLength }));
  const bySha = new Map([...files.values()].map((b) => [sha(b), b]));
  return {
    files: listed,
    withheld: options.withheld ?? [],
    blob: options.blob ?? (async (s) => bySha.get(s)!),
    limits: options.limits ?? DEFAULT_IMPORT_LIMITS,
  };
}

const mapped = new Map<string, Mapped>();

beforeAll(async () => {
  for (const input of INPUTS) {
    const importer = importerNamed(input.format)!;
    const read = await readImportInput(join(IMPORTED, input.path), DEFAULT_IMPORT_LIMITS);
    const m = await importer.map(read, { license: 'MIT', flags: input.flags ?? {}, limits: DEFAULT_IMPORT_LIMITS });
    const plan = JSON.parse(new TextDecoder().decode(m.files.get('plan.json')!)) as { origin: { format: string }; grader: { id: string } };
    mapped.set(input.format, { importer, origin: plan.origin, graderId: plan.grader.id, files: m.files });
  }
}, 120_000);

describe('a readable source, for each of the six formats', () => {
  for (const input of INPUTS) {
    it(`${input.format}: its own figure and its transcripts`, async () => {
      const m = mapped.get(input.format)!;
      const source = importedSource(m.origin, accessOf(m.files));
      expect(source.label).toBe(m.importer.label);
      expect(source.available()).toEqual({ ok: true, value: null });
      const figure = await source.ownFigure(m.graderId);
      expect(figure.ok).toBe(true);
      if (!figure.ok) return;
      expect(figure.value![0]!.name).toBe(input.figure.name);
      expect(figure.value![0]!.value).toBeCloseTo(input.figure.value, 9);
      const transcripts = await source.transcripts();
      expect(transcripts.ok).toBe(true);
      if (!transcripts.ok) return;
      expect(transcripts.value.size).toBe(input.transcripts);
      for (const t of transcripts.value.values()) expect(t.total).toBeGreaterThanOrEqual(t.messages.length);
    });
  }
});

/** The file of a format's originals whose corruption the figure or transcript read must notice. */
const FIGURE_FILE: Record<string, (path: string) => boolean> = {
  inspect: (p) => p.startsWith('source/'),
  helm: (p) => p === 'source/stats.json',
  'swe-bench': (p) => /^source\/[^/]+\.json$/.test(p),
  'terminal-bench': (p) => p === 'source/results.json',
  'lm-eval': (p) => /^source\/results_.+\.json$/.test(p),
  eee: (p) => /^source\/.*\.json$/.test(p),
};

describe('a corrupted original cannot be read, and says why', () => {
  for (const input of INPUTS) {
    it(`${input.format}: the figure and the transcripts are unreadable with the reader's reason`, async () => {
      const m = mapped.get(input.format)!;
      const target = [...m.files.keys()].filter(FIGURE_FILE[input.format]!);
      expect(target.length, `${input.format}: ${[...m.files.keys()].join(', ')}`).toBeGreaterThan(0);
      const files = new Map(m.files);
      // The first bytes of a JSON document: not JSON, not a ZIP.
      for (const p of target) files.set(p, new TextEncoder().encode('{"truncated": '));
      const source = importedSource(m.origin, accessOf(files));
      const figure = await source.ownFigure(m.graderId);
      const transcripts = await source.transcripts();
      // The figure is unreadable for every format whose figure file was cut; the transcripts of every format but HELM read
      // that file too (HELM's read scenario_state.json and per_instance_stats.json, which are intact).
      expect(figure).toMatchObject({ ok: false, cause: 'bytes' });
      if (!figure.ok) expect(figure.unreadable.length).toBeGreaterThan(10);
      if (input.format !== 'helm') expect(transcripts).toMatchObject({ ok: false, cause: 'bytes' });
    });
  }

  it('the reason is the reader\'s own sentence, one line, bounded', async () => {
    const m = mapped.get('terminal-bench')!;
    const files = new Map(m.files);
    files.set('source/results.json', new TextEncoder().encode('[1, 2]'));
    const figure = await importedSource(m.origin, accessOf(files)).ownFigure(m.graderId);
    expect(figure).toEqual({ ok: false, cause: 'bytes', unreadable: 'source/results.json is not a JSON object' });
  });
});

describe('originals that are not there, or past a limit, are unreadable before a byte is read', () => {
  const noBlob = async (): Promise<Uint8Array> => {
    throw new Error('read a blob');
  };

  it('withheld: names the original', async () => {
    const m = mapped.get('inspect')!;
    const log = [...m.files.keys()].find((p) => p.startsWith('source/'))!;
    const source = importedSource(m.origin, accessOf(m.files, { withheld: [log], blob: noBlob }));
    expect(await source.ownFigure(m.graderId)).toEqual({ ok: false, cause: 'withheld', unreadable: `the original ${log} is withheld from this site` });
    expect(await source.transcripts()).toMatchObject({ ok: false, cause: 'withheld' });
  });

  it('no originals kept; a format this version does not read', async () => {
    const m = mapped.get('helm')!;
    const without = new Map([...m.files].filter(([p]) => !p.startsWith('source/')));
    expect(await importedSource(m.origin, accessOf(without, { blob: noBlob })).ownFigure(m.graderId)).toEqual({ ok: false, cause: 'absent', unreadable: 'the bundle keeps no originals (no source/ files)' });
    const other = importedSource({ format: 'future-format<b>' }, accessOf(m.files, { blob: noBlob }));
    expect(other.label).toBeNull();
    expect(await other.ownFigure('x')).toEqual({ ok: false, cause: 'format', unreadable: 'this version of ledgerboard does not read the format "future-format<b>"' });
    expect(other.rerunFlags({ grader: { id: 'x' } })).toEqual([]);
  });

  it('past import_limits.file_bytes: the caller\'s sentence, no blob read', async () => {
    const m = mapped.get('inspect')!;
    const limits = { ...DEFAULT_IMPORT_LIMITS, maxFileBytes: 100 };
    const access = { ...accessOf(m.files, { limits, blob: noBlob }), overLimitText: (over: { member: string; actual: number }) => `over ${over.member} at ${over.actual}` };
    const figure = await importedSource(m.origin, access).ownFigure(m.graderId);
    expect(figure.ok).toBe(false);
    if (!figure.ok) {
      expect(figure.cause).toBe('limit');
      expect(figure.unreadable).toMatch(/^over file_bytes at [0-9]+$/);
    }
  });

  it("the blob reader's known error is unreadable; any other error from it propagates", async () => {
    const m = mapped.get('swe-bench')!;
    const gone = importedSource(m.origin, accessOf(m.files, { blob: async () => { throw new OriginalUnreadableError('this copy of the site does not hold it'); } }));
    expect(await gone.transcripts()).toEqual({ ok: false, cause: 'blob', unreadable: 'this copy of the site does not hold it' });
    const broken = importedSource(m.origin, accessOf(m.files, { blob: async () => { throw new Error('the evidence changed during the build'); } }));
    await expect(broken.transcripts()).rejects.toThrow('the evidence changed during the build');
  });
});

describe('a bug is not "cannot be read": it propagates', () => {
  const saved = new Map<SourceReader, Partial<SourceReader>>();
  afterEach(() => {
    for (const [reader, members] of saved) Object.assign(reader, members);
    saved.clear();
  });

  it('a reader that throws a TypeError fails the read; one that throws ImportError is unreadable', async () => {
    const m = mapped.get('terminal-bench')!;
    const reader: SourceReader = sourceReaderOfOrigin(m.origin.format)!;
    saved.set(reader, { sourceMetrics: reader.sourceMetrics, transcripts: reader.transcripts });
    reader.sourceMetrics = async () => (null as unknown as { x: number[] }).x as never;
    reader.transcripts = async () => {
      throw new ImportError('not a run');
    };
    const source = importedSource(m.origin, accessOf(m.files));
    await expect(source.ownFigure(m.graderId)).rejects.toThrow(TypeError);
    expect(await source.transcripts()).toEqual({ ok: false, cause: 'bytes', unreadable: 'not a run' });
  });

  it('passRule and rerunFlags read the plan alone: a throw propagates', () => {
    const m = mapped.get('helm')!;
    const reader: SourceReader = sourceReaderOfOrigin(m.origin.format)!;
    saved.set(reader, { passRule: reader.passRule });
    reader.passRule = () => {
      throw new RangeError('bug');
    };
    expect(() => importedSource(m.origin, accessOf(m.files)).passRule({ grader: { id: m.graderId } })).toThrow(RangeError);
  });
});
