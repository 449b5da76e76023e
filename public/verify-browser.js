/* global document, fetch, crypto, TextEncoder, TextDecoder */
/**
 * verify-browser.js: the "Verify in this browser" control of a ledgerboard
 * site. A classic script, no modules, no dependencies, no build step.
 *
 * Markup it expects:
 *   <section data-verify-root data-verify-checks='[...]'>
 *     <button type="button" data-verify>Verify in this browser</button>
 *     <ol data-verify-results></ol>
 *   </section>
 * data-verify-checks is a JSON array of
 *   { "kind": "file", "url", "sha256", "bytes" }        the file's size and SHA-256
 *   { "kind": "self-id", "url", "member", "expected" }  SHA-256 of the RFC 8785 form
 *                                                        of the JSON at url without member
 * On click the root's data-verify-status becomes "running", then "match"
 * (every check matches), "mismatch" (any check disagrees) or "error" (no
 * mismatch, but a fetch or parse failed so something could not be checked).
 * One list item per check, in order; text only (textContent, never HTML).
 */
(function () {
  'use strict';

  var LONE_SURROGATE = /\p{Cs}/u; // with the u flag only unpaired surrogates match

  /** RFC 8785 canonical text of a JSON value (the same rules as verify.mjs). */
  function canonicalize(value) {
    if (value === null || value === true || value === false) return String(value);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError('RFC 8785: a number must be finite');
      return JSON.stringify(value); // ES6 Number-to-String
    }
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) throw new TypeError('RFC 8785: a string holds a lone surrogate');
      return JSON.stringify(value);
    }
    if (Array.isArray(value)) return '[' + value.map(canonicalize).join(',') + ']';
    if (typeof value === 'object') {
      // sort() without a comparator orders strings by UTF-16 code units.
      return '{' + Object.keys(value).sort().map(function (k) { return canonicalize(k) + ':' + canonicalize(value[k]); }).join(',') + '}';
    }
    throw new TypeError('RFC 8785: a ' + typeof value + ' has no JSON form');
  }

  /** JSON.parse, refusing a member name twice in one object (JSON.parse keeps the last). */
  function parseJson(text) {
    var value = JSON.parse(text);
    var open = [];
    var name = false;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (c === '{' || c === '[') {
        open.push(c === '{' ? new Set() : null);
        name = c === '{';
      } else if (c === '}' || c === ']') {
        open.pop();
        name = false;
      } else if (c === ',') {
        name = open[open.length - 1] instanceof Set;
      } else if (c === '"') {
        var j = i + 1;
        while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (name) {
          var member = JSON.parse(text.slice(i, j + 1));
          var names = open[open.length - 1];
          if (names.has(member)) throw new SyntaxError('duplicate member name ' + JSON.stringify(member));
          names.add(member);
          name = false;
        }
        i = j;
      }
    }
    return value;
  }

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (b) { return b.toString(16).padStart(2, '0'); }).join('');
  }

  async function sha256(bytes) {
    return 'sha256:' + hex(await crypto.subtle.digest('SHA-256', bytes));
  }

  /** Fetches a URL's bytes; throws (an error result) on a network failure or a non-2xx status. */
  async function fetchBytes(url) {
    var response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Runs one check: { result: 'match' | 'mismatch' | 'error', text }. */
  async function runCheck(check) {
    var label = String(check && check.kind) + ' ' + String(check && check.url);
    try {
      if (check.kind === 'file') {
        var bytes = await fetchBytes(check.url);
        var digest = await sha256(bytes);
        if (bytes.length !== check.bytes) return { result: 'mismatch', text: label + ': ' + bytes.length + ' bytes, expected ' + check.bytes };
        if (digest !== check.sha256) return { result: 'mismatch', text: label + ': ' + digest + ', expected ' + check.sha256 };
        return { result: 'match', text: label + ': ' + digest + ' (' + bytes.length + ' bytes)' };
      }
      if (check.kind === 'self-id') {
        var object = parseJson(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await fetchBytes(check.url)));
        if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new Error('not a JSON object');
        var rest = Object.fromEntries(Object.entries(object).filter(function (e) { return e[0] !== check.member; }));
        var id = await sha256(new TextEncoder().encode(canonicalize(rest)));
        if (id !== check.expected) return { result: 'mismatch', text: label + ' ' + check.member + ': derived ' + id + ', expected ' + check.expected };
        return { result: 'match', text: label + ' ' + check.member + ': ' + id };
      }
      throw new Error('unknown check kind');
    } catch (error) {
      return { result: 'error', text: label + ': ' + (error && error.message ? error.message : String(error)) };
    }
  }

  async function run(root, button) {
    var results = root.querySelector('[data-verify-results]');
    root.setAttribute('data-verify-status', 'running');
    button.disabled = true;
    try {
      var list = null;
      if (results) {
        results.replaceChildren();
        list = /^(UL|OL)$/.test(results.tagName) ? results : results.appendChild(document.createElement('ul'));
      }
      var checks;
      try {
        checks = JSON.parse(root.getAttribute('data-verify-checks') || 'null');
        if (!Array.isArray(checks)) throw new Error('data-verify-checks is not a JSON array');
      } catch (error) {
        if (list) list.appendChild(document.createElement('li')).textContent = 'error: ' + error.message;
        root.setAttribute('data-verify-status', 'error');
        return;
      }
      // One item per check up front, filled in as results arrive (several fetches at once, order kept).
      var items = checks.map(function (check) {
        var item = list ? list.appendChild(document.createElement('li')) : null;
        if (item) item.textContent = 'checking ' + String(check && check.url);
        return item;
      });
      var outcomes = new Array(checks.length);
      var next = 0;
      async function worker() {
        while (next < checks.length) {
          var index = next++;
          var outcome = await runCheck(checks[index]);
          outcomes[index] = outcome.result;
          if (items[index]) {
            items[index].textContent = outcome.result + ': ' + outcome.text;
            items[index].setAttribute('data-verify-result', outcome.result);
          }
        }
      }
      var workers = [];
      for (var w = 0; w < 6; w++) workers.push(worker());
      await Promise.all(workers);
      var status = outcomes.indexOf('mismatch') >= 0 ? 'mismatch' : outcomes.indexOf('error') >= 0 ? 'error' : 'match';
      if (list) {
        var count = function (r) { return outcomes.filter(function (o) { return o === r; }).length; };
        list.appendChild(document.createElement('li')).textContent =
          checks.length + ' checks: ' + count('match') + ' match, ' + count('mismatch') + ' mismatch, ' + count('error') + ' error';
      }
      root.setAttribute('data-verify-status', status);
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener('click', function (event) {
    var target = event.target;
    var button = target && typeof target.closest === 'function' ? target.closest('button[data-verify]') : null;
    var root = button ? button.closest('[data-verify-root]') : null;
    if (!root || root.getAttribute('data-verify-status') === 'running') return;
    run(root, button).catch(function () {
      root.setAttribute('data-verify-status', 'error');
    });
  });

  globalThis.ledgerboardCanonicalize = canonicalize;
  globalThis.ledgerboardParseJson = parseJson;
})();
