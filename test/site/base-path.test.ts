/**
 * site_url may have a path (issue 11 point 4): the base path, and the one
 * rewrite of rendered links under it (src/site/build/base-path.ts). At the root of
 * an origin nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { basePathOf, ConfigError, parseConfig } from '../../src/config/config.ts';
import { rebaseHtml } from '../../src/site/build/base-path.ts';

const config = (json: string) => parseConfig(new TextEncoder().encode(json), 'c.json');

describe('site_url', () => {
  it('may be the root of an origin or a path under it; the base path always ends with "/"', () => {
    expect(basePathOf(config('{"site_url":"https://board.example.org/"}'))).toBe('/');
    expect(basePathOf(config('{"site_url":"https://board.example.org"}'))).toBe('/');
    expect(basePathOf(config('{"site_url":"https://user.github.io/board/"}'))).toBe('/board/');
    expect(basePathOf(config('{"site_url":"https://user.github.io/board"}'))).toBe('/board/');
    expect(basePathOf(config('{"site_url":"https://example.org/a/b/"}'))).toBe('/a/b/');
  });

  it('refuses a query, a fragment or another scheme', () => {
    for (const url of ['https://x.org/?a=1', 'https://x.org/board/#top', 'ftp://x.org/', 'https://x.org/?']) {
      expect(() => config(JSON.stringify({ site_url: url })), url).toThrow(ConfigError);
    }
  });
});

describe('rebaseHtml', () => {
  it('moves root-relative href and src values under the base, and nothing else', () => {
    const html = [
      '<link rel="stylesheet" href="/site.css">',
      '<a href="/boards/ab/">board</a> <a href="/">home</a>',
      '<script src="/verify-browser.js" defer></script>',
      '<a href="https://other.example/x">out</a> <a href="//cdn.example/x">protocol-relative</a> <a href="#top">top</a> <a href="rel/x">relative</a>',
      // Text: the serializer escapes its quotes, so it never reads as an attribute.
      '<p>text href=&#34;/not-an-attribute&#34; and /boards/ in prose</p>',
      '<code data-x="/boards/">a data attribute</code>',
    ].join('\n');
    expect(rebaseHtml(html, '/board/')).toBe(
      [
        '<link rel="stylesheet" href="/board/site.css">',
        '<a href="/board/boards/ab/">board</a> <a href="/board/">home</a>',
        '<script src="/board/verify-browser.js" defer></script>',
        '<a href="https://other.example/x">out</a> <a href="//cdn.example/x">protocol-relative</a> <a href="#top">top</a> <a href="rel/x">relative</a>',
        '<p>text href=&#34;/not-an-attribute&#34; and /boards/ in prose</p>',
        '<code data-x="/boards/">a data attribute</code>',
      ].join('\n'),
    );
  });

  it('changes nothing at the root of an origin, and refuses what is not a base path', () => {
    const html = '<a href="/boards/ab/">b</a>';
    expect(rebaseHtml(html, '/')).toBe(html);
    for (const base of ['board/', '/board', '//evil/']) expect(() => rebaseHtml(html, base), base).toThrow();
  });
});
