/**
 * Behaviours where FORMAT.md's letter was checked against an independent
 * conformance review (see docs/format-decisions.md): each test names the
 * sentence it follows.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverBundles } from '../../src/evidence/discover.ts';
import { isValidTimestamp } from '../../src/schema/timestamp.ts';
import { UNACCOUNTED_SLOTS_LISTED } from '../../src/verify/check-attempts.ts';
import { makeTempDir, removeTempDirs, validBundle, verifyInMemory, writeModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);
const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);

describe('FORMAT.md 5.1 "index is 1..attempts"; UNPLANNED_ATTEMPT: "an index outside the matrix"', () => {
  it.each([0, -1, 2])('index %i is UNPLANNED_ATTEMPT, not a schema problem', (index) => {
    const model = validBundle();
    model.attempts[0]!.index = index;
    const result = verifyInMemory(model);
    expect(codes(result)).toContain('UNPLANNED_ATTEMPT');
    expect(codes(result)).not.toContain('SCHEMA_VIOLATION');
  });
});

describe('FORMAT.md 6 "re-derives every id": ids are checked even when the object fails its schema', () => {
  it('a plan with attempts 0 and a stale plan_id: SCHEMA_VIOLATION and PLAN_ID_MISMATCH', () => {
    const model = validBundle();
    model.plan.attempts = 0;
    const result = verifyInMemory(model, { keepPlanId: true });
    expect(codes(result)).toEqual(expect.arrayContaining(['SCHEMA_VIOLATION', 'PLAN_ID_MISMATCH']));
  });

  it('a manifest with a schema problem and a stale bundle_id: BUNDLE_ID_MISMATCH too', () => {
    const result = verifyInMemory(validBundle(), {
      editManifest: (m) => {
        (m as unknown as Record<string, unknown>).schema = 'ledgerboard.manifest.v0';
      },
      keepBundleId: true,
    });
    expect(codes(result)).toEqual(expect.arrayContaining(['SCHEMA_VIOLATION', 'BUNDLE_ID_MISMATCH']));
  });
});

describe('FORMAT.md 5.3 "input, output, receipt are digests": required, not nullable', () => {
  it('a null receipt is SCHEMA_VIOLATION', () => {
    const model = validBundle();
    (model.grades[0]!.value.results[0] as { receipt: string | null }).receipt = null;
    expect(codes(verifyInMemory(model))).toContain('SCHEMA_VIOLATION');
  });
});

describe('FORMAT.md 6 "ids null where they could not be read"', () => {
  it('without a readable plan.json the plan_id is null, even though the manifest names one', () => {
    const result = verifyInMemory(validBundle(), { remove: ['plan.json'] });
    expect(result.status).toBe('no_verdict');
    expect(result.plan_id).toBeNull();
    expect(result.bundle_id).not.toBeNull();
  });
});

describe('UNACCOUNTED_SLOT on a huge declared matrix', () => {
  it('lists the first empty slots and counts the rest without visiting them', () => {
    const model = validBundle();
    model.plan.attempts = 50_000_000;
    model.plan.budget!.aggregate_micros = 6 * 50_000_000 * 10;
    model.plan.budget!.per_attempt_micros = 10;
    for (const a of model.attempts) if (a.cost.micros !== null) a.cost = { state: 'zero', micros: 0 };
    const started = performance.now();
    const result = verifyInMemory(model);
    expect(performance.now() - started).toBeLessThan(5_000);
    const slots = result.findings.filter((f) => f.code === 'UNACCOUNTED_SLOT');
    expect(slots).toHaveLength(UNACCOUNTED_SLOTS_LISTED + 1);
    expect(slots.at(-1)!.message).toContain(`${3 * 2 * 50_000_000 - 6 - UNACCOUNTED_SLOTS_LISTED} more`);
    expect(result.status).toBe('verified');
  });
});

describe('RFC 3339: a leap second is 23:59:60 only', () => {
  it.each([
    ['2016-12-31T23:59:60Z', true],
    ['2016-12-31T23:59:60.5Z', true],
    ['2026-09-15T08:00:60Z', false],
    ['2026-09-15T23:58:60Z', false],
  ])('%s valid: %s', (timestamp, valid) => {
    expect(isValidTimestamp(timestamp)).toBe(valid);
  });
});

describe('FORMAT.md 6 "nothing is silently dropped": discovery', () => {
  it('a directory holding plan.json but no manifest is found as a bundle (and reports its missing manifest)', async () => {
    const root = await makeTempDir();
    const good = await writeModel(validBundle());
    const parent = join(root, 'bundles');
    await mkdir(join(parent, 'b-no-manifest'), { recursive: true });
    await writeFile(join(parent, 'b-no-manifest', 'plan.json'), '{}');
    await mkdir(join(parent, '.hidden', 'c'), { recursive: true });
    await writeFile(join(parent, '.hidden', 'c', 'manifest.json'), '{}');
    const found = await discoverBundles(parent);
    expect(found.map((p) => p.slice(parent.length + 1))).toEqual(['.hidden/c', 'b-no-manifest']);
    await rm(good, { recursive: true, force: true });
  });

  it('a bundle argument whose manifest is missing is that bundle, not an artifact directory inside it', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'artifacts', 'src'), { recursive: true });
    await writeFile(join(root, 'plan.json'), '{}');
    await writeFile(join(root, 'artifacts', 'src', 'manifest.json'), '{}');
    expect(await discoverBundles(root)).toEqual([root]);
  });

  it('a directory with no bundle marker anywhere below it holds no bundle (the command that was given it says so)', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'notes'), { recursive: true });
    await writeFile(join(root, 'notes', 'README.md'), 'no evidence here');
    expect(await discoverBundles(root)).toEqual([]);
  });
});
