/**
 * Issue 25, High 5: a hostile host must not hang verify.mjs or `ledgerboard
 * verify-site`, nor drive them to gigabytes. A loopback server (127.0.0.1,
 * port 0) serves a small real site (test/helpers/site-fixture.ts) and
 * misbehaves on one path: it never answers, stalls a body, sends a blob
 * endlessly (more than its listed size), redirects in a loop or to file:,
 * serves a 1 GB report.json (generated as it is sent, never held). Both
 * verifiers run as a stranger runs them (child `node` processes, the
 * compiled lib/), with a short --timeout: each stops within seconds and
 * bounded memory (the child's own peak RSS, process.resourceUsage), with one
 * line naming the URL and the bound it broke. A copy on disk: a FIFO or a
 * file longer than its listed size is never read.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, rm, truncate, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { digestHex } from '../../src/json/canonical.ts';
import { removeTempDirs } from '../helpers/bundle-builder.ts';
import { copySite } from '../helpers/forge-site.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';
import { buildSiteFixture, type SiteFixture } from '../helpers/site-fixture.ts';

/** Prints the child's peak RSS (KiB) on stderr as it exits. */
const RSS_HOOK = `data:text/javascript,${encodeURIComponent('process.on("exit",()=>process.stderr.write("\\nmaxrss_kib="+process.resourceUsage().maxRSS+"\\n"))')}`;
const MiB = 1024;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
  /** Peak RSS of the child in MiB (Infinity when it was killed). */
  rssMiB: number;
}

type Program = 'verify.mjs' | 'verify-site';
const PROGRAMS: Program[] = ['verify.mjs', 'verify-site'];

