/**
 * The fixture most browser suites open: the demo built as `npm run build`
 * makes it (frozen and imported evidence), built once per test run and served
 * by the static server, with a JavaScript-on and a JavaScript-off browser.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Report } from '../../src/report/schema.ts';
import { removeTempDirs } from '../helpers/bundle-builder.ts';
import { launchBrowser, requireChromium, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

/** A built, served demo site and two browsers. */
export interface DemoSite {
  /** The built site's directory, shared with other suites: read only (copy it to change it). */
  out: string;
  server: StaticServer;
  /** Its report.json. */
  report: Report;
  jsOn: BrowserSession;
  jsOff: BrowserSession;
  /** Closes the browsers and the server and removes the temporary directories. */
  close(): Promise<void>;
}

/** Serves the run's shared demo build (test/browser/shared-demo.ts: read it, never write it); fails at once without Chromium. */
export async function openDemoSite(): Promise<DemoSite> {
  requireChromium();
  const out = await sharedDemoBuild();
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  const [server, jsOn, jsOff] = await Promise.all([serveStatic(out), launchBrowser({ javaScriptEnabled: true }), launchBrowser({ javaScriptEnabled: false })]);
  return {
    out,
    server,
    report,
    jsOn,
    jsOff,
    close: async () => {
      await Promise.allSettled([jsOn.close(), jsOff.close(), server.close()]);
      await removeTempDirs();
    },
  };
}

/** Runs with a new page of the session, closed afterwards. */
export async function withPage<T>(session: BrowserSession, run: (page: Page) => Promise<T>): Promise<T> {
  const page = await session.context.newPage();
  try {
    return await run(page);
  } finally {
    await page.close();
  }
}
