/**
 * Fuzzing the helm importer: mutated synthetic and real run directories
 * (a value anywhere replaced by arbitrary JSON, a member deleted, a file
 * truncated or a byte changed, a file dropped) are either mapped to a bundle
 * that verifies (IDENTITY_MISMATCH aside: a mutated request model is real
 * evidence of a swap) or refused with an ImportError; never another error.
 * Fixed seed; FUZZ_SEED / HELM_FUZZ_RUNS override.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../src/evidence/seal.ts';
import { ImportError } from '../../src/import/errors.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { snapshotOfFiles } from '../helpers/bundle-builder.ts';
import { LLAMA, mapRun, REAL_RUNS, runInput, toyRun } from '../import/helm/fixtures.ts';

const RUNS = Number(process.env.HELM_FUZZ_RUNS ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path (list of keys) to a value inside a JSON value, the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function mutate(value: Json, path: (string | number)[], replacement: Json | undefined): Json {
  if (path.length === 0) return replacement === undefined ? null : replacement;
  const clone = structuredClone(value) as Record<string | number, Json>;
  let at: Record<string | number, Json> = clone;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) {
    if (Array.isArray(at)) at.splice(last as number, 1);
    else delete at[last];
  } else at[last] = replacement;
  return clone as Json;
}

const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<Json>(0, 1, -1, 0.5, 1e308, -0, '', 'test', 'valid', '../x', '<script>', null, true, [], {}),
);

const mutation = fc.record({
  file: fc.constantFrom('per_instance_stats.json', 'run_spec.json', 'scenario_state.json', 'stats.json'),
  kind: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'truncate', 'byte', 'drop'),
  pick: fc.nat(),
  value: interesting,
  byte: fc.integer({ min: 0, max: 255 }),
});


function applyMutation(base: ImportInput, m: { file: string; kind: string; pick: number; value: unknown; byte: number }): ImportInput {
  const files = new Map(base.files);
  const bytes = files.get(m.file);
  if (bytes === undefined) return base;
  if (m.kind === 'drop') files.delete(m.file);
  else if (m.kind === 'truncate') files.set(m.file, bytes.subarray(0, m.pick % (bytes.length + 1)));
  else if (m.kind === 'byte') {
    const copy = Buffer.from(bytes);
    copy[m.pick % copy.length] = m.byte;
    files.set(m.file, copy);
  } else {
    const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as Json;
    const paths = pathsOf(doc);
    const path = paths[m.pick % paths.length]!;
    files.set(m.file, Buffer.from(JSON.stringify(mutate(doc, path, m.kind === 'delete' ? undefined : (m.value as Json)), null, 2)));
  }
  return { ...base, files };
}

async function outcome(input: ImportInput): Promise<string> {
  let mapped;
  try {
    mapped = await mapRun(input, { metric: metricOf(input), 'pass-threshold': '0.5' });
  } catch (error) {
    if (error instanceof ImportError) return 'refused';
    throw error;
  }
  const files = new Map(mapped.files);
  files.set('manifest.json', sealManifest(mapped.files, mapped.planId));
  const v = verifyBundle(snapshotOfFiles(files));
  const errors = v.findings.filter((f) => f.severity === 'error' && f.code !== 'IDENTITY_MISMATCH');
  expect(errors, JSON.stringify(errors.slice(0, 3))).toEqual([]);
  return v.status;
}

/** The graded stat of each base input. */
function metricOf(input: ImportInput): string {
  return input.name === 'real' ? 'harm_bench_score' : 'exact_match';
}

describe('the helm importer under mutation', () => {
  it('maps to a verified bundle or refuses with an ImportError, never another error', async () => {
    const toy = runInput(toyRun());
    const realFiles = new Map<string, Uint8Array>();
    for (const f of ['per_instance_stats.json', 'run_spec.json', 'scenario_state.json', 'stats.json']) realFiles.set(f, await readFile(join(REAL_RUNS, LLAMA, f)));
    const real: ImportInput = { name: 'real', kind: 'directory', files: realFiles, skipped: [] };
    expect(await outcome(toy)).toBe('verified');
    expect(await outcome(real)).toBe('verified');
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.boolean(), mutation, async (useReal, m) => {
        const status = await outcome(applyMutation(useReal ? real : toy, m));
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Both ends are reached: some mutations still import, some are refused.
    expect(seen.get('refused') ?? 0).toBeGreaterThan(0);
    expect(seen.get('verified') ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
