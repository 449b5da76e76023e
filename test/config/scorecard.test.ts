/**
 * The config's `scorecard` (FORMAT.md 11.1): a path relative to the config
 * file, read strictly by the loader. A card that breaks a rule is a
 * ConfigError (a usage error, exit 2) naming the config's member, the card's
 * file and the card's member; a good card comes back attached, the config
 * holding its RFC 8785 digest, which the report's config carries in place
 * of the path.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, scorecardOf, withScorecard, Config } from '../../src/config/config.ts';
import { digestCanonical } from '../../src/json/canonical.ts';
import { parseStrictText } from '../../src/json/strict-json.ts';
import { reportConfigOf } from '../../src/report/schema.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { readCorpora } from '../browser/hostile.ts';
import { exampleCard } from '../helpers/scorecard.ts';

afterAll(removeTempDirs);

const CARD = exampleCard([
    { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'wilson_low', at_least: [0.1, 0.4, 0.7] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
]);

/** A config in a fresh directory naming `cards/card.json` (written as given: a value is pretty-printed, a string written as is). */
async function load(card: unknown): Promise<{ dir: string; cardFile: string; result: Awaited<ReturnType<typeof loadConfigFile>> | ConfigError }> {
  const dir = await makeTempDir('ledgerboard-card-');
  await mkdir(join(dir, 'cards'));
  const cardFile = join(dir, 'cards', 'card.json');
  if (card !== undefined) await writeFile(cardFile, typeof card === 'string' ? card : `${JSON.stringify(card, null, 2)}\n`);
  await writeFile(join(dir, 'lb.json'), JSON.stringify({ title: 't', scorecard: 'cards/card.json' }));
  const result = await loadConfigFile(join(dir, 'lb.json')).catch((e: unknown) => {
    if (e instanceof ConfigError) return e;
    throw e;
  });
  return { dir, cardFile, result };
}

/** The ConfigError a card gives: its message names the config, its member, the card file and each problem. */
async function problems(card: unknown): Promise<string> {
  const { dir, cardFile, result } = await load(card);
  expect(result).toBeInstanceOf(ConfigError);
  const message = (result as ConfigError).message;
  expect(message.startsWith(`${join(dir, 'lb.json')}: scorecard: `), message).toBe(true);
  expect(message, message).toContain(cardFile);
  return message;
}

const bad = (edit: (card: typeof CARD & Record<string, unknown>) => void) => {
  const card = structuredClone(CARD) as typeof CARD & Record<string, unknown>;
  edit(card);
  return card;
};

describe('a good card', () => {
  it('is read relative to the config file and attached: the config holds its digest, the report config carries it in place of the path', async () => {
    const text = `${JSON.stringify(CARD, null, 2)}\n`;
    const { result } = await load(text);
    if (result instanceof ConfigError) throw result;
    const digest = digestCanonical(CARD);
    expect(result.config.scorecard).toBe(digest);
    const loaded = scorecardOf(result.config)!;
    expect(loaded.digest).toBe(digest);
    expect(Buffer.from(loaded.bytes).toString('utf8')).toBe(text); // the bytes the site publishes, as written
    expect(loaded.card.indicators.map((i) => i.id)).toEqual(['resolves_headline', 'no_weight_tampering']);
    const reported = reportConfigOf(result.config);
    expect(reported.scorecard).toBe(digest);
    // The report's config is plain data: the loaded card (kept under a symbol on the config) is not copied into it.
    expect(Object.getOwnPropertySymbols(reported)).toEqual([]);
    expect(Object.getOwnPropertySymbols(result.config).length).toBe(1);
    // A spread copy keeps the card; JSON leaves it out.
    expect(scorecardOf({ ...result.config })!.digest).toBe(digest);
    expect(JSON.stringify(result.config)).not.toContain('not_supported');
  });

  it('the digest follows the content, not the layout: the same card reformatted has the same digest, a changed level another', async () => {
    const compact = await load(JSON.stringify(CARD));
    const pretty = await load(CARD);
    const changed = await load(bad((c) => (c.tiers[0]!.ceiling = 'strong')));
    const digestOf = (r: typeof compact) => (r.result as { config: Config }).config.scorecard;
    expect(digestOf(compact)).toBe(digestOf(pretty));
    expect(digestOf(changed)).not.toBe(digestOf(pretty));
  });

  it('without a card: no scorecard member, scorecardOf null, the report config has no scorecard', () => {
    const config = Config.parse({});
    expect(scorecardOf(config)).toBeNull();
    expect(reportConfigOf(config)).not.toHaveProperty('scorecard');
  });

  it('a config naming a card that was never loaded is an internal error, never a report without claims', () => {
    expect(() => scorecardOf(Config.parse({ scorecard: 'cards/card.json' }))).toThrow(/internal: the config names the score card "cards\/card\.json" but carries no card of that digest/);
    const card = { card: CARD as never, bytes: new Uint8Array(), digest: digestCanonical(CARD), file: 'x' };
    expect(() => scorecardOf({ ...withScorecard(Config.parse({}), card), scorecard: digestCanonical({}) })).toThrow(/internal/);
  });
});

