/** Human and JSON output of `ledgerboard verify` (FORMAT.md section 6). */
import { shortDigest } from '../json/canonical.ts';
import type { BundleResult } from '../pipeline/verify-paths.ts';
import type { Finding } from '../verify/findings.ts';
import type { BundleAnchor } from '../anchor/times.ts';
import { terminalSafe, type Paint } from './terminal.ts';

/** At most this many findings of one code per file are printed unless `all` is set. */
export const FINDINGS_SHOWN_PER_CODE = 10;

/** The `--json` document: exactly `{"bundles":[{"path","bundle_id","plan_id","status","findings"}]}`. */
export function verifyJson(results: readonly BundleResult[]): string {
  const bundles = results.map(({ path, verification: v }) => ({
    path,
    bundle_id: v.bundle_id,
    plan_id: v.plan_id,
    status: v.status,
    findings: v.findings.map(findingJson),
  }));
  return `${JSON.stringify({ bundles }, null, 2)}\n`;
}

/** A finding in the fixed member order code, severity, file, line (when known), message. */
function findingJson(f: Finding): Finding {
  return { code: f.code, severity: f.severity, file: f.file, ...(f.line !== undefined ? { line: f.line } : {}), message: f.message };
}

const STATUS_STYLE = { verified: 'green', invalid: 'red', no_verdict: 'yellow' } as const;

/** The longest authority name printed whole (a certificate's subject is the evidence's text: bounded only by the token's size). */
const AUTHORITY_SHOWN = 200;

/**
 * The anchor line of a bundle (FORMAT.md 12): "anchored by <authority> at
 * <gen_time> (pinned|not pinned), before the first attempt" (or "after"), or
 * "not anchored".
 */
export function anchorLine(anchor: BundleAnchor | null): string {
  if (anchor === null) return 'not anchored';
  const authority = anchor.authority.length > AUTHORITY_SHOWN ? `${anchor.authority.slice(0, AUTHORITY_SHOWN)}…` : anchor.authority;
  return `anchored by ${terminalSafe(authority)} at ${anchor.gen_time} (${anchor.pinned ? 'pinned' : 'not pinned'}), ${anchor.before_first_attempt ? 'before' : 'after'} the first attempt`;
}

/** Human output: one line per bundle and its anchor line, then its findings grouped by file, then a summary line. */
export function verifyText(results: readonly BundleResult[], paint: Paint, all: boolean): string {
  const lines: string[] = [];
  for (const { path, verification: v } of results) {
    const status = paint(STATUS_STYLE[v.status], v.status.padEnd(10));
    lines.push(`${status} bundle ${shortDigest(v.bundle_id).padEnd(12)}  plan ${shortDigest(v.plan_id).padEnd(12)}  ${terminalSafe(path)}`);
    lines.push(`  ${anchorLine(v.anchor)}`);
    const byFile = new Map<string, Finding[]>();
    for (const f of v.findings) {
      const list = byFile.get(f.file) ?? [];
      list.push(f);
      byFile.set(f.file, list);
    }
    for (const [file, findings] of byFile) {
      lines.push(`  ${paint('bold', terminalSafe(file))}`);
      const shown = new Map<string, number>();
      for (const f of findings) {
        const count = (shown.get(f.code) ?? 0) + 1;
        shown.set(f.code, count);
        if (!all && count > FINDINGS_SHOWN_PER_CODE) continue;
        const severity = f.severity === 'error' ? paint('red', 'error  ') : paint('yellow', 'warning');
        lines.push(`    ${severity} ${f.code}: ${terminalSafe(f.message)}`);
      }
      for (const [code, count] of shown) {
        if (!all && count > FINDINGS_SHOWN_PER_CODE) {
          lines.push(paint('dim', `    ... and ${count - FINDINGS_SHOWN_PER_CODE} more ${code} (--all lists every finding)`));
        }
      }
    }
  }
  lines.push('', summaryLine(results));
  return `${lines.join('\n')}\n`;
}

/** `3 bundles: 2 verified, 1 invalid, 0 no_verdict; 4 warnings` */
export function summaryLine(results: readonly BundleResult[]): string {
  const count = { verified: 0, invalid: 0, no_verdict: 0 };
  let warnings = 0;
  for (const { verification: v } of results) {
    count[v.status]++;
    warnings += v.findings.filter((f) => f.severity === 'warning').length;
  }
  const noun = results.length === 1 ? 'bundle' : 'bundles';
  return `${results.length} ${noun}: ${count.verified} verified, ${count.invalid} invalid, ${count.no_verdict} no_verdict; ${warnings} warning${warnings === 1 ? '' : 's'}`;
}
