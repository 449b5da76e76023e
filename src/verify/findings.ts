/**
 * The catalog of finding codes (FORMAT.md section 6). A code, once published,
 * never changes meaning; docs/finding-codes.md is generated from this table.
 */

/** `error` findings decide the status; `warning` findings travel to the pages they affect. */
export type Severity = 'error' | 'warning';

/** One problem found in a bundle. `file` is bundle-relative; `line` is 1-based for JSONL and parse errors. */
export interface Finding {
  code: FindingCode;
  severity: Severity;
  file: string;
  line?: number;
  message: string;
}

/** What a code means, when it fires, and how to fix it. */
export interface CodeInfo {
  severity: Severity;
  /** One line: what triggers it. */
  when: string;
  /** One line: what the publisher should do. */
  fix: string;
  /**
   * Where it is found: `bundle` by verifyBundle from one bundle's bytes (every
   * FORMAT.md code); `read` by the reader's limits; `history` by comparing with
   * the retained reports; `pipeline` around a bundle's processing. Only
   * `bundle` codes can come from `ledgerboard verify` on a bundle alone.
   */
  stage?: 'read' | 'history' | 'pipeline';
  /** True for a code of ledgerboard's own found in one bundle alone, not in FORMAT.md's table (it is never an error). */
  own?: true;
}

