/* global document, Worker, URL, URLSearchParams, location */
/**
 * rederive-browser.js: the "Re-derive every number in this browser" control
 * of /verify/ (issue 24; docs/site.md, "Re-deriving in the browser"). A
 * classic script, no modules: it starts the site's Web Worker
 * (verify-worker.js beside this script: the project's own re-derivation
 * core bundled for browsers) and shows its progress and result.
 *
 * Markup it expects:
 *   <section data-rederive-root data-rederive-limit="BYTES" data-rederive-bytes="BYTES"
 *            data-rederive-boards='{"<board id>": "<title>", ...}'>
 *     <fieldset data-rederive-choice hidden>   one checkbox per board:
 *       <input type="checkbox" data-rederive-ledger="<ledger digest>" value="<board id>">
 *     </fieldset>
 *     <button type="button" data-rederive>
 *     <progress data-rederive-progress>  <span data-rederive-live role="status" aria-live="polite">
 *     <ol data-rederive-results></ol>
 *   </section>
 * Up to data-rederive-limit bytes of evidence it re-derives everything; above
 * it (or above ?rederive-limit=BYTES in the page's URL, to try the partial
 * mode on a small site) it shows the board checkboxes and re-derives the
 * ledgers of the boards chosen, then lists the boards not re-derived.
 * data-rederive-status goes idle, running, then match, mismatch or error, or
 * not-reproduced: the report names another ledgerboard version than the
 * worker's and does not re-derive (verify.mjs's NOT REPRODUCED).
 * Result lines are text (textContent, never HTML), MISMATCH lines first,
 * each "MISMATCH <check> <subject>: <detail>" as verify.mjs prints it.
 *
 * The time-stamp anchors' "your own root" control (issue 30):
 *   <section data-anchor-root>
 *     <textarea data-anchor-pem>  <input type="file" data-anchor-file>
 *     <button type="button" data-anchor-check>
 *     <span data-anchor-live role="status" aria-live="polite">  <ol data-anchor-results></ol>
 *   </section>
 * It starts a worker with { type: 'root', pem } (the pasted text, or the
 * chosen file's) and lists, per anchored bundle and token, whether the
 * token's signer chains to that root; data-anchor-status goes idle,
 * running, then chains (every token does), other-root (none does), mixed,
 * or error. Computed in this browser from the published tokens; the PEM is
 * never sent anywhere.
 */
