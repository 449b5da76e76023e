/**
 * The freeze log re-derived from a site's bytes (issue 30): the report's
 * freeze_log is made again from /freeze-log.jsonl and the retained copies
 * /freeze-logs.json lists, so the report re-derives byte for byte from a
 * faithful site; a site whose /freeze-log.jsonl lost a line, whose log is
 * not published, or whose retained copy shows a line removed since, is a
 * MISMATCH naming the report's freeze_log. The sites here are files in
 * memory written by the build's own writer (src/site/build/freeze-log-files.ts),
 * beside a report of no bundles: the bundles' part of re-deriving is tested
 * elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/schema.ts';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { checkFreezeLog } from '../../src/history/freeze-log.ts';
import type { LoadedFreezeLog } from '../../src/history/freeze-log-files.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { rederiveSite, type RederiveLine } from '../../src/rederive/rederive.ts';
import { writeFreezeLogFiles } from '../../src/site/build/freeze-log-files.ts';
import type { OutputWriter } from '../../src/site/build/effects.ts';
import type { FreezeLogLine } from '../../src/schema/freeze-log.ts';

const hex = (n: number) => n.toString(16).padStart(64, '0');
const line = (n: number): string =>
  `${canonicalJson({ anchor_digest: null, created_at: `2026-0${n}-01T00:00:00Z`, ledger_digest: `sha256:${hex(100 + n)}`, plan_id: `sha256:${hex(n)}`, schema: 'ledgerboard.freeze-log.v1', title: `plan ${n}` } satisfies FreezeLogLine)}\n`;
const bytes = (s: string) => new TextEncoder().encode(s);

/** A site of no bundles whose report was built with this log and these retained copies: its files, by URL path. */
async function siteOf(log: string, copies: string[]): Promise<Map<string, Uint8Array>> {
  const loaded: LoadedFreezeLog = { bytes: bytes(log), copies: copies.map((c) => ({ hex: digestBytes(bytes(c)).slice(7), bytes: bytes(c) })), input: checkFreezeLog(bytes(log), []) };
  loaded.input = checkFreezeLog(loaded.bytes, loaded.copies);
  const report = buildReport([], Config.parse({}), undefined, loaded.input);
  const files = new Map<string, Uint8Array>([['/report.json', bytes(`${canonicalJson(report)}\n`)]]);
  const out = { writeFile: async (path: string, data: string | Uint8Array) => void files.set(path, typeof data === 'string' ? bytes(data) : data) } as unknown as OutputWriter;
  await writeFreezeLogFiles(report, loaded, out);
  return files;
}

/** The re-derivation's lines about the report and the freeze log. */
async function rederive(files: Map<string, Uint8Array>): Promise<RederiveLine[]> {
  const result = await rederiveSite(async (path) => files.get(path) ?? null);
  return result.lines.filter((l) => l.check === 'report' || l.check === 'freeze log');
}

const log = line(1) + line(2) + line(3);

describe('the freeze log re-derived from the site', () => {
  it('a faithful site: the report, its freeze_log included, re-derives byte for byte', async () => {
    const files = await siteOf(log, [line(1) + line(2)]);
    expect([...files.keys()].sort()).toEqual(['/freeze-log.jsonl', `/freeze-logs/${digestBytes(line(1) + line(2)).slice(7)}.jsonl`, '/freeze-logs.json', '/report.json'].sort());
    const lines = await rederive(files);
    expect(lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(lines.find((l) => l.check === 'report')!.detail).toMatch(/^re-derived from the evidence, byte for byte/);
    expect(lines.find((l) => l.check === 'freeze log')!.detail).toContain('3 lines, checked against 1 retained copy (0 findings)');
  });

  it('a site whose /freeze-log.jsonl lost a line is a MISMATCH naming freeze_log', async () => {
    const files = await siteOf(log, []);
    files.set('/freeze-log.jsonl', bytes(line(1) + line(3)));
    const mismatches = (await rederive(files)).filter((l) => l.status === 'MISMATCH');
    expect(mismatches.length).toBeGreaterThan(0);
    expect(mismatches.every((l) => l.check === 'report')).toBe(true);
    expect(mismatches.map((l) => l.detail).join('\n')).toMatch(/freeze_log\.digest/);
  });

  it('a site that publishes no log for a report that has one is a MISMATCH; so is a listed copy not published', async () => {
    const missing = await siteOf(log, [line(1)]);
    missing.delete('/freeze-log.jsonl');
    expect((await rederive(missing)).filter((l) => l.status === 'MISMATCH').map((l) => l.detail).join('\n')).toMatch(/freeze_log/);

    const copyGone = await siteOf(log, [line(1)]);
    copyGone.delete(`/freeze-logs/${digestBytes(line(1)).slice(7)}.jsonl`);
    expect((await rederive(copyGone)).filter((l) => l.status === 'MISMATCH').map((l) => `${l.check} ${l.subject}`)).toContain(`freeze log /freeze-logs/${digestBytes(line(1)).slice(7)}.jsonl`);
  });

  it('a report that hid FREEZE_LOG_REWRITTEN (a line removed since a retained copy) does not re-derive', async () => {
    // The build saw the log with line 2 removed and a copy that has it: the report carries the finding.
    const honest = await siteOf(line(1) + line(3), [log]);
    expect((await rederive(honest)).filter((l) => l.status === 'MISMATCH')).toEqual([]);
    const report = JSON.parse(new TextDecoder().decode(honest.get('/report.json'))) as { freeze_log: { findings: { code: string }[] } };
    expect(report.freeze_log.findings.map((f) => f.code)).toEqual(['FREEZE_LOG_REWRITTEN']);
    // The same site with the copy's listing dropped, serving a report made without the copy: its findings differ from what the copies say.
    const forged = await siteOf(line(1) + line(3), []);
    for (const [path, data] of honest) if (path.startsWith('/freeze-logs')) forged.set(path, data);
    expect((await rederive(forged)).filter((l) => l.status === 'MISMATCH').map((l) => l.detail).join('\n')).toMatch(/freeze_log\.findings/);
  });
});