/** Every finding code with its severity, trigger and fix. Order: as in FORMAT.md. */
export const FINDING_CODES = {
  MISSING_FILE: {
    severity: 'error',
    when: 'A required file (manifest.json, plan.json, ledger.jsonl, attempts.jsonl) or a manifest-listed file is absent or unreadable, or a directory of the bundle (or the bundle directory itself) cannot be listed.',
    fix: 'Restore the file from the retained evidence; never re-create it by hand.',
  },
  MISSING_ARTIFACT: {
    severity: 'error',
    when: 'A referenced digest (attempt patch, grade input/output/receipt, an imported plan\'s origin.source) names no manifest-listed file whose bytes hash to it.',
    fix: 'Add the artifact under artifacts/ and list it in the manifest, or correct the reference.',
  },
  UNLISTED_FILE: {
    severity: 'error',
    when: 'A regular file on disk is not listed in manifest.json.',
    fix: 'List it (reseal the bundle) or remove it; every byte published must be covered by the manifest.',
  },
  UNSAFE_PATH: {
    severity: 'error',
    when: 'A manifest path is absolute, empty, has an empty, "." or ".." segment, a backslash or NUL, or is over 255 bytes.',
    fix: 'Use relative "/"-separated paths inside the bundle.',
  },
  NOT_REGULAR_FILE: {
    severity: 'error',
    when: 'A symbolic link, FIFO, socket, device or other non-regular entry sits inside the bundle, or a bundle found under a bundles directory is itself a symbolic link (ledgerboard never follows or opens it).',
    fix: 'Replace the link with the file it points to, or remove the entry.',
  },
  PATH_COLLISION: {
    severity: 'warning',
    own: true,
    when: 'Two entries of the bundle have names that are equal after Unicode normalisation (NFC) or case folding, such as "Notes.md" and "notes.md": on a macOS or Windows checkout one replaces the other.',
    fix: 'Rename one of them (and reseal), so the bundle can be copied to any file system intact.',
  },
  BAD_JSON: {
    severity: 'error',
    when: 'A JSON file or JSONL line does not parse strictly: syntax, duplicate member name, lone surrogate, noncharacter, invalid UTF-8, byte-order mark, number out of range, nesting over 64, blank line, CR, or a JSONL line that is not an object.',
    fix: 'Re-serialize the file with a strict JSON writer; the finding gives line and column.',
  },
  SCHEMA_VIOLATION: {
    severity: 'error',
    when: 'A member has the wrong type, is missing, is out of range, has a bad digest or timestamp syntax or a bad enum value; a plan or manifest number is not an integer token within 2^53 - 1; the manifest file list is unsorted, duplicated or names manifest.json.',
    fix: 'Correct the member named in the message (its JSON path is given); see the published JSON Schemas under /schema/.',
  },
  UNKNOWN_MEMBER: {
    severity: 'error',
    when: 'An object holds a member the schema does not define (a typo such as "replicas" is never ignored).',
    fix: 'Remove or rename the member; then reseal (for plan.json the plan id changes).',
  },
  FILE_DIGEST_MISMATCH: {
    severity: 'error',
    when: "A file's bytes do not hash to its manifest entry, or its size differs.",
    fix: 'The file changed after sealing: restore the sealed bytes; a real change needs a new bundle.',
  },
  BUNDLE_ID_MISMATCH: {
    severity: 'error',
    when: 'manifest.json bundle_id is not the digest of the canonical manifest without bundle_id.',
    fix: 'Reseal the manifest; check that no entry was edited by hand.',
  },
  PLAN_ID_MISMATCH: {
    severity: 'error',
    when: 'plan.json plan_id does not re-derive, or the manifest names another plan.',
    fix: 'A frozen plan is never edited: restore the frozen plan.json, or freeze a new plan.',
  },
  LEDGER_DIGEST_MISMATCH: {
    severity: 'error',
    when: "ledger.jsonl does not hash to the plan's ledger.digest.",
    fix: 'Restore the ledger the plan pinned; a changed ledger needs a new plan.',
  },
  LEDGER_TASK_COUNT: {
    severity: 'error',
    when: 'The number of ledger lines differs from plan.ledger.tasks.',
    fix: 'Restore the pinned ledger, or correct the plan before freezing it.',
  },
  DUPLICATE_TASK: {
    severity: 'error',
    when: 'A task_id appears twice in the ledger.',
    fix: 'Give every task a unique id.',
  },
  LABELLED_AFTER_FREEZE: {
    severity: 'error',
    when: "A task's created_at is after the plan's created_at (labels must exist before any agent runs). Not evaluated for imported evidence.",
    fix: 'Tasks labelled after the freeze belong in a new plan.',
  },
  MISSING_LICENSE: {
    severity: 'warning',
    when: 'A ledger task has an empty (or all-whitespace) license.',
    fix: "Record the task's license; until then the ranking is marked not publishable.",
  },
  DUPLICATE_SUBJECT: {
    severity: 'error',
    when: 'Two plan subjects resolve to the same model + agent (name, version).',
    fix: 'List each subject once; one model may appear with two different agents.',
  },
  CEILING_ARITHMETIC: {
    severity: 'error',
    when: 'budget.per_attempt_micros is not floor(aggregate_micros / dispatches), dispatches = tasks x subjects x attempts.',
    fix: 'Set per_attempt_micros to the floor of the division before freezing.',
  },
  ZERO_SHARE: {
    severity: 'error',
    when: 'aggregate_micros / dispatches is below one micro per dispatch.',
    fix: 'Raise the aggregate budget or plan fewer dispatches.',
  },
  OVER_CEILING: {
    severity: 'warning',
    when: "An attempt's complete or partial cost exceeds per_attempt_micros, or the sum of complete and partial costs exceeds aggregate_micros. Not evaluated when the ceiling itself is broken or there is no budget.",
    fix: 'Nothing to repair in the evidence: the overspend is shown on the pages it affects.',
  },
  COST_STATE_INCONSISTENT: {
    severity: 'error',
    when: 'micros present for unavailable/not_applicable, non-zero for zero, or null for complete/partial.',
    fix: 'Record unknown cost as unavailable with micros null; never as zero.',
  },
  IDENTITY_MISMATCH: {
    severity: 'error',
    when: 'An attempt\'s observed_model differs from its planned model.',
    fix: 'The attempt ran another model and is not evidence for the plan; it cannot be repaired.',
  },
  UNPLANNED_ATTEMPT: {
    severity: 'error',
    when: 'An attempt names a task, subject (model + agent) or index outside the plan\'s matrix.',
    fix: 'Remove attempts the plan did not authorise, or freeze a plan that includes them.',
  },
  DUPLICATE_SLOT: {
    severity: 'error',
    when: 'Two attempts fill one slot (task, model, agent, index): a redispatch.',
    fix: 'A slot is dispatched once; a redispatch after a failure is exactly what the format forbids.',
  },
  DUPLICATE_ID: {
    severity: 'error',
    when: 'An attempt_id appears twice in attempts.jsonl.',
    fix: 'Give every attempt a unique id.',
  },
  ATTEMPT_BEFORE_FREEZE: {
    severity: 'error',
    when: 'An attempt started before plan.created_at (not evaluated for imported evidence), or ended before it started.',
    fix: 'Attempts that ran before the freeze belong to no frozen plan; check the harness clock.',
  },
  UNACCOUNTED_SLOT: {
    severity: 'warning',
    when: 'A slot of the matrix (task x subject x index) has no attempt record.',
    fix: 'Record every dispatch, including cancelled ones; an empty slot makes that task incomplete in verdicts.',
  },
  GRADE_UNKNOWN_ATTEMPT: {
    severity: 'error',
    when: 'A grade result names no attempt of the bundle, or two results in one generation name the same attempt.',
    fix: 'Grade each attempt once per generation; a regrade goes into a new generation file.',
  },
  GRADER_NOT_PINNED: {
    severity: 'error',
    when: "Generation 1's grader (id, version, executable) is not the plan's grader.",
    fix: 'Generation 1 must use the pinned grader; other graders go into later generations.',
  },
  GENERATION_GAP: {
    severity: 'error',
    when: 'Grade generations are not numbered 1..n, a file under grades/ is not <n>.json in plain decimal, or its generation member disagrees with its name.',
    fix: 'Name generation n grades/<n>.json, append only, never renumber.',
  },
  GRANT_MISMATCH: {
    severity: 'error',
    when: "grant.json does not echo the plan's id, models, currency and budget, or an attempt started at or after the grant expired.",
    fix: 'Issue the grant from the frozen plan; attempts after expiry are not authorised.',
  },
  IMPORT_MISMATCH: {
    severity: 'error',
    when: "An imported bundle that is otherwise verified, re-imported by this verifier's importer of its origin.format (the same ledgerboard version its origin.tool names) from its own kept originals under source/ (with the license of its ledger and the format flags its plan records, within the import limits), gives another bundle id, or the importer refuses those originals; the message names the first differing file in byte order (for a grades file, how many verdicts differ).",
    fix: 'Re-import the original with `ledgerboard import` (the plan page gives the command) and publish that bundle; an imported bundle is never edited by hand.',
  },
  IMPORT_NOT_REPRODUCED: {
    severity: 'warning',
    when: "An imported, otherwise verified bundle whose import this verifier cannot re-run: it has no importer for origin.format, origin.tool is not ledgerboard at this verifier's version, or the kept originals are over the import limits (the message names the tool and version the bundle claims, and the limit).",
    fix: 'Verify with the ledgerboard version the bundle names (or re-import the original with this one), or raise `import_limits` in the config if the originals are meant to be that large.',
  },
  ASSESSMENT_UNKNOWN_SUBJECT: {
    severity: 'error',
    when: "An assessment in assessments.json names a subject (model + agent name and version) that is not a subject of the bundle's plan.",
    fix: 'Name the subject exactly as plan.json does (its model and agent); an assessment of another evaluation belongs in that bundle.',
  },
  ASSESSMENT_BASIS_MISSING: {
    severity: 'error',
    when: "An assessment's basis in assessments.json names a path the manifest does not list.",
    fix: 'Put the basis (the report the level rests on) in the bundle, under artifacts/, at the path the assessment names, and seal again; or drop the basis member.',
  },
  ANCHOR_UNREADABLE: {
    severity: 'error',
    when: "A manifest-listed anchors/<name>.tsr file is not a DER TimeStampResp (status granted) or TimeStampToken, or its signature does not verify against the certificate it carries (FORMAT.md 12; the message says which: truncated, trailing bytes, not DER, a rejected response, over 1 MiB, a signed digest or signature that does not check).",
    fix: 'Put the time-stamp authority\'s answer in anchors/ byte for byte as it came (`freeze --anchor` writes it; `openssl ts -verify -digest <plan-id-hex> -in <file> -CAfile <root.pem>` checks it), or remove the file and seal again.',
  },
  ANCHOR_MISMATCH: {
    severity: 'error',
    when: "A time-stamp token's message imprint is not SHA-256 with the plan id's 32 bytes: another algorithm, or another plan's id (FORMAT.md 12).",
    fix: 'Ask for a time-stamp over this plan: `ledgerboard freeze --anchor-only <dir> --anchor <URL>` (the request is `openssl ts -query -digest <plan-id-hex> -sha256 -cert`), and remove the token of the other plan.',
  },
  ANCHOR_AFTER_ATTEMPT: {
    severity: 'warning',
    when: "The bundle has an anchor, but no token's genTime is strictly before the earliest started_at of its attempts: the plan is shown to exist then, not to be frozen before it ran (FORMAT.md 12).",
    fix: 'Nothing to repair in this bundle: the order of events is what it is. Next time, anchor the plan when it is frozen (`freeze --anchor <URL>`), before the first attempt starts.',
  },
  ANCHOR_BEFORE_CREATED: {
    severity: 'warning',
    when: "A time-stamp token's genTime is before the plan's created_at: the plan's own clock is wrong (FORMAT.md 12).",
    fix: "Check the clock of the machine that froze the plan; the anchor's time, not created_at, is the one a stranger can check.",
  },
  LIMIT_EXCEEDED: {
    severity: 'error',
    stage: 'read',
    when: 'A file, the file count, a JSONL file\'s line count or line length, a JSON nesting depth, one JSON string or NOTES.md is over a configured limit (the message names the limit, its value, and for a string the field); or the attempts\' totals (tokens, retries, cost micros over 2^53 - 1, wall seconds not finite) are more than a report holds exactly. The checks that need that input are skipped.',
    fix: 'Split the evidence, or raise the limit in ledgerboard.config.json (`limits`) if the size is intended; totals past 2^53 - 1 are not real measurements: correct the attempts.',
  },
  REWRITTEN_EVIDENCE: {
    severity: 'error',
    stage: 'history',
    when: "A plan that a retained report counted reappears with another bundle_id, and a file of the retained bundle was removed, or its old bytes are no longer a prefix of the new file (an append keeps the old bytes as a prefix); or the retained bundle's manifest is missing from the retained manifests (an incomplete retention), so no file can be shown unchanged or appended (the finding's file is manifest.json).",
    fix: "Publish the retained bytes again; new evidence goes into new files or is appended, never rewritten. For a missing manifest, copy the retained bundle's manifest.json to the name the archive page gives.",
  },
  INTERNAL_ERROR: {
    severity: 'error',
    stage: 'pipeline',
    when: 'ledgerboard failed unexpectedly while processing this bundle (a bug, not a property of the evidence); the bundle gets no verdict and the others are processed as usual.',
    fix: 'Report the bug with the message; the evidence may be fine.',
  },
} as const satisfies Record<string, CodeInfo>;

