/**
 * The freeze log on the site (issue 30): /freeze-log/ says, per ledger, how
 * many plans were frozen, how many a bundle of this report publishes, and
 * which were frozen and never published, from the report's `freeze_log`
 * (the log as the config's `freeze_log` held it when the report was made;
 * its bytes are published at /freeze-log.jsonl). Pure: the report and the
 * plan pages the site has. Titles and ledger names are evidence: they go
 * through `shortIdentity`, and the pages print them as text.
 */
import type { Report } from '../../report/schema.ts';
import { hexOf, shortIdentity } from '../views/format.ts';
import { MAX_ROWS } from '../views/rows.ts';

/** Where the site publishes the log's bytes (part L of issue 30). */
export const FREEZE_LOG_URL = '/freeze-log.jsonl';
/** The page that explains it. */
export const FREEZE_LOG_PAGE = '/freeze-log/';

/** At most this many dates are named in a ledger's sentence; the rest are counted. */
const MAX_DATES = 5;

/** A plan of the log as /freeze-log/ lists it. */
export interface SiteFreezePlan {
  plan_id: string;
  created_at: string;
  /** The title as shown (shortIdentity). */
  title: string;
  /** The SHA-256 of the .tsr answer `freeze --anchor` kept (the latest line's that has one); null: not anchored. */
  anchor_digest: string | null;
  /** The plan's page (/plans/<hex>/), when the site has one; null otherwise (not published, or its bundle does not verify). */
  page: string | null;
}

/** One ledger's plans in the log. */
export interface SiteFreezeLedger {
  ledger_digest: string;
  /** The ledger's name as the site shows it (shortIdentity), from a board or a bundle's plan; null when no bundle of the report names it. */
  name: string | null;
  frozen: number;
  published: number;
  unpublishedCount: number;
  /** "7 plans frozen, 5 published, 2 frozen on 2026-11-02 and 2026-11-05 and never published". */
  text: string;
  /** The plans never published (the first MAX_ROWS), in the log's order (created_at, then plan id). */
  unpublished: SiteFreezePlan[];
  /** The published plans (the first MAX_ROWS), in the log's order. */
  publishedPlans: SiteFreezePlan[];
}

/** The report's freeze log as the pages show it. */
export interface SiteFreezeLog {
  /** SHA-256 of the log's bytes (those at /freeze-log.jsonl). */
  digest: string;
  lines: number;
  frozen: number;
  published: number;
  unpublished: number;
  /** "7 plans frozen, 5 published, 2 never published" (the leaderboard's line). */
  text: string;
  ledgers: SiteFreezeLedger[];
  findings: NonNullable<Report['freeze_log']>['findings'];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "a", "a and b", "a, b and c", or the first MAX_DATES and "and N other days". */
function dateList(dates: readonly string[]): string {
  if (dates.length === 1) return dates[0]!;
  if (dates.length <= MAX_DATES) return `${dates.slice(0, -1).join(', ')} and ${dates[dates.length - 1]}`;
  const rest = dates.length - MAX_DATES;
  return `${dates.slice(0, MAX_DATES).join(', ')} and ${rest} other ${rest === 1 ? 'day' : 'days'}`;
}

/** A ledger's sentence: how many plans were frozen, published, and frozen on which days (UTC) and never published. */
export function freezeLedgerText(plans: readonly { created_at: string; published: boolean }[]): string {
  const unpublished = plans.filter((p) => !p.published);
  const head = `${plural(plans.length, 'plan')} frozen, ${plans.length - unpublished.length} published`;
  if (unpublished.length === 0) return head;
  // created_at is RFC 3339 UTC (its schema): its first ten characters are the UTC date.
  const dates = [...new Set(unpublished.map((p) => p.created_at.slice(0, 10)))].sort();
  return `${head}, ${unpublished.length} frozen on ${dateList(dates)} and never published`;
}

/**
 * The freeze log as the pages show it; null when the report carries none
 * (the config names no log, or a report made before issue 30). `planPages`
 * is the site's plan pages by plan hex (SiteModel.plans).
 */
export function siteFreezeLog(report: Pick<Report, 'freeze_log' | 'boards' | 'bundles'>, planPages: Readonly<Record<string, number>>): SiteFreezeLog | null {
  const log = report.freeze_log;
  if (log === null || log === undefined) return null;
  // A ledger's name as the site names it: its boards' (incompatibilities.astro), else a bundle's plan's.
  const names = new Map<string, string>();
  for (const b of report.boards) if (!names.has(b.ledger.digest)) names.set(b.ledger.digest, b.ledger.name);
  for (const b of report.bundles) if (b.plan !== null && !names.has(b.plan.ledger.digest)) names.set(b.plan.ledger.digest, b.plan.ledger.name);
  const byLedger = new Map<string, (typeof log.plans)[number][]>();
  for (const p of log.plans) {
    const list = byLedger.get(p.ledger_digest);
    if (list) list.push(p);
    else byLedger.set(p.ledger_digest, [p]);
  }
  const shown = (p: (typeof log.plans)[number]): SiteFreezePlan => {
    const hex = hexOf(p.plan_id);
    return { plan_id: p.plan_id, created_at: p.created_at, title: shortIdentity(p.title), anchor_digest: p.anchor_digest, page: Object.hasOwn(planPages, hex) ? `/plans/${hex}/` : null };
  };
  const ledgers = [...byLedger].map(([digest, plans]): SiteFreezeLedger => {
    const unpublished = plans.filter((p) => !p.published);
    const published = plans.filter((p) => p.published);
    const name = names.get(digest);
    return {
      ledger_digest: digest,
      name: name === undefined ? null : shortIdentity(name),
      frozen: plans.length,
      published: published.length,
      unpublishedCount: unpublished.length,
      text: freezeLedgerText(plans),
      unpublished: unpublished.slice(0, MAX_ROWS).map(shown),
      publishedPlans: published.slice(0, MAX_ROWS).map(shown),
    };
  });
  const published = log.plans.filter((p) => p.published).length;
  const unpublished = log.plans.length - published;
  return {
    digest: log.digest,
    lines: log.lines,
    frozen: log.plans.length,
    published,
    unpublished,
    text: `${plural(log.plans.length, 'plan')} frozen, ${published} published, ${unpublished} never published`,
    ledgers,
    findings: log.findings,
  };
}
