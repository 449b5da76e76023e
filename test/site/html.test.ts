/**
 * HTML written as strings (src/site/views/html.ts, src/site/model/attempt-rows.ts) must
 * read as Astro's own rendering does: text and attribute values escaped
 * exactly as Astro's runtime escapes them, the inline identity exactly as the
 * Ident template rendered it (its logic, with Astro's escaping), and a task
 * page's attempt rows holding every hostile string as text, never as markup.
 * Corpora: test/fixtures (XSS-RSNAKE, blns; see SOURCES.md).
 */
import { addAttribute, escapeHTML } from 'astro/runtime/server/index.js';
import { parseHTML } from 'linkedom';
import { beforeAll, describe, expect, it } from 'vitest';
import { grouped, identity, placeholderLike } from '../../src/site/views/format.ts';
import { attr, identHtml, text } from '../../src/site/views/html.ts';
import { attemptRowsHtml, costText } from '../../src/site/model/attempt-rows.ts';
import type { TaskAttemptRow } from '../../src/site/model/tasks.ts';
import { readCorpora } from '../browser/hostile.ts';

let strings: string[] = [];
beforeAll(async () => {
  const { xss, blns } = await readCorpora();
  strings = [...xss, ...blns, '', ' ', '...', '\u200b', 'a\u202eb', 'x'.repeat(81), `${'é'.repeat(90)}<`, '&amp; "quoted" \'single\''];
});

/** The Ident template's inline form as it was written, with Astro's runtime escaping (the oracle). */
function identOracle(value: string): string {
  const shown = identity(value);
  const body = String(escapeHTML(shown.text));
  if (placeholderLike(value)) return `<span class="ident ident-placeholder" title="quoted: the evidence gives this value as written">${body}</span>`;
  if (shown.shortened) return `<span class="ident"${String(addAttribute(`shortened: ${grouped(shown.length)} characters in all`, 'title'))}>${body}</span>`;
  if (shown.text !== value) return `<span class="ident" title="holds invisible or format characters, shown as ⟨U+…⟩">${body}</span>`;
  return body;
}

describe('html.ts escapes as Astro does', () => {
  it('text() is escapeHTML and attr() is addAttribute for every corpus string', () => {
    expect(strings.length).toBeGreaterThan(500);
    for (const s of strings) {
      expect(text(s), s).toBe(String(escapeHTML(s)));
      expect(attr('title', s), s).toBe(String(addAttribute(s, 'title')));
      expect(attr('href', `https://x.example/?a=1&b=${encodeURIComponent(s)}`)).toBe(String(addAttribute(`https://x.example/?a=1&b=${encodeURIComponent(s)}`, 'href')));
    }
    expect(text(12)).toBe('12');
  });

  it('identHtml() is the Ident template inline, for every corpus string', () => {
    for (const s of strings) expect(identHtml(s), s).toBe(identOracle(s));
  });
});

describe('attemptRowsHtml', () => {
  const row = (over: Partial<TaskAttemptRow>): TaskAttemptRow => ({
    attempt_id: 'a-1',
    index: 1,
    outcome: 'completed',
    terminal: 'resolved',
    reason: null,
    verdict: 'pass',
    generation: 1,
    cost: { state: 'complete', micros: 1_234_567 },
    tokens: { input: 1200, output: 34 },
    wall_seconds: 61,
    retries: 0,
    plan_hex: 'ab'.repeat(32),
    line: { url: `/blobs/${'cd'.repeat(32)}`, number: 7 },
    artifacts: [],
    transcript: null,
    transcriptNote: null,
    ...over,
  });

  it('writes each cell as the template did: fixed markup, escaped values, one space between cells, each figure whole in a span.nw', () => {
    const html = attemptRowsHtml([row({ reason: 'failed', retries: 2, cost: { state: 'partial', micros: 10_000 } })], 'USD');
    expect(html).toBe(
      `<tr data-terminal="resolved"> <th scope="row">#1 a-1</th> <td>completed</td> <td>resolved (failed)</td> <td>pass, generation 1</td>` +
        ` <td class="num"><span class="nw">&gt;= USD 0.01</span> (partial)</td> <td class="num">1,200 / 34</td> <td class="num"><span class="nw">1m 01s</span>, <span class="nw">2 retries</span></td>` +
        ` <td><a href="/blobs/${'cd'.repeat(32)}" title="the published attempts.jsonl (its blob); the attempt is on this line">line 7</a> of <a href="/plans/${'ab'.repeat(32)}/">its plan</a></td> <td>none</td> </tr>`,
    );
    expect(costText({ state: 'unavailable', micros: null }, 'USD')).toBe('unavailable');
    expect(costText({ state: 'not_applicable', micros: null }, null)).toBe('not applicable');
    const withheld = attemptRowsHtml(
      [row({ verdict: null, generation: null, tokens: null, line: { url: null, number: 3 }, artifacts: [{ role: 'patch', sha256: 'x', path: null, url: null, bytes: 5, text: null, textNote: 'withheld' }], transcript: '/transcripts/a/b/' })],
      null,
    );
    expect(withheld).toContain('<td>none (missing)</td>');
    expect(withheld).toContain('<td class="num">unknown</td>');
    expect(withheld).toContain('<td>line 3 of <a');
    expect(withheld).toContain('<ul class="artifacts"><li>patch (withheld) <span class="nw">(5 bytes)</span></li><li><a href="/transcripts/a/b/" data-transcript-link>transcript</a> (from the original log, as text)</li></ul>');
  });

  it('every hostile string in a row reads as text: no element but the row\'s own, each cell holding the value', () => {
    const rows = strings.map((s, i) =>
      row({ attempt_id: s === '' ? 'x' : s, index: i + 1, outcome: s, terminal: 'resolved', artifacts: [{ role: 'patch', sha256: 'x', path: s, url: `/blobs/${i}`, bytes: 1, text: null, textNote: null }] }),
    );
    const { document } = parseHTML(`<table><tbody>${attemptRowsHtml(rows, 'USD')}</tbody></table>`);
    const trs = [...document.querySelectorAll('tr')];
    expect(trs).toHaveLength(rows.length);
    const tags = new Set([...document.querySelectorAll('tbody *')].map((e) => e.tagName.toLowerCase()));
    for (const tag of tags) expect(['tr', 'th', 'td', 'a', 'ul', 'li', 'span']).toContain(tag);
    for (const [i, tr] of trs.entries()) {
      const cells = tr.querySelectorAll('td');
      expect(cells[0]!.textContent, strings[i]).toBe(strings[i]);
      expect(tr.querySelector('th')!.textContent!.startsWith(`#${i + 1} `)).toBe(true);
    }
    expect(document.querySelectorAll('script, img, iframe, svg, style').length).toBe(0);
  });
});
