/** Renders docs/finding-codes.md from the finding catalog (the catalog is the one source). */
import { FINDING_CODES, NO_VERDICT_CODES, type CodeInfo, type FindingCode } from '../../src/verify/findings.ts';

const STAGE_TEXT: Record<NonNullable<CodeInfo['stage']>, string> = {
  read: 'reader limits (verify, report, build)',
  history: 'history: report, build and retain (needs the retained reports)',
  pipeline: 'around any bundle (verify, report, build)',
  'freeze-log': "the freeze log: report, build and retain (the config's freeze_log; the report's freeze_log.findings)",
};

function stage(code: FindingCode): string {
  const info: CodeInfo = FINDING_CODES[code];
  if (info.stage) return STAGE_TEXT[info.stage];
  return info.own ? "the bundle alone (ledgerboard's own, not in FORMAT.md 6)" : 'the bundle alone (FORMAT.md 6)';
}

function effect(code: FindingCode): string {
  const info: CodeInfo = FINDING_CODES[code];
  if (info.stage === 'freeze-log') return 'error: in the freeze log, no bundle status changes';
  if (info.severity === 'warning') return 'warning: status unchanged';
  return NO_VERDICT_CODES.has(code) ? 'error: no_verdict' : 'error: invalid';
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
    `${[...NO_VERDICT_CODES].map((c) => `\`${c}\``).join(', ')}; else \`no_verdict\` if any of those;`,
    'else `verified`. Warnings never change the status; they travel to the pages',
    'they affect. Only `verified` bundles are counted; the others are published',
    'with their findings.',
    '',
    'Most codes are found in one bundle alone (FORMAT.md section 6). Four are',
    "ledgerboard's own: `LIMIT_EXCEEDED` (the reader's configurable limits),",
    '`REWRITTEN_EVIDENCE` (a comparison with the retained history, so only',
    '`report`, `build` and `retain` see it), `INTERNAL_ERROR` (a crash while',
    'processing one bundle, isolated to it) and `PATH_COLLISION` (a warning',
    'about names a case-insensitive file system cannot keep apart).',
    '',
    '| code | effect | found by | when it fires | how to fix it |',
    '|---|---|---|---|---|',
    ...codes.map((code) => `| \`${code}\` | ${effect(code)} | ${stage(code)} | ${FINDING_CODES[code].when} | ${FINDING_CODES[code].fix} |`),
    '',
    'Where FORMAT.md leaves a choice open, the choice ledgerboard made is in',
    '[format-decisions.md](format-decisions.md). Every code of the bundle alone',
    'has a tampered fixture in `test/verify/finding-codes.test.ts`; the other',
    'three have theirs in `test/history/`, `test/evidence/limits.test.ts` and',
    '`test/pipeline/internal-error.test.ts`.',
    '',
  ];
  return lines.join('\n');
}
