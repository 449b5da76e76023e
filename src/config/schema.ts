/**
 * The config's schema and what follows from a config alone: pure (no disk),
 * so the report's schema and a stranger's re-derivation (src/rederive, also
 * bundled for a browser) import it without the loader (config.ts).
 */
import { z } from 'zod';
import { WithholdRule } from './withhold.ts';
import { LIMIT_DEFAULTS, type Limits } from '../schema/limits.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../import/limits.ts';
import type { Scorecard } from '../schema/scorecard.ts';
import { rootDigest, rootDigests, type PinnedRoot } from '../anchor/certificates.ts';

/**
 * The verdict PASS rule: no regressed task (any regression is REGRESSION
 * first, FORMAT.md 7.4, so this part is not configurable) and at least
 * `min_improved` improved tasks (default 1).
 */
export const AcceptanceRule = z.strictObject({
  min_improved: z.int().min(0).default(1).describe('How many headline tasks a candidate must improve (with none regressed) to PASS.'),
});
export type AcceptanceRule = z.infer<typeof AcceptanceRule>;

/** Pin the grading layer to one grader (id + version); null: each attempt's latest generation. */
export const GradingPin = z
  .strictObject({
    id: z.string().min(1).describe("The grader's id, as the grades files name it."),
    version: z.string().min(1).describe("The grader's version, as the grades files name it."),
  })
  .nullable();
export type GradingPin = z.infer<typeof GradingPin>;

/**
 * Limits on what one bundle may make ledgerboard read (src/schema/limits.ts; what a bundle over one gets: src/evidence/limits.ts).
 * Absent: the defaults, and the report's config has no `limits` member (so a
 * report made before limits existed keeps its id). Present: every limit, each
 * given value or its default, in the report.
 */
export const LimitsConfig = z.strictObject({
  files: z.int().min(1).default(LIMIT_DEFAULTS.files),
  file_bytes: z.int().min(1).default(LIMIT_DEFAULTS.file_bytes),
  structured_file_bytes: z.int().min(1).default(LIMIT_DEFAULTS.structured_file_bytes),
  structured_total_bytes: z.int().min(1).default(LIMIT_DEFAULTS.structured_total_bytes),
  jsonl_lines: z.int().min(1).default(LIMIT_DEFAULTS.jsonl_lines),
  line_bytes: z.int().min(1).default(LIMIT_DEFAULTS.line_bytes),
  depth: z.int().min(1).max(64, 'FORMAT.md makes nesting deeper than 64 BAD_JSON: depth is at most 64').default(LIMIT_DEFAULTS.depth),
  notes_bytes: z.int().min(1).default(LIMIT_DEFAULTS.notes_bytes),
  string_bytes: z.int().min(1).default(LIMIT_DEFAULTS.string_bytes),
});

/**
 * Limits of `ledgerboard import` (src/import/limits.ts): what one input may
 * make it read, and what an imported bundle's kept originals may make a
 * verifier read when it re-derives the import (src/import/rederive.ts).
 * Absent: the defaults, and the report's config has no `import_limits`
 * member; present: in the report, like `limits`.
 */
export const ImportLimitsConfig = z.strictObject({
  file_bytes: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxFileBytes).describe('Largest single input file read at all.'),
  files: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxFiles).describe('Most files an input directory may hold.'),
  input_bytes: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxInputBytes).describe("Largest total size of one input's files."),
  records: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxRecords).describe('Most records (samples, instances, trials, lines) one input may hold.'),
  string_bytes: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxStringBytes).describe('Longest string (model name, sample id) a mapped field keeps; a longer one is refused, never cut.'),
  archive_entries: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxEntries).describe("Most entries an archive's central directory may list."),
  entry_bytes: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxEntryBytes).describe('Largest uncompressed archive entry read.'),
  archive_bytes: z.int().min(1).default(DEFAULT_IMPORT_LIMITS.maxTotalBytes).describe('Largest total uncompressed size of the archive entries read.'),
});

