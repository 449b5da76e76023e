/**
 * Identities from evidence (model and agent names, titles, grader ids ...) as
 * pages show them: invisible and format characters visible, so
 * `acme/base\u200b` does not read as `acme/base`, and long values shortened
 * with their full length, so a 64 KiB name neither floods a page nor
 * breaks its layout.
 */
import { describe, expect, it } from 'vitest';
import { hasInvisible, identity, IDENTITY_CHARS, shortIdentity, visible } from '../../src/site/views/format.ts';
import { readCorpora } from '../browser/hostile.ts';

const INVISIBLES = [
  '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u034f', '\u180e',
  '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c',
  '\u0000', '\t', '\n', '\r', '\u007f', '\u0085', '\u2028', '\u2029',
  '\u00a0', '\u2000', '\u2007', '\u202f', '\u3000', '\u3164', '\ufe0f', '\u{e0041}', '\ud800',
];

describe('visible', () => {
  it.each(INVISIBLES.map((c) => [c.codePointAt(0)!.toString(16)]))('U+%s is shown as a marker', (hex) => {
    const ch = String.fromCodePoint(parseInt(hex, 16));
    const out = visible(`acme/base${ch}`);
    expect(out).toBe(`acme/base⟨U+${hex.toUpperCase().padStart(4, '0')}⟩`);
    expect(hasInvisible(`acme/base${ch}`)).toBe(true);
    expect(out).not.toBe('acme/base');
  });

  it('leaves printable text alone (letters of any script, ASCII space, emoji)', () => {
    for (const s of ['acme/base-2025-01-01', 'loop 3.1.0', 'Δ модель 模型 نموذج', '👩‍🔬'.replace('\u200d', ''), 'a b']) expect(visible(s)).toBe(s);
  });

  it('two names that differ only by an invisible character read differently', () => {
    expect(visible('acme/base')).not.toBe(visible('acme/base\u200b'));
    expect(visible('acme/base')).not.toBe(visible('acme/\u202ease'));
  });
});

describe('identity', () => {
  it('a short name is shown whole', () => {
    expect(identity('acme/mini-2026-08-01')).toEqual({ text: 'acme/mini-2026-08-01', shortened: false, length: 20 });
  });

  it('a 64 KiB name is shown as its first characters, "…" and its full length', () => {
    const shown = identity(`${'m'.repeat(65_530)}-model`);
    expect(shown.shortened).toBe(true);
    expect(shown.length).toBe(65_536);
    expect(shown.text).toBe(`${'m'.repeat(IDENTITY_CHARS)}… (65,536 characters)`);
  });

  it('shortening counts the markers and never splits one or a surrogate pair', () => {
    const shown = identity('\u200b'.repeat(1000));
    expect(shown.text).toMatch(/^(⟨U\+200B⟩)+… \(1,000 characters\)$/);
    expect(shown.text.length).toBeLessThan(IDENTITY_CHARS + 30);
    const emoji = identity('😀'.repeat(200));
    expect([...emoji.text.replace(/… .*/, '')].every((c) => c === '😀')).toBe(true);
  });

  it('every corpus string: bounded, no invisible character left, unchanged when short and printable', async () => {
    const { xss, blns } = await readCorpora();
    for (const s of [...xss, ...blns]) {
      const text = shortIdentity(s);
      expect([...text].length, JSON.stringify(s)).toBeLessThanOrEqual(IDENTITY_CHARS + 30);
      expect(hasInvisible(text), JSON.stringify(s)).toBe(false);
      if (!hasInvisible(s) && [...s].length <= IDENTITY_CHARS) expect(text).toBe(s);
    }
  });
});