(function () {
  'use strict';

  var SCRIPT_URL = (document.currentScript && document.currentScript.src) || null;
  /** Result lines shown at most (the count of the rest is said). */
  var MAX_LINES = 2000;
  var PHASES = { bundles: 'verifying the bundles', history: 'reading the retained reports', analysis: 'running the analysis', files: 'comparing the published files', pages: 'comparing the page figures' };

  function sizeText(bytes) {
    var units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
    var value = bytes;
    var unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    if (unit === 0) return bytes + (bytes === 1 ? ' byte' : ' bytes');
    return (value < 10 ? value.toFixed(1) : String(Math.round(value))) + ' ' + units[unit];
  }

  /** The limit: the page's, or a lower one from ?rederive-limit=BYTES (never a higher one). */
  function limitOf(root) {
    var limit = Number(root.getAttribute('data-rederive-limit'));
    var param = new URLSearchParams(location.search).get('rederive-limit');
    var asked = param !== null && /^[0-9]+$/.test(param) ? Number(param) : NaN;
    if (Number.isSafeInteger(asked) && asked < limit) limit = asked;
    return limit;
  }

  function partial(root) {
    return Number(root.getAttribute('data-rederive-bytes')) > limitOf(root);
  }

  /** One result line's text, exactly as verify.mjs prints it ("MISMATCH <check> <subject> <detail>", "ok  ..."). */
  function lineText(line) {
    var status = String(line.status);
    return (status === 'MISMATCH' ? status + ' ' : status + '  ') + String(line.check) + ' ' + String(line.subject) + (line.detail ? ' ' + String(line.detail) : '');
  }

  var ORDER = { MISMATCH: 0, info: 1, ok: 2 };

  function show(root, result, chosen) {
    var list = root.querySelector('[data-rederive-results]');
    var boards = {};
    try {
      boards = JSON.parse(root.getAttribute('data-rederive-boards') || '{}') || {};
    } catch (error) {
      boards = {};
    }
    var lines = (Array.isArray(result.lines) ? result.lines : []).map(function (line, i) { return { line: line, i: i }; });
    lines.sort(function (a, b) { return (ORDER[a.line.status] ?? 3) - (ORDER[b.line.status] ?? 3) || a.i - b.i; });
    if (list) {
      list.replaceChildren();
      var notRederived = Array.isArray(result.notRederived) ? result.notRederived : [];
      if (chosen !== null && notRederived.length > 0) {
        var skipped = list.appendChild(document.createElement('li'));
        skipped.setAttribute('data-rederive-line', 'not-rederived');
        skipped.textContent = 'Not re-derived (not chosen): ' + notRederived.map(function (id) { return (boards[id] || id) + ' (' + id + ')'; }).join('; ');
      }
      lines.slice(0, MAX_LINES).forEach(function (x) {
        var item = list.appendChild(document.createElement('li'));
        item.setAttribute('data-rederive-line', String(x.line.status));
        if (x.line.status === 'MISMATCH') item.className = 'rederive-mismatch';
        item.textContent = lineText(x.line);
      });
      if (lines.length > MAX_LINES) list.appendChild(document.createElement('li')).textContent = 'and ' + (lines.length - MAX_LINES) + ' more lines (every one of them ok or info: mismatches are listed first)';
    }
    return lines.length > 0 && lines[0].line.status === 'MISMATCH' ? lineText(lines[0].line) : null;
  }

  function run(root, button) {
    var live = root.querySelector('[data-rederive-live]');
    var bar = root.querySelector('[data-rederive-progress]');
    function say(text) {
      if (live) live.textContent = text;
    }
    var chosen = null;
    if (partial(root)) {
      var ledgers = [];
      root.querySelectorAll('input[data-rederive-ledger]').forEach(function (box) {
        if (box.checked && ledgers.indexOf(box.getAttribute('data-rederive-ledger')) < 0) ledgers.push(box.getAttribute('data-rederive-ledger'));
      });
      if (ledgers.length === 0) {
        say('Choose at least one board to re-derive.');
        return;
      }
      chosen = ledgers;
    }
    var worker;
    // An offline copy opened from a folder (docs/site.md "Offline copies"): no worker starts and nothing can be fetched there.
    if (location.protocol === 'file:') {
      root.setAttribute('data-rederive-status', 'error');
      say('error: a page opened from a file:// address cannot start the re-derivation or fetch the evidence; run node verify.mjs . in the site\'s folder (it re-derives the same), or serve the folder over HTTP.');
      return;
    }
    try {
      worker = new Worker(new URL('verify-worker.js', new URL('./', SCRIPT_URL || document.baseURI)));
    } catch (error) {
      root.setAttribute('data-rederive-status', 'error');
      say('error: the worker could not start (' + (error && error.message ? error.message : String(error)) + '); run verify.mjs instead.');
      return;
    }
    root.setAttribute('data-rederive-status', 'running');
    button.disabled = true;
    var list = root.querySelector('[data-rederive-results]');
    if (list) list.replaceChildren();
    if (bar) {
      bar.removeAttribute('value'); // indeterminate until the first progress message
      bar.max = 1;
    }
    var started = Date.now();
    say('starting…');
    function finish(status, text) {
      worker.terminate();
      button.disabled = false;
      root.setAttribute('data-rederive-status', status);
      if (bar) {
        bar.max = 1;
        bar.value = 1;
      }
      say(text);
    }
    worker.onmessage = function (event) {
      var data = event.data || {};
      if (data.type === 'progress') {
        if (bar && data.total > 0) {
          bar.max = data.total;
          bar.value = Math.min(data.done, data.total);
        }
        say((PHASES[data.phase] || String(data.phase)) + ': ' + data.done + ' of ' + data.total + ', ' + sizeText(data.bytes || 0) + ' fetched…');
      } else if (data.type === 'done') {
        var result = data.result || {};
        var first = show(root, result, chosen);
        var seconds = ((Date.now() - started) / 1000).toFixed(1);
        // Checks as verify.mjs counts them: every line but the information ones.
        var count = Array.isArray(result.lines) ? result.lines.filter(function (l) { return l.status !== 'info'; }).length : 0;
        var v = result.version || {};
        var version = v.rederived ? ' by ledgerboard ' + v.rederived : '';
        var skipped = chosen !== null && Array.isArray(result.notRederived) && result.notRederived.length > 0 ? '; ' + result.notRederived.length + (result.notRederived.length === 1 ? ' board' : ' boards') + ' not re-derived (listed below)' : '';
        if ((result.mismatches > 0 || first !== null) && v.report && v.rederived && v.report !== v.rederived) {
          // Another version may analyse differently (as verify.mjs says it): not proof of a forgery, and not a match either.
          finish('not-reproduced', 'NOT REPRODUCED version /report.json the report was made by ledgerboard ' + v.report + '; ledgerboard ' + v.rederived + ' re-derives another report (first difference: ' + (first || 'unknown') + '); re-derive it with the verify.mjs of ledgerboard ' + v.report);
        } else if (result.mismatches > 0 || first !== null) {
          finish('mismatch', 'mismatch: ' + (first || 'a check disagrees') + ' (' + count + ' checks, ' + result.mismatches + (result.mismatches === 1 ? ' mismatch' : ' mismatches') + '; re-derived' + version + ' in ' + seconds + ' s' + skipped + ')');
        } else {
          finish('match', 'match: ' + count + ' checks, 0 mismatches (re-derived' + version + ' in ' + seconds + ' s' + skipped + ')');
        }
      } else if (data.type === 'error') {
        finish('error', 'error: ' + String(data.message) + ' (nothing was compared; verify.mjs re-derives the same)');
      }
    };
    worker.onerror = function (event) {
      if (event && typeof event.preventDefault === 'function') event.preventDefault();
      finish('error', 'error: the worker failed' + (event && event.message ? ' (' + event.message + ')' : '') + '; run verify.mjs instead.');
    };
    worker.postMessage(chosen === null ? { type: 'start' } : { type: 'start', ledgers: chosen });
  }

  function prepare(root) {
    var choice = root.querySelector('[data-rederive-choice]');
    var mode = root.querySelector('[data-rederive-mode]');
    var bytes = Number(root.getAttribute('data-rederive-bytes'));
    if (partial(root)) {
      if (choice) choice.hidden = false;
      if (mode) mode.textContent = 'This site has ' + sizeText(bytes) + ' of evidence, more than the ' + sizeText(limitOf(root)) + ' this page re-derives at once: choose the boards to re-derive (their ledgers\u2019 evidence is fetched). The others are listed as not re-derived; verify.mjs re-derives everything.';
    }
    var live = root.querySelector('[data-rederive-live]');
    if (live) live.textContent = 'Not run yet.';
  }

  document.addEventListener('click', function (event) {
    var target = event.target;
    var button = target && typeof target.closest === 'function' ? target.closest('button[data-rederive]') : null;
    var root = button ? button.closest('[data-rederive-root]') : null;
    if (!root || root.getAttribute('data-rederive-status') === 'running') return;
    run(root, button);
  });

  document.querySelectorAll('[data-rederive-root]').forEach(prepare);

  var ANCHOR_WORDS = { chains: 'chains to your root', 'other-root': 'does not chain to your root', fails: 'does not check', 'not-checked': 'not checked here' };

  function checkAnchors(root, button) {
    var live = root.querySelector('[data-anchor-live]');
    var list = root.querySelector('[data-anchor-results]');
    function say(text) {
      if (live) live.textContent = text;
    }
    function finish(status, text) {
      button.disabled = false;
      root.setAttribute('data-anchor-status', status);
      say(text);
    }
    var area = root.querySelector('[data-anchor-pem]');
    var pem = area ? String(area.value || '') : '';
    if (pem.indexOf('-----BEGIN CERTIFICATE-----') < 0) {
      finish('error', 'Paste a root certificate (PEM, -----BEGIN CERTIFICATE-----) or choose its file first.');
      return;
    }
    if (location.protocol === 'file:') {
      finish('error', 'error: a page opened from a file:// address cannot start the worker; run openssl ts -verify with your root (verify.mjs prints the command).');
      return;
    }
    var worker;
    try {
      worker = new Worker(new URL('verify-worker.js', new URL('./', SCRIPT_URL || document.baseURI)));
    } catch (error) {
      finish('error', 'error: the worker could not start (' + (error && error.message ? error.message : String(error)) + ').');
      return;
    }
    button.disabled = true;
    root.setAttribute('data-anchor-status', 'running');
    if (list) list.replaceChildren();
    say('checking the anchors with your root…');
    worker.onmessage = function (event) {
      var data = event.data || {};
      worker.terminate();
      if (data.type === 'error') return finish('error', 'error: ' + String(data.message));
      if (data.type !== 'root-done') return finish('error', 'error: an unexpected answer from the worker');
      var result = data.result || {};
      if (result.problem) return finish('error', 'error: ' + String(result.problem));
      var counts = { chains: 0, 'other-root': 0, fails: 0, 'not-checked': 0 };
      (result.bundles || []).forEach(function (bundle) {
        (bundle.tokens || []).forEach(function (token) {
          counts[token.result] = (counts[token.result] || 0) + 1;
          if (!list) return;
          var item = list.appendChild(document.createElement('li'));
          item.setAttribute('data-anchor-line', String(token.result));
          item.setAttribute('data-anchor-bundle', String(bundle.subject));
          item.textContent = (bundle.title ? bundle.title + ' (' + String(bundle.subject) + ')' : String(bundle.subject)) + ', ' + String(token.path) + ': ' + (ANCHOR_WORDS[token.result] || String(token.result)) + ' (' + String(token.detail) + ')';
        });
      });
      var names = (result.roots || []).map(function (r) { return String(r.subject); }).join('; ');
      var total = counts.chains + counts['other-root'] + counts.fails + counts['not-checked'];
      var status = total > 0 && counts.chains === total ? 'chains' : counts.chains === 0 ? 'other-root' : 'mixed';
      finish(status, 'Your root ' + names + ': ' + counts.chains + ' of ' + total + (total === 1 ? ' token chains' : ' tokens chain') + ' to it' + (counts.fails > 0 ? '; ' + counts.fails + ' do not check' : '') + (counts['not-checked'] > 0 ? '; ' + counts['not-checked'] + ' not checked here' : '') + '.');
    };
    worker.onerror = function (event) {
      if (event && typeof event.preventDefault === 'function') event.preventDefault();
      worker.terminate();
      finish('error', 'error: the worker failed' + (event && event.message ? ' (' + event.message + ')' : '') + '.');
    };
    worker.postMessage({ type: 'root', pem: pem });
  }

  document.addEventListener('click', function (event) {
    var target = event.target;
    var button = target && typeof target.closest === 'function' ? target.closest('button[data-anchor-check]') : null;
    var root = button ? button.closest('[data-anchor-root]') : null;
    if (!root || root.getAttribute('data-anchor-status') === 'running') return;
    checkAnchors(root, button);
  });

  // A chosen file fills the text area (read here, never sent).
  document.addEventListener('change', function (event) {
    var input = event.target;
    if (!input || typeof input.matches !== 'function' || !input.matches('input[data-anchor-file]') || !input.files || input.files.length === 0) return;
    var root = input.closest('[data-anchor-root]');
    var area = root ? root.querySelector('[data-anchor-pem]') : null;
    input.files[0].text().then(function (text) {
      if (area) area.value = text;
    });
  });

  document.querySelectorAll('[data-anchor-root]').forEach(function (root) {
    root.setAttribute('data-anchor-status', 'idle');
    var live = root.querySelector('[data-anchor-live]');
    if (live) live.textContent = 'Not run yet.';
  });
})();
