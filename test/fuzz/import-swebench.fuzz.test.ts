/**
 * Fuzzing the SWE-bench importer: mutated synthetic and real run directories
 * either import into a bundle that verifies, or are refused with an
 * ImportError; never another error. Fixed seed, 300 runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/errors.ts';
import { importInput } from '../../src/import/import-input.ts';
import { readImportInput, type ImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { sweBenchImporter } from '../../src/import/swebench/importer.ts';
import { dirInput, harnessPath, jsonl, MODEL, pred, report, runReport } from '../import/swebench/helpers.ts';

const REAL = new URL('../../content/imported/swe-bench/tonight', import.meta.url).pathname;
const made: string[] = [];
afterAll(async () => {
  for (const d of made) await rm(d, { recursive: true, force: true });
});

const synthetic = dirInput({
  'all_preds.jsonl': jsonl([pred('a__a-1', 'diff a'), pred('b__b-2', ''), pred('c__c-3', 'diff c')]),
  [`${MODEL}.r.json`]: runReport({ submitted: ['a__a-1', 'b__b-2', 'c__c-3'], resolved: ['a__a-1'], unresolved: ['c__c-3'], empty: ['b__b-2'] }),
  [harnessPath('a__a-1')]: report('a__a-1', { resolved: true }),
  [harnessPath('c__c-3')]: report('c__c-3', { resolved: false, p2pFail: ['x'] }),
});

/** A mutation of one file's bytes. */
const mutation = fc.record({
  file: fc.nat(),
  kind: fc.constantFrom('flip', 'truncate', 'insert', 'replace-token'),
  at: fc.nat(),
  text: fc.constantFrom('"', '{', '}', ',', 'null', 'true', '1e999', '-0', '"\\ud800"', '[]', '\n', '"a__a-1"', '"resolved": true', '"../x"', '"/etc/passwd"', '\u0000', '<script>'),
  byte: fc.integer({ min: 0, max: 255 }),
});

function mutate(input: ImportInput, ms: { file: number; kind: string; at: number; text: string; byte: number }[]): ImportInput {
  const files = new Map(input.files);
  const paths = [...files.keys()];
  for (const m of ms) {
    const path = paths[m.file % paths.length]!;
    const bytes = Buffer.from(files.get(path)!);
    const at = bytes.length === 0 ? 0 : m.at % bytes.length;
    let out: Buffer;
    if (m.kind === 'flip') {
      out = Buffer.from(bytes);
      if (out.length > 0) out[at] = m.byte;
    } else if (m.kind === 'truncate') out = bytes.subarray(0, at);
    else if (m.kind === 'insert') out = Buffer.concat([bytes.subarray(0, at), Buffer.from(m.text), bytes.subarray(at)]);
    else {
      const s = bytes.toString('utf8');
      const tokens = ['true', 'false', '"resolved"', '"success"', '"model_patch"', '"instance_id"', '"resolved_ids"', '[]'];
      const token = tokens[m.byte % tokens.length]!;
      out = Buffer.from(s.replace(token, m.text), 'utf8');
    }
    files.set(path, out);
  }
  return { ...input, files };
}

describe('import swe-bench, fuzzed', () => {
  it('maps mutated runs to a verified bundle or refuses them with an ImportError', async () => {
    const real = await readImportInput(REAL, DEFAULT_IMPORT_LIMITS);
    const parent = await mkdtemp(join(tmpdir(), 'ledgerboard-swe-fuzz-'));
    made.push(parent);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (useReal, ms) => {
        const input = mutate(useReal ? real : synthetic, ms);
        const named = { ...input, name: `run${n++}` };
        try {
          const r = await importInput(sweBenchImporter, named, parent, { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS });
          expect(r.status).toBe('verified');
        } catch (error) {
          if (!(error instanceof ImportError)) throw error;
        }
      }),
      { seed: 15, numRuns: 300 },
    );
  }, 60_000);
});