/**
 * A site_url of plain characters only: http(s), a host of ASCII letters,
 * digits, "-" and "." (labels that neither start nor end with "-") or an IPv6
 * address in brackets, an optional port, then path names of ASCII letters,
 * digits and "._~-" (no "." or ".." name), each after one "/". No user name or
 * password, "%", space, quote, ";", "$" or any other character a shell, a URL
 * parser or an HTML attribute reads specially.
 */
const PLAIN_SITE_URL = /^https?:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)*\/?$/;
const SITE_URL_CHARACTERS =
  'expected a URL of plain characters, such as "https://user.github.io/board/": a host of ASCII letters, digits, "-" and "." (or an IPv6 address in brackets), an optional port, and path names of ASCII letters, digits and "._~-" (no "." or ".." name, no user name, no "%"); it goes into every command the site shows';

/** The whole config; every member has a default, so `{}` is a valid config. */
export const Config = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema this file follows, for editors (ledgerboard init writes the one in node_modules/ledgerboard/public/schema/config.json). Ignored by ledgerboard and left out of the report.'),
  title: z.string().min(1).default('ledgerboard').describe("The leaderboard's title: the site's heading, the citation's title and the feed's name."),
  site_url: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as "https://board.example.org/"' })
    // Any base path: pages link root-relative to it (/board/boards/...). A query or a fragment would make every URL ambiguous.
    // zod runs these even when the value is not a URL (already reported): that value passes them, and never throws here.
    .refine((url) => !URL.canParse(url) || (new URL(url).search === '' && new URL(url).hash === '' && !url.includes('?') && !url.includes('#')), 'expected a URL without a query or a fragment, such as "https://user.github.io/board/"')
    // It goes into every command the site shows (quoted there too: src/site/views/shell-quote.ts), every link and the feed: plain characters only.
    .refine((url) => !URL.canParse(url) || url.includes('?') || url.includes('#') || PLAIN_SITE_URL.test(url), SITE_URL_CHARACTERS)
    .default('http://localhost:4321/')
    .describe('Where the site is published (http or https), the root of an origin or a path under it (https://user.github.io/board/): every link, the canonical URLs, citations, the feed, the sitemap and the commands beside every id use it. A path without a final "/" gets one. Plain characters only: a host of ASCII letters, digits, "-" and "." (or an IPv6 address in brackets), an optional port, path names of ASCII letters, digits and "._~-".'),
  /** One directory, or several (e.g. frozen and imported evidence side by side), searched for bundles in order. */
  bundles_dir: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .default('content/bundles')
    .describe('Where build, retain and report (given no directory) look for bundles: one directory or a list, each relative to the config file. An empty directory is a board with no evidence yet.'),
  retained_reports_dir: z.string().min(1).default('content/reports').describe('The append-only history: retained reports (ledgerboard retain) and the manifests of the bundles they counted, relative to the config file.'),
  attestations_dir: z
    .string()
    .min(1)
    .default('content/attestations')
    .describe('Signed reports (ledgerboard sign, FORMAT.md 10): one DSSE envelope per report and key, <report-hex>/<keyid>.json, and the public keys, keys/<keyid>.pem, create-only, relative to the config file; build publishes them under /attestations/ and /keys.json. ledgerboard init sets it to history/attestations, beside the retained reports it signs (retained_reports_dir history).'),
  withhold: z
    .array(WithholdRule)
    .default([])
    .describe(
      'Files of the bundles whose bytes the site never publishes (verified and counted as usual; their digests stay public): a holdout kept secret until revealed by removing the rule. Each rule { path, reason, until? } applies to every bundle the config reads (every bundles_dir, frozen and imported alike): a file is withheld when a rule\'s path matches its path inside its bundle, and the first such rule gives its reason and until. Bytes equal to a withheld file\'s are withheld wherever they appear, unless they are also a file that is never withheld (then they are published and build says so). A rule that matches no file is a warning at build. Never changes a report id, a figure or a URL.',
    ),
  compare_max_cohorts: z
    .int()
    .min(2)
    .default(50)
    .describe('Site only: a board of at most this many cohorts gets a compare page (/boards/<hex>/compare/<a>/<b>/) for every pair of cohorts (50: up to 1,225 pages); a larger board links only each cohort\'s 5 nearest neighbours by rank, its pair matrix still showing every pair. Never changes a report id or a figure.'),
  acceptance: AcceptanceRule.default({ min_improved: 1 }).describe('The PASS rule: no regressed task and at least min_improved improved tasks (FORMAT.md 7.4).'),
  grading_pin: GradingPin.default(null).describe("null: each attempt's latest grading generation counts (FORMAT.md 7.1). { id, version }: only that grader's generation counts."),
  limits: LimitsConfig.optional().describe('What one bundle may make ledgerboard read; over a limit a bundle gets LIMIT_EXCEEDED (no verdict). Absent: the defaults, and the report carries no limits member.'),
  scorecard: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The score card (FORMAT.md 11): a path, relative to the config file, to a strict JSON file (`ledgerboard.scorecard.v1`, JSON Schema `public/schema/scorecard.json`) naming the levels a claim may take, the strongest level each access tier (and origin kind) may reach, and the indicators. Each cohort of the report then carries `claims`, none above its plans\' ceiling, and the site publishes the card as /scorecard.json. A card that breaks a rule stops the command (exit 2) naming the member. The report\'s config carries the card\'s RFC 8785 digest in its place. Absent: no claims (every cohort\'s `claims` is null).',
    ),
  timestamp_roots: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'The time-stamp authorities this board trusts (FORMAT.md 12): paths, relative to the config file, to PEM files of root certificates (each file one or more `-----BEGIN CERTIFICATE-----` blocks, at most 1 MiB). A bundle\'s anchor whose signer chains to one of them is `pinned`; any other anchor is shown with its authority\'s name and `not pinned`. A file that is missing, too large or holds no certificate, or a certificate that does not parse, stops the command (exit 2) naming the file. The report\'s config carries the certificates\' digests (`sha256:<hex of the DER>`, sorted) in place of the paths, and the site publishes each as /timestamp-roots/<hex>.pem. Absent: no authority is pinned, and the report\'s config has no `timestamp_roots` member.',
    ),
  import_limits: ImportLimitsConfig.optional().describe('What one input may make an importer read: `ledgerboard import` refuses an input over a limit (nothing written), and verification re-derives an imported bundle\'s import under them (kept originals over a limit: IMPORT_NOT_REPRODUCED). Absent: the defaults, and the report\'s config has no `import_limits` member. Present: every limit, each given value or its default, in the report (a stranger re-deriving needs the same).'),
});
export type Config = z.infer<typeof Config>;

