/**
 * Where a value is in a JSON document, as the messages of the verifier's
 * findings and of the config's errors name it: one helper for both
 * (verify/parse-evidence.ts, config/parse.ts).
 */

/** `budget.per_attempt_micros`, `files[3].sha256`, `(root)`; odd member names are JSON-quoted. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
