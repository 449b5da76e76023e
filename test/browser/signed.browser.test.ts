/**
 * Signed reports and withheld files on the pages (issue 16, FORMAT.md 10).
 *
 * The demo evidence is built into a site with `withhold: artifacts/grader/**`,
 * retained, signed with a key made by `ledgerboard keygen` in a temporary
 * directory, and built; then built again without the rule (the files
 * revealed), and once more with no attestation at all (not signed). Each is
 * served by the site's own static server and opened in Chromium:
 *
 * - the leaderboard says "Signed by key <12 hex>" and how many files are
 *   withheld, linking /withheld.json, with JavaScript on and off;
 * - /verify/ (JS on) reaches match, counts the withheld files as withheld,
 *   and says whether a valid signature by a pasted key id covers the report
 *   just fetched: the signer's id matches, another id has no signature, and
 *   over a tampered report.json the signature is invalid;
 * - a plan page lists its withheld files (path, digest, size, reason, until);
 * - the retained report's page says which of its withheld files have since
 *   been revealed;
 * - an unsigned build says "Not signed".
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite, launchBrowser, requireChromium, ROOT, type BrowserSession } from './browser.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const RULE = { path: 'artifacts/grader/**', reason: 'holdout <grader> inputs', until: '2027-01-01' };

let work: string;
let keyid: string;
let otherKeyid: string;
let reportHex: string;
let withheld: { bundle: string; path: string; sha256: string; bytes: number; reason: string; until: string | null }[];
const servers: Record<'signed' | 'revealed' | 'unsigned', StaticServer | null> = { signed: null, revealed: null, unsigned: null };
let jsOn: BrowserSession;
let jsOff: BrowserSession;

/** Runs the compiled CLI (as a publisher does); rejects with its output when it fails. */
async function cli(...args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/ledgerboard.mjs', ...args], { cwd: ROOT, env: { ...process.env, TZ: 'UTC', NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' } });
    return stdout;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`ledgerboard ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

const server = (name: keyof typeof servers): StaticServer => servers[name]!;

async function text(session: BrowserSession, url: string): Promise<string> {
  const page = await session.context.newPage();
  try {
    await page.goto(url);
    return (await page.evaluate(() => document.body.innerText)).replace(/\s+/g, ' ');
  } finally {
    await page.close();
  }
}

/** Clicks the /verify/ page's "everything" verifier and waits for it to finish. */
async function verifyAll(page: Page): Promise<{ status: string | null; live: string }> {
  await page.click('#verify-all button[data-verify]');
  await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('#verify-all')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 120_000 });
  return page.$eval('#verify-all', (root) => ({ status: root.getAttribute('data-verify-status'), live: root.querySelector('[data-verify-live]')?.textContent ?? '' }));
}

async function pin(page: Page, value: string): Promise<{ status: string | null; text: string }> {
  await page.fill('#verify-all input[data-verify-pin]', value);
  return page.$eval('#verify-all [data-verify-pin-result]', (out) => ({ status: out.getAttribute('data-verify-pin-status'), text: out.textContent ?? '' }));
}

beforeAll(async () => {
  requireChromium();
  work = await mkdtemp(join(tmpdir(), 'ledgerboard-signed-browser-'));
  await cp(join(ROOT, 'content', 'bundles'), join(work, 'evidence'), { recursive: true });
  const config = join(work, 'ledgerboard.config.json');
  const configure = (withhold: unknown[]) => writeFile(config, JSON.stringify({ title: 'signed board', bundles_dir: 'evidence', site_url: 'https://signed.example/', withhold }));
  await configure([RULE]);
  keyid = /^key id ([0-9a-f]{64})$/m.exec(await cli('keygen', '-o', join(work, 'keys'), '--config', config))![1]!;
  otherKeyid = /^key id ([0-9a-f]{64})$/m.exec(await cli('keygen', '-o', join(work, 'other-keys'), '--config', config))![1]!;
  await cli('retain', '--config', config, '--no-cache');
  await cli('sign', '--key', join(work, 'keys', `ledgerboard-${keyid}.key`), '--config', config, '--no-cache');
  await buildSite({ out: join(work, 'signed'), config });
  reportHex = (JSON.parse(await readFile(join(work, 'signed', 'report.json'), 'utf8')) as { report_id: string }).report_id.slice(7);
  withheld = (JSON.parse(await readFile(join(work, 'signed', 'withheld.json'), 'utf8')) as { files: typeof withheld }).files;
  // Revealed: the rule removed, the same evidence (and report id), the bytes now published.
  await configure([]);
  await buildSite({ out: join(work, 'revealed'), config });
  // Not signed: the same evidence, another config directory (no attestations, no history).
  await cp(join(work, 'evidence'), join(work, 'plain', 'evidence'), { recursive: true });
  await writeFile(join(work, 'plain', 'config.json'), JSON.stringify({ title: 'plain board', bundles_dir: 'evidence', site_url: 'https://plain.example/' }));
  await buildSite({ out: join(work, 'unsigned'), config: join(work, 'plain', 'config.json') });
  for (const name of ['signed', 'revealed', 'unsigned'] as const) servers[name] = await serveStatic(join(work, name));
  jsOn = await launchBrowser({ javaScriptEnabled: true });
  jsOff = await launchBrowser({ javaScriptEnabled: false });
}, 600_000);

afterAll(async () => {
  await jsOn?.close();
  await jsOff?.close();
  for (const s of Object.values(servers)) await s?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a signed site with withheld files', () => {
  it('withholds the grader files of the demo (their bytes are not under /blobs/)', async () => {
    expect(withheld.length).toBeGreaterThan(10);
    expect(withheld.every((f) => f.path.startsWith('artifacts/grader/') && f.reason === RULE.reason && f.until === RULE.until)).toBe(true);
    const blobs = new Set(await readdir(join(work, 'signed', 'blobs')));
    expect(withheld.filter((f) => blobs.has(f.sha256.slice(7)))).toEqual([]);
  });

  for (const js of ['on', 'off'] as const) {
    it(`the leaderboard says who signed and how many files are withheld (JavaScript ${js})`, async () => {
      const session = js === 'on' ? jsOn : jsOff;
      const body = await text(session, `${server('signed').origin}/`);
      expect(body).toContain(`Signed by key ${keyid.slice(0, 12)}`);
      expect(body).toContain(`node verify.mjs https://signed.example/ --key ${keyid}`);
      expect(body).toMatch(/a key a site serves proves nothing on its own/);
      expect(body).not.toMatch(/Not signed/);
      expect(body).toContain(`${withheld.length} files are withheld`);
      const page = await session.context.newPage();
      try {
        await page.goto(`${server('signed').origin}/`);
        expect(await page.getAttribute('[data-withheld-count]', 'data-withheld-count')).toBe(String(withheld.length));
        expect(await page.$$eval('a[href="/withheld.json"]', (as) => as.length)).toBeGreaterThan(0);
        expect(await page.getAttribute('section.signed', 'data-signed')).toBe('signed');
      } finally {
        await page.close();
      }
    });
  }

  it('/verify/ (JavaScript on) reaches match, counts the withheld files, and checks a pasted key id against the signature', async () => {
    const page = await jsOn.context.newPage();
    try {
      await page.goto(`${server('signed').origin}/verify/`);
      expect(await pin(page, keyid)).toMatchObject({ status: 'not-run' });
      const outcome = await verifyAll(page);
      expect(outcome.status, outcome.live).toBe('match');
      expect(outcome.live).toMatch(new RegExp(`^(\\d+) of \\1 files match, ${withheld.length} withheld \\(committed digest, not published\\)$`));
      const items = await page.$$eval('#verify-all [data-verify-results] li', (lis) => lis.map((li) => li.textContent ?? ''));
      expect(items.some((t) => t.startsWith(`match: signed by key ${keyid}`))).toBe(true);
      const right = await pin(page, keyid.toUpperCase());
      expect(right.status).toBe('match');
      expect(right.text).toContain(`a valid signature by your pinned key ${keyid} covers the report.json`);
      const wrong = await pin(page, otherKeyid);
      expect(wrong.status).toBe('unsigned');
      expect(wrong.text).toContain(`No signature by key ${otherKeyid.slice(0, 12)}`);
      expect((await pin(page, 'not a key')).status).toBe('not-a-key-id');
    } finally {
      await page.close();
    }
  });

  it('on a phone (390 px) the signature, the key id box and the withheld table never widen the page', async () => {
    const bundle = withheld[0]!.bundle;
    const manifest = JSON.parse(await readFile(join(work, 'signed', 'bundles', bundle, 'manifest.json'), 'utf8')) as { plan_id: string };
    const page = await jsOn.context.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of ['/', '/verify/', `/reports/${reportHex}/`, `/plans/${manifest.plan_id.slice(7)}/`]) {
        await page.goto(server('signed').origin + path);
        await page.$$eval('details', (ds) => ds.forEach((d) => d.setAttribute('open', '')));
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      }
    } finally {
      await page.close();
    }
  });

  it('axe-core finds no violation on the signed pages (the leaderboard, /verify/ after a run, the retained report, a plan page with withheld files)', async () => {
    const bundle = withheld[0]!.bundle;
    const manifest = JSON.parse(await readFile(join(work, 'signed', 'bundles', bundle, 'manifest.json'), 'utf8')) as { plan_id: string };
    const page = await jsOn.context.newPage();
    const problems: string[] = [];
    try {
      for (const path of ['/', '/verify/', `/reports/${reportHex}/`, `/plans/${manifest.plan_id.slice(7)}/`]) {
        await page.goto(server('signed').origin + path);
        if (path === '/verify/') {
          await page.fill('#verify-all input[data-verify-pin]', keyid);
          await verifyAll(page);
        }
        await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
        const violations = await page.evaluate(async () => {
          const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { html: string }[] }[] }> } }).axe;
          return (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`);
        });
        problems.push(...violations.map((v) => `${path}: ${v}`));
      }
    } finally {
      await page.close();
    }
    expect(problems).toEqual([]);
  });

  it('/verify/: over a report.json with one byte changed, the pinned key\'s signature is invalid', async () => {
    const page = await jsOn.context.newPage();
    try {
      await page.route('**/report.json', async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, body: (await response.text()).replace('"title":"signed board"', '"title":"signed boars"') });
      });
      await page.goto(`${server('signed').origin}/verify/`);
      await page.fill('#verify-all input[data-verify-pin]', keyid);
      expect((await verifyAll(page)).status).toBe('mismatch');
      const result = await page.$eval('#verify-all [data-verify-pin-result]', (out) => ({ status: out.getAttribute('data-verify-pin-status'), text: out.textContent ?? '' }));
      expect(result.status).toBe('invalid');
      expect(result.text).toContain('SUBJECT_MISMATCH: report.json');
    } finally {
      await page.close();
    }
  });

  for (const js of ['on', 'off'] as const) {
    it(`a plan page lists its withheld files with digest, size, reason and until (JavaScript ${js})`, async () => {
      const bundle = withheld[0]!.bundle;
      const manifest = JSON.parse(await readFile(join(work, 'signed', 'bundles', bundle, 'manifest.json'), 'utf8')) as { plan_id: string };
      const mine = withheld.filter((f) => f.bundle === bundle);
      const page = await (js === 'on' ? jsOn : jsOff).context.newPage();
      try {
        await page.goto(`${server('signed').origin}/plans/${manifest.plan_id.slice(7)}/`);
        const rows = await page.$$eval('tr[data-withheld-path]', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
        expect(rows.length).toBe(mine.length);
        for (const [i, f] of mine.entries()) {
          expect(rows[i]![0]).toBe(f.path);
          expect(rows[i]![1]).toBe(String(f.bytes));
          expect(rows[i]![2]).toContain(f.sha256);
          expect(rows[i]![3]).toBe(`${RULE.reason} (until ${RULE.until})`);
        }
        const body = (await page.evaluate(() => document.body.innerText)).replace(/\s+/g, ' ');
        expect(body).toContain(`Withheld files: ${mine.length}`);
      } finally {
        await page.close();
      }
    });
  }

  it('the plan page verifier (JavaScript on) counts its withheld files, never fetching them', async () => {
    const bundle = withheld[0]!.bundle;
    const manifest = JSON.parse(await readFile(join(work, 'signed', 'bundles', bundle, 'manifest.json'), 'utf8')) as { plan_id: string };
    const page = await jsOn.context.newPage();
    try {
      await page.goto(`${server('signed').origin}/plans/${manifest.plan_id.slice(7)}/`);
      await page.click('[data-verify-root] button[data-verify]');
      await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
      expect(await page.getAttribute('[data-verify-root]', 'data-verify-status')).toBe('match');
      expect(await page.textContent('[data-verify-root] [data-verify-live]')).toContain(`${withheld.filter((f) => f.bundle === bundle).length} withheld (committed digest, not published)`);
      // No verifier (this one, or /verify/'s before it) ever asked for a withheld file's bytes.
      const asked = new Set(server('signed').requests);
      expect(withheld.filter((f) => asked.has(`/blobs/${f.sha256.slice(7)}`))).toEqual([]);
      expect(server('signed').requests.filter((r) => r.startsWith('/blobs/')).length).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('past the 1,000 withheld files a page lists, the plan page verifier reads the rest from /withheld.json (never fetching one)', async () => {
    const bundle = withheld[0]!.bundle;
    const mine = withheld.filter((f) => f.bundle === bundle);
    expect(mine.length).toBeGreaterThan(1);
    const manifest = JSON.parse(await readFile(join(work, 'signed', 'bundles', bundle, 'manifest.json'), 'utf8')) as { plan_id: string };
    // What a page of a bundle with over 1,000 withheld files carries: a list cut short, and where the rest are.
    const run = async (withList: boolean) => {
      const page = await jsOn.context.newPage();
      try {
        await page.goto(`${server('signed').origin}/plans/${manifest.plan_id.slice(7)}/`);
        await page.evaluate(
          ({ withList, bundle }) => {
            const root = document.querySelector('[data-verify-root]')!;
            const checks = JSON.parse(root.getAttribute('data-verify-checks')!) as { kind: string; withheld?: string[] }[];
            for (const c of checks) if (c.kind === 'manifest') Object.assign(c, { withheld: c.withheld!.slice(0, 1) }, withList ? { withheldList: '/withheld.json', bundle } : {});
            root.setAttribute('data-verify-checks', JSON.stringify(checks));
          },
          { withList, bundle },
        );
        const before = server('signed').requests.length;
        await page.click('[data-verify-root] button[data-verify]');
        await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
        const asked = new Set(server('signed').requests.slice(before));
        return {
          status: await page.getAttribute('[data-verify-root]', 'data-verify-status'),
          live: (await page.textContent('[data-verify-root] [data-verify-live]')) ?? '',
          fetchedWithheld: mine.filter((f) => asked.has(`/blobs/${f.sha256.slice(7)}`)).length,
          list: asked.has('/withheld.json'),
        };
      } finally {
        await page.close();
      }
    };
    const listed = await run(true);
    expect(listed).toMatchObject({ status: 'match', fetchedWithheld: 0, list: true });
    expect(listed.live).toContain(`${mine.length} withheld (committed digest, not published)`);
    // Without the list, the files past the cut would be fetched (and are not there): the check fails.
    const cut = await run(false);
    expect(cut.status).toBe('mismatch');
    expect(cut.fetchedWithheld).toBe(mine.length - 1);
  });

  it('the retained report says signed, and (JavaScript off) which withheld files are still withheld, then revealed', async () => {
    const before = await text(jsOff, `${server('signed').origin}/reports/${reportHex}/`);
    expect(before).toContain(`Signed by key ${keyid.slice(0, 12)}`);
    expect(before).toContain(`${withheld.length} files were withheld`);
    expect(before).toContain(`0 revealed, ${withheld.length} still withheld`);
    const after = await text(jsOff, `${server('revealed').origin}/reports/${reportHex}/`);
    expect(after).toContain(`${withheld.length} revealed, 0 still withheld`);
    expect(after).toContain('revealed since: its bytes are published now');
    // The same report id, now with the bytes.
    expect((JSON.parse(await readFile(join(work, 'revealed', 'report.json'), 'utf8')) as { report_id: string }).report_id).toBe(`sha256:${reportHex}`);
    const blobs = new Set(await readdir(join(work, 'revealed', 'blobs')));
    expect(withheld.every((f) => blobs.has(f.sha256.slice(7)))).toBe(true);
  });
});

describe('an unsigned site', () => {
  for (const js of ['on', 'off'] as const) {
    it(`says "Not signed" on the leaderboard and /verify/, and withholds nothing (JavaScript ${js})`, async () => {
      const session = js === 'on' ? jsOn : jsOff;
      const body = await text(session, `${server('unsigned').origin}/`);
      expect(body).toContain('Not signed');
      expect(body).not.toMatch(/Signed by key/);
      expect(body).not.toMatch(/files? (is|are) withheld/);
      expect(await text(session, `${server('unsigned').origin}/verify/`)).toContain('Not signed');
    });
  }
});
