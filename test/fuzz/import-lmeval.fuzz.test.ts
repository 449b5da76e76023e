/**
 * Fuzzing the lm-eval importer: a real run and a synthetic one, their files
 * mutated (bytes flipped, truncated, lines dropped or duplicated, members
 * replaced by hostile values); the mapping either gives a bundle that
 * verifies or throws ImportError, never another error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { writeBundle } from '../../src/evidence/seal.ts';
import { ImportError } from '../../src/import/errors.ts';
import { mapImportInput } from '../../src/import/import-input.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { lmEvalImporter } from '../../src/import/lmeval/importer.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { basicRun, request, REAL_RUNS } from '../import/lmeval/helpers.ts';

const SEED = 15_2;
const RUNS = 300;
const made: string[] = [];
afterAll(async () => {
  for (const d of made) await rm(d, { recursive: true, force: true });
});

const realDir = join(REAL_RUNS, 'sshleifer__tiny-gpt2');
const real: ImportInput = {
  name: 'real',
  kind: 'directory',
  files: new Map(readdirSync(realDir).sort().map((f) => [f, readFileSync(join(realDir, f))] as const)),
  skipped: [],
};
const bases = [real, basicRun()];

const HOSTILE: unknown[] = [null, 0, -1, 1.5, 1e308, '', '<script>', '$(rm -rf /)', '../../etc/passwd', [], {}, true, 'x'.repeat(300)];

/** One mutation of one file's bytes. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('drop-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('dup-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('member' as const), at: fc.nat(), key: fc.constantFrom('doc_id', 'acc', 'filter', 'prompt_hash', 'date', 'results', 'n-samples', 'model_name', 'config', 'arguments'), value: fc.constantFrom(...HOSTILE) }),
);

function mutate(bytes: Uint8Array, m: { kind: string; at: number; byte?: number; key?: string; value?: unknown }): Uint8Array {
  const b = Buffer.from(bytes);
  if (b.length === 0) return b;
  switch (m.kind) {
    case 'flip': {
      const c = Buffer.from(b);
      c[m.at % c.length] = m.byte!;
      return c;
    }
    case 'truncate':
      return b.subarray(0, m.at % b.length);
    case 'drop-line':
    case 'dup-line': {
      const lines = b.toString('utf8').split('\n');
      const i = m.at % lines.length;
      if (m.kind === 'drop-line') lines.splice(i, 1);
      else lines.splice(i, 0, lines[i]!);
      return Buffer.from(lines.join('\n'), 'utf8');
    }
    default: {
      const text = b.toString('utf8');
      const lines = text.split('\n');
      const i = m.at % lines.length;
      try {
        const o = JSON.parse(i === 0 && !text.startsWith('{"') ? text : lines[i]!) as Record<string, unknown>;
        o[m.key!] = m.value;
        if (i === 0 && !text.startsWith('{"')) return Buffer.from(JSON.stringify(o, null, 2), 'utf8');
        lines[i] = JSON.stringify(o);
        return Buffer.from(lines.join('\n'), 'utf8');
      } catch {
        return b;
      }
    }
  }
}

describe(`fuzzing the lm-eval importer (${RUNS} cases, seed ${SEED})`, () => {
  it('mutated runs map to a verifying bundle or an ImportError, never another error', { timeout: 120_000 }, async () => {
    let imported = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(bases.length - 1), fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 }), async (which, mutations) => {
        const base = bases[which]!;
        const files = new Map(base.files);
        const names = [...files.keys()];
        for (const [f, m] of mutations) {
          const name = names[f % names.length]!;
          files.set(name, mutate(files.get(name)!, m));
        }
        const input: ImportInput = { ...base, files };
        let mapped;
        try {
          mapped = await mapImportInput(lmEvalImporter, input, request());
        } catch (error) {
          expect(error, String((error as Error).stack)).toBeInstanceOf(ImportError);
          return;
        }
        const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-lmeval-fuzz-'));
        made.push(dir);
        await writeBundle(join(dir, 'b'), mapped.files, mapped.planId);
        const v = verifyBundle(await readBundle(join(dir, 'b')));
        expect(v.findings.filter((f) => f.severity === 'error'), JSON.stringify(v.findings.slice(0, 3))).toEqual([]);
        expect(v.status).toBe('verified');
        await rm(dir, { recursive: true, force: true });
        imported++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Some mutations leave an importable run (a flipped byte inside a doc's text, a changed alias).
    expect(imported).toBeGreaterThan(0);
  });
});
