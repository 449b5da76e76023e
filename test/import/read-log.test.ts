/**
 * Reading Inspect logs at the edge: both formats, deflate and Zstandard
 * entries, and every way a log can be unreadable (corrupt, truncated, a zip
 * bomb, an oversize entry, not Inspect at all) failing with a clear error.
 */
import { mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { replaceNonFinite } from '../../src/import/source-json.ts';
import { detectFormat, readInspectLog } from '../../src/import/inspect/read-log.ts';
import { decodeZstd, MAX_LOG_FILE_BYTES, readZipEntries } from '../../src/import/inspect/zip.ts';
import { evalLog, importLogFile, header, jsonLog, REAL_LOGS, rejection, sample, zip, zstdRaw } from './helpers.ts';

const SMALL = { maxEntries: 100, maxEntryBytes: 64 * 1024, maxTotalBytes: 256 * 1024 };

describe('formats and compression methods', () => {
  it('recognises the format from the bytes, not the name', () => {
    expect(detectFormat(Buffer.from('PK\u0003\u0004rest'))).toBe('eval');
    expect(detectFormat(Buffer.from('  \n{"version":2}'))).toBe('json');
    expect(detectFormat(Buffer.from('[1]'))).toBeNull();
    expect(detectFormat(Buffer.from(''))).toBeNull();
  });

  it.each([0, 8, 93] as const)('reads a .eval archive whose entries use method %i', async (method) => {
    const log = await readInspectLog(evalLog([sample(1, 1), sample(2, 1)], header(), method));
    expect(log.format).toBe('eval');
    expect(log.samples.map((s) => s.id)).toEqual([1, 2]);
    expect(log.header.eval.model).toBe('acme/model');
  });

  it('reads the real archive with zstd (method 93) entries', async () => {
    const bytes = await readFile(join(REAL_LOGS, 'retry-2-then-success.postfix.zstd.eval'));
    const { entries } = await readZipEntries(bytes, () => false);
    expect(new Set(entries.map((e) => e.method))).toEqual(new Set([93]));
    const log = await readInspectLog(bytes);
    expect(log.samples).toHaveLength(1);
    expect(log.samples[0]!.output?.model).toBe('fake');
  });

  it('reads a real deflate archive and the same run as JSON alike', async () => {
    const [a, b] = await Promise.all(['log_formats.eval', 'log_formats.json'].map(async (f) => readInspectLog(await readFile(join(REAL_LOGS, f)))));
    expect(a!.format).toBe('eval');
    expect(b!.format).toBe('json');
    expect(a!.samples.map((s) => [s.id, s.epoch, s.input, s.scores])).toEqual(b!.samples.map((s) => [s.id, s.epoch, s.input, s.scores]));
  });

  it('reads an archive without header.json from _journal/start.json, as a run that did not finish', async () => {
    const h = header();
    const bytes = zip([
      { name: '_journal/start.json', data: Buffer.from(JSON.stringify({ version: 2, eval: h.eval, plan: h.plan })) },
      { name: 'samples/1_epoch_1.json', data: Buffer.from(JSON.stringify(sample(1, 1))) },
    ]);
    const log = await readInspectLog(bytes);
    expect(log.headerFromJournal).toBe(true);
    expect(log.header.status).toBe('started');
  });
});

describe('unreadable logs fail with a clear error', () => {
  it('a file that is not an Inspect log', async () => {
    expect(await rejection(readInspectLog(Buffer.from('hello')))).toBe('not an Inspect log: neither a .eval ZIP archive nor a JSON log');
    expect(await rejection(readInspectLog(Buffer.from('{"version": 2, "status": "success"}')))).toMatch(/^not an Inspect log: the log: eval: /);
    expect(await rejection(readInspectLog(Buffer.from('{"schema":"ledgerboard.plan.v1"}')))).toMatch(/^not an Inspect log/);
    expect(await rejection(readInspectLog(zip([{ name: 'README', data: Buffer.from('x') }])))).toBe(
      'not an Inspect log: the archive holds neither header.json nor _journal/start.json',
    );
  });

  it('a corrupt archive (bytes flipped inside an entry)', async () => {
    const bytes = Buffer.from(await readFile(join(REAL_LOGS, 'log_formats.eval')));
    for (let i = 200; i < 260; i++) bytes[i] = bytes[i]! ^ 0x5a;
    expect(await rejection(readInspectLog(bytes))).toMatch(/is corrupt|not a readable ZIP archive/);
  });

  it('an entry whose CRC-32 does not match', async () => {
    const data = Buffer.from(JSON.stringify(header()));
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data, crc: 12345 }])))).toBe(
      'the archive entry "header.json" is corrupt: its CRC-32 does not match the central directory',
    );
  });

  it('a truncated archive and a truncated JSON log', async () => {
    const eval_ = await readFile(join(REAL_LOGS, 'log_streaming.eval'));
    expect(await rejection(readInspectLog(eval_.subarray(0, eval_.length - 100)))).toMatch(/^not a readable ZIP archive: /);
    expect(await rejection(readInspectLog(eval_.subarray(0, 2000)))).toMatch(/^not a readable ZIP archive: /);
    const json = await readFile(join(REAL_LOGS, 'log_formats.json'));
    expect(await rejection(readInspectLog(json.subarray(0, 5000)))).toMatch(/^the log is not readable JSON: .*\(line \d+, column \d+\)$/);
  });

  it('a truncated zstd entry', async () => {
    const data = Buffer.from(JSON.stringify(header()));
    const raw = zstdRaw(data).subarray(0, 40);
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data, method: 93, raw }])))).toMatch(/^the archive entry "header.json" is corrupt: /);
  });

  it('a zip bomb: an entry that inflates to more than it declares', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 0x20);
    const bomb = zip([{ name: 'header.json', data: big, raw: deflateRawSync(big), declaredSize: 100 }]);
    expect(bomb.length).toBeLessThan(10_000);
    expect(await rejection(readInspectLog(bomb))).toMatch(/^the archive entry "header.json" is corrupt: /);
  });

  it('a zip bomb: a zstd entry that decompresses to more than it declares', async () => {
    const big = Buffer.alloc(1024 * 1024, 0x20);
    expect(() => decodeZstd(zstdRaw(big, 100), 100)).toThrow(/more than the 100 bytes the archive declares/);
    // The frame does not declare its size (a window descriptor instead): the bytes produced are counted.
    const frame = zstdRaw(big);
    const noSize = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50 /* window 2^20 */]), frame.subarray(13)]);
    expect(() => decodeZstd(noSize, 1000)).toThrow(/decompresses to more than the 1000 bytes the archive declares: refused as a possible zip bomb/);
    expect(decodeZstd(noSize, big.length).equals(big)).toBe(true);
  });

  it('a zstd frame that asks for a window beyond 128 MiB', () => {
    const frame = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x89 /* window 2^27 + 2^24 */, 0x01, 0x00, 0x00]);
    expect(() => decodeZstd(frame, 10)).toThrow(/needs a Zstandard window of \d+ bytes/);
  });

  it('an oversize entry and too large a total, refused before decompressing', async () => {
    const data = Buffer.alloc(100 * 1024, 0x20);
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data }]), SMALL))).toMatch(/declares 102400 bytes uncompressed, more than the limit of 65536/);
    const declared = zip([{ name: 'header.json', data: Buffer.from('{}'), declaredSize: 0xfffffff0 }]);
    expect(await rejection(readInspectLog(declared))).toMatch(/declares 4294967280 bytes uncompressed, more than the limit/);
    const many = zip(Array.from({ length: 6 }, (_, i) => ({ name: `samples/${i}_epoch_1.json`, data: Buffer.alloc(60 * 1024, 0x20) })));
    expect(await rejection(readInspectLog(many, SMALL))).toMatch(/in total \(the limit\): refused as a possible zip bomb/);
    const entries = zip(Array.from({ length: 101 }, (_, i) => ({ name: `x${i}`, data: Buffer.from('') })));
    expect(await rejection(readInspectLog(entries, SMALL))).toBe('the archive lists 101 entries, more than the limit of 100');
  });

  it('entry names that escape, repeat, or use another method or the chunked layout', async () => {
    const data = Buffer.from(JSON.stringify(header()));
    expect(await rejection(readInspectLog(zip([{ name: '../header.json', data }])))).toMatch(/^not a readable ZIP archive: .*invalid relative path/);
    expect(await rejection(readInspectLog(zip([{ name: '/etc/header.json', data }])))).toMatch(/^not a readable ZIP archive: .*absolute path/);
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data }, { name: 'header.json', data }])))).toBe('the archive lists the entry "header.json" twice');
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data, method: 12, raw: data }])))).toBe(
      'the archive entry "header.json" uses ZIP compression method 12; only stored (0), deflate (8) and zstd (93) are read',
    );
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data, flags: 1 }])))).toMatch(/encrypted|not a readable ZIP archive/);
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data }, { name: 'samples/1_epoch_1/sample.json', data }])))).toMatch(/chunked per-sample layout/);
  });

  it('a newer log format version, duplicate members, invalid UTF-8', async () => {
    expect(await rejection(readInspectLog(jsonLog([], header({ version: 3 }))))).toBe('the log is Inspect log format version 3; this importer reads versions up to 2');
    const dup = Buffer.from(JSON.stringify({ ...header(), samples: [] }).replace('"status":"success"', '"status":"success","status":"error"'));
    expect(await rejection(readInspectLog(dup))).toMatch(/^the log is not readable JSON: duplicate member/);
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(await rejection(readInspectLog(bad))).toMatch(/^the log is not readable JSON: /);
  });
});

