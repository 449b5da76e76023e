/** Renders docs/finding-codes.md from the finding catalog (the catalog is the one source). */
import { FINDING_CODES, type FindingCode } from '../../src/verify/findings.ts';

const NO_VERDICT: readonly FindingCode[] = ['MISSING_FILE', 'MISSING_ARTIFACT'];

function effect(code: FindingCode): string {
  const info = FINDING_CODES[code];
  if (info.severity === 'warning') return 'warning: status unchanged';
  return NO_VERDICT.includes(code) ? 'error: no_verdict' : 'error: invalid';
}

/** The Markdown text of docs/finding-codes.md. */
export function findingCodesMarkdown(): string {
  const codes = Object.keys(FINDING_CODES) as FindingCode[];
  const lines = [
    '# Finding codes',
    '',
    '<!-- Generated from src/verify/findings.ts by `npm run generate`; do not edit by hand. -->',
    '',
    'Every problem `ledgerboard verify` finds in a bundle is a finding',
    '`{ code, severity, file, line?, message }`. Codes are stable: a code never',
    'changes meaning once published. The message says what happened, in which',
    'file, at which line and JSON path; tests assert codes, never wording.',
    '',
    "A bundle's status follows from its errors: `invalid` if any error other than",
    '`MISSING_FILE` and `MISSING_ARTIFACT`; else `no_verdict` if either of those;',
    'else `verified`. Warnings never change the status; they travel to the pages',
    'they affect. Only `verified` bundles are counted; the others are published',
    'with their findings.',
    '',
    '| code | effect | when it fires | how to fix it |',
    '|---|---|---|---|',
    ...codes.map((code) => `| \`${code}\` | ${effect(code)} | ${FINDING_CODES[code].when} | ${FINDING_CODES[code].fix} |`),
    '',
    'Where FORMAT.md leaves a choice open, the choice ledgerboard made is in',
    '[format-decisions.md](format-decisions.md). Every code has a tampered',
    'fixture in `test/verify/finding-codes.test.ts`.',
    '',
  ];
  return lines.join('\n');
}
