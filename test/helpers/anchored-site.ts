/**
 * A small built site with anchored freezes and a freeze log (issue 30,
 * FORMAT.md 12), for the page and browser tests of what the site says of
 * them. Two frozen bundles of one ledger, each carrying a real RFC 3161
 * token over its plan id (tsa-tokens.ts makeTsa): `before` anchored before
 * its first attempt by a pinned authority and listed in the freeze log,
 * `after` anchored after it by an authority the site does not pin (a hostile
 * name) and not in the log. The log also lists three plans never published
 * (two on the same ledger on two days, one on a ledger no bundle names), and
 * carries a finding.
 *
 * The report's `anchor` members and `freeze_log` are set here as the report
 * schema declares them (src/report/schema.ts): the pipeline emits them once
 * parts V and L of issue 30 are merged, and this fixture then overrides what
 * it emits with these values, so the pages are tested on known figures.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { buildSiteOf } from './site-build.ts';
import { makeTsa } from './tsa-tokens.ts';
import { makeTempDir, PLAN_CREATED_AT, validBundle, writeModel } from './bundle-builder.ts';

/** The authorities as the report names them (RFC 4514 subjects, untrusted). */
export const PINNED_AUTHORITY = 'CN=Test TSA,OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';
export const HOSTILE_AUTHORITY = 'CN=<script>alert("tsa")</script>\u202eevil';
/** The anchor times set on the two bundles. */
export const BEFORE_GEN_TIME = '2026-09-14T12:00:05Z';
export const AFTER_GEN_TIME = '2026-09-16T00:00:00Z';
/** The earliest started_at of validBundle()'s attempts. */
export const FIRST_ATTEMPT = '2026-09-15T08:00:02Z';
/** The title of a plan frozen and never published (evidence text: escaped on the page). */
export const HOSTILE_TITLE = '<img src=x onerror=alert("log")> never published';
const id = (c: string): string => `sha256:${c.repeat(64)}`;
/** The plans of the log never published: two on the bundles' ledger, one on another ledger. */
export const UNPUBLISHED = { first: id('b'), second: id('c'), other: id('d') };

/**
 * The log's lines in the agreed form (one RFC 8785 object a line): the three plans never published, the published
 * one, and the first of them again when its anchor came later (`freeze --anchor-only`).
 */
function logLines(ledger: string, before: string): string {
  const line = (plan_id: string, created_at: string, ledger_digest: string, title: string, anchor_digest: string | null) =>
    `${canonicalJson({ anchor_digest, created_at, ledger_digest, plan_id, schema: 'ledgerboard.freeze-log.v1', title })}\n`;
  return [
    line(UNPUBLISHED.other, '2026-09-01T10:00:00Z', id('e'), 'elsewhere', null),
    line(UNPUBLISHED.first, '2026-09-10T10:00:00Z', ledger, HOSTILE_TITLE, null),
    line(UNPUBLISHED.second, '2026-09-12T23:59:59Z', ledger, 'second try', null),
    line(before, PLAN_CREATED_AT, ledger, 'anchored before it ran', null),
    line(UNPUBLISHED.first, '2026-09-10T10:00:00Z', ledger, HOSTILE_TITLE, id('a')),
  ].join('');
}

export interface AnchoredSite {
  out: string;
  /** The freeze log's bytes (written beside the site as freeze-log.jsonl): the report's freeze_log is their reading. */
  log: { path: string; digest: string; lines: number };
  report: Report;
  /** The plan hex of each bundle. */
  before: string;
  after: string;
  /** The published token of each (its blob URL). */
  tokens: { before: string; after: string };
}

/** Builds the site into a new temporary directory (removed by removeTempDirs). */
export async function buildAnchoredSite(): Promise<AnchoredSite> {
  const tsa = makeTsa();
  try {
    const work = await makeTempDir('lb-anchored-site-');
    const dirs: string[] = [];
    for (const title of ['anchored before it ran', 'anchored after it ran']) {
      const model = validBundle();
      model.plan.title = title;
      const unsealed = await writeModel(model);
      const planId = (JSON.parse(await readFile(join(unsealed, 'plan.json'), 'utf8')) as { plan_id: string }).plan_id;
      model.extra.set('anchors/tsa.tsr', tsa.reply(tsa.query(planId.slice('sha256:'.length))).bytes);
      dirs.push(await writeModel(model));
    }
    const results = await verifyPaths(dirs);
    const config = Config.parse({ title: 'Anchored board', site_url: 'https://anchored.example/' });
    const built = buildReport(results, config);
    const plans = dirs.map((_, i) => results[i]!.verification.evidence.plan!);
    const [before, after] = ['anchored before it ran', 'anchored after it ran'].map((t) => plans.find((p) => p.title === t)!.plan_id);
    const ledger = plans[0]!.ledger.digest;
    // The log as part L of issue 30 writes it; the report's freeze_log below is what its reader makes of it.
    const logText = logLines(ledger, before!);
    const logPath = join(work, 'freeze-log.jsonl');
    await writeFile(logPath, logText);
    const report: Report = {
      ...built,
      bundles: built.bundles.map((b) => ({
        ...b,
        anchor:
          b.plan_id === before
            ? { gen_time: BEFORE_GEN_TIME, authority: PINNED_AUTHORITY, pinned: true, before_first_attempt: true }
            : { gen_time: AFTER_GEN_TIME, authority: HOSTILE_AUTHORITY, pinned: false, before_first_attempt: false },
      })),
      freeze_log: {
        digest: digestBytes(logText),
        lines: 5,
        plans: [
          { plan_id: UNPUBLISHED.other, created_at: '2026-09-01T10:00:00Z', ledger_digest: id('e'), title: 'elsewhere', anchor_digest: null, published: false },
          { plan_id: UNPUBLISHED.first, created_at: '2026-09-10T10:00:00Z', ledger_digest: ledger, title: HOSTILE_TITLE, anchor_digest: id('a'), published: false },
          { plan_id: UNPUBLISHED.second, created_at: '2026-09-12T23:59:59Z', ledger_digest: ledger, title: 'second try', anchor_digest: null, published: false },
          { plan_id: before!, created_at: PLAN_CREATED_AT, ledger_digest: ledger, title: 'anchored before it ran', anchor_digest: null, published: true },
        ],
        findings: [{ code: 'FREEZE_LOG_REWRITTEN', severity: 'error', file: 'freeze-log.jsonl', message: 'the retained copy <b>is not</b> a prefix of the log' }],
      },
    };
    const out = join(work, 'site');
    // The log's bytes for the build to publish at /freeze-log.jsonl (part L's SiteBuildOptions.freezeLog, which refuses a
    // report whose freeze_log is not these bytes'); typed as `object` so this compiles before and after part L is merged.
    const freezeLog = { freezeLog: { bytes: new TextEncoder().encode(logText), copies: [] } } as object;
    await buildSiteOf(report, results, config, { retainedDir: join(work, 'no-retained'), outDir: out, sourceDate: null, log: () => undefined, ...freezeLog });
    const token = (plan: string): string => {
      const r = results.find((x) => x.verification.evidence.plan?.plan_id === plan)!;
      return `/blobs/${r.entries.find((e) => e.path === 'anchors/tsa.tsr')!.sha256!.slice('sha256:'.length)}`;
    };
    return { out, log: { path: logPath, digest: digestBytes(logText), lines: 5 }, report, before: before!.slice(7), after: after!.slice(7), tokens: { before: token(before!), after: token(after!) } };
  } finally {
    tsa.remove();
  }
}
