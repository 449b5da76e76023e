/**
 * The in-browser verifier's shims of Node's modules (src/rederive/browser),
 * held to Node's own: SHA-256 against the NIST vectors and node:crypto on
 * random inputs cut into random chunks, Buffer's UTF-8 paths, isAscii/isUtf8,
 * crc32 against node:zlib, and the yauzl stand-in's error.
 */
import { createHash as nodeCreateHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAscii as nodeIsAscii, isUtf8 as nodeIsUtf8 } from 'node:buffer';
import { crc32 as nodeCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from '../../../src/rederive/browser/crypto.ts';
import { Buffer as BrowserBuffer, isAscii, isUtf8 } from '../../../src/rederive/browser/buffer.ts';
import { crc32 } from '../../../src/rederive/browser/zlib.ts';
import yauzl from '../../../src/rederive/browser/yauzl.ts';
import { isNotInBrowser, NotInBrowserError } from '../../../src/rederive/browser/not-in-browser.ts';

const katDir = new URL('../../fixtures/sha256-kat/', import.meta.url);

function nodeHex(bytes: Uint8Array): string {
  return nodeCreateHash('sha256').update(bytes).digest('hex');
}

describe('SHA-256 in plain JavaScript (browser/crypto.ts)', () => {
  it('every vector of SHA256ShortMsg.rsp', () => {
    const text = readFileSync(new URL('SHA256ShortMsg.rsp', katDir), 'utf8');
    const vectors = [...text.matchAll(/Len = (\d+)\s*\r?\nMsg = ([0-9a-f]*)\s*\r?\nMD = ([0-9a-f]{64})/g)].map((m) => ({ bits: Number(m[1]), msg: m[2]!, md: m[3]! }));
    expect(vectors.length).toBe(65);
    for (const { bits, msg, md } of vectors) {
      const bytes = Buffer.from(bits === 0 ? '' : msg, 'hex');
      expect(createHash('sha256').update(bytes).digest('hex'), `Len = ${bits}`).toBe(md);
    }
  });

  it('the FIPS 180-2 examples, as bytes and as strings', () => {
    const { cases } = JSON.parse(readFileSync(new URL('fips180-examples.json', katDir), 'utf8')) as { cases: { id: string; msg_ascii?: string; msg_generator?: string; sha256: string }[] };
    expect(cases.length).toBe(5);
    for (const c of cases) {
      const message = c.msg_ascii ?? (c.msg_generator === "'a' * 1000000" ? 'a'.repeat(1_000_000) : null);
      if (message === null) throw new Error(`unknown generator in ${c.id}`);
      expect(createHash('sha256').update(Buffer.from(message, 'latin1')).digest('hex'), c.id).toBe(c.sha256);
      expect(createHash('sha256').update(message).digest('hex'), `${c.id} (string)`).toBe(c.sha256);
    }
  });

  it('equals node:crypto on random bytes cut into random chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.array(fc.nat(200), { maxLength: 8 }), (bytes, cuts) => {
        const hash = createHash('sha256');
        let at = 0;
        for (const cut of cuts) {
          hash.update(bytes.subarray(at, Math.min(bytes.length, at + cut)));
          at = Math.min(bytes.length, at + cut);
        }
        hash.update(bytes.subarray(at));
        expect(hash.digest('hex')).toBe(nodeHex(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('every length around the block and padding boundaries, and a subarray at an odd offset', () => {
    const big = randomBytes(300);
    for (let n = 0; n <= 260; n++) {
      expect(createHash('sha256').update(big.subarray(3, 3 + n)).digest('hex'), `${n} bytes`).toBe(nodeHex(big.subarray(3, 3 + n)));
    }
  });

  it('strings as UTF-8 (astral characters, a lone surrogate as U+FFFD), latin1 and the digest encodings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        expect(createHash('sha256').update(text).digest('hex')).toBe(nodeCreateHash('sha256').update(text).digest('hex'));
        expect(createHash('sha256').update(text, 'utf8').digest('base64')).toBe(nodeCreateHash('sha256').update(text, 'utf8').digest('base64'));
      }),
    );
    expect(createHash('sha256').update('a\ud800b').digest('hex')).toBe(nodeCreateHash('sha256').update('a\ud800b').digest('hex'));
    expect(createHash('sha256').update('caf\u00e9', 'latin1').digest('hex')).toBe(nodeCreateHash('sha256').update('caf\u00e9', 'latin1').digest('hex'));
    const bytes = createHash('sha256').update('seed').digest();
    expect(Buffer.from(bytes).equals(nodeCreateHash('sha256').update('seed').digest())).toBe(true);
    // stats.ts seeds its generator with readUInt32BE of the digest's bytes.
    expect(bytes.readUInt32BE(4)).toBe(nodeCreateHash('sha256').update('seed').digest().readUInt32BE(4));
  });

  it('MD5 (an Every Eval Ever sidecar checksum) equals node:crypto, in chunks too', () => {
    expect(createHash('md5').update('').digest('hex')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(createHash('md5').update('The quick brown fox jumps over the lazy dog').digest('hex')).toBe('9e107d9d372bb6826bd81d3542a419d6');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(300), (bytes, cut) => {
        const at = Math.min(cut, bytes.length);
        expect(createHash('md5').update(bytes.subarray(0, at)).update(bytes.subarray(at)).digest('hex')).toBe(nodeCreateHash('md5').update(bytes).digest('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses another algorithm (NotInBrowserError: not re-derived here) and a second digest', () => {
    expect(() => createHash('sha1')).toThrow(/only sha256 and md5/);
    expect(isNotInBrowser((() => { try { createHash('sha512'); } catch (e) { return e; } })())).toBe(true);
    const hash = createHash('sha256');
    hash.digest('hex');
    expect(() => hash.digest('hex')).toThrow(/already/);
    expect(() => hash.update('x')).toThrow(/already/);
  });

  it('hashes 64 MiB in 1 MiB updates as node:crypto does (and reports its speed)', () => {
    const chunk = randomBytes(1 << 20);
    const ours = createHash('sha256');
    const theirs = nodeCreateHash('sha256');
    const started = performance.now();
    for (let i = 0; i < 64; i++) ours.update(chunk);
    const digest = ours.digest('hex');
    const seconds = (performance.now() - started) / 1000;
    for (let i = 0; i < 64; i++) theirs.update(chunk);
    expect(digest).toBe(theirs.digest('hex'));
    console.log(`browser/crypto.ts SHA-256 in Node: ${(64 / seconds).toFixed(0)} MiB/s`);
  });
});

describe('Buffer, isAscii and isUtf8 (browser/buffer.ts)', () => {
  it('isAscii and isUtf8 agree with node:buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(3), (bytes, offset) => {
        const view = bytes.subarray(Math.min(offset, bytes.length));
        expect(isAscii(view)).toBe(nodeIsAscii(view));
        expect(isUtf8(view)).toBe(nodeIsUtf8(view));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const bytes = new TextEncoder().encode(text);
        expect(isUtf8(bytes)).toBe(true);
        expect(isAscii(bytes)).toBe(nodeIsAscii(bytes));
      }),
    );
    const long = new Uint8Array(1000).fill(0x41);
    expect(isAscii(long)).toBe(true);
    long[997] = 0x80;
    expect(isAscii(long)).toBe(false);
    expect(isAscii(long.subarray(1, 900))).toBe(true);
  });

  it('UTF-8 and Latin-1 reads and writes, and byteLength, as Node', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (text, raw) => {
        const ours = BrowserBuffer.from(text, 'utf8');
        expect(Array.from(ours)).toEqual(Array.from(Buffer.from(text, 'utf8')));
        expect(ours.toString('utf8')).toBe(Buffer.from(text, 'utf8').toString('utf8'));
        expect(BrowserBuffer.byteLength(text, 'utf8')).toBe(Buffer.byteLength(text, 'utf8'));
        const bytes = BrowserBuffer.from(raw);
        expect(bytes.toString('latin1', 1, 30)).toBe(Buffer.from(raw).toString('latin1', 1, 30));
        expect(bytes.toString('utf8', 2)).toBe(Buffer.from(raw).toString('utf8', 2));
        expect(bytes.toString('hex')).toBe(Buffer.from(raw).toString('hex'));
        const into = BrowserBuffer.alloc(16);
        const nodeInto = Buffer.alloc(16);
        const write = (into as unknown as { utf8Write(s: string, o: number, l: number): number }).utf8Write;
        expect(write.call(into, text, 2, 10)).toBe(nodeInto.write(text, 2, 10, 'utf8'));
        expect(Array.from(into)).toEqual(Array.from(nodeInto));
      }),
    );
  });
});

describe('crc32 (browser/zlib.ts)', () => {
  it('agrees with node:zlib, with and without a running value', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), (bytes, value) => {
        expect(crc32(bytes)).toBe(nodeCrc32(bytes));
        expect(crc32(bytes, value)).toBe(nodeCrc32(bytes, value));
      }),
    );
    expect(crc32('123456789')).toBe(0xcbf43926);
  });
});

describe('the yauzl stand-in and NotInBrowserError', () => {
  it('every entry point refuses with an error the core recognises, naming verify.mjs', async () => {
    await expect(yauzl.fromBufferPromise()).rejects.toSatisfy(isNotInBrowser);
    await expect(yauzl.fromBufferPromise()).rejects.toThrow(/\.eval archive.*verify\.mjs/);
    expect(() => yauzl.fromBuffer()).toThrow(NotInBrowserError);
    const copy = new Error('x');
    copy.name = 'NotInBrowserError';
    expect(isNotInBrowser(copy)).toBe(true);
    expect(isNotInBrowser(new Error('x'))).toBe(false);
  });
});
