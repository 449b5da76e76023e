/**
 * The freeze log read and checked (issue 30): every line that does not parse
 * is 'FREEZE_LOG_UNREADABLE' with its line number; a copy retain kept that is
 * no longer a byte prefix of the log is 'FREEZE_LOG_REWRITTEN' naming the copy
 * and the first line that differs or is missing; the report's freeze_log
 * lists each plan once (first line's members, latest anchor digest,
 * published); and through the CLI, a line removed from the log between two
 * retains is found: the second retain refuses and writes nothing, and the
 * report says it.
 */
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { checkFreezeLog, type RetainedFreezeLog } from '../../src/history/freeze-log.ts';
import { reportFreezeLog } from '../../src/report/freeze-log.ts';
import { parseFreezeLog, type FreezeLogLine } from '../../src/schema/freeze-log.ts';
import type { Report } from '../../src/report/schema.ts';
import { compareTimestamps } from '../../src/schema/timestamp.ts';
import { runCli } from '../helpers/cli.ts';
import { makeTempDir, removeTempDirs, sealBundle, validBundle, writeModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

const hex = (n: number) => n.toString(16).padStart(64, '0');
const line = (n: number, over: Partial<FreezeLogLine> = {}): FreezeLogLine => ({
  anchor_digest: null,
  created_at: `2026-0${n}-01T00:00:00Z`,
  ledger_digest: `sha256:${hex(100 + n)}`,
  plan_id: `sha256:${hex(n)}`,
  schema: 'ledgerboard.freeze-log.v1',
  title: `plan ${n}`,
  ...over,
});
const text = (...lines: FreezeLogLine[]) => lines.map((l) => `${canonicalJson(l)}\n`).join('');
const bytes = (s: string) => new TextEncoder().encode(s);
const copyOf = (s: string): RetainedFreezeLog => ({ hex: digestBytes(bytes(s)).slice(7), bytes: bytes(s) });

describe('reading the freeze log', () => {
  it('parses a log of RFC 8785 lines; an empty log has no lines', () => {
    expect(parseFreezeLog(bytes(''))).toEqual({ lines: 0, entries: [], problems: [] });
    const parsed = parseFreezeLog(bytes(text(line(1), line(2))));
    expect(parsed.lines).toBe(2);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([{ ...line(1), line: 1 }, { ...line(2), line: 2 }]);
  });

  it("each line that does not parse is FREEZE_LOG_UNREADABLE with its line number; the others are read", () => {
    const good = text(line(1));
    const cases: [string, string, number, RegExp][] = [
      ['blank', `${good}\n`, 2, /blank/],
      ['not JSON', `${good}{"a":\n`, 2, /not strict JSON/],
      ['not canonical', `${good}${JSON.stringify(line(2), null, 1).replace(/\n/g, '')}\n`, 2, /RFC 8785/],
      ['unknown member', `${good}${canonicalJson({ ...line(2), extra: 1 })}\n`, 2, /not a ledgerboard\.freeze-log\.v1 line/],
      ['wrong schema', `${good}${canonicalJson({ ...line(2), schema: 'other' })}\n`, 2, /not a ledgerboard\.freeze-log\.v1 line/],
      ['a bad timestamp', `${good}${canonicalJson({ ...line(2), created_at: '2026-02-30T00:00:00Z' })}\n`, 2, /created_at/],
      ['not UTF-8', `${good}`, 2, /UTF-8/],
      ['cut short', `${good}${text(line(2)).slice(0, 30)}`, 2, /does not end with/],
    ];
    for (const [name, log, at, message] of cases) {
      const raw = name === 'not UTF-8' ? Buffer.concat([Buffer.from(log), Buffer.from([0xff, 0x0a])]) : bytes(log);
      const input = checkFreezeLog(raw, []);
      const unreadable = input.findings.filter((f) => f.code === 'FREEZE_LOG_UNREADABLE');
      expect(unreadable.map((f) => f.line), name).toEqual([at]);
      expect(unreadable[0]!.file, name).toBe('freeze-log.jsonl');
      expect(unreadable[0]!.message, name).toMatch(message);
      expect(input.entries, name).toEqual([line(1)]);
      expect(input.digest, name).toBe(digestBytes(raw));
    }
  });
});

describe('a log of many bad lines', () => {
  it('lists the first 100 unreadable lines one by one, then one finding counts the rest', () => {
    const input = checkFreezeLog(bytes('x\n'.repeat(150)), []);
    expect(input.lines).toBe(150);
    expect(input.findings).toHaveLength(101);
    expect(input.findings.slice(0, 100).map((f) => f.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(input.findings[100]).toMatchObject({ code: 'FREEZE_LOG_UNREADABLE', message: 'and 50 more lines that do not parse' });
    expect(input.findings[100]).not.toHaveProperty('line');
  });
});

describe('the retained copies (FREEZE_LOG_REWRITTEN)', () => {
  const log = text(line(1), line(2), line(3));

  it('a copy that is a prefix of the log (or the log itself) is fine', () => {
    expect(checkFreezeLog(bytes(log), [copyOf(text(line(1))), copyOf(text(line(1), line(2))), copyOf(log)]).findings).toEqual([]);
  });

  it('a line removed since a copy was kept: the copy and the first missing or differing line are named', () => {
    const kept = copyOf(log);
    const removed = checkFreezeLog(bytes(text(line(1), line(3))), [kept]);
    expect(removed.findings.map((f) => [f.code, f.line])).toEqual([['FREEZE_LOG_REWRITTEN', 2]]);
    expect(removed.findings[0]!.message).toContain(`freeze-logs/${kept.hex}.jsonl`);
    expect(removed.findings[0]!.message).toContain('line 2 differs');

    const truncated = checkFreezeLog(bytes(text(line(1))), [kept]);
    expect(truncated.findings.map((f) => [f.code, f.line])).toEqual([['FREEZE_LOG_REWRITTEN', 2]]);
    expect(truncated.findings[0]!.message).toMatch(/^line 2 is missing: the retained copy freeze-logs\/[0-9a-f]{64}\.jsonl \(3 lines\) has it, and the log now has 1 lines/);

    const rewritten = checkFreezeLog(bytes(text(line(1), line(2, { title: 'renamed' }), line(3), line(4))), [kept]);
    expect(rewritten.findings.map((f) => [f.code, f.line])).toEqual([['FREEZE_LOG_REWRITTEN', 2]]);
  });

  it('a copy whose bytes are not its name is FREEZE_LOG_REWRITTEN', () => {
    const edited = { hex: copyOf(log).hex, bytes: bytes(text(line(1))) };
    const input = checkFreezeLog(bytes(log), [edited]);
    expect(input.findings.map((f) => f.code)).toEqual(['FREEZE_LOG_REWRITTEN']);
    expect(input.findings[0]!.message).toContain('does not hash to its name');
  });
});

describe("the report's freeze_log", () => {
  it('each plan once: its first line, the anchor digest of its latest line with one, published when a bundle holds it; sorted by created_at then plan id', () => {
    const anchor = `sha256:${hex(999)}`;
    const log = text(line(3), line(1), line(3, { title: 'later title', anchor_digest: anchor }), line(3, { anchor_digest: null }), line(2, { created_at: line(3).created_at }));
    const input = checkFreezeLog(bytes(log), []);
    const bundles = [{ plan_id: line(3).plan_id }, { plan_id: null }] as unknown as Report['bundles'];
    const made = reportFreezeLog(input, bundles)!;
    expect(made.lines).toBe(5);
    expect(made.digest).toBe(digestBytes(bytes(log)));
    expect(made.plans.map((p) => [p.plan_id, p.title, p.anchor_digest, p.published])).toEqual([
      [line(1).plan_id, 'plan 1', null, false],
      [line(2).plan_id, 'plan 2', null, false],
      [line(3).plan_id, 'plan 3', anchor, true],
    ]);
    expect(reportFreezeLog(null, bundles)).toBeNull();
  });
});

describe('the CLI: a line removed from the log between two retains is found', () => {
  it('retain keeps a copy; after a line is removed, report says FREEZE_LOG_REWRITTEN and retain refuses, writing nothing', async () => {
    const site = await makeTempDir();
    await mkdir(join(site, 'evidence'), { recursive: true });
    const model = validBundle();
    const sealed = sealBundle(model);
    await cp(await writeModel(model), join(site, 'evidence', 'v'), { recursive: true });
    await writeFile(join(site, 'lb.json'), JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'history', freeze_log: 'history/freeze-log.jsonl' }));
    const config = join(site, 'lb.json');
    const published = line(5, { plan_id: sealed.planId, created_at: sealed.plan.created_at, ledger_digest: sealed.plan.ledger.digest, title: sealed.plan.title });
    const logPath = join(site, 'history', 'freeze-log.jsonl');
    await mkdir(join(site, 'history'));

    // A log that does not exist yet is an empty log.
    const empty = JSON.parse((await runCli(['report', '--json', '--config', config])).stdout) as Report;
    expect(empty.freeze_log).toEqual({ digest: digestBytes(''), lines: 0, plans: [], findings: [] });

    const log = text(line(1), published, line(2));
    await writeFile(logPath, log);
    const first = await runCli(['retain', '--config', config]);
    expect(first.code, first.stderr).toBe(0);
    expect(await readdir(join(site, 'history', 'freeze-logs'))).toEqual([`${digestBytes(log).slice(7)}.jsonl`]);
    const report = JSON.parse((await runCli(['report', '--json', '--config', config])).stdout) as Report;
    const byCreated = [line(1), line(2), published].sort((a, b) => compareTimestamps(a.created_at, b.created_at));
    expect(report.freeze_log!.plans.map((p) => [p.plan_id, p.published])).toEqual(byCreated.map((l) => [l.plan_id, l.plan_id === sealed.planId]));
    expect(report.freeze_log!.findings).toEqual([]);
    expect(report.config).not.toHaveProperty('freeze_log');
    // The report's text says it too: the plans frozen and the ones never published.
    const printed = (await runCli(['report', '--config', config])).stdout;
    expect(printed).toContain('freeze log: 3 plans frozen, 1 published\n');
    expect(printed).toContain(`  frozen ${line(1).created_at}, never published: plan ${line(1).plan_id.slice(7, 19)} "plan 1"\n`);

    // An append is fine: retain keeps another copy.
    await writeFile(logPath, log + text(line(3)));
    expect((await runCli(['retain', '--config', config])).code).toBe(0);
    expect(await readdir(join(site, 'history', 'freeze-logs'))).toHaveLength(2);

    // A line removed: found.
    await writeFile(logPath, text(line(1), line(2), line(3)));
    const before = (await readdir(join(site, 'history'))).sort();
    const refused = await runCli(['retain', '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FREEZE_LOG_REWRITTEN: line 2 differs');
    expect(refused.stderr).toContain('nothing retained');
    expect((await readdir(join(site, 'history'))).sort()).toEqual(before);
    expect(await readdir(join(site, 'history', 'freeze-logs'))).toHaveLength(2);
    const after = JSON.parse((await runCli(['report', '--json', '--config', config])).stdout) as Report;
    expect(after.freeze_log!.findings.map((f) => [f.code, f.file, f.line])).toEqual([
      ['FREEZE_LOG_REWRITTEN', 'freeze-log.jsonl', 2],
      ['FREEZE_LOG_REWRITTEN', 'freeze-log.jsonl', 2],
    ]);
    // The published plan is no longer in the log: listed no more.
    expect(after.freeze_log!.plans.map((p) => p.plan_id)).not.toContain(sealed.planId);
    expect(await readFile(logPath, 'utf8')).toBe(text(line(1), line(2), line(3)));

  });
});

describe('the build never replaces the freeze log', () => {
  it('refuses an output directory that holds it (exit 2, nothing built)', async () => {
    const site = await makeTempDir();
    await mkdir(join(site, 'evidence'), { recursive: true });
    await mkdir(join(site, 'logs'), { recursive: true });
    await writeFile(join(site, 'logs', 'freeze-log.jsonl'), text(line(1)));
    // A directory that looks like an earlier site (which a build may replace), but holds the log.
    await writeFile(join(site, 'logs', 'report.json'), '{}\n');
    await writeFile(join(site, 'logs', 'verify.mjs'), '');
    await writeFile(join(site, 'lb.json'), JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'history', freeze_log: 'logs/freeze-log.jsonl' }));
    const run = await runCli(['build', '--config', join(site, 'lb.json'), '--out', join(site, 'logs')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`refusing to build into ${join(site, 'logs')}: it holds `);
    expect(run.stderr).toContain('freeze-log.jsonl, which the build would replace');
    expect(await readFile(join(site, 'logs', 'freeze-log.jsonl'), 'utf8')).toBe(text(line(1)));
  });
});