/** Runs one verifier as a child process (killed after 60 s: a hang fails the test, never the suite). */
function run(program: Program, args: readonly string[]): Promise<Run> {
  const entry = program === 'verify.mjs' ? [join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs')] : [join(REPO_ROOT, 'bin', 'ledgerboard.mjs'), 'verify-site'];
  const started = performance.now();
  return new Promise((done) => {
    execFile(process.execPath, ['--import', RSS_HOOK, ...entry, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL', maxBuffer: 1 << 24, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      const rss = /maxrss_kib=(\d+)/.exec(stderr);
      done({ code: error ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr, seconds: (performance.now() - started) / 1000, rssMiB: rss ? Number(rss[1]) / MiB : Infinity });
    });
  });
}

let site: SiteFixture;
let server: Server;
let base: string;
/** What the server does for one request; by default it serves the site's files. */
let behave: (req: IncomingMessage, res: ServerResponse) => boolean = () => false;

async function serveFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
  try {
    // The site publishes the script that built it (verify-site compares it with its own).
    const file = path === '/verify.mjs' ? join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs') : join(site.dir, ...path.split('/').filter((s) => s !== '' && s !== '..'));
    const bytes = await readFile(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
  } catch {
    res.writeHead(404).end();
  }
}

/** Sends `total` bytes of `chunk` repeated, chunked (no length up front), as fast as the reader takes them; never holds more than one chunk. */
function stream(res: ServerResponse, chunk: Buffer, total: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  let sent = 0;
  const more = (): void => {
    while (sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('error', () => undefined);
  more();
}

/** The blob of a counted bundle's plan.json: its URL path and listed size. */
function planBlob(): { path: string; bytes: number } {
  const bundle = site.bundles.find((b) => b.counted)!;
  const digest = bundle.digests.get('plan.json')!;
  return { path: `/blobs/${digestHex(digest)}`, bytes: 0 };
}

beforeAll(async () => {
  site = await buildSiteFixture();
  server = createServer((req, res) => {
    if (!behave(req, res)) void serveFile(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 120_000);
afterEach(() => {
  behave = () => false;
  server.closeAllConnections();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await removeTempDirs();
});

/** The one line on stderr that names the URL and the bound (the RSS line aside). */
const errorLines = (r: Run): string[] => r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('maxrss_kib='));

describe('a faithful site over loopback HTTP (the bounded reads change nothing)', () => {
  for (const program of PROGRAMS) {
    it(`${program}: 0 mismatches, exit 0`, async () => {
      const r = await run(program, ['--timeout', '5', base]);
      expect(r.stdout).toMatch(/\b0 mismatches\b/);
      expect(r.stdout).not.toMatch(/^MISMATCH/m);
      expect(r.code).toBe(0);
    }, 90_000);
  }
});

describe('a host that never answers, or stalls', () => {
  for (const program of PROGRAMS) {
    it(`${program}: /report.json never answered: exit 2 after --timeout, naming the URL and the bound`, async () => {
      behave = () => true; // no answer, ever
      const r = await run(program, ['--timeout', '1', base]);
      expect(r.code).toBe(2);
      expect(r.seconds).toBeLessThan(15);
      expect(errorLines(r).join('\n')).toContain(`${base}report.json: nothing received for 1 s (--timeout)`);
      expect(errorLines(r)).toHaveLength(1);
      expect(r.rssMiB).toBeLessThan(256);
    }, 90_000);

    it(`${program}: every blob's body stalls after its head: exit 2 once, not one timeout per blob`, async () => {
      behave = (req, res) => {
        if (!req.url!.startsWith('/blobs/')) return false;
        res.writeHead(200).write('x'); // a head and one byte, then nothing
        return true;
      };
      const r = await run(program, ['--timeout', '1', base]);
      expect(r.code).toBe(2);
      expect(r.seconds).toBeLessThan(15);
      const lines = errorLines(r);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`${base.replace(/[.]/g, '\\.')}blobs/[0-9a-f]{64}: nothing received for 1 s \\(--timeout\\); the site cannot be verified`));
      expect(r.stdout).toBe('');
    }, 90_000);
  }
});

describe('a blob sent endlessly (chunked, far past its listed size)', () => {
  for (const program of PROGRAMS) {
    it(`${program}: stops one byte past the listed size: a MISMATCH naming the URL and the size, exit 1, flat memory`, async () => {
      const blob = planBlob();
      const listed = JSON.parse(await readFile(join(site.dir, 'bundles', site.bundles.find((b) => b.counted)!.dirHex, 'manifest.json'), 'utf8')) as { files: { path: string; bytes: number }[] };
      blob.bytes = listed.files.find((f) => f.path === 'plan.json')!.bytes;
      let served = 0;
      behave = (req, res) => {
        if (req.url !== blob.path) return false;
        served++;
        stream(res, Buffer.alloc(64 * 1024, 0x20), Number.MAX_SAFE_INTEGER); // endless
        return true;
      };
      const r = await run(program, ['--timeout', '5', base]);
      expect(r.code).toBe(1);
      expect(served).toBeGreaterThan(0);
      expect(r.seconds).toBeLessThan(30);
      expect(r.rssMiB).toBeLessThan(256);
      expect(r.stdout).toContain(`${base}blobs/${blob.path.slice(7)}: more than the ${blob.bytes} bytes listed for it: stopped reading`);
      // verify.mjs's id checks and the re-derivation both say it (the re-derivation as a blob MISMATCH of the bundle).
      expect(r.stdout).toMatch(/^MISMATCH blob .*more than the \d+ bytes listed for it/m);
    }, 90_000);
  }
});

describe('redirects', () => {
  for (const program of PROGRAMS) {
    it(`${program}: a redirect loop stops after 5: exit 2 naming the URL and the bound`, async () => {
      let hops = 0;
      behave = (req, res) => {
        if (!req.url!.startsWith('/report.json')) return false;
        hops++;
        res.writeHead(302, { location: `/report.json?hop=${hops}` }).end();
        return true;
      };
      const r = await run(program, ['--timeout', '5', base]);
      expect(r.code).toBe(2);
      expect(hops).toBe(6); // the request and 5 redirects followed
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain(`${base}report.json: more than 5 redirects (the redirect bound)`);
    }, 90_000);

    for (const target of ['file:///etc/passwd', 'ftp://127.0.0.1/report.json', 'data:application/json,{}']) {
      it(`${program}: a redirect to ${target.split(':')[0]}: is not followed: exit 2 naming the URL and the scheme`, async () => {
        behave = (req, res) => {
          if (req.url !== '/report.json') return false;
          res.writeHead(301, { location: target }).end();
          return true;
        };
        const r = await run(program, ['--timeout', '5', base]);
        expect(r.code).toBe(2);
        expect(errorLines(r)).toHaveLength(1);
        expect(errorLines(r)[0]).toContain(`${base}report.json: redirected to a "${target.split(':')[0]}:" URL: only http: and https: are followed`);
      }, 90_000);
    }

    it(`${program}: a files.json redirected to file: mid-run stops the run (exit 2), naming that URL`, async () => {
      behave = (req, res) => {
        if (!req.url!.endsWith('/files.json')) return false;
        res.writeHead(307, { location: 'file:///etc/passwd' }).end();
        return true;
      };
      const r = await run(program, ['--timeout', '5', base]);
      expect(r.code).toBe(2);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toMatch(/bundles\/[0-9a-f]{64}\/files\.json: redirected to a "file:" URL/);
    }, 90_000);
  }
});

describe('a 1 GB report.json (generated as it is sent)', () => {
  const GB = 1024 ** 3;
  for (const program of PROGRAMS) {
    it(`${program}: stops at the document bound (256 MiB by default): exit 2 naming the URL and the bound, memory well under the 1 GB`, async () => {
      behave = (req, res) => {
        if (req.url !== '/report.json') return false;
        stream(res, Buffer.alloc(1024 * 1024, 0x20), GB);
        return true;
      };
      const r = await run(program, ['--timeout', '5', base]);
      expect(r.code).toBe(2);
      expect(r.seconds).toBeLessThan(40);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain(`${base}report.json: more than 268435456 bytes (the bound on a document, --max-document-bytes): stopped reading`);
      expect(r.rssMiB).toBeLessThan(700);
    }, 90_000);

    it(`${program}: --max-document-bytes 1048576 stops it at 1 MiB, in little memory; a stated Content-Length past the bound is refused unread`, async () => {
      let stated = false;
      behave = (req, res) => {
        if (req.url !== '/report.json') return false;
        if (stated) {
          res.writeHead(200, { 'content-length': String(GB) });
          res.write(Buffer.alloc(1024)); // then nothing: refused on the length alone, never waiting for the rest
        } else stream(res, Buffer.alloc(64 * 1024, 0x20), GB);
        return true;
      };
      const chunked = await run(program, ['--timeout', '5', '--max-document-bytes', '1048576', base]);
      stated = true;
      const withLength = await run(program, ['--timeout', '30', '--max-document-bytes', '1048576', base]);
      for (const r of [chunked, withLength]) {
        expect(r.code).toBe(2);
        expect(errorLines(r)).toHaveLength(1);
        expect(errorLines(r)[0]).toContain(`${base}report.json: more than 1048576 bytes (the bound on a document, --max-document-bytes): stopped reading`);
        expect(r.rssMiB).toBeLessThan(200);
      }
      expect(withLength.seconds).toBeLessThan(15);
    }, 90_000);
  }
});

describe('bad values of the flags', () => {
  for (const program of PROGRAMS) {
    it(`${program}: --timeout and --max-document-bytes must be positive numbers (exit 2)`, async () => {
      for (const args of [['--timeout', '0'], ['--timeout', 'soon'], ['--max-document-bytes', '-1'], ['--max-document-bytes', '1e9']]) {
        const r = await run(program, [...args, base]);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(args[0]!);
      }
    }, 90_000);
  }
});

describe('a copy on disk', () => {
  for (const program of PROGRAMS) {
    it(`${program}: a FIFO where a blob should be is refused, never opened for a blocking read`, async () => {
      const dir = await copySite(site.dir);
      const blob = planBlob();
      await rm(join(dir, ...blob.path.split('/')));
      execFileSync('mkfifo', [join(dir, ...blob.path.split('/'))]);
      const r = await run(program, [dir]);
      expect(r.seconds).toBeLessThan(30);
      expect(r.code).toBe(2);
      expect(errorLines(r).join('\n')).toContain(`refusing ${blob.path}: not a regular file`);
    }, 90_000);

    // 1.5 GiB: under Node's 2 GiB readFile limit, so a reader that reads whole files reads it all (3 GiB of RSS before the bound).
    it(`${program}: a blob file of 1.5 GiB (sparse) listed far smaller is a MISMATCH without being read`, async () => {
      const dir = await copySite(site.dir);
      const blob = planBlob();
      const file = join(dir, ...blob.path.split('/'));
      await writeFile(file, '');
      await truncate(file, 1.5 * 1024 ** 3);
      const r = await run(program, [dir]);
      expect(r.code).toBe(1);
      expect(r.seconds).toBeLessThan(30);
      expect(r.rssMiB).toBeLessThan(256);
      expect(r.stdout).toMatch(new RegExp(`${blob.path}: more than the \\d+ bytes listed for it: stopped reading`));
    }, 90_000);

    it(`${program}: a report.json of 1.5 GiB (sparse) is refused at the document bound without being read (exit 2)`, async () => {
      const dir = await copySite(site.dir);
      await truncate(join(dir, 'report.json'), 1.5 * 1024 ** 3);
      const r = await run(program, [dir]);
      expect(r.code).toBe(2);
      expect(r.rssMiB).toBeLessThan(256);
      expect(errorLines(r)).toHaveLength(1);
      expect(errorLines(r)[0]).toContain('/report.json: more than 268435456 bytes (the bound on a document, --max-document-bytes): stopped reading');
    }, 90_000);
  }
});
