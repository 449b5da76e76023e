/**
 * Claims on the built site (FORMAT.md 11, issue 27 item 4), with the CLI: one
 * bundle built twice, with a score card and without one.
 *
 * With the card (every title, level name, tier name and assessor hostile:
 * RSnake's XSS cheat sheet and the Big List of Naughty Strings as indicator
 * titles and `by` texts):
 * - /scorecard.json is the config's card file byte for byte;
 * - each cohort page lists its claims word for word ("may say: <title>:
 *   <level>", "Capped: <title>: computed|assessed <uncapped>, capped at
 *   <level> by access tier <tier>"), before the verdict and the score vector,
 *   with who assessed each assessed claim and the basis linked;
 * - the board row and the leaderboard row carry the summary ("claims: N
 *   <level>, M capped"), linking the cohort page's claims;
 * - /methodology/ lists the card's levels, tiers and indicators;
 * - no hostile string reaches a page unescaped.
 * Without it: the cohort pages and /methodology/ say the figures carry no
 * claims, no row has a summary, and there is no /scorecard.json.
 */
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { shortIdentity } from '../../src/site/views/format.ts';
import { text } from '../../src/site/views/html.ts';
import { NO_CLAIMS, TEXT_CHARS, TITLE_CHARS } from '../../src/site/model/claims.ts';
import { buildSite } from '../browser/browser.ts';
import { hasNoncharacter, readCorpora } from '../browser/hostile.ts';
import { CANDIDATE, makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const LEVELS = ['<script>alert("level 0")</script>', '"><img src=x onerror=alert(\'level 1\')>', 'sup\u202eported &amp; <b>', 'strong\u200b\'"`'];
const TIER = 'black_box"><svg onload=alert(\'tier\')>';
const BASIS = 'artifacts/assessments/basis.md';

let withCard = '';
let withoutCard = '';
let cardBytes: Uint8Array;
let report: Report;
let plainReport: Report;
/** The indicators by their kind: computed and capped, computed at the weakest level, assessed below the ceiling, assessed and capped. */
const indicators: { id: string; title: string; kind: 'capped' | 'floor' | 'assessed' | 'assessed_capped'; by: string | null; basis: boolean }[] = [];

const sid = (s: string, max?: number): string => shortIdentity(s, max);
const level = (i: number): string => sid(LEVELS[i]!);
const read = (site: string, path: string): Promise<string> => readFile(join(site, ...path.split('/').filter(Boolean), 'index.html'), 'utf8');
const hexOf = (digest: string): string => digest.slice('sha256:'.length);

beforeAll(async () => {
  const { xss, blns } = await readCorpora();
  // Strict JSON (I-JSON) refuses lone surrogates and noncharacters: the other strings, each once.
  const titles = [...new Set([...xss, ...blns].filter((s) => s.isWellFormed() && !hasNoncharacter(s)))];
  titles.forEach((title, i) => {
    const kind = (['capped', 'floor', 'assessed', 'assessed_capped'] as const)[i % 4]!;
    const assessed = kind === 'assessed' || kind === 'assessed_capped';
    indicators.push({ id: `i${String(i).padStart(4, '0')}`, title, kind, by: assessed ? xss[i % xss.length]! : null, basis: assessed && i % 8 < 4 });
  });
  const card = {
    schema: 'ledgerboard.scorecard.v1',
    levels: LEVELS,
    tiers: [{ name: TIER, ceiling: LEVELS[2] }],
    origins: [{ kind: 'imported', ceiling: LEVELS[1] }],
    indicators: indicators.map((i) =>
      i.kind === 'capped'
        ? { id: i.id, title: i.title, computed: { figure: 'rate', at_least: [0, 0, 0] } }
        : i.kind === 'floor'
          ? { id: i.id, title: i.title, computed: { figure: 'rate', at_least: [2, 2, 2] } }
          : { id: i.id, title: i.title, assessed: true },
    ),
  };
  const work = await makeTempDir('ledgerboard-claims-pages-');
  const model = validBundle();
  model.plan.access_tier = TIER;
  const subject = { model: CANDIDATE.model, agent: { ...CANDIDATE.agent } };
  const assessments = indicators
    .filter((i) => i.by !== null)
    .map((i) => ({ indicator: i.id, subject, level: i.kind === 'assessed' ? LEVELS[1] : LEVELS[3], by: i.by, ...(i.basis ? { basis: BASIS } : {}) }));
  model.extra.set('assessments.json', new TextEncoder().encode(`${JSON.stringify({ schema: 'ledgerboard.assessments.v1', assessments }, null, 2)}\n`));
  model.extra.set(BASIS, new TextEncoder().encode('# How we tried to tamper with the weights\n'));
  await cp(await writeModel(model), join(work, 'bundles', 'one'), { recursive: true });
  // Re-indented, with a trailing blank line: the site publishes these bytes, not a canonical form.
  cardBytes = new TextEncoder().encode(`${JSON.stringify(card, null, 3)}\n\n`);
  await writeFile(join(work, 'card.json'), cardBytes);
  await writeFile(join(work, 'with.json'), JSON.stringify({ title: 'claims', bundles_dir: 'bundles', retained_reports_dir: 'history', scorecard: 'card.json' }));
  await writeFile(join(work, 'without.json'), JSON.stringify({ title: 'claims', bundles_dir: 'bundles', retained_reports_dir: 'history' }));
  withCard = join(work, 'with-site');
  withoutCard = join(work, 'without-site');
  await buildSite({ out: withCard, config: join(work, 'with.json') });
  await buildSite({ out: withoutCard, config: join(work, 'without.json') });
  report = JSON.parse(await readFile(join(withCard, 'report.json'), 'utf8')) as Report;
  plainReport = JSON.parse(await readFile(join(withoutCard, 'report.json'), 'utf8')) as Report;
}, 300_000);

afterAll(removeTempDirs);

const cohortOf = (r: Report, model: string) => r.cohorts.find((c) => c.subject.model === model)!;
const title = (i: (typeof indicators)[number]): string => sid(i.title, TITLE_CHARS);

/** The line each indicator's claim reads on a cohort page, for the candidate (assessed) or the baseline (never assessed). */
function expectedLine(i: (typeof indicators)[number], candidate: boolean): string {
  const cap = `, capped at ${level(2)} by access tier ${sid(TIER)}`;
  switch (i.kind) {
    case 'capped':
      return `Capped: ${title(i)}: computed ${level(3)}${cap}`;
    case 'floor':
      return `may say: ${title(i)}: ${level(0)}`;
    case 'assessed':
      return candidate ? `may say: ${title(i)}: ${level(1)}` : `may say: ${title(i)}: ${level(0)} (not assessed)`;
    case 'assessed_capped':
      return candidate ? `Capped: ${title(i)}: assessed ${level(3)}${cap}` : `may say: ${title(i)}: ${level(0)} (not assessed)`;
  }
}

describe('a site with a score card', () => {
  it('publishes the config\'s card byte for byte at /scorecard.json', async () => {
    expect(new Uint8Array(await readFile(join(withCard, 'scorecard.json')))).toEqual(cardBytes);
    expect((report.config as { scorecard?: string }).scorecard).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('each cohort page lists its claims word for word, first among the figures\' explanations, with who assessed and the basis', async () => {
    for (const [model, candidate] of [
      [CANDIDATE.model, true],
      ['acme/base-2025-01-01', false],
    ] as const) {
      const cohort = cohortOf(report, model);
      expect(cohort.claims).toHaveLength(indicators.length);
      const html = await read(withCard, `/cohorts/${hexOf(cohort.cohort_id)}/`);
      const lines = [...html.matchAll(/<li data-claim="([a-z0-9_]+)" data-claim-capped="(true|false)"><span class="claim(?:-capped)?" data-claim-text>([^<]*)<\/span>/g)].map((m) => [m[1], m[2], m[3]]);
      expect(lines).toEqual(indicators.map((i) => [i.id, expectedLine(i, candidate).startsWith('Capped') ? 'true' : 'false', text(expectedLine(i, candidate))]));
      // First among the explanations: before the score vector (and the verdict, for the candidate).
      expect(html.indexOf('id="claims"')).toBeGreaterThan(0);
      expect(html.indexOf('id="claims"')).toBeLessThan(html.indexOf('<h2>Score vector</h2>'));
      if (candidate) expect(html.indexOf('id="claims"')).toBeLessThan(html.indexOf('id="verdict"'));
      expect(html).toContain(`<strong data-claims-ceiling>${text(level(2))}</strong>`);
      expect(html).toContain(`: ${text(`access tier ${sid(TIER)} (ceiling ${level(2)})`)}, ${text('origin frozen (not capped by its origin)')}.</p>`);
      // Who assessed, at what level, and the basis linked at its blob.
      const assessmentItems = [...html.matchAll(/<li data-assessment>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
      const assessedOnes = candidate ? indicators.filter((i) => i.by !== null) : [];
      expect(assessmentItems).toHaveLength(assessedOnes.length);
      const basisUrl = /href="(\/blobs\/[0-9a-f]{64})" data-assessment-basis/.exec(html)?.[1];
      assessedOnes.forEach((i, n) => {
        const item = assessmentItems[n]!;
        expect(item.startsWith(`${text(`assessed ${i.kind === 'assessed' ? level(1) : level(3)} by ${sid(i.by!, TEXT_CHARS)}`)}, in <a href="/plans/`)).toBe(true);
        if (i.basis) expect(item).toContain(`; basis <a href="${basisUrl}" data-assessment-basis><code>${BASIS}</code></a>`);
        else expect(item).toContain('; no basis given');
      });
      if (candidate) expect(new TextDecoder().decode(await readFile(join(withCard, ...basisUrl!.split('/').filter(Boolean))))).toBe('# How we tried to tamper with the weights\n');
      expect(html).not.toContain('data-no-claims');
    }
  });

  it('every board row carries the summary, as text beside the row\'s cohort link, on the board page and the leaderboard', async () => {
    const n = (kind: string) => indicators.filter((i) => i.kind === kind).length;
    const expected = new Map([
      [CANDIDATE.model, `claims: ${n('assessed')} ${level(1)}, ${n('floor')} ${level(0)}, ${n('capped') + n('assessed_capped')} capped`],
      ['acme/base-2025-01-01', `claims: ${n('floor') + n('assessed') + n('assessed_capped')} ${level(0)}, ${n('capped')} capped`],
    ]);
    for (const path of ['/', `/boards/${hexOf(report.boards[0]!.board_id)}/`]) {
      const html = await read(withCard, path);
      for (const [model, summary] of expected) {
        const cohort = cohortOf(report, model);
        expect(html, `${path} ${model}`).toContain(`<div class="claims-summary muted" data-claims-summary>${text(summary)}</div>`);
        expect(html, `${path} ${model}`).toContain(`href="/cohorts/${hexOf(cohort.cohort_id)}/"`);
      }
    }
  });

  it('/methodology/ explains the card: its levels weakest first, the tiers\' ceilings, the origins\', every indicator', async () => {
    const html = await read(withCard, '/methodology/');
    expect(html).toContain('<h2 id="claims">Claims: the score card and access tiers</h2>');
    expect(html).toContain(`<ol class="claim-levels" data-claim-levels>${LEVELS.map((l) => `<li>${text(sid(l))}</li>`).join('')}</ol>`);
    expect(html).toContain(`<tr><th scope="row">${text(sid(TIER))}</th><td>${text(level(2))}</td></tr>`);
    expect(html).toContain(`<tr><th scope="row">imported</th><td>${text(level(1))}</td></tr>`);
    for (const i of indicators) expect(html, i.id).toContain(`<dfn id="indicator-${i.id}">${text(title(i))}</dfn> <code>${i.id}</code>`);
    expect(html).toContain(`digest <code data-id="scorecard">${(report.config as { scorecard?: string }).scorecard}</code>`);
    expect(html).not.toContain('data-no-claims');
  });

  it('no hostile title, level, tier or assessor reaches a page unescaped', async () => {
    const pages = ['/', '/methodology/', `/boards/${hexOf(report.boards[0]!.board_id)}/`, ...report.cohorts.map((c) => `/cohorts/${hexOf(c.cohort_id)}/`)];
    const raw = [...LEVELS, TIER, ...indicators.flatMap((i) => [i.title, i.by ?? ''])].filter((s) => /[<>"']/.test(s) && s.length > 4).map((s) => sid(s, 60));
    for (const path of pages) {
      const html = await read(withCard, path);
      for (const s of raw) if (/[<>]/.test(s)) expect(html, `${path}: ${s}`).not.toContain(s);
      expect(html).not.toMatch(/<(script|img|svg|iframe)[^>]*(alert|onerror|onload)/i);
    }
  });
});

describe('a site without a score card', () => {
  it('says on every cohort page and on /methodology/ that its figures carry no claims; no summary, no /scorecard.json', async () => {
    expect((plainReport.config as { scorecard?: string }).scorecard).toBeUndefined();
    for (const c of plainReport.cohorts) {
      expect(c.claims).toBeNull();
      expect(await read(withoutCard, `/cohorts/${hexOf(c.cohort_id)}/`)).toContain(`<p data-no-claims>${text(NO_CLAIMS)}</p>`);
    }
    expect(await read(withoutCard, '/methodology/')).toContain(`<p data-no-claims>${text(NO_CLAIMS)}</p>`);
    expect(await read(withoutCard, '/')).not.toContain('data-claims-summary');
    await expect(stat(join(withoutCard, 'scorecard.json'))).rejects.toThrow();
  });
});
