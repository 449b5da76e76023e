/**
 * node:fs, node:fs/promises and node:path in the in-browser verifier's
 * worker (scripts/bundle-browser-verifier.mjs). The re-derivation core
 * reaches them only through modules that also hold disk readers and writers
 * it never calls (the names change as the core does: the bundle test lists
 * the importers). CommonJS on purpose: every name imported from it exists,
 * and is a function that throws a NotInBrowserError naming itself when
 * called, so a call is never silent; `sep` is "/" and `constants` empty.
 * Importing it does nothing.
 */
/* global module */
'use strict';

function refuse(name) {
  return function () {
    const error = new Error('node:fs/node:path ' + name + '() cannot run in the browser: run verify.mjs (node verify.mjs <site>) to re-derive it');
    error.name = 'NotInBrowserError';
    error.what = 'node:fs/node:path ' + name + '()';
    throw error;
  };
}

module.exports = new Proxy(
  {},
  {
    get(_, key) {
      if (typeof key === 'symbol' || key === '__esModule' || key === 'then') return undefined;
      if (key === 'sep') return '/';
      if (key === 'constants') return {};
      return refuse(key);
    },
  },
);
