/**
 * Test helpers for the Inspect importer: small synthetic logs (the real ones
 * lack errors, limits and costs), a minimal ZIP writer (stored, deflate and
 * Zstandard entries, with sizes that may lie, for zip bombs) and a
 * Zstandard frame made of raw blocks (a valid frame without a compressor).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, expect } from 'vitest';
import { ImportError } from '../../src/import/errors.ts';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { importPath, mapImportInput, type ImportResult } from '../../src/import/import-input.ts';
import type { ImportRequest, MappedBundle } from '../../src/import/importer.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../src/import/limits.ts';
import { inspectImporter } from '../../src/import/inspect/importer.ts';
import type { ImportOptions } from '../../src/import/inspect/map.ts';

export const REAL_LOGS = new URL('../../content/imported/logs/', import.meta.url).pathname;

/** Temporary directories, removed after the file's tests. */
export function tempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-import-'));
    made.push(dir);
    return dir;
  };
}

/** Every entry name under a directory, recursively, sorted ('/'-separated). */
export async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((e) => join(e.parentPath, e.name).slice(root.length + 1)).sort();
}

/** Verifies a bundle directory with the project's verifier. */
export async function verifyDir(dir: string) {
  return verifyBundle(await readBundle(dir));
}

/** Reads a JSONL file of a bundle. */
export async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type Json = Record<string, unknown>;

/** One synthetic sample; override any member. */
export function sample(id: number | string, epoch: number, overrides: Json = {}): Json {
  return {
    id,
    epoch,
    input: `question ${String(id)}`,
    target: 'answer',
    messages: [],
    output: { model: 'acme-model-2026-01-01', choices: [], completion: 'answer' },
    scores: { match: { value: 'C', answer: 'answer' } },
    model_usage: { 'acme/model': { input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
    started_at: '2026-02-01T10:00:01.250000+01:00',
    completed_at: '2026-02-01T10:00:03.500000+01:00',
    total_time: 2.25,
    error_retries: [],
    ...overrides,
  };
}

/** A synthetic EvalLog header (everything but samples); override any member. */
export function header(overrides: Json = {}, evalOverrides: Json = {}): Json {
  return {
    version: 2,
    status: 'success',
    eval: {
      run_id: 'run',
      created: '2026-02-01T10:00:00+01:00',
      task: 'synthetic',
      task_version: 0,
      task_args: {},
      dataset: { name: 'synthetic', samples: 2, sample_ids: [1, 2] },
      model: 'acme/model',
      config: { epochs: 1 },
      packages: { inspect_ai: '0.3.200' },
      scorers: [{ name: 'match', options: {}, metrics: [] }],
      ...evalOverrides,
    },
    plan: { name: 'plan', steps: [{ solver: 'generate', params: {} }], config: {} },
    results: { total_samples: 2, completed_samples: 2, scores: [{ name: 'match', scorer: 'match', params: {}, metrics: {} }] },
    stats: { started_at: '2026-02-01T10:00:00+01:00', completed_at: '2026-02-01T10:00:05+01:00', model_usage: {} },
    ...overrides,
  };
}

/** A .json log's bytes. */
export function jsonLog(samples: Json[], headerObject: Json = header()): Buffer {
  return Buffer.from(JSON.stringify({ ...headerObject, samples }, null, 2), 'utf8');
}

/** One ZIP entry to write. */
export interface ZipEntrySpec {
  name: string;
  data: Buffer;
  method?: 0 | 8 | 93 | number;
  /** Compressed bytes to store instead of compressing `data` (for method 93, or corrupt data). */
  raw?: Buffer;
  /** Declared uncompressed size (defaults to data.length): lie to make a bomb. */
  declaredSize?: number;
  /** Declared CRC-32 (defaults to the real one). */
  crc?: number;
  flags?: number;
}

/** Writes a ZIP archive (no ZIP64, no data descriptors). */
export function zip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const method = e.method ?? 8;
    const name = Buffer.from(e.name, 'utf8');
    const body = e.raw ?? (method === 8 ? deflateRawSync(e.data) : method === 93 ? zstdRaw(e.data) : e.data);
    const crc = e.crc ?? crc32(e.data) >>> 0;
    const size = e.declaredSize ?? e.data.length;
    const flags = (e.flags ?? 0) | 0x800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(63, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(63, 4);
    central.writeUInt16LE(63, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A Zstandard frame of raw blocks: single segment, declared content size (or `declared`). */
export function zstdRaw(data: Buffer, declared = data.length): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0 /* FCS 8 bytes, single segment */]);
  const fcs = Buffer.alloc(8);
  fcs.writeBigUInt64LE(BigInt(declared));
  const blocks: Buffer[] = [];
  const max = 128 * 1024;
  for (let at = 0; at < data.length || (at === 0 && data.length === 0); at += max) {
    const chunk = data.subarray(at, at + max);
    const last = at + max >= data.length ? 1 : 0;
    const h = (chunk.length << 3) | (0 << 1) | last;
    blocks.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), chunk);
    if (data.length === 0) break;
  }
  return Buffer.concat([header, fcs, ...blocks]);
}

/** A .eval log's bytes: header.json, _journal/start.json and one entry per sample. */
export function evalLog(samples: Json[], headerObject: Json = header(), method: 0 | 8 | 93 = 8): Buffer {
  const entries: ZipEntrySpec[] = [
    { name: '_journal/start.json', data: Buffer.from(JSON.stringify({ version: 2, eval: headerObject.eval, plan: headerObject.plan })), method },
    // Entry names by position: the importer takes a sample's identity from its own id and epoch.
    ...samples.map((s, i) => ({ name: `samples/${i + 1}_epoch_${String(s.epoch)}.json`, data: Buffer.from(JSON.stringify(s)), method })),
    { name: 'header.json', data: Buffer.from(JSON.stringify(headerObject)), method },
  ];
  return zip(entries);
}

/** The message of the ImportError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError);
    return (error as Error).message;
  }
  throw new Error('expected an ImportError');
}

/** Inspect options as the command's flags (what `ledgerboard import inspect` would be given). */
export function inspectRequest(options: ImportOptions, limits: Partial<ImportLimits> = {}): ImportRequest {
  const flags: Record<string, string> = { 'pass-threshold': String(options.passThreshold) };
  if (options.scorer !== null) flags.scorer = options.scorer;
  return { license: options.license, flags, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } };
}

/** Imports one Inspect log file, as `ledgerboard import inspect <file> -o <parent>` does. */
export async function importLogFile(path: string, parent: string, options: ImportOptions, limits: Partial<ImportLimits> = {}): Promise<ImportResult> {
  return importPath(inspectImporter, path, parent, inspectRequest(options, limits));
}

/** Maps an Inspect log's bytes to bundle files without touching the disk. */
export async function buildImportedBundle(bytes: Uint8Array, options: ImportOptions, limits: Partial<ImportLimits> = {}): Promise<MappedBundle> {
  const input: ImportInput = { name: 'log.eval', kind: 'file', files: new Map([['log.eval', bytes]]), skipped: [] };
  return mapImportInput(inspectImporter, input, inspectRequest(options, limits));
}
