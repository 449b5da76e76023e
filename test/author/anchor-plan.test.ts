/**
 * Asking authorities (src/author/anchor.ts): the file name comes from the
 * URL's host alone, sanitised; the bounds on time and bytes; a name taken is
 * never overwritten; the progress lines.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorBaseName, anchorPlan, anchorUrlProblem } from '../../src/author/anchor.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import { startLocalTsa, type LocalTsa } from '../helpers/local-tsa.ts';
import { Scratch } from './helpers.ts';

const planId = digestBytes('anchor-plan test');
const scratch = new Scratch();
let tsa: LocalTsa;
beforeAll(async () => {
  tsa = await startLocalTsa();
}, 60_000);
afterAll(async () => {
  await tsa.close();
  await scratch.cleanup();
});

describe('the token file name', () => {
  it("is the URL's host name, lower case, outside [a-z0-9.-] replaced, never from the path or query", () => {
    expect(anchorBaseName('https://TSA.Example.COM:8443/../../etc/passwd?name=x.tsr')).toBe('tsa.example.com');
    expect(anchorBaseName('http://freetsa.org/tsr')).toBe('freetsa.org');
    expect(anchorBaseName('http://a_b.example/')).toBe('a-b.example');
    expect(anchorBaseName('http://[::1]:8080/')).toBe('1');
    expect(anchorBaseName('http://user:secret@tsa.example/')).toBe('tsa.example');
    for (const name of ['tsa.example.com', 'a-b.example', '1']) expect(name).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
  });

  it('accepts http: and https: URLs only', () => {
    expect(anchorUrlProblem('https://tsa.example/')).toBeNull();
    expect(anchorUrlProblem('http://127.0.0.1:1/')).toBeNull();
    expect(anchorUrlProblem('file:///etc/passwd')).toBe('--anchor takes http: and https: URLs only (got "file:")');
    expect(anchorUrlProblem('not a url')).toBe('--anchor "not a url" is not a URL');
  });
});

describe('anchorPlan', () => {
  it('writes <host>.tsr, then <host>-2.tsr beside a name already taken, never overwriting it; progress says asking ... done', async () => {
    tsa.setMode('ok');
    const dir = await scratch.dir();
    await mkdir(join(dir, 'anchors'));
    await writeFile(join(dir, 'anchors', '127.0.0.1.tsr'), 'kept');
    const progress: string[] = [];
    const outcomes = await anchorPlan(dir, planId, [tsa.url], (text) => progress.push(text));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.ok).toBe(true);
    expect((await readdir(join(dir, 'anchors'))).sort()).toEqual(['127.0.0.1-2.tsr', '127.0.0.1.tsr']);
    expect(await readFile(join(dir, 'anchors', '127.0.0.1.tsr'), 'utf8')).toBe('kept');
    expect(progress[0]).toBe(`asking ${new URL(tsa.url).host} ... `);
    expect(progress[1]).toMatch(/^done: granted at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, .*anchors\/127\.0\.0\.1-2\.tsr\n$/);
  });

  it('a token that cannot be written (anchors is a file) is a failure naming the path, not a crash', async () => {
    tsa.setMode('ok');
    const dir = await scratch.dir();
    await writeFile(join(dir, 'anchors'), 'not a directory');
    const [outcome] = await anchorPlan(dir, planId, [tsa.url], () => undefined);
    expect(outcome).toMatchObject({ ok: false, message: `the token came, but ${join(dir, 'anchors')} cannot be written (EEXIST)` });
    expect(await readFile(join(dir, 'anchors'), 'utf8')).toBe('not a directory');
  });

  it('a slow authority fails at the time bound, and nothing is written', async () => {
    tsa.setMode('ok', 1500);
    const dir = await scratch.dir();
    const started = Date.now();
    const [outcome] = await anchorPlan(dir, planId, [tsa.url], () => undefined, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1400);
    expect(outcome).toEqual({ url: tsa.url, host: new URL(tsa.url).host, ok: false, message: 'no complete answer within 0.3 s' });
    expect(await readdir(dir)).toEqual([]);
    tsa.setMode('ok');
  });

  it('an answer over the byte bound is not read past it, and nothing is written', async () => {
    tsa.setMode('ok');
    const dir = await scratch.dir();
    const [outcome] = await anchorPlan(dir, planId, [tsa.url], () => undefined, { maxBytes: 100 });
    expect(outcome).toMatchObject({ ok: false, message: 'the answer is over 100 bytes: stopped reading' });
    expect(await readdir(dir)).toEqual([]);
  });
});
