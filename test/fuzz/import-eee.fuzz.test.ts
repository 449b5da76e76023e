/**
 * Fuzzing the Every Eval Ever importer: mutated real and synthetic inputs
 * (bytes flipped, cut or inserted in the aggregate or the sidecar; JSON
 * values replaced at random paths, with the sidecar's checksum and row count
 * re-derived so the deep checks run). For every case the import either
 * returns a bundle that verifies (or is `invalid` only for a stated reason:
 * an identity mismatch the import itself announces) or throws ImportError;
 * never another error. Fixed seed.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/errors.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { readImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { mapInput, standardInput, verifyMapped } from '../import/eee/helpers.ts';

const REAL = new URL('../../content/imported/eee/', import.meta.url).pathname;
const SEED = 20_260_815;

async function outcome(input: ImportInput, flags: Record<string, string>): Promise<void> {
  let mapped;
  try {
    mapped = await mapInput(input, flags, { maxStringBytes: 4096 });
  } catch (error) {
    if (error instanceof ImportError) return;
    throw error;
  }
  const v = verifyMapped(mapped);
  const errors = v.findings.filter((f) => f.severity === 'error').map((f) => f.code);
  // The only error an import may hand on is the identity mismatch it announces in NOTES.md.
  expect(errors.filter((c) => c !== 'IDENTITY_MISMATCH')).toEqual([]);
}

function withFile(input: ImportInput, path: string, bytes: Uint8Array): ImportInput {
  return { ...input, files: new Map([...input.files].map(([p, b]) => [p, p === path ? bytes : b])) };
}

/** Re-derives the aggregate's checksum and total_rows over a (mutated) sidecar, when the aggregate still parses. */
function resealed(input: ImportInput, aggPath: string, sidecarPath: string): ImportInput {
  const side = input.files.get(sidecarPath)!;
  let agg: Record<string, unknown>;
  try {
    agg = JSON.parse(Buffer.from(input.files.get(aggPath)!).toString('utf8')) as Record<string, unknown>;
  } catch {
    return input;
  }
  const detailed = agg.detailed_evaluation_results;
  if (typeof detailed === 'object' && detailed !== null && !Array.isArray(detailed)) {
    Object.assign(detailed, {
      checksum: createHash('sha256').update(side).digest('hex'),
      hash_algorithm: 'sha256',
      total_rows: Buffer.from(side).toString('utf8').split('\n').filter((l) => l !== '').length,
    });
  }
  return withFile(input, aggPath, Buffer.from(JSON.stringify(agg)));
}

const byteEdit = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom('"', '\n', '{', ']', 'NaN', '-0', '\\u0000', '"sample_id":', '1e400', '\uFFFF') }),
);

function applyEdit(bytes: Uint8Array, edit: { kind: 'flip' | 'cut' | 'insert'; at: number; byte?: number; text?: string }): Buffer {
  const buf = Buffer.from(bytes);
  const at = buf.length === 0 ? 0 : edit.at % buf.length;
  if (edit.kind === 'flip') {
    buf[at] = edit.byte!;
    return buf;
  }
  if (edit.kind === 'cut') return buf.subarray(0, at);
  return Buffer.concat([buf.subarray(0, at), Buffer.from(edit.text!, 'utf8'), buf.subarray(at)]);
}

/** Replaces the value at a random path of a JSON value. */
function replaceAt(value: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  if (entries.length === 0) return replacement;
  const [key, child] = entries[path[0]! % entries.length]!;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...value }) as Record<string | number, unknown>;
  copy[key] = replaceAt(child, path.slice(1), replacement);
  return copy;
}

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('../../etc/passwd', '/etc/passwd', '<script>x</script>', '$(rm -rf /)', 'x'.repeat(5000), -1, 0, 1e308, '', null, true),
);

describe('import eee under mutation', () => {
  it('byte edits of a real record (resealed or not): a verified bundle or an ImportError', async () => {
    const real = await readImportInput(join(REAL, 'pubmed_qa-gpt-4o-mini'), DEFAULT_IMPORT_LIMITS);
    const [aggPath, sidePath] = [...real.files.keys()];
    await fc.assert(
      fc.asyncProperty(fc.boolean(), byteEdit, fc.boolean(), async (onAggregate, edit, reseal) => {
        const path = onAggregate ? aggPath! : sidePath!;
        let input = withFile(real, path, applyEdit(real.files.get(path)!, edit));
        if (reseal && !onAggregate) input = resealed(input, aggPath!, sidePath!);
        await outcome(input, { 'pass-threshold': '1' });
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('values replaced anywhere in a synthetic 0.2.2 record (checksum re-derived): a verified bundle or an ImportError', async () => {
    const base = standardInput();
    const [aggPath, sidePath] = [...base.files.keys()];
    const agg = JSON.parse(Buffer.from(base.files.get(aggPath!)!).toString('utf8')) as unknown;
    const rows = Buffer.from(base.files.get(sidePath!)!).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(fc.nat(), { maxLength: 5 }), hostile, fc.constantFrom('r-acc', 'r-f1'), async (onAggregate, path, replacement, metric) => {
        let input: ImportInput;
        if (onAggregate) {
          input = withFile(base, aggPath!, Buffer.from(JSON.stringify(replaceAt(agg, path, replacement))));
        } else {
          // A path of at least one step: a row (or a member inside one) is replaced, the sidecar stays a list of lines.
          const side = Buffer.from(`${(replaceAt(rows, [0, ...path], replacement) as unknown[]).map((r) => JSON.stringify(r)).join('\n')}\n`);
          input = resealed(withFile(base, sidePath!, side), aggPath!, sidePath!);
        }
        await outcome(input, { metric, 'pass-threshold': '0.5' });
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
