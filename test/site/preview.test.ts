/**
 * `ledgerboard preview` and the static server behind it (src/site/build/serve.ts):
 * the built site is served at its base path as a plain static host would,
 * extensionless files as application/octet-stream, nothing outside the
 * directory or the base path.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { filePathOf, serveSite } from '../../src/site/build/serve.ts';
import { runCli } from '../helpers/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function fakeSite(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-serve-'));
  temps.push(dir);
  await mkdir(join(dir, 'boards', 'ab'), { recursive: true });
  await mkdir(join(dir, 'blobs'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>home</title>');
  await writeFile(join(dir, 'boards', 'ab', 'index.html'), '<!doctype html><title>board</title>');
  await writeFile(join(dir, 'blobs', 'aa11'), '<script>alert(1)</script>');
  await writeFile(join(dir, 'report.json'), '{}\n');
  await symlink('/etc/passwd', join(dir, 'passwd'));
  return dir;
}

describe('serveSite', () => {
  it('serves the site under its base path, extensionless files as octet-stream, and nothing else', async () => {
    const dir = await fakeSite();
    const server = await serveSite({ root: dir, basePath: '/board/' });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/board\/$/);
      const get = (path: string) => fetch(new URL(path, server.url), { redirect: 'manual' });
      const home = await get('/board/');
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await home.text()).toContain('<title>home</title>');
      expect((await get('/board/boards/ab/')).status).toBe(200);
      const blob = await get('/board/blobs/aa11');
      expect(blob.headers.get('content-type')).toBe('application/octet-stream');
      expect(blob.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await get('/board/report.json')).headers.get('content-type')).toBe('application/json');
      const bare = await get('/board');
      expect(bare.status).toBe(301);
      expect(bare.headers.get('location')).toBe('/board/');
      for (const path of ['/', '/index.html', '/board/missing', '/board/boards/ab', '/board/passwd', '/board/%2e%2e/etc/passwd', '/board/..%2f..%2fetc%2fpasswd', '/board/%E0%A4%A']) {
        expect((await get(path)).status, path).toBe(404);
      }
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('maps URL paths to files only inside the root and the base', () => {
    expect(filePathOf('/r', '/b/x/', '/b/')).toBe(join('/r', 'x', 'index.html'));
    expect(filePathOf('/r', '/b/a%20b', '/b/')).toBe(join('/r', 'a b'));
    expect(filePathOf('/r', '/c/x', '/b/')).toBeNull();
    expect(filePathOf('/r', '/b/a//b', '/b/')).toBeNull();
    expect(filePathOf('/r', '/b/a%2fb', '/b/')).toBeNull();
    // A dot segment hidden by percent-encoding (fetch would normalise it away before the server saw it).
    expect(filePathOf('/r', '/b/%2e%2e/etc/passwd', '/b/')).toBeNull();
    expect(filePathOf('/r', '/b/a%5cb', '/b/')).toBeNull();
  });
});

describe('ledgerboard preview', () => {
  it('refuses a directory that holds no built site, and a bad port (exit 2)', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'lb-nosite-'));
    temps.push(empty);
    const none = await runCli(['preview', '--out', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no built site in ${empty} (no index.html): run \`ledgerboard build\` first`);
    const dir = await fakeSite();
    const port = await runCli(['preview', '--out', dir, '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a number from 0 to 65535');
  });

  it('serves a built site as a real process, prints its URL, and stops on SIGTERM with exit 0', async () => {
    const dir = await fakeSite();
    const child = spawn(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'preview', '--out', dir, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          const match = /at (http:\/\/127\.0\.0\.1:[0-9]+\/) \(Ctrl-C to stop\)/.exec(text);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`preview exited ${code} before serving`)));
      });
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<title>home</title>');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
