/**
 * Model and agent pages (issue 29 item 10, src/site/model/models.ts,
 * docs/site.md "Model and agent pages"):
 *
 * - the site model: each model's (agent's) page holds exactly the report's
 *   cohorts of that model (agent), boards in display order, and exactly the
 *   boards with none; keys are the SHA-256 of the name (16 hex digits, all
 *   64 for names sharing their 16);
 * - the demo's pages: a model page shows each cohort's rank range, rate and
 *   interval as its board page shows them; every link to /models/ and
 *   /agents/ on every page resolves to a built page, and every such page is
 *   linked from the leaderboard or a cohort page;
 * - a hostile model id (`<script>`, `../`) gets a digest key and is escaped.
 */
import { createHash } from 'node:crypto';
import { cp, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { siteSubjects, subjectKeys, subjectPath, SUBJECT_KEY_DIGITS, SUBJECT_MISSING_SHOWN } from '../../src/site/model/models.ts';
import { buildSite, ROOT, sitemapPaths } from '../browser/browser.ts';
import { sharedDemoBuild } from '../browser/shared-demo.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { textOf } from '../helpers/page-text.ts';
import { NO_USABLE_GRADES } from '../../src/site/views/usable-grades.ts';

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const HOSTILE = '<script>alert("x")</script>/../../../index';

afterAll(removeTempDirs);

describe('the site model of model and agent pages (the demo report)', () => {
  let report: Report;
  let order: number[];
  beforeAll(async () => {
    report = JSON.parse(await readFile(join(ROOT, 'test', 'golden', 'demo-report.json'), 'utf8')) as Report;
    order = boardsInOrder(report).map((b) => report.boards.indexOf(b));
  });

  for (const kind of ['model', 'agent'] as const) {
    const nameOf = (c: Report['cohorts'][number]): string => (kind === 'model' ? c.subject.model : c.subject.agent.name);
    it(`each ${kind} page: exactly the report's cohorts of it, board by board, and exactly the boards with none`, () => {
      const subjects = siteSubjects(report, order)[kind === 'model' ? 'models' : 'agents'];
      const names = [...new Set(report.cohorts.map(nameOf))];
      expect(subjects.map((s) => s.name)).toEqual([...names].sort(compareUtf8));
      // Every cohort is on exactly one page of each kind.
      expect(subjects.reduce((n, s) => n + s.cohorts.length, 0)).toBe(report.cohorts.length);
      const ordered = order.map((i) => report.boards[i]!);
      for (const s of subjects) {
        // Its cohorts: the boards in display order, each board's cohorts in its own (rank) order.
        const expected = ordered.flatMap((b) => b.cohorts.filter((id) => nameOf(report.cohorts.find((c) => c.cohort_id === id)!) === s.name));
        expect(s.cohorts).toEqual(expected);
        expect(s.cohorts.length).toBe(report.cohorts.filter((c) => nameOf(c) === s.name).length);
        const missing = ordered.filter((b) => !report.cohorts.some((c) => c.board_id === b.board_id && nameOf(c) === s.name)).map((b) => b.board_id);
        expect(s.missing).toEqual(missing);
        expect(s.missingCount).toBe(missing.length);
        expect(new Set([...s.cohorts.map((id) => report.cohorts.find((c) => c.cohort_id === id)!.board_id), ...s.missing]).size).toBe(report.boards.length);
        expect(s.key).toBe(sha(s.name).slice(0, SUBJECT_KEY_DIGITS));
      }
    });
  }

  it('the demo has models on several boards and boards without them (the test sees both cases)', () => {
    const { models } = siteSubjects(report, order);
    expect(models.some((s) => new Set(s.cohorts.map((id) => report.cohorts.find((c) => c.cohort_id === id)!.board_id)).size > 1)).toBe(true);
    expect(models.some((s) => s.missingCount > 0)).toBe(true);
  });
});

describe('many boards', () => {
  it(`a page names the first ${SUBJECT_MISSING_SHOWN} boards without it, in display order, and counts them all`, () => {
    const n = SUBJECT_MISSING_SHOWN + 50;
    const boards = Array.from({ length: n }, (_, i) => ({ board_id: `sha256:${i.toString(16).padStart(64, '0')}`, cohorts: [`sha256:c${i}`] }));
    // One model on every third board, each board's cohort another model otherwise; display order reversed.
    const cohorts = boards.map((b, i) => ({ cohort_id: b.cohorts[0]!, board_id: b.board_id, subject: { model: i % 3 === 0 ? 'm' : `other-${i}`, agent: { name: 'a', version: '1' } } }));
    const order = boards.map((_, i) => n - 1 - i);
    const { models, agents } = siteSubjects({ boards, cohorts } as unknown as Report, order);
    const m = models.find((s) => s.name === 'm')!;
    const without = order.filter((i) => i % 3 !== 0).map((i) => boards[i]!.board_id);
    expect(m.missingCount).toBe(without.length);
    expect(m.missing).toEqual(without.slice(0, SUBJECT_MISSING_SHOWN));
    expect(m.cohorts).toEqual(order.filter((i) => i % 3 === 0).map((i) => `sha256:c${i}`));
    expect(agents).toHaveLength(1);
    expect(agents[0]!.missingCount).toBe(0);
    expect(agents[0]!.cohorts).toHaveLength(n);
  });
});

describe('keys', () => {
  it('16 hex digits of the SHA-256 of the name; names sharing them each take all 64; the same names give the same keys in any order', () => {
    const names = Array.from({ length: 40 }, (_, i) => `model-${i}`);
    // At 1 digit, 40 names share first digits: exactly the shared ones take the whole digest.
    const keys = subjectKeys(names, 1);
    const firsts = names.map((n) => sha(n)[0]!);
    for (const [i, name] of names.entries()) {
      const shared = firsts.filter((f) => f === firsts[i]).length > 1;
      expect(keys.get(name)).toBe(shared ? sha(name) : sha(name).slice(0, 1));
    }
    expect([...keys.values()].some((k) => k.length === 1)).toBe(true);
    expect([...keys.values()].some((k) => k.length === 64)).toBe(true);
    expect(new Set(keys.values()).size).toBe(names.length);
    expect(subjectKeys([...names].reverse(), 1)).toEqual(keys);
    // At 16 digits, these 40 do not collide.
    expect([...subjectKeys(names).values()]).toEqual(names.map((n) => sha(n).slice(0, 16)));
  });

  it('a hostile name gives a digest key: no text of it in the path', () => {
    const key = subjectKeys([HOSTILE]).get(HOSTILE)!;
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(subjectPath('model', key)).toBe(`/models/${key}/`);
    expect(subjectPath('agent', key)).toBe(`/agents/${key}/`);
  });
});

/** Every `href` of a page that is a site path. */
const hrefsOf = (html: string): string[] => [...html.matchAll(/href="(\/[^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

/** Every index.html under a built site, as its URL path. */
async function pagesOf(out: string): Promise<string[]> {
  const files = (await readdir(out, { recursive: true })) as string[];
  return files.filter((f) => f === 'index.html' || f.endsWith('/index.html')).map((f) => `/${f.slice(0, -'index.html'.length)}`);
}

describe('the demo site', () => {
  let out = '';
  let report: Report;
  beforeAll(async () => {
    out = await sharedDemoBuild();
    report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  }, 240_000);
  const page = (path: string) => readFile(join(out, path, 'index.html'), 'utf8');

  it('every link to /models/ and /agents/ resolves; every model and agent page is in the sitemap and linked from a cohort page', async () => {
    const pages = await pagesOf(out);
    const built = new Set(pages);
    const linked = new Map<string, Set<string>>();
    for (const path of pages) {
      for (const href of hrefsOf(await page(path))) {
        if (!/^\/(models|agents)\//.test(href)) continue;
        expect(built.has(href.replace(/#.*$/, '')), `${href} on ${path}`).toBe(true);
        if (!linked.has(href)) linked.set(href, new Set());
        linked.get(href)!.add(path.split('/')[1]!);
      }
    }
    const subjects = pages.filter((p) => /^\/(models|agents)\/[0-9a-f]+\/$/.test(p));
    const models = new Set(report.cohorts.map((c) => c.subject.model));
    const agents = new Set(report.cohorts.map((c) => c.subject.agent.name));
    expect(subjects.length).toBe(models.size + agents.size);
    const sitemap = new Set(await sitemapPaths(out));
    expect(sitemap.has('/models/')).toBe(true);
    for (const p of subjects) {
      expect(sitemap.has(p), p).toBe(true);
      expect(linked.get(p)?.has('cohorts'), `${p} from a cohort page`).toBe(true);
      expect(linked.get('/models/')?.has(p.split('/')[1]!) ?? false).toBe(true);
    }
    // Every model page is linked from the leaderboard (each row's "all boards").
    const leaderboard = hrefsOf(await page('/'));
    for (const name of models) expect(leaderboard, name).toContain(`/models/${sha(name).slice(0, 16)}/`);
  }, 120_000);

  it('a model page shows each cohort as its board page does: rank range, rate, counts and interval; the boards without it by title', async () => {
    // The model with cohorts on the most boards.
    const byModel = new Map<string, Report['cohorts']>();
    for (const c of report.cohorts) byModel.set(c.subject.model, [...(byModel.get(c.subject.model) ?? []), c]);
    const [name, cohorts] = [...byModel].sort((a, b) => new Set(b[1].map((c) => c.board_id)).size - new Set(a[1].map((c) => c.board_id)).size)[0]!;
    expect(new Set(cohorts.map((c) => c.board_id)).size).toBeGreaterThan(1);
    const html = await page(`/models/${sha(name).slice(0, 16)}/`);
    const rows = [...html.matchAll(/<tr data-cohort="([0-9a-f]{64})">(.*?)<\/tr>/g)];
    expect(rows.map((r) => r[1]).sort()).toEqual(cohorts.map((c) => c.cohort_id.slice(7)).sort());
    const usable: boolean[] = [];
    for (const [, hex, row] of rows) {
      const board = await page(`/boards/${cohorts.find((c) => c.cohort_id === `sha256:${hex}`)!.board_id.slice(7)}/`);
      const figure = (n: string): string | undefined => new RegExp(`data-figure="${hex}:${n}">([^<]*)<`).exec(board)?.[1];
      const cell = (name: string): string => textOf(new RegExp(`<td[^>]*data-${name}[^>]*>(.*?)</td>`).exec(row!)![1]!).trim();
      if (figure('rank') !== undefined) {
        expect(cell('rank')).toBe(figure('rank'));
        expect(cell('headline')).toBe(`${figure('rate')} (${figure('resolved')}/${figure('graded')}) ${figure('wilson')}`);
      } else {
        // No usable grades: the board shows no rank and no rate, and neither does the model page.
        usable.push(false);
        expect(figure('rate')).toBeUndefined();
        expect(cell('rank')).toBe('-');
        expect(cell('headline')).toBe(NO_USABLE_GRADES);
      }
    }
    // The demo's model on most boards has cohorts of both kinds: the test sees both.
    expect(usable).toEqual([false]);
    const missing = report.boards.filter((b) => !cohorts.some((c) => c.board_id === b.board_id));
    const list = /<ul data-subject-missing>(.*?)<\/ul>/.exec(html)![1]!;
    expect([...list.matchAll(/href="\/boards\/([0-9a-f]{64})\/"/g)].map((m) => m[1]).sort()).toEqual(missing.map((b) => b.board_id.slice(7)).sort());
    expect((list.match(/data-imported/g) ?? []).length).toBe(missing.filter((b) => b.key.origin === 'imported').length);
    expect(textOf(html)).toContain(`${cohorts.length} cohorts on ${new Set(cohorts.map((c) => c.board_id)).size} boards of this site; ${missing.length} boards have no cohort of it`);
  });
});

describe('a hostile model id', () => {
  let out = '';
  beforeAll(async () => {
    const work = await makeTempDir('ledgerboard-models-hostile-');
    const bundles = join(work, 'bundles');
    const model = validBundle();
    const candidate = model.plan.subjects.find((s) => s.role === 'candidate')!;
    const old = candidate.model;
    candidate.model = HOSTILE;
    for (const a of model.attempts) {
      if (a.model === old) {
        a.model = HOSTILE;
        a.observed_model = HOSTILE;
      }
    }
    await cp(await writeModel(model), join(bundles, 'hostile'), { recursive: true });
    out = join(work, 'site');
    await buildSite({ bundles, out });
  }, 240_000);

  it('gets /models/<16 hex of its SHA-256>/, its text escaped, and no page outside /models/ from it', async () => {
    const key = sha(HOSTILE).slice(0, 16);
    const html = await readFile(join(out, 'models', key, 'index.html'), 'utf8');
    // Outside quoted attribute values (where `<` is text), no markup of the name.
    const markup = (page: string): string => page.replace(/="[^"]*"/g, '=""');
    expect(markup(html)).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;/../../../index');
    expect(textOf(html)).toContain(`Model ${HOSTILE}`);
    expect(await readdir(join(out, 'models'))).toEqual(expect.arrayContaining([key, 'index.html']));
    expect((await readdir(join(out, 'models'))).every((n) => n === 'index.html' || /^[0-9a-f]{16}$/.test(n))).toBe(true);
    const leaderboard = await readFile(join(out, 'index.html'), 'utf8');
    expect(leaderboard).toContain(`<a href="/models/${key}/">all boards</a>`);
    expect(markup(leaderboard)).not.toContain('<script>alert');
    expect(markup(leaderboard)).toContain('&lt;script&gt;alert');
  });
});