describe('NaN and Infinity', () => {
  it('are read as null outside strings, and counted', () => {
    const { bytes, count } = replaceNonFinite(Buffer.from('{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN Infinity", "d": "\\"NaN"}'));
    expect(count).toBe(3);
    expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual({ a: null, b: [null, null], c: 'NaN Infinity', d: '"NaN' });
  });

  it('in a log: a metric of NaN is harmless, the count is reported', async () => {
    const text = jsonLog([sample(1, 1), sample(2, 1)]).toString('utf8').replace('"metrics": {}', '"metrics": {"stderr": {"name": "stderr", "value": NaN}}');
    expect(text).toContain('NaN');
    const log = await readInspectLog(Buffer.from(text));
    expect(log.nonFinite).toBe(1);
  });
});

describe('the log file size limit', () => {
  it('a log file over MAX_LOG_FILE_BYTES is refused before it is read, and nothing is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-import-big-'));
    const log = join(dir, 'big.json');
    const handle = await open(log, 'w');
    await handle.truncate(MAX_LOG_FILE_BYTES + 1);
    await handle.close();
    await expect(importLogFile(log, join(dir, 'out'), { license: '', passThreshold: 1, scorer: null })).rejects.toThrow(/more than the 134217728 an import reads \(import_limits.maxFileBytes\)/);
    expect(await readdir(dir)).toEqual(['big.json']);
    await rm(dir, { recursive: true, force: true });
  });
});