/**
 * A score card as the config loader read it: the card, the file's bytes (the
 * site publishes them as /scorecard.json, byte for byte), the RFC 8785
 * digest of its JSON (what the report's config carries) and where it was read.
 */
export interface LoadedScorecard {
  card: Scorecard;
  bytes: Uint8Array;
  digest: string;
  /** The card's path as the config named it, resolved against the config file (for messages). */
  file: string;
}

const SCORECARD: unique symbol = Symbol('ledgerboard.scorecard');
type WithCard = Config & { [SCORECARD]?: LoadedScorecard };

/**
 * The config with its score card: `scorecard` holds the card's digest (what
 * the report's config carries, so the report id and every cache key that
 * digests the config follow the card's content, not its path), and the card
 * rides along under a symbol, which a spread copies and JSON leaves out.
 * loadConfigFile does this; so does a verifier that fetched /scorecard.json
 * and checked its digest.
 */
export function withScorecard(config: Config, loaded: LoadedScorecard): Config {
  return { ...config, scorecard: loaded.digest, [SCORECARD]: loaded } as WithCard;
}

/**
 * The score card in force: null when the config names none. Throws when the
 * config names one but carries no card of that digest (a config parsed
 * without its loader: a bug, never a report without claims).
 */
export function scorecardOf(config: Config): LoadedScorecard | null {
  if (config.scorecard === undefined) return null;
  const loaded = (config as WithCard)[SCORECARD];
  if (loaded === undefined || loaded.digest !== config.scorecard) {
    throw new Error(`internal: the config names the score card ${JSON.stringify(config.scorecard)} but carries no card of that digest (loadConfigFile reads the card; withScorecard attaches one)`);
  }
  return loaded;
}

