/**
 * Reads the entries of an Inspect `.eval` archive (a ZIP file) from memory.
 *
 * Untrusted input. yauzl reads the central directory with strict file name
 * validation (no absolute paths, no `..`, no backslashes) and validates every
 * entry's size against the central directory; stored (0) and deflated (8)
 * entries are decoded by yauzl, Zstandard entries (method 93) are taken raw
 * and decoded by fzstd, a pure-JS decoder, after this module has checked every
 * frame header (window size, declared content size) and while it counts the
 * bytes each block yields. Every entry read has its CRC-32 checked. Limits on
 * the number of entries, on each entry's size and on the total size read are
 * applied to the declared sizes before anything is decompressed, and again to
 * the bytes actually produced, so a zip bomb is refused with a clear error
 * instead of filling memory.
 */
import { crc32 } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Decompress } from 'fzstd';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ImportError, ImportLimitError } from '../errors.ts';
import { DEFAULT_IMPORT_LIMITS } from '../limits.ts';

/** Size limits of an archive read. */
export interface ZipLimits {
  /** Most entries the central directory may list. */
  maxEntries: number;
  /** Largest uncompressed size of one entry that is read. */
  maxEntryBytes: number;
  /** Largest total uncompressed size of the entries read. */
  maxTotalBytes: number;
}

/**
 * Defaults: generous for real logs (the largest real sample entry is a few
 * MB) and bounded by memory: parsed JSON takes about 13 times its bytes in
 * the heap (a 100 MB sample measured 1.34 GB RSS), so 128 MiB of entries stays
 * under 2 GB, well inside V8's heap.
 */
export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: DEFAULT_IMPORT_LIMITS.maxEntries,
  maxEntryBytes: DEFAULT_IMPORT_LIMITS.maxEntryBytes,
  maxTotalBytes: DEFAULT_IMPORT_LIMITS.maxTotalBytes,
};

/** Largest log file read at all (an .eval archive, or a .json log, which is parsed whole): 128 MiB. */
export const MAX_LOG_FILE_BYTES = DEFAULT_IMPORT_LIMITS.maxFileBytes;

/** Largest Zstandard window accepted: 2^27 bytes, the reference decoder's default limit (zstd --long is not needed for logs). */
const MAX_ZSTD_WINDOW = 1 << 27;

const METHOD_STORED = 0;
const METHOD_DEFLATED = 8;
const METHOD_ZSTD = 93;

/** One entry of the archive's central directory. */
export interface ZipEntryInfo {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
}

/**
 * Lists the archive and returns the decoded bytes of the entries `want`
 * selects (by name). Throws ImportError for anything that is not a readable
 * archive within the limits.
 */
export async function readZipEntries(
  bytes: Uint8Array,
  want: (name: string) => boolean,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<{ entries: ZipEntryInfo[]; contents: Map<string, Buffer> }> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true });
  } catch (error) {
    // In the in-browser verifier yauzl is a stand-in that refuses (src/rederive/browser/yauzl.ts): not a fact about the archive.
    if (error instanceof Error && error.name === 'NotInBrowserError') throw error;
    throw new ImportError(`not a readable ZIP archive: ${messageOf(error)}`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new ImportLimitError(`the archive lists ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`, 'maxEntries');
    }
    const entries: { info: ZipEntryInfo; entry: Entry }[] = [];
    const seen = new Set<string>();
    try {
      for await (const entry of zip.eachEntry()) {
        const name = entry.fileName;
        if (seen.has(name)) throw new ImportError(`the archive lists the entry ${JSON.stringify(name)} twice`);
        seen.add(name);
        entries.push({ info: { name, method: entry.compressionMethod, compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize }, entry });
      }
    } catch (error) {
      if (error instanceof ImportError) throw error;
      throw new ImportError(`not a readable ZIP archive: ${messageOf(error)}`);
    }
    // Limits against the declared sizes first: nothing is decompressed beyond them.
    const selected = entries.filter((e) => !e.info.name.endsWith('/') && want(e.info.name));
    let total = 0;
    for (const { info } of selected) {
      if (info.uncompressedSize > limits.maxEntryBytes) {
        throw new ImportLimitError(`the archive entry ${JSON.stringify(info.name)} declares ${info.uncompressedSize} bytes uncompressed, more than the limit of ${limits.maxEntryBytes}`, 'maxEntryBytes');
      }
      total += info.uncompressedSize;
      if (total > limits.maxTotalBytes) {
        throw new ImportLimitError(`the archive's entries declare more than ${limits.maxTotalBytes} bytes uncompressed in total (the limit): refused as a possible zip bomb`, 'maxTotalBytes');
      }
    }
    const contents = new Map<string, Buffer>();
    for (const { info, entry } of selected) {
      const data = await readEntry(zip, entry, info);
      if ((crc32(data) >>> 0) !== (entry.crc32 >>> 0)) {
        throw new ImportError(`the archive entry ${JSON.stringify(info.name)} is corrupt: its CRC-32 does not match the central directory`);
      }
      contents.set(info.name, data);
    }
    return { entries: entries.map((e) => e.info), contents };
  } finally {
    zip.close();
  }
}

