/**
 * `freeze` and the freeze log (issue 30): one RFC 8785 line per plan frozen,
 * appended (--log FILE, or the config's freeze_log relative to the config
 * file); a log that is cut short or does not parse is refused before the
 * plan is written (exit 2, nothing written, the log unchanged); --dry-run
 * logs nothing; without a log the plan is frozen and "not logged" is said;
 * with --anchor the line names the token's digest, and --anchor-only appends
 * a new line for the plan.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exampleInputs, replaceOnce, Scratch, writeInputs } from './helpers.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { exists } from '../../src/author/create-only.ts';
import { startLocalTsa, type LocalTsa } from '../helpers/local-tsa.ts';

const scratch = new Scratch();
let example: Awaited<ReturnType<typeof exampleInputs>>;
let inputs: { plan: string; aliases: string; ledger: string };
let tsa: LocalTsa;
beforeAll(async () => {
  example = await exampleInputs();
  inputs = await writeInputs(await scratch.dir(), example);
  tsa = await startLocalTsa();
}, 60_000);
afterAll(async () => {
  await tsa.close();
  await scratch.cleanup();
});

const freezeArgs = (plan = inputs.plan) => ['freeze', plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases];

/** The line freeze must write for the plan in DIR/plan.json. */
async function expectedLine(dir: string, anchorDigest: string | null): Promise<string> {
  const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { plan_id: string; created_at: string; title: string; ledger: { digest: string } };
  return `{"anchor_digest":${anchorDigest === null ? 'null' : `"${anchorDigest}"`},"created_at":"${plan.created_at}","ledger_digest":"${plan.ledger.digest}","plan_id":"${plan.plan_id}","schema":"ledgerboard.freeze-log.v1","title":${JSON.stringify(plan.title)}}\n`;
}

describe('freeze appends to the freeze log', () => {
  it('appends one RFC 8785 line per plan frozen (--log), creating the log and its directory', async () => {
    const root = await scratch.dir();
    const log = join(root, 'history', 'freeze-log.jsonl');
    const first = await cli([...freezeArgs(), '-o', join(root, 'a'), '--log', log]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`logged: ${log} (line without an anchor)\n`);
    const one = await expectedLine(join(root, 'a'), null);
    expect(await readFile(log, 'utf8')).toBe(one);
    expect(JSON.parse(one.trimEnd())).toEqual(JSON.parse(canonicalJson(JSON.parse(one.trimEnd()))));

    const other = join(root, 'other.yaml');
    await writeFile(other, replaceOnce(example.plan, 'attempts: 2', 'attempts: 3'));
    const second = await cli([...freezeArgs(other), '-o', join(root, 'b'), '--log', log]);
    expect(second.code, second.stderr).toBe(0);
    expect(await readFile(log, 'utf8')).toBe(one + (await expectedLine(join(root, 'b'), null)));
  });

  it("takes the config's freeze_log, relative to the config file", async () => {
    const root = await scratch.dir();
    await mkdir(join(root, 'board'));
    await writeFile(join(root, 'board', 'ledgerboard.config.json'), JSON.stringify({ freeze_log: 'history/freeze-log.jsonl' }));
    const run = await cli([...freezeArgs(), '-o', join(root, 'a'), '--config', join(root, 'board', 'ledgerboard.config.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(root, 'board', 'history', 'freeze-log.jsonl'), 'utf8')).toBe(await expectedLine(join(root, 'a'), null));
  });

  it('refuses a log whose last line is cut short, or with a line that does not parse: exit 2, no plan written, the log unchanged', async () => {
    const root = await scratch.dir();
    const good = `${canonicalJson({ anchor_digest: null, created_at: '2026-01-01T00:00:00Z', ledger_digest: `sha256:${'1'.repeat(64)}`, plan_id: `sha256:${'2'.repeat(64)}`, schema: 'ledgerboard.freeze-log.v1', title: 't' })}\n`;
    for (const [name, bytes, message] of [
      ['cut', good + good.slice(0, 40), /line 2 does not end with "\\n"/],
      ['bad', `${good}{"title": "not canonical"}\n`, /line 2 is not/],
      ['blank', `${good}\n${good}`, /line 2 is blank/],
    ] as const) {
      const log = join(root, `${name}.jsonl`);
      await writeFile(log, bytes);
      const out = join(root, name);
      const run = await cli([...freezeArgs(), '-o', out, '--log', log]);
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toMatch(message);
      expect(run.stderr, name).toContain('nothing was written');
      expect(await exists(out), name).toBe(false);
      expect(await readFile(log, 'utf8'), name).toBe(bytes);
    }
  });

  it('--dry-run logs nothing; without a log the plan is frozen and "not logged" is said', async () => {
    const root = await scratch.dir();
    const log = join(root, 'freeze-log.jsonl');
    const dry = await cli([...freezeArgs(), '--dry-run', '--log', log]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(await exists(log)).toBe(false);
    await writeFile(join(root, 'none.json'), '{}');
    const unlogged = await cli([...freezeArgs(), '-o', join(root, 'a'), '--config', join(root, 'none.json')]);
    expect(unlogged.code, unlogged.stderr).toBe(0);
    expect(unlogged.stderr).toContain("not logged: no freeze log (--log FILE or the config's freeze_log)\n");
    expect(await exists(join(root, 'a', 'plan.json'))).toBe(true);
  });

  it('--log and --config together are a usage error', async () => {
    const root = await scratch.dir();
    const run = await cli([...freezeArgs(), '-o', join(root, 'a'), '--log', join(root, 'l.jsonl'), '--config', join(root, 'c.json')]);
    expect(run.code).toBe(2);
    expect(await exists(join(root, 'a'))).toBe(false);
  });
});

describe('the freeze log and anchors', () => {
  const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

  it("--anchor: the line carries the token's digest; all authorities failing: the line all the same, anchor_digest null", async () => {
    const root = await scratch.dir();
    const log = join(root, 'freeze-log.jsonl');
    tsa.setMode('ok');
    const run = await cli([...freezeArgs(), '-o', join(root, 'a'), '--log', log, '--anchor', tsa.url]);
    expect(run.code, run.stderr).toBe(0);
    const token = await readFile(join(root, 'a', 'anchors', '127.0.0.1.tsr'));
    const one = await expectedLine(join(root, 'a'), sha(token));
    expect(await readFile(log, 'utf8')).toBe(one);

    tsa.setMode('http500');
    const other = join(root, 'other.yaml');
    await writeFile(other, replaceOnce(example.plan, 'attempts: 2', 'attempts: 3'));
    const failed = await cli([...freezeArgs(other), '-o', join(root, 'b'), '--log', log, '--anchor', tsa.url]);
    expect(failed.code).toBe(1);
    expect(await readFile(log, 'utf8')).toBe(one + (await expectedLine(join(root, 'b'), null)));

    // Anchored later: a new line for the plan, with the new token's digest.
    tsa.setMode('ok');
    const later = await cli(['freeze', '--anchor-only', join(root, 'b'), '--anchor', tsa.url, '--log', log]);
    expect(later.code, later.stderr).toBe(0);
    const laterToken = await readFile(join(root, 'b', 'anchors', '127.0.0.1.tsr'));
    expect(await readFile(log, 'utf8')).toBe(one + (await expectedLine(join(root, 'b'), null)) + (await expectedLine(join(root, 'b'), sha(laterToken))));
  });
});