const TIMESTAMP_ROOTS: unique symbol = Symbol('ledgerboard.timestamp_roots');
type WithRoots = Config & { [TIMESTAMP_ROOTS]?: readonly PinnedRoot[] };

/**
 * The config with its pinned time-stamp roots (FORMAT.md 12), like
 * withScorecard: `timestamp_roots` holds the roots' digests (sorted, each
 * once: what the report's config carries, so the report id and every cache
 * key that digests the config follow the certificates, not their paths), and
 * the parsed roots ride along under a symbol. loadConfigFile does this; so
 * does a verifier that fetched the site's /timestamp-roots/<hex>.pem and
 * checked each digest.
 */
export function withTimestampRoots(config: Config, roots: readonly PinnedRoot[]): Config {
  const byDigest = new Map<string, PinnedRoot>();
  for (const root of roots) {
    const digest = rootDigest(root);
    if (!byDigest.has(digest)) byDigest.set(digest, root);
  }
  const unique = [...byDigest.values()];
  return { ...config, timestamp_roots: rootDigests(unique), [TIMESTAMP_ROOTS]: unique } as WithRoots;
}

/**
 * The pinned time-stamp roots in force: none when the config names none.
 * Throws when the config names some but carries no roots of those digests
 * (a config parsed without its loader: a bug, never a board that silently
 * pins nothing).
 */
export function timestampRootsOf(config: Config): readonly PinnedRoot[] {
  if (config.timestamp_roots === undefined) return [];
  const roots = (config as WithRoots)[TIMESTAMP_ROOTS];
  const named = [...config.timestamp_roots].sort();
  if (roots === undefined || JSON.stringify(rootDigests(roots)) !== JSON.stringify(named)) {
    throw new Error(`internal: the config names the time-stamp roots ${JSON.stringify(config.timestamp_roots)} but carries no roots of those digests (loadConfigFile reads them; withTimestampRoots attaches them)`);
  }
  return roots;
}

/** The site's URL as its pages use it: site_url with its path ending in "/". */
export function siteUrlOf(config: Pick<Config, 'site_url'>): string {
  return new URL(basePathOf(config), config.site_url).href;
}

/** The path the site is served under: site_url's path, always ending with "/" ("/" at the root of an origin). */
export function basePathOf(config: Pick<Config, 'site_url'>): string {
  const path = new URL(config.site_url).pathname;
  return path.endsWith('/') ? path : `${path}/`;
}

/** The import limits in force: the config's `import_limits`, each missing one its default. */
export function importLimitsOf(config: Pick<Config, 'import_limits'>): ImportLimits {
  const l = config.import_limits;
  if (l === undefined) return { ...DEFAULT_IMPORT_LIMITS };
  return {
    maxFileBytes: l.file_bytes,
    maxFiles: l.files,
    maxInputBytes: l.input_bytes,
    maxRecords: l.records,
    maxStringBytes: l.string_bytes,
    maxEntries: l.archive_entries,
    maxEntryBytes: l.entry_bytes,
    maxTotalBytes: l.archive_bytes,
  };
}

/** The limits in force: the config's, else the defaults. */
export function limitsOf(config: Config): Limits {
  return { ...LIMIT_DEFAULTS, ...config.limits };
}
