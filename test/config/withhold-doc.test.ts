/**
 * docs/config.md documents every member of a `withhold` rule (issue 29 point
 * 2), and what it says of the glob syntax, `until` and the reason is what
 * the code does: each claim of the generated text is checked against
 * globRegExp, the config's schema and withholdingRule.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/schema.ts';
import { globRegExp, WithholdRule, withholdingRule } from '../../src/config/withhold.ts';

const doc = await readFile(new URL('../../docs/config.md', import.meta.url), 'utf8');
const row = (member: string): string => {
  const line = doc.split('\n').find((l) => l.startsWith(`| \`${member}\` |`));
  if (line === undefined) throw new Error(`docs/config.md has no row for ${member}`);
  return line;
};

describe('docs/config.md on withhold', () => {
  it('has a row for every member of a rule, path and reason required, until optional', () => {
    expect(Object.keys(WithholdRule.shape)).toEqual(['path', 'reason', 'until']);
    expect(row('withhold[].path')).toMatch(/^\| `withhold\[\]\.path` \| string \| required \| /);
    expect(row('withhold[].reason')).toMatch(/^\| `withhold\[\]\.reason` \| string \| required \| /);
    expect(row('withhold[].until')).toMatch(/^\| `withhold\[\]\.until` \| string \| absent \| /);
    expect(row('withhold')).toContain('applies to every bundle the config reads');
  });

  it('the glob syntax it states is the one globRegExp applies', () => {
    const path = row('withhold[].path');
    // Its examples, as written.
    expect(path).toContain('"artifacts/**/x.py" matches "artifacts/x.py"');
    expect(globRegExp('artifacts/**/x.py').test('artifacts/x.py')).toBe(true);
    expect(globRegExp('artifacts/**/x.py').test('artifacts/a/b/x.py')).toBe(true);
    expect(path).toContain('"artifacts/grader/**" withholds every file under artifacts/grader/');
    expect(globRegExp('artifacts/grader/**').test('artifacts/grader/a/b.txt')).toBe(true);
    expect(globRegExp('artifacts/grader/**').test('artifacts/graders/a.txt')).toBe(false);
    // `*` and `?` stop at "/", match the whole path, case-sensitive, and [..], {..} and ! are literal.
    expect(path).toContain('`*` is any run of characters but "/"');
    expect(globRegExp('artifacts/*.py').test('artifacts/a.py')).toBe(true);
    expect(globRegExp('artifacts/*.py').test('artifacts/a/b.py')).toBe(false);
    expect(globRegExp('a?c').test('abc')).toBe(true);
    expect(globRegExp('a?c').test('a/c')).toBe(false);
    expect(path).toContain('matched against the whole of each file');
    expect(globRegExp('grader').test('artifacts/grader')).toBe(false);
    expect(path).toContain('case-sensitive');
    expect(globRegExp('Artifacts/**').test('artifacts/x')).toBe(false);
    expect(path).toContain('no `[...]`, `{a,b}` or `!`');
    expect(globRegExp('[ab].txt').test('a.txt')).toBe(false);
    expect(globRegExp('[ab].txt').test('[ab].txt')).toBe(true);
    expect(globRegExp('{a,b}.txt').test('{a,b}.txt')).toBe(true);
    expect(globRegExp('!a.txt').test('!a.txt')).toBe(true);
    // What it says is refused, is.
    expect(path).toContain('is refused (exit 2)');
    for (const p of ['*.json', '**', 'grades/*', '*.jsonl']) expect(WithholdRule.safeParse({ path: p, reason: 'x' }).success, p).toBe(false);
  });

  it('until is a pattern of digits, not a calendar date, and changes nothing by itself; the first matching rule gives the reason', () => {
    expect(row('withhold[].until')).toContain('YYYY-MM-DD (checked as a pattern of digits only, not as a calendar date)');
    expect(Config.safeParse({ withhold: [{ path: 'a/**', reason: 'r', until: '2027-13-45' }] }).success).toBe(true);
    expect(Config.safeParse({ withhold: [{ path: 'a/**', reason: 'r', until: '1 June 2027' }] }).success).toBe(false);
    expect(row('withhold[].reason')).toContain("gets the first rule's reason");
    const rules = [
      { path: 'a/*.txt', reason: 'first' },
      { path: 'a/**', reason: 'second' },
    ];
    expect(withholdingRule(rules, 'a/x.txt')?.reason).toBe('first');
    expect(withholdingRule(rules, 'a/b/x.txt')?.reason).toBe('second');
  });
});
