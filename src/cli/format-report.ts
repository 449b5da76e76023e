/** The readable form of a report: one table per board, then what was not counted and why. */
import { shortDigest } from '../json/canonical.ts';
import { interval, moneyText, percent, points, rankText } from '../site/views/format.ts';
import { cohortMoney } from '../facts/money.ts';

export { rankText } from '../site/views/format.ts';
import { groupedIncompatibilities, type Report } from '../report/schema.ts';
import { cohortPairCount } from '../analysis/incompatibilities.ts';
import { boardsInOrder } from '../report/board-order.ts';
import { terminalSafe, type Paint } from './terminal.ts';

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

/** Human-readable report text. */
export function reportText(report: Report, paint: Paint): string {
  const lines: string[] = [];
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  lines.push(`${paint('bold', terminalSafe(report.config.title))}  report ${shortDigest(report.report_id)}  evidence up to ${report.evidence_date ?? '-'}`);
  for (const board of boardsInOrder(report)) {
    const k = board.key;
    lines.push('');
    lines.push(
      paint(
        'bold',
        `board ${shortDigest(board.board_id)}: ledger ${terminalSafe(board.ledger.name)} (${board.ledger.headline_tasks.length} headline tasks), harness ${terminalSafe(k.harness.name)} ${terminalSafe(k.harness.version)}, grader ${terminalSafe(k.grading.id)} ${terminalSafe(k.grading.version)}, tool policy ${shortDigest(k.environment.tool_policy)}, ${k.origin}`,
      ),
    );
    const rows = [['rank', 'subject', 'agent', 'role', 'headline', '95% CI', 'delta', '95% CI', 'impr/regr', 'verdict', 'cost', 'attempts']];
    for (const id of board.cohorts) {
      const c = cohorts.get(id)!;
      rows.push([
        rankText(c),
        terminalSafe(c.subject.model),
        terminalSafe(`${c.subject.agent.name} ${c.subject.agent.version}`),
        c.subject.role,
        `${percent(c.headline.rate)} (${c.headline.resolved}/${c.headline.graded})`,
        interval(c.headline.wilson),
        points(c.delta?.rate ?? null),
        interval(c.delta?.interval ?? null),
        c.classes ? `${c.classes.improved}/${c.classes.regressed}` : '-',
        c.verdict ?? '-',
        terminalSafe(moneyText(c.cost, cohortMoney(c).known)),
        String(c.attempts),
      ]);
    }
    lines.push(...table(rows).map((l) => `  ${l}`));
    if (board.pairs && board.pairs.length > 0) {
      const won = board.pairs.filter((p) => p.winner !== null).length;
      lines.push(`  rank: the range the pairs allow (FORMAT.md 7.6, a sign test over headline tasks, Holm-adjusted): ${won} of ${board.pairs.length} pairs told apart`);
    }
    if (board.baseline_problem) lines.push(`  no verdicts: ${board.baseline_problem.replace('_', ' ')}`);
    const drifted = board.drift.filter((d) => d.versus_previous?.drift);
    for (const d of drifted) lines.push(paint('yellow', `  drift: the baseline moved to ${percent(d.rate)} in the plan of ${d.created_at} (p = ${d.versus_previous!.p.toFixed(3)})`));
    // A regrade replaced generation 1's verdicts (the latest generation is in use): say what moved and the verdict then.
    for (const id of board.cohorts) {
      const c = cohorts.get(id)!;
      const r = c.regrade;
      if (!r) continue;
      const by = r.generations.map((g) => `generation ${g.generation} (${terminalSafe(g.grader.id)} ${terminalSafe(g.grader.version)}) of plan ${shortDigest(g.plan_id)}`).join(', ');
      const then = r.earlier.map((e) => e.verdict ?? 'none, a baseline').join(', ') || '-';
      lines.push(
        paint(
          'yellow',
          `  regraded: ${terminalSafe(c.subject.model)} ${terminalSafe(`${c.subject.agent.name} ${c.subject.agent.version}`)}: ${by || 'its baseline only'}: ${r.fail_to_pass} fail -> pass, ${r.pass_to_fail} pass -> fail${r.baseline_regraded && r.generations.length > 0 ? ', baseline regraded too' : ''}; under generation 1: ${then}`,
        ),
      );
    }
  }
  const notCounted = report.bundles.filter((b) => !b.counted);
  lines.push('');
  lines.push(`${report.bundles.length} bundles read, ${report.bundles.length - notCounted.length} counted; ${cohortPairCount(groupedIncompatibilities(report).by_ledger)} incompatible cohort pairs`);
  for (const b of notCounted) {
    lines.push(`  not counted: bundle ${shortDigest(b.bundle_id)} (${b.status}${b.status === 'verified' ? ', its plan appears in another bundle too' : `, ${b.findings.filter((f) => f.severity === 'error').length} errors`})`);
  }
  // The freeze log (issue 30): how many plans were frozen, and which never reached the board.
  const log = report.freeze_log;
  if (log !== null && log !== undefined) {
    const unpublished = log.plans.filter((p) => !p.published);
    lines.push(`freeze log: ${log.plans.length} plans frozen, ${log.plans.length - unpublished.length} published${log.findings.length > 0 ? paint('red', `; ${log.findings.length} findings (${[...new Set(log.findings.map((f) => f.code))].join(', ')})`) : ''}`);
    for (const p of unpublished) lines.push(`  frozen ${p.created_at}, never published: plan ${shortDigest(p.plan_id)} ${terminalSafe(JSON.stringify(p.title))}`);
  }
  return `${lines.join('\n')}\n`;
}
