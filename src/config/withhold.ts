/**
 * Withheld files (issue 16): config rules `{ path, reason, until? }` whose
 * glob names bundle files the site verifies and counts but never publishes
 * the bytes of (a holdout's oracle tests, grader inputs). Globs are matched
 * against a file's path inside its bundle: `*` is any run of characters but
 * `/`, `**` any run including `/` (`**` followed by `/` also matches no
 * directory at all), `?` one character but `/`; everything else is literal.
 *
 * What a stranger needs to re-derive the numbers can never be withheld: a
 * rule that matches manifest.json, plan.json, ledger.jsonl, attempts.jsonl,
 * a grades/<n>.json, assessments.json or a time-stamp token (anchors/*.tsr,
 * FORMAT.md 12) is refused.
 */
import { z } from 'zod';

/** The files a rule may never withhold, as example paths a rule is tested against. */
export const NEVER_WITHHELD = ['manifest.json', 'plan.json', 'ledger.jsonl', 'attempts.jsonl', 'grades/1.json', 'grades/2.json', 'grades/10.json', 'assessments.json', 'anchors/tsa.tsr'] as const;

/** The regular expression of a glob (see the module comment). */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 'su');
}

export const WithholdRule = z
  .strictObject({
    path: z.string().min(1).describe(
        'A glob matched against the whole of each file\'s path inside its bundle ("/"-separated, relative to the bundle directory, e.g. "artifacts/grader/tests.py"), case-sensitive: `*` is any run of characters but "/", `**` any run including "/" (`**/` also matches no directory at all: "artifacts/**/x.py" matches "artifacts/x.py"), `?` one character but "/"; every other character is literal (no `[...]`, `{a,b}` or `!`). "artifacts/grader/**" withholds every file under artifacts/grader/. A glob that would match manifest.json, plan.json, ledger.jsonl, attempts.jsonl, grades/<n>.json or assessments.json is refused (exit 2): a stranger needs them to re-derive the numbers.',
      ),
    reason: z.string().min(1).describe('Why the bytes are withheld (free text): shown beside each file the rule withholds, on its plan page and in /withheld.json. A file matched by several rules gets the first rule\'s reason.'),
    until: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD')
      .optional()
      .describe('When the publisher means to reveal the bytes, YYYY-MM-DD (checked as a pattern of digits only, not as a calendar date): shown beside each withheld file. Nothing happens on that date: revealing is removing the rule (the same report id, now with the bytes). Absent: no date shown.'),
  })
  .superRefine((rule, ctx) => {
    const re = globRegExp(rule.path);
    const hit = NEVER_WITHHELD.find((p) => re.test(p));
    if (hit !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['path'],
        message: `"${rule.path}" would withhold ${hit}: manifest.json, plan.json, ledger.jsonl, attempts.jsonl, grades/<n>.json, assessments.json and anchors/*.tsr are what a stranger needs to re-derive the numbers, claims and anchors, and are always published`,
      });
    }
  });
export type WithholdRule = z.infer<typeof WithholdRule>;

/** The first rule that withholds a path, or null. */
export function withholdingRule(rules: readonly WithholdRule[], path: string): WithholdRule | null {
  for (const rule of rules) if (globRegExp(rule.path).test(path)) return rule;
  return null;
}
