/* global document, fetch, crypto, atob, TextEncoder, TextDecoder, AbortController, setTimeout, clearTimeout */
/**
 * verify-browser.js: the "Verify in this browser" control of a ledgerboard
 * site. A classic script, no modules, no dependencies, no build step.
 *
 * Markup it expects:
 *   <section data-verify-root data-verify-checks='[...]'>
 *     <button type="button" data-verify>Verify in this browser</button>
 *     <span data-verify-live role="status" aria-live="polite"></span>   (optional: made when absent)
 *     <details><summary>Each check</summary><ol data-verify-results></ol></details>
 *   </section>
 * The live status right after the button reads "checking 12 of 91 files…"
 * while it runs, then "91 of 91 files match", or the first mismatch (or
 * error) named. A results list outside a <details> is moved into one, so the
 * per-file list stays collapsed. The button is disabled while it runs.
 * data-verify-checks is a JSON array of
 *   { "kind": "file", "url", "sha256", "bytes" }        the file's size and SHA-256
 *   { "kind": "self-id", "url", "member", "expected" }  SHA-256 of the RFC 8785 form
 *                                                        of the JSON at url without member
 *   { "kind": "manifest", "url", "expected", "blobs", "withheld"?,
 *     "withheldList"?, "bundle"? }   a bundle's manifest.json: its
 *       bundle_id re-derives to expected, and every file it lists is served at
 *       blobs + <sha256 hex> with the listed size and SHA-256 (docs/site.md);
 *       a file whose sha256 is in withheld (the site's withheld files) is
 *       counted as withheld, never fetched, never a match or a mismatch;
 *       with withheldList (a page lists at most 1,000 withheld files), the
 *       withheld.json there adds every file it lists for bundle (a dir hex)
 *   { "kind": "signature", "url", "keyid", "keys", "report_id", "subjects": [{ "name", "url" }] }
 *       a signed report (FORMAT.md 10): the DSSE envelope at url is an in-toto
 *       statement about report_id naming each subject by the SHA-256 of the
 *       bytes fetched from its url, signed (Ed25519 over the DSSE
 *       pre-authentication encoding) by the key keyid, whose PEM the site
 *       serves in keys and whose SPKI SHA-256 must be keyid. The key is the
 *       site's own: the text says to compare its id with one got elsewhere.
 * On click the root's data-verify-status becomes "running", then "match"
 * (every check matches), "mismatch" (any check disagrees) or "error" (no
 * mismatch, but a fetch or parse failed so something could not be checked).
 * One list item per check, in order; text only (textContent, never HTML).
 * Withheld files are counted in the live status ("…, 9 withheld (committed
 * digest, not published)"). A root may hold <input data-verify-pin> and
 * <output data-verify-pin-result>: the key id typed there (one the reader got
 * elsewhere) is compared with the signature checks of the last run, and the
 * output says match, no signature by that key, or invalid
 * (data-verify-pin-status: match | unsigned | invalid | not-a-key-id | not-run | empty).
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
  // The site's base: this script sits at its root (/verify-browser.js, or /board/verify-browser.js under a base
  // path), and every URL in a check is root-relative to that base (docs/site.md).
  // document.currentScript is set only while this script first runs: keep its URL for later.
  var SCRIPT_URL = (document.currentScript && document.currentScript.src) || null;

  // Every fetch is bounded as verify.mjs bounds it by default (docs/site.md): nothing received for 60 s fails it,
  // a file is never read past the size listed for it (a blob), nor past 256 MiB (any other file).
  var IDLE_MS = 60000;
  var DOCUMENT_BYTES = 256 * 1024 * 1024;

  async function fetchBytes(url, listedBytes) {
    var base = new URL('./', SCRIPT_URL || document.baseURI);
    var href = new URL(String(url).replace(/^\//, ''), base).href;
    var listed = Number.isSafeInteger(listedBytes) && listedBytes >= 0;
    var max = listed ? listedBytes : DOCUMENT_BYTES;
    var controller = new AbortController();
    var timedOut = false;
    var timer = null;
    var reader = null;
    var stop = null;
    // Every wait races the idle bound (a body that ignores the abort cannot hold the page either).
    var stopped = new Promise(function (_, reject) { stop = reject; });
    stopped.catch(function () {});
    var touch = function () {
      clearTimeout(timer);
      timer = setTimeout(function () { timedOut = true; controller.abort(); stop(new Error('timed out')); }, IDLE_MS);
    };
    touch();
    try {
      var response = await Promise.race([fetch(href, { cache: 'no-cache', signal: controller.signal }), stopped]);
      touch();
      if (!response.ok) throw new Error('HTTP ' + response.status);
      if (!response.body) return new Uint8Array(0);
      reader = response.body.getReader();
      var chunks = [];
      var total = 0;
      for (;;) {
        var next = await Promise.race([reader.read(), stopped]);
        if (next.done) {
          reader = null;
          return concatBytes(chunks);
        }
        touch();
        total += next.value.length;
        if (total > max) {
          throw new Error(href + ': more than ' + (listed ? 'the ' + max + ' bytes listed for it' : max + ' bytes (the bound on a document)') + ': stopped reading');
        }
        chunks.push(next.value);
      }
    } catch (error) {
      if (timedOut) throw new Error(href + ': nothing received for ' + IDLE_MS / 1000 + ' s: stopped');
      // An offline copy opened from a folder (docs/site.md "Offline copies"): the browser refuses every fetch there.
      if (/^file:/.test(href)) throw new Error(href + ': a page opened from a file:// address cannot fetch files; run node verify.mjs . in the site\'s folder, or serve it over HTTP');
      throw error;
    } finally {
      clearTimeout(timer);
      if (reader !== null) reader.cancel().catch(function () {});
      controller.abort();
    }
  }

  /** Self-id of a parsed JSON object without member. */
  async function selfId(object, member) {
    if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new Error('not a JSON object');
    var rest = Object.fromEntries(Object.entries(object).filter(function (e) { return e[0] !== member; }));
    return sha256(new TextEncoder().encode(canonicalize(rest)));
  }

  var DIGEST = /^sha256:[0-9a-f]{64}$/;

  /** Re-hashes one listed file at its blob URL: null when it matches, else the problem. */
  async function checkListed(entry, blobs) {
    var name = JSON.stringify(entry && entry.path);
    if (!entry || typeof entry.sha256 !== 'string' || !DIGEST.test(entry.sha256)) return name + ': the listed sha256 is not a digest';
    var bytes;
    try {
      bytes = await fetchBytes(blobs + entry.sha256.slice(7), entry.bytes);
    } catch (error) {
      return name + ': ' + (error && error.message ? error.message : String(error));
    }
    if (bytes.length !== entry.bytes) return name + ': ' + bytes.length + ' bytes, listed ' + entry.bytes;
    var digest = await sha256(bytes);
    if (digest !== entry.sha256) return name + ': ' + digest + ', listed ' + entry.sha256;
    return null;
  }

  /** The manifest check: bundle_id, then every listed file over the blobs (six fetches at once). */
  async function checkManifest(check, label, progress) {
    var manifest = parseJson(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await fetchBytes(check.url)));
    var id = await selfId(manifest, 'bundle_id');
    var listed = Array.isArray(manifest.files) ? manifest.files : null;
    if (listed === null) throw new Error('the manifest has no files list');
    var held = new Set(Array.isArray(check.withheld) ? check.withheld : []);
    // A page lists at most 1,000 withheld files; past that it names /withheld.json, which lists them all (by bundle).
    if (typeof check.withheldList === 'string') {
      var all = parseJson(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await fetchBytes(check.withheldList)));
      (Array.isArray(all.files) ? all.files : []).forEach(function (f) { if (f && f.bundle === check.bundle) held.add(f.sha256); });
    }
    // A file a stranger needs is always checked, whatever the page says is withheld.
    var needed = /^(?:manifest\.json|plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/[^/]+\.json)$/;
    var files = listed.filter(function (f) { return !(f && held.has(f.sha256) && !needed.test(String(f.path))); });
    var withheld = listed.length - files.length;
    var problems = [];
    if (id !== check.expected) problems.push('bundle_id: derived ' + id + ', expected ' + check.expected);
    if (manifest.bundle_id !== check.expected) problems.push('bundle_id: the manifest states ' + String(manifest.bundle_id) + ', expected ' + check.expected);
    // The manifest itself is one file checked; the files it lists are the rest.
    progress.add(files.length);
    progress.held(withheld);
    progress.done(problems.length === 0);
    var next = 0;
    var matching = 0;
    async function worker() {
      while (next < files.length) {
        var problem = await checkListed(files[next++], String(check.blobs));
        if (problem === null) matching++;
        else problems.push(problem);
        progress.done(problem === null);
      }
    }
    var workers = [];
    for (var w = 0; w < 6; w++) workers.push(worker());
    await Promise.all(workers);
    var summary = label + ' bundle_id ' + id + '; ' + matching + ' of ' + listed.length + ' listed files match' + (withheld > 0 ? ', ' + withheld + ' withheld (committed digest, not published)' : '');
    if (problems.length === 0) return { result: 'match', text: summary };
    // At most 20 problems in the text: the list is bounded whatever the manifest lists.
    var shown = problems.slice(0, 20).join('; ') + (problems.length > 20 ? '; and ' + (problems.length - 20) + ' more' : '');
    return { result: 'mismatch', text: summary + ': ' + shown, first: label + ': ' + problems[0] };
  }

  function base64Bytes(text) {
    if (typeof text !== 'string' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw new Error('not standard base64');
    return Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
  }

  function concatBytes(parts) {
    var total = parts.reduce(function (n, p) { return n + p.length; }, 0);
    var out = new Uint8Array(total);
    var at = 0;
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }

  /** A signed report (FORMAT.md 10), checked as verify.mjs --key KEYID checks it, under the key the site serves. */
  async function checkSignature(check, label) {
    var utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    var encoder = new TextEncoder();
    var envelope = parseJson(utf8.decode(await fetchBytes(check.url)));
    var problems = [];
    if (envelope.payloadType !== 'application/vnd.in-toto+json') problems.push('WRONG_PAYLOAD_TYPE: ' + JSON.stringify(envelope.payloadType));
    var payload = base64Bytes(envelope.payload);
    var statement = parseJson(utf8.decode(payload));
    if (!statement || statement._type !== 'https://in-toto.io/Statement/v1' || statement.predicateType !== 'urn:ledgerboard:report:v1' || !Array.isArray(statement.subject)) {
      problems.push('BAD_STATEMENT: not an in-toto Statement v1 about a ledgerboard report');
    } else {
      if (!statement.predicate || statement.predicate.report_id !== check.report_id) problems.push('WRONG_REPORT: the statement is about ' + String(statement.predicate && statement.predicate.report_id));
      var stated = new Map(statement.subject.map(function (x) { return [x && x.name, x && x.digest && x.digest.sha256]; }));
      var names = new Set();
      for (var i = 0; i < check.subjects.length; i++) {
        var subject = check.subjects[i];
        names.add(subject.name);
        var digest = (await sha256(await fetchBytes(subject.url))).slice(7);
        if (!stated.has(subject.name)) problems.push('SUBJECTS_DIFFER: the statement does not name ' + subject.name);
        else if (stated.get(subject.name) !== digest) problems.push('SUBJECT_MISMATCH: ' + subject.name + ' hashes to ' + digest.slice(0, 12) + '…');
      }
      stated.forEach(function (_, name) { if (!names.has(name)) problems.push('SUBJECTS_DIFFER: the statement names ' + String(name) + ', not a counted file'); });
    }
    var keys = parseJson(utf8.decode(await fetchBytes(check.keys)));
    var entry = (keys && Array.isArray(keys.keys) ? keys.keys : []).find(function (k) { return k && k.keyid === check.keyid; });
    if (!entry) throw new Error('the site serves no key ' + check.keyid + ' in ' + check.keys);
    var der = base64Bytes(String(entry.public_key_pem).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, ''));
    var keyid = (await sha256(der)).slice(7);
    if (keyid !== check.keyid) problems.push('KEYID_MISMATCH: the key served as ' + check.keyid.slice(0, 12) + '… has the id ' + keyid);
    var signature = (Array.isArray(envelope.signatures) ? envelope.signatures : []).find(function (x) { return x && x.keyid === check.keyid; });
    if (!signature) problems.push('NOT_SIGNED: no signature with this key id');
    else {
      var key = await crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
      var type = encoder.encode(String(envelope.payloadType));
      var pae = concatBytes([encoder.encode('DSSEv1 ' + type.length + ' '), type, encoder.encode(' ' + payload.length + ' '), payload]);
      var sig = base64Bytes(signature.sig);
      if (sig.length !== 64 || !(await crypto.subtle.verify({ name: 'Ed25519' }, key, sig, pae))) problems.push('BAD_SIGNATURE: the Ed25519 signature does not verify over the payload');
    }
    if (problems.length > 0) return { result: 'mismatch', keyid: check.keyid, text: label + ': ' + problems.join('; '), first: label + ': ' + problems[0] };
    return { result: 'match', keyid: check.keyid, text: 'signed by key ' + check.keyid + ' (the key this site serves: compare its id with one you got elsewhere before you trust it)' };
  }

  /** Runs one check: { result: 'match' | 'mismatch' | 'error', text, first? } (first: the first problem alone). */
  async function runCheck(check, progress) {
    var label = String(check && check.kind) + ' ' + String(check && check.url);
    var counted = false;
    try {
      if (check.kind === 'file' || check.kind === 'self-id' || check.kind === 'signature') counted = true;
      var outcome = await runOne(check, label, progress);
      if (counted) progress.done(outcome.result === 'match');
      return outcome;
    } catch (error) {
      // A check that failed before its files were counted counts as one file that could not be checked.
      if (counted || check.kind === 'manifest') progress.done(false);
      return { result: 'error', keyid: check && check.kind === 'signature' ? check.keyid : undefined, text: label + ': ' + (error && error.message ? error.message : String(error)) };
    }
  }

  async function runOne(check, label, progress) {
    if (check.kind === 'file') {
      var bytes = await fetchBytes(check.url, check.bytes);
      var digest = await sha256(bytes);
      if (bytes.length !== check.bytes) return { result: 'mismatch', text: label + ': ' + bytes.length + ' bytes, expected ' + check.bytes };
      if (digest !== check.sha256) return { result: 'mismatch', text: label + ': ' + digest + ', expected ' + check.sha256 };
      return { result: 'match', text: label + ': ' + digest + ' (' + bytes.length + ' bytes)' };
    }
    if (check.kind === 'self-id') {
      var object = parseJson(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await fetchBytes(check.url)));
      var id = await selfId(object, check.member);
      if (id !== check.expected) return { result: 'mismatch', text: label + ' ' + check.member + ': derived ' + id + ', expected ' + check.expected };
      return { result: 'match', text: label + ' ' + check.member + ': ' + id };
    }
    if (check.kind === 'manifest') return await checkManifest(check, label, progress);
    if (check.kind === 'signature') return await checkSignature(check, label);
    throw new Error('unknown check kind');
  }

  /** The status element next to the button: the root's [data-verify-live], or one made right after the button. */
  function liveOf(root, button) {
    var live = root.querySelector('[data-verify-live]');
    if (live) return live;
    if (!button || !button.parentNode) return null;
    live = document.createElement('span');
    live.setAttribute('data-verify-live', '');
    live.setAttribute('role', 'status');
    live.setAttribute('aria-live', 'polite');
    live.className = 'verify-live';
    button.parentNode.insertBefore(live, button.nextSibling);
    return live;
  }

  /** Keeps the per-check list collapsed: moves a results list that is not inside a <details> into one. */
  function collapse(results) {
    if (!results || results.closest('details')) return;
    var details = document.createElement('details');
    details.className = 'verify-details';
    details.appendChild(document.createElement('summary')).textContent = 'Each check';
    results.parentNode.insertBefore(details, results);
    details.appendChild(results);
  }

  function files(n) {
    return n === 1 ? ' file' : ' files';
  }

  // The signature outcomes of each root's last run, by key id: what a pinned key id is compared against.
  var signed = new WeakMap();

  /**
   * The pinned key (issue 16): a key id the reader pasted into [data-verify-pin] (got from the publisher elsewhere)
   * against the signatures the last run checked over the bytes it fetched. [data-verify-pin-result] says match,
   * no signature by that key, or invalid; its data-verify-pin-status is match | unsigned | invalid | not-a-key-id |
   * not-run | empty. Text only.
   */
  function showPin(root) {
    var input = root.querySelector('input[data-verify-pin]');
    var out = root.querySelector('[data-verify-pin-result]');
    if (!input || !out) return;
    var keyid = String(input.value || '').trim().toLowerCase();
    var outcomes = signed.get(root);
    var status;
    var text;
    if (keyid === '') {
      status = 'empty';
      text = 'Paste a key id, then verify: this says whether a valid signature by that key covers the report bytes just fetched.';
    } else if (!/^[0-9a-f]{64}$/.test(keyid)) {
      status = 'not-a-key-id';
      text = 'Not a key id: 64 hex digits (the SHA-256 of the public key\u2019s DER form).';
    } else if (!outcomes) {
      status = 'not-run';
      text = 'Press the button to fetch the report and check the signatures against key ' + keyid.slice(0, 12) + '\u2026';
    } else if (!outcomes.has(keyid)) {
      status = 'unsigned';
      text = 'No signature by key ' + keyid.slice(0, 12) + '\u2026 covers this report: this site publishes none by that key. Signed by: ' + (outcomes.size > 0 ? Array.from(outcomes.keys()).join(', ') : 'nobody') + '.';
    } else if (outcomes.get(keyid).result === 'match') {
      status = 'match';
      text = 'Match: a valid signature by your pinned key ' + keyid + ' covers the report.json and the counted manifests just fetched.';
    } else {
      status = 'invalid';
      text = 'Invalid: the attestation by key ' + keyid.slice(0, 12) + '\u2026 does not hold over the bytes just fetched (' + outcomes.get(keyid).text + ').';
    }
    out.setAttribute('data-verify-pin-status', status);
    out.textContent = text;
  }

  async function run(root, button) {
    var results = root.querySelector('[data-verify-results]');
    var live = liveOf(root, button);
    root.setAttribute('data-verify-status', 'running');
    button.disabled = true;
    // Files checked so far, and how many there are (a manifest adds the files it lists once it is read).
    var total = 0;
    var checked = 0;
    var matched = 0;
    var withheld = 0;
    var shownAt = 0;
    function say(text) {
      if (live) live.textContent = text;
    }
    var progress = {
      add: function (n) {
        total += n;
      },
      held: function (n) {
        withheld += n;
      },
      done: function (match) {
        checked++;
        if (match) matched++;
        // At most one update per 10 files (and the last): a screen reader is not flooded, the count still moves.
        if (checked - shownAt >= 10 || checked === total) {
          shownAt = checked;
          say('checking ' + checked + ' of ' + total + files(total) + '\u2026');
        }
      },
    };
    say('checking\u2026');
    try {
      collapse(results);
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
        say('could not run: ' + error.message);
        return;
      }
      total = checks.length;
      say('checking 0 of ' + total + files(total) + '\u2026');
      // One item per check up front, filled in as results arrive (several fetches at once, order kept).
      var items = checks.map(function (check) {
        var item = list ? list.appendChild(document.createElement('li')) : null;
        if (item) item.textContent = 'checking ' + String(check && check.url);
        return item;
      });
      var outcomes = new Array(checks.length);
      var firsts = new Array(checks.length);
      var signatures = new Map();
      signed.delete(root);
      var next = 0;
      async function worker() {
        while (next < checks.length) {
          var index = next++;
          var outcome = await runCheck(checks[index], progress);
          outcomes[index] = outcome.result;
          firsts[index] = outcome.first || outcome.text;
          if (typeof outcome.keyid === 'string') signatures.set(outcome.keyid, outcome);
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
      signed.set(root, signatures);
      showPin(root);
      root.setAttribute('data-verify-status', status);
      // Withheld files are neither a match nor a mismatch: counted beside the files checked.
      var held = withheld > 0 ? ', ' + withheld + ' withheld (committed digest, not published)' : '';
      if (status === 'match') say(matched + ' of ' + total + files(total) + (matched === 1 ? ' matches' : ' match') + held);
      else say(status + ': ' + firsts[outcomes.indexOf(status)] + ' (' + matched + ' of ' + total + files(total) + ' match' + held + ')');
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

  document.addEventListener('input', function (event) {
    var target = event.target;
    var root = target && typeof target.closest === 'function' && target.matches('input[data-verify-pin]') ? target.closest('[data-verify-root]') : null;
    if (root) showPin(root);
  });

  // The status element exists before the first click, so a screen reader already knows the region when it changes.
  if (typeof document.querySelectorAll === 'function') {
    document.querySelectorAll('[data-verify-root]').forEach(function (root) {
      liveOf(root, root.querySelector('button[data-verify]'));
    });
  }

  globalThis.ledgerboardCanonicalize = canonicalize;
  globalThis.ledgerboardParseJson = parseJson;
  globalThis.ledgerboardFetchBytes = fetchBytes;
})();
