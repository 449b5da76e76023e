/** The benchmark's human-readable report: machine facts, then one table per measurement. */
import type { MachineFacts } from './machine.ts';
import type { Stats } from './measure.ts';
import type { ScaleResult } from './scale.ts';
import type { DemoResult, HashResult, ParserResult, VerifyResult } from './suites.ts';

/** Everything one benchmark run measured (also the `--json` output). */
export interface BenchResults {
  machine: MachineFacts;
  options: { sizes: number[]; runs: number; hashGiB: number; seed: number; scale: number[]; scaleBundles: number; onlyScale: boolean };
  verify: VerifyResult[];
  parser: ParserResult[];
  hashing: HashResult | null;
  demo: DemoResult | null;
  scale: ScaleResult[];
  failures: string[];
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** `123.4` for a number of ms; below 10 ms with two decimals. */
export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** Median with its range: `412.3 [398.1-455.0]`. */
function spread(s: Stats): string {
  return `${ms(s.median)} [${ms(s.min)}-${ms(s.max)}]`;
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1);
}

function ratio(value: number, target?: number): string {
  const text = `${value.toFixed(2)}x`;
  return target !== undefined && value > target ? `${text} ABOVE TARGET` : text;
}

/** The whole report as text. */
export function formatReport(r: BenchResults): string {
  const out: string[] = [];
  const m = r.machine;
  out.push('ledgerboard benchmark');
  out.push(`node ${m.node} (bundled OpenSSL ${m.opensslInNode}) | ${m.openssl} | CPU ${m.cpu} | nproc ${m.nproc} | ${m.memoryGiB} GiB | ${m.platform}`);
  out.push(`runs ${r.options.runs} per measurement after one warm-up (median [min-max], ms); seed ${r.options.seed}; MB = 10^6 bytes`);

  if (!r.options.onlyScale) formatSuites(r, out);
  formatScale(r, out);

  out.push('');
  if (r.failures.length === 0) out.push('every generated bundle verified; every digest agreed');
  else out.push(`FAILED:\n${r.failures.map((f) => `  - ${f}`).join('\n')}`);
  return `${out.join('\n')}\n`;
}

/** (a) to (e). */
function formatSuites(r: BenchResults, out: string[]): void {
  out.push('', '(a, b) verify end to end (readBundle + verifyBundle) vs `openssl dgst -sha256` over the same files');
  out.push(
    table(
      ['attempts', 'files', 'MB', 'verify ms', 'read ms', 'check ms', 'attempts/s', 'MB/s', 'openssl ms', 'verify/openssl', 'status'],
      r.verify.map((v) => [
        count(v.attempts),
        String(v.files),
        mb(v.bytes),
        spread(v.verify),
        ms(v.read.median),
        ms(v.check.median),
        count(v.attemptsPerSecond),
        (v.mbPerSecond).toFixed(1),
        spread(v.openssl),
        ratio(v.ratio),
        `${v.status}${v.digestsAgree ? '' : ', DIGESTS DISAGREE'}`,
      ]),
    ),
  );

  out.push('', `(c) parseStrictJsonl vs TextDecoder + split('\\n') + JSON.parse per line, on attempts.jsonl (target: within ${r.parser[0]?.target ?? 3}x)`);
  out.push(
    table(
      ['attempts', 'MB', 'strict ms', 'JSON.parse ms', 'strict MB/s', 'ratio', 'same values'],
      r.parser.map((p) => [
        count(p.attempts),
        mb(p.bytes),
        spread(p.strict),
        spread(p.jsonParse),
        (p.bytes / 1e6 / (p.strict.median / 1000)).toFixed(1),
        ratio(p.ratio, p.target),
        p.sameValues ? 'yes' : 'NO',
      ]),
    ),
  );

  const h = r.hashing;
  if (h) {
    const gib = (h.bytes / 2 ** 30).toFixed(2);
    out.push('', `(d) hashing a ${gib} GiB artifact: hashHandle (1 MiB reads) vs \`openssl dgst -sha256 FILE\` (target: within ${h.target}x)`);
    out.push(
      table(
        ['hasher', 'ms', 'MB/s'],
        [
          ['hashHandle', spread(h.hashHandle), (h.bytes / 1e6 / (h.hashHandle.median / 1000)).toFixed(0)],
          ['openssl', spread(h.openssl), (h.bytes / 1e6 / (h.openssl.median / 1000)).toFixed(0)],
        ],
      ),
    );
    out.push(`ratio hashHandle/openssl: ${ratio(h.ratio, h.target)}; digests agree: ${h.digestsAgree ? 'yes' : 'NO'} (${h.digest})`);
    if (h.child) {
      const delta = h.child.peakRssMiB - h.child.idleRssMiB;
      out.push(
        `peak RSS of a child process hashing the file: ${h.child.peakRssMiB.toFixed(1)} MiB ` +
          `(the same child without hashing: ${h.child.idleRssMiB.toFixed(1)} MiB, difference ${delta >= 0 ? '+' : ''}${delta.toFixed(1)} MiB; ` +
          `max of ${h.child.runs} runs each${h.child.peakHwmMiB === null ? '' : `; VmHWM ${h.child.peakHwmMiB.toFixed(1)} MiB`}; ` +
          `child hash time median ${ms(h.child.hashMs)} ms)`,
      );
    }
    out.push(`(writing the file took ${ms(h.writeMs)} ms)`);
  }

  const d = r.demo;
  out.push('');
  if (d) {
    const statuses = Object.entries(d.statuses).map(([k, v]) => `${v} ${k}`).join(', ');
    out.push(`(e) \`node bin/ledgerboard.mjs verify ${d.path}\`: ${d.bundles} bundles (${statuses}), ${d.files} files, ${mb(d.bytes)} MB`);
    out.push(`CLI wall time ${spread(d.cli)} ms, exit code ${String(d.exitCode)}`);
    out.push(`of which: \`node bin/ledgerboard.mjs --version\` (start-up) ${spread(d.cliStartup)} ms; verifyPaths in-process ${spread(d.inProcess)} ms`);
  } else {
    out.push('(e) demo bundles: not present, not measured');
  }
}