/** A finding code. */
export type FindingCode = keyof typeof FINDING_CODES;

/**
 * Codes whose errors make a bundle no_verdict rather than invalid: an input
 * that could not be read (FORMAT.md 6), an assessment's basis the manifest
 * does not list (FORMAT.md 6's table: "E, no_verdict"), and the two cases
 * where ledgerboard declined or failed to judge the evidence (a limit, a
 * crash): none says the evidence is malformed, and none is ever a pass.
 */
export const NO_VERDICT_CODES: ReadonlySet<FindingCode> = new Set(['MISSING_FILE', 'MISSING_ARTIFACT', 'ASSESSMENT_BASIS_MISSING', 'LIMIT_EXCEEDED', 'INTERNAL_ERROR']);

/** A bundle's status (FORMAT.md section 6). */
export type BundleStatus = 'verified' | 'invalid' | 'no_verdict';

/** The status rule: invalid on any error other than the no-verdict codes above; else no_verdict on those; else verified. */
export function statusOf(findings: readonly Finding[]): BundleStatus {
  let missing = false;
  for (const finding of findings) {
    if (finding.severity !== 'error') continue;
    if (!NO_VERDICT_CODES.has(finding.code)) return 'invalid';
    missing = true;
  }
  return missing ? 'no_verdict' : 'verified';
}

/** Builds a finding with the catalog's severity. */
export function finding(code: FindingCode, file: string, message: string, line?: number): Finding {
  const result: Finding = { code, severity: FINDING_CODES[code].severity, file, message };
  if (line !== undefined) result.line = line;
  return result;
}