describe('a card that breaks a rule stops the build, naming the member (FORMAT.md 11.1)', () => {
  it('a missing file', async () => {
    const message = await problems(undefined);
    expect(message).toMatch(/: scorecard: cannot read the score card .*card\.json: ENOENT$/);
  });

  it('not strict JSON (a duplicate member)', async () => {
    const message = await problems('{"schema":"ledgerboard.scorecard.v1","levels":["a","b"],"levels":["a","b"],"tiers":[],"indicators":[]}');
    expect(message).toMatch(/card\.json: line 1, column \d+: .*levels/);
  });

  const cases: [string, (card: typeof CARD & Record<string, unknown>) => void, string][] = [
    ['an unknown member', (c) => (c.tier = []), '(root): unknown member "tier"'],
    ['an unknown member of an indicator', (c) => ((c.indicators[0] as Record<string, unknown>).weight = 2), 'indicators[0]: unknown member "weight"'],
    ['an unknown member of a tier', (c) => ((c.tiers[0] as Record<string, unknown>).floor = 'x'), 'tiers[0]: unknown member "floor"'],
    ['another schema', (c) => (c.schema = 'ledgerboard.scorecard.v2'), 'schema: '],
    ['one level', (c) => (c.levels = ['only']), 'levels: a card declares at least two levels, weakest first'],
    ['a duplicate level', (c) => (c.levels = ['not_supported', 'indicative', 'indicative', 'strong']), 'levels[2]: level "indicative" is declared twice'],
    ['a duplicate tier', (c) => c.tiers.push({ name: 'black_box', ceiling: 'strong' }), 'tiers[2]: tier "black_box" is declared twice'],
    ['a duplicate origin kind', (c) => c.origins.push({ kind: 'imported', ceiling: 'strong' }), 'origins[1]: origin kind "imported" is declared twice'],
    ['a duplicate indicator id', (c) => c.indicators.push({ id: 'resolves_headline', title: 'again', assessed: true }), 'indicators[2]: indicator id "resolves_headline" is declared twice'],
    ['a tier ceiling that is not a declared level', (c) => (c.tiers[1]!.ceiling = 'Strong'), 'tiers[1].ceiling: ceiling "Strong" is not a declared level'],
    ['an origin ceiling that is not a declared level', (c) => (c.origins[0]!.ceiling = 'weak'), 'origins[0].ceiling: ceiling "weak" is not a declared level'],
    ['an origin kind that is not one of FORMAT.md 9', (c) => (c.origins[0]!.kind = 'imported '), 'origins[0].kind: an origin kind is "frozen" or "imported" (FORMAT.md 9)'],
    ['a threshold list of the wrong length', (c) => ((c.indicators[0] as { computed: { at_least: number[] } }).computed.at_least = [0.1, 0.4]), "indicators[0].computed.at_least: at_least holds 2 numbers; the card's 4 levels need exactly 3"],
    ['a threshold list that is not non-decreasing', (c) => ((c.indicators[0] as { computed: { at_least: number[] } }).computed.at_least = [0.1, 0.7, 0.4]), 'indicators[0].computed.at_least[2]: at_least must be non-decreasing'],
    ['an indicator both computed and assessed', (c) => ((c.indicators[0] as Record<string, unknown>).assessed = true), 'indicators[0]: an indicator is computed or assessed, never both'],
    ['an indicator neither computed nor assessed', (c) => delete (c.indicators[1] as Record<string, unknown>).assessed, 'indicators[1]: expected an indicator { "id", "title", "computed": { "figure", "at_least" } } or { "id", "title", "assessed": true }'],
    ['assessed not true', (c) => ((c.indicators[1] as Record<string, unknown>).assessed = false), 'indicators[1].assessed: expected true: an assessed indicator says "assessed": true'],
    ['an indicator id outside [a-z0-9_]{1,64}', (c) => (c.indicators[1]!.id = 'No-Tampering'), 'indicators[1].id: an indicator id is 1 to 64 of a-z, 0-9 and _'],
    ['an unknown figure', (c) => ((c.indicators[0] as { computed: { figure: string } }).computed.figure = 'pass_at_1'), 'indicators[0].computed.figure: expected one of the figures "rate", "wilson_low", "beats_baseline", "stability"'],
  ];
  for (const [what, edit, expected] of cases) {
    it(what, async () => {
      const message = await problems(bad(edit));
      expect(message).toContain(' is not a valid score card:\n  ');
      // Each problem on its own line; the schema's literal message is zod's own, so only its member is held to.
      const lines = message.split('\n').slice(1);
      expect(lines.some((l) => (expected.endsWith(': ') ? l.startsWith(`  ${expected}`) : l === `  ${expected}`)), message).toBe(true);
    });
  }
});

describe('hostile names in a card (test/fixtures: the XSS cheat sheet and the Big List of Naughty Strings)', () => {
  it('each name a problem quotes is a JSON string: escaped, on its own line, never a raw control or bidi character', async () => {
    const { xss, blns } = await readCorpora();
    // Names strict JSON refuses (a noncharacter such as U+FFFE: I-JSON) make the card unreadable, said with the position.
    const readable = (n: string) => parseStrictText(JSON.stringify(n)).ok;
    const names = [...new Set([...blns, ...xss])].filter(readable);
    expect(names.length).toBeGreaterThan(500);
    expect(await problems({ schema: 'ledgerboard.scorecard.v1', levels: ['a', '\ufffe'], tiers: [], indicators: [] })).toMatch(/card\.json: line \d+, column \d+: noncharacter U\+FFFE$/);
    // Every name declared twice: one problem each, naming the second.
    const levels = names.flatMap((n) => [n, n]);
    const message = await problems({ schema: 'ledgerboard.scorecard.v1', levels, tiers: [], indicators: [] });
    const lines = message.split('\n').slice(1);
    // A JSON string, and what JSON leaves raw (DEL, C1 controls, bidi marks and overrides) as \\uXXXX too.
    const quoted = (n: string) => JSON.stringify(n).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(lines).toEqual(names.map((n, i) => `  levels[${2 * i + 1}]: level ${quoted(n)} is declared twice`));
    // eslint-disable-next-line no-control-regex
    expect(message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(quoted('a\u202eb\u0085')).toBe('"a\\u202eb\\u0085"');
  });
});