async function readEntry(zip: ZipFile, entry: Entry, info: ZipEntryInfo): Promise<Buffer> {
  const where = `the archive entry ${JSON.stringify(info.name)}`;
  if ((entry.generalPurposeBitFlag & 1) !== 0) throw new ImportError(`${where} is encrypted`);
  if (info.method === METHOD_STORED || info.method === METHOD_DEFLATED) {
    try {
      const stream = await zip.openReadStreamPromise(entry);
      // yauzl validates the size it produces against the declared one (validateEntrySizes).
      return await collect(stream, info.uncompressedSize);
    } catch (error) {
      throw new ImportError(`${where} is corrupt: ${messageOf(error)}`);
    }
  }
  if (info.method === METHOD_ZSTD) {
    let raw: Buffer;
    try {
      raw = await collect(await zip.openReadStreamPromise(entry, { decodeFileData: false }), info.compressedSize);
    } catch (error) {
      throw new ImportError(`${where} is corrupt: ${messageOf(error)}`);
    }
    return decodeZstd(raw, info.uncompressedSize, where);
  }
  throw new ImportError(`${where} uses ZIP compression method ${info.method}; only stored (0), deflate (8) and zstd (93) are read`);
}

/** Reads a stream fully, refusing more than `limit` bytes. */
async function collect(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) {
      stream.destroy();
      throw new Error(`more bytes than the ${limit} declared`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

/**
 * Decodes the Zstandard frames of one entry into exactly `expected` bytes.
 * Every frame header is checked before its frame is decoded (no dictionary,
 * window <= 2^27, declared content size within what remains), and the bytes
 * each block yields are counted, so a frame that produces more than the entry
 * declares is stopped within one block (<= 128 KiB) of the limit.
 */
export function decodeZstd(raw: Uint8Array, expected: number, where = 'the Zstandard data'): Buffer {
  const out = Buffer.alloc(expected);
  let produced = 0;
  let offset = 0;
  try {
    while (offset < raw.length) {
      const frame = frameExtent(raw, offset, where);
      if (frame.skippable) {
        offset = frame.end;
        continue;
      }
      if (frame.windowSize > MAX_ZSTD_WINDOW) throw new ImportError(`${where} needs a Zstandard window of ${frame.windowSize} bytes, more than the ${MAX_ZSTD_WINDOW} accepted`);
      if (frame.contentSize !== null && frame.contentSize > expected - produced) {
        throw new ImportError(`${where} holds a Zstandard frame of ${frame.contentSize} bytes, more than the ${expected} bytes the archive declares`);
      }
      const decoder = new Decompress((chunk) => {
        if (chunk.length > expected - produced) {
          throw new ImportError(`${where} decompresses to more than the ${expected} bytes the archive declares: refused as a possible zip bomb`);
        }
        out.set(chunk, produced);
        produced += chunk.length;
      });
      decoder.push(raw.subarray(offset, frame.end), true);
      offset = frame.end;
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`${where} is corrupt: Zstandard data does not decode (${messageOf(error)})`);
  }
  if (produced !== expected) throw new ImportError(`${where} is corrupt: it decompresses to ${produced} bytes, not the ${expected} the archive declares`);
  return out;
}

interface FrameExtent {
  end: number;
  skippable: boolean;
  windowSize: number;
  contentSize: number | null;
}

/** Parses one frame header at `start` and walks its block headers (without decoding) to find where it ends. */
function frameExtent(raw: Uint8Array, start: number, where: string): FrameExtent {
  const corrupt = (why: string) => new ImportError(`${where} is corrupt: ${why}`);
  const need = (n: number) => {
    if (n > raw.length) throw corrupt('the Zstandard data is truncated');
  };
  need(start + 4);
  const magic = (raw[start]! | (raw[start + 1]! << 8) | (raw[start + 2]! << 16) | (raw[start + 3]! << 24)) >>> 0;
  if ((magic & 0xfffffff0) === 0x184d2a50) {
    need(start + 8);
    const size = (raw[start + 4]! | (raw[start + 5]! << 8) | (raw[start + 6]! << 16) | (raw[start + 7]! << 24)) >>> 0;
    need(start + 8 + size);
    return { end: start + 8 + size, skippable: true, windowSize: 0, contentSize: null };
  }
  if (magic !== 0xfd2fb528) throw corrupt('not a Zstandard frame');
  need(start + 5);
  const descriptor = raw[start + 4]!;
  const contentFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  const dictFlag = descriptor & 3;
  if ((descriptor & 8) !== 0) throw corrupt('a reserved Zstandard frame header bit is set');
  if (dictFlag !== 0) throw corrupt('the Zstandard frame needs a dictionary');
  let pos = start + 5;
  let windowSize = 0;
  if (!singleSegment) {
    need(pos + 1);
    const wd = raw[pos]!;
    const base = 2 ** (10 + (wd >> 3));
    windowSize = base + (base / 8) * (wd & 7);
    pos += 1;
  }
  const fcsBytes = contentFlag === 0 ? singleSegment : 1 << contentFlag;
  need(pos + fcsBytes);
  let contentSize: number | null = null;
  if (fcsBytes > 0) {
    let value = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) value = value * 256 + raw[pos + i]!;
    contentSize = fcsBytes === 2 ? value + 256 : value;
  }
  pos += fcsBytes;
  if (singleSegment) windowSize = contentSize ?? 0;
  for (;;) {
    need(pos + 3);
    const header = raw[pos]! | (raw[pos + 1]! << 8) | (raw[pos + 2]! << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw corrupt('a reserved Zstandard block type');
    pos += 3 + (type === 1 ? 1 : size);
    need(pos);
    if (last) break;
  }
  if (checksum) pos += 4;
  need(pos);
  return { end: pos, skippable: false, windowSize, contentSize };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