/** (h). */
function formatScale(r: BenchResults, out: string[]): void {
  if (r.scale.length > 0) {
    out.push('', `(h) scale: verifyPaths + buildReport in a child process, evidence split across ${r.options.scaleBundles} bundles (target at 10^6: under 15 s, under 2 GiB peak RSS)`);
    out.push(
      table(
        ['attempts', 'tasks', 'MB', 'runs', 'verify ms', 'analysis ms', 'total ms', 'CPU ms', 'us/attempt', 'growth', 'peak RSS MiB', 'status'],
        r.scale.map((s) => [
          count(s.attempts),
          count(s.tasks),
          mb(s.bytes),
          String(s.runs),
          spread(s.verify),
          spread(s.analysis),
          spread(s.total),
          ms(s.cpu.median),
          s.usPerAttempt.toFixed(2),
          s.growth === null ? '-' : `${s.growth.toFixed(2)}x`,
          s.peakRssMiB.toFixed(0),
          Object.entries(s.statuses).map(([k, v]) => `${v} ${k}`).join(', ') + (s.deterministic ? '' : ', REPORT ID VARIES'),
        ]),
      ),
    );
    const idle = r.scale[0]!.idleRssMiB;
    out.push(
      `growth: us/attempt over the previous size's (1.00x = linear). Peak RSS: max of the runs' ru_maxrss (idle child ${idle.toFixed(0)} MiB). ` +
        `canonicalJson(report) medians: ${r.scale.map((s) => `${ms(s.json.median)} ms`).join(', ')} (not in the total).`,
    );
    for (const s of r.scale) {
      out.push(`  ${count(s.attempts)}: ${s.cohorts} cohorts on ${s.boards} boards, ${s.findings} findings, report ${s.reportId ?? '-'}, generated in ${(s.generateMs / 1000).toFixed(1)} s`);
      if (s.target) {
        out.push(
          `  target at 10^6: total ${ms(s.total.median)} ms (< ${s.target.totalMs}), peak RSS ${s.peakRssMiB.toFixed(0)} MiB (< ${s.target.peakRssMiB}): ${s.target.met ? 'met' : 'NOT MET'}`,
        );
      }
    }
  }
}
