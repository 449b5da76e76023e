/**
 * What the built pages say of anchored freezes and the freeze log (issue 30,
 * FORMAT.md 12), on test/helpers/anchored-site.ts's site: the plan pages'
 * sentences word for word with their tokens linked, the leaderboard's count
 * linking to the explanation and /freeze-log/, the freeze-log page per ledger
 * with the unpublished plans and the log's finding, /methodology/'s terms;
 * every evidence string (the authority, a title, a finding) escaped.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf as tagsDropped } from '../helpers/page-text.ts';
import { AFTER_GEN_TIME, buildAnchoredSite, BEFORE_GEN_TIME, FIRST_ATTEMPT, PINNED_AUTHORITY, UNPUBLISHED, type AnchoredSite } from '../helpers/anchored-site.ts';
import { PLAN_CREATED_AT, removeTempDirs } from '../helpers/bundle-builder.ts';

let site: AnchoredSite;
/** A page's text as read: tags dropped (page-text.ts), without the space a dropped tag leaves before punctuation or after "(". */
const textOf = (html: string): string => tagsDropped(html).replace(/ ([.,;:)])/g, '$1').replace(/\( /g, '(');
const page = (path: string): Promise<string> => readFile(join(site.out, ...path.split('/').filter(Boolean), 'index.html'), 'utf8');

beforeAll(async () => {
  site = await buildAnchoredSite();
}, 300_000);
afterAll(removeTempDirs);

describe('plan pages', () => {
  it('anchored before the first attempt by a pinned authority: the sentence, the token, in the freeze log', async () => {
    const html = await page(`/plans/${site.before}/`);
    const text = textOf(html);
    expect(text).toContain(`frozen ${PLAN_CREATED_AT}; anchored by ${PINNED_AUTHORITY} at ${BEFORE_GEN_TIME}, before the first attempt at ${FIRST_ATTEMPT} (a pinned authority).`);
    expect(html).toContain('data-anchor="before"');
    expect(html).toContain(`<a href="${site.tokens.before}" type="application/octet-stream">anchors/tsa.tsr</a>`);
    expect(text).toContain("This plan is in the site's freeze log.");
    expect(html).toContain('href="/freeze-log/"');
  });

  it('anchored after the first attempt by an authority the site does not pin: what it shows and not, "not in the freeze log", the name escaped', async () => {
    const html = await page(`/plans/${site.after}/`);
    const text = textOf(html);
    expect(text).toContain(
      `frozen ${PLAN_CREATED_AT}; anchored by CN=<script>alert("tsa")</script>⟨U+202E⟩evil at ${AFTER_GEN_TIME}, after the first attempt at ${FIRST_ATTEMPT}: the anchor shows the plan existed then, not that it was frozen before it ran (an authority this site does not pin).`,
    );
    expect(html).not.toContain('<script>alert("tsa")');
    expect(html).not.toContain('\u202e');
    expect(html).toContain(`<a href="${site.tokens.after}" type="application/octet-stream">anchors/tsa.tsr</a>`);
    expect(text).toContain('This plan is not in the freeze log');
  });
});

describe('the leaderboard', () => {
  it('counts the counted plans anchored before their first attempt, linking the explanation and the freeze log', async () => {
    const html = await page('/');
    const text = textOf(html);
    expect(text).toContain('1 of 2 counted plans anchored before their first attempt, by a pinned authority (what an anchor shows).');
    expect(html).toContain('<a href="/methodology/#anchors">what an anchor shows</a>');
    expect(text).toContain('Freeze log: 4 plans frozen, 1 published, 3 never published.');
    expect(html).toMatch(/<a href="\/freeze-log\/" data-freeze-log-link>4 plans frozen, 1 published, 3 never published<\/a>/);
  });
});

describe('/freeze-log/', () => {
  it('per ledger: frozen, published, the days of those never published, with their ids; the log digest and lines; its finding', async () => {
    const html = await page('/freeze-log/');
    const text = textOf(html);
    expect(text).toContain('Ledger widget-bugs');
    expect(text).toContain('3 plans frozen, 1 published, 2 frozen on 2026-09-10 and 2026-09-12 and never published.');
    expect(text).toContain('1 plan frozen, 0 published, 1 frozen on 2026-09-01 and never published.');
    for (const id of [UNPUBLISHED.first, UNPUBLISHED.second, UNPUBLISHED.other]) {
      expect(html).toContain(`data-plan-id="${id}"`);
      expect(text).toContain(`plan ${id.slice(7, 19)}`);
      expect(text).toContain(`Plan id ${id}`);
    }
    // Ledgers in the order of their first plan in the log (created_at): the other ledger's plan is the oldest.
    expect(html.match(/data-unpublished="(\d+)"/g)).toEqual(['data-unpublished="1"', 'data-unpublished="2"']);
    expect(html).toContain('<a href="/freeze-log.jsonl" type="application/octet-stream" data-freeze-log-file>freeze-log.jsonl</a>');
    expect(text).toContain(`5 lines, SHA-256 ${site.log.digest}`);
    // The digest is the log's own (the fixture's freeze-log.jsonl, in the agreed line form).
    expect(site.log.digest).toBe(`sha256:${createHash('sha256').update(await readFile(site.log.path)).digest('hex')}`);
    expect(text).toContain('FREEZE_LOG_REWRITTEN (error): the retained copy <b>is not</b> a prefix of the log');
    expect(html).not.toContain('<b>is not</b>');
    expect(html).not.toContain('<img src=x');
    expect(text).toContain('<img src=x onerror=alert("log")> never published (anchored)');
    // The published plan links its page.
    expect(html).toContain(`<a href="/plans/${site.before}/">plan <code>${site.before.slice(0, 12)}</code></a>`);
  });

  it('is in the sitemap, and /methodology/ explains anchors and the log and links it', async () => {
    expect(await readFile(join(site.out, 'sitemap.xml'), 'utf8')).toContain('<loc>https://anchored.example/freeze-log/</loc>');
    const html = await page('/methodology/');
    expect(html).toContain('<dfn id="anchors">Anchored freeze</dfn>');
    expect(html).toContain('<dfn id="freeze-log">Freeze log</dfn>');
    expect(textOf(html)).toContain("This site's freeze log: 4 plans frozen, 1 published, 3 never published.");
  });
});
