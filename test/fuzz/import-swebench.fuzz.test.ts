/**
 * Fuzzing the SWE-bench importer: mutated synthetic and real run directories
 * either import into a bundle that verifies, or are refused with an
 * ImportError; never another error. Fixed seed, 300 runs. And (issue 25) a
 * run file made malformed (a duplicate member name, NaN or Infinity, in any
 * object of any line) is refused naming that file, never skipped. Fixed seed,
 * 100 runs, in memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/errors.ts';
import { importInput, mapImportInput } from '../../src/import/import-input.ts';
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

/** The offsets of the `{` that open objects (outside strings) in JSON or JSONL text. */
function objectBraces(text: string): number[] {
  const out: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') out.push(i);
  }
  return out;
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

  it('a run file with a duplicate member or a non-finite number anywhere is refused naming it, never skipped', async () => {
    const real = await readImportInput(REAL, DEFAULT_IMPORT_LIMITS);
    const malformation = fc.record({
      useReal: fc.boolean(),
      file: fc.nat(),
      at: fc.nat(),
      name: fc.constantFrom('resolved', 'resolved_ids', 'instance_id', 'model_patch', 'x', 'a__a-1'),
      kind: fc.constantFrom('duplicate', 'NaN', 'Infinity', '-Infinity'),
    });
    await fc.assert(
      fc.asyncProperty(malformation, async (m) => {
        const input = m.useReal ? real : synthetic;
        // Every file of these runs is a run file the importer reads: the predictions, the run report, the reports.
        const paths = [...input.files.keys()].filter((p) => !p.endsWith('.txt'));
        const path = paths[m.file % paths.length]!;
        const text = Buffer.from(input.files.get(path)!).toString('utf8');
        // Any object's opening brace (not a brace inside a string), in any line.
        const braces = objectBraces(text);
        const brace = braces[m.at % braces.length]!;
        const member = m.kind === 'duplicate' ? `"${m.name}": 1, "${m.name}": 2, ` : `"${m.name}": ${m.kind}, `;
        const files = new Map(input.files);
        files.set(path, Buffer.from(text.slice(0, brace + 1) + member + text.slice(brace + 1), 'utf8'));
        let message = '';
        try {
          await mapImportInput(sweBenchImporter, { ...input, files }, { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS });
        } catch (error) {
          if (!(error instanceof ImportError)) throw error;
          message = error.message;
        }
        expect(message).toContain(JSON.stringify(path));
        expect(message).toMatch(m.kind === 'duplicate' ? /duplicate member name/ : /NaN or Infinity/);
      }),
      { seed: 25, numRuns: 100 },
    );
  }, 60_000);
});
