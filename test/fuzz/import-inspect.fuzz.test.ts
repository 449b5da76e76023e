/**
 * Fuzzing the Inspect importer's `import_limits.string_bytes` (issue 25): a
 * string of any mapped field, of any length around a small limit, made of
 * 1- to 4-byte UTF-8 characters (so characters and bytes disagree), in a
 * .json or a .eval log. The law: the import is refused with an
 * ImportLimitError naming the field and `maxStringBytes` exactly when the
 * string's UTF-8 length is past the limit; otherwise it maps. Fixed seed,
 * 150 runs, in memory.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportError, ImportLimitError } from '../../src/import/errors.ts';
import { mapImportInput } from '../../src/import/import-input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { inspectImporter } from '../../src/import/inspect/importer.ts';
import { evalLog, header, jsonLog, sample } from '../import/helpers.ts';

const LIMIT = 64;
type Json = Record<string, unknown>;

/** Where the string goes: the field the refusal names, and the log with the string there. */
const FIELDS: { field: string; log: (t: string) => { header: Json; samples: Json[] } }[] = [
  { field: 'eval.model', log: (t) => ({ header: header({}, { model: t }), samples: [sample(1, 1, { model_usage: {} })] }) },
  { field: 'eval.task', log: (t) => ({ header: header({}, { task: t }), samples: [sample(1, 1)] }) },
  { field: 'eval.dataset.name', log: (t) => ({ header: header({}, { dataset: { name: t } }), samples: [sample(1, 1)] }) },
  { field: 'eval.solver', log: (t) => ({ header: header({}, { solver: t }), samples: [sample(1, 1)] }) },
  { field: 'eval.packages.inspect_ai', log: (t) => ({ header: header({}, { packages: { inspect_ai: t } }), samples: [sample(1, 1)] }) },
  {
    field: 'results.scores[0].name',
    log: (t) => ({ header: header({ results: { scores: [{ name: t, scorer: 'm', params: {} }] } }, { scorers: [] }), samples: [sample(1, 1, { scores: { [t]: { value: 'C' } } })] }),
  },
  { field: 'samples[0].id', log: (t) => ({ header: header({}, { dataset: { name: 'd' } }), samples: [sample(t, 1)] }) },
  { field: 'samples[0].output.model', log: (t) => ({ header: header(), samples: [sample(1, 1, { output: { model: t } })] }) },
  { field: 'a score name of samples[0]', log: (t) => ({ header: header({ results: null }, { scorers: [] }), samples: [sample(1, 1, { scores: { [t]: { value: 'C' } } })] }) },
];

describe('import inspect, string_bytes fuzzed', () => {
  it('refuses exactly the strings past the limit in UTF-8 bytes, naming the field', async () => {
    const seen = { past: 0, within: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          field: fc.nat({ max: FIELDS.length - 1 }),
          format: fc.constantFrom('json' as const, 'eval' as const),
          // 1-, 2-, 3- and 4-byte characters (a, é, €, an emoji), repeated around the limit.
          text: fc.array(fc.constantFrom('a', 'é', '€', '😀'), { minLength: 8, maxLength: LIMIT + 8, size: 'max' }).map((cs) => cs.join('')),
        }),
        async ({ field, format, text }) => {
          const { field: name, log } = FIELDS[field]!;
          const { header: h, samples } = log(text);
          const bytes = format === 'json' ? jsonLog(samples, h) : evalLog(samples, h);
          const input = { name: `log.${format}`, kind: 'file' as const, files: new Map([[`log.${format}`, bytes]]), skipped: [] };
          const length = Buffer.byteLength(text, 'utf8');
          let error: unknown = null;
          try {
            await mapImportInput(inspectImporter, input, { license: 'MIT', flags: {}, limits: { ...DEFAULT_IMPORT_LIMITS, maxStringBytes: LIMIT } });
          } catch (e) {
            if (!(e instanceof ImportError)) throw e;
            error = e;
          }
          seen[length > LIMIT ? 'past' : 'within']++;
          if (length > LIMIT) {
            expect(error).toBeInstanceOf(ImportLimitError);
            expect((error as ImportLimitError).message).toBe(`${name} is ${length} bytes long, more than the ${LIMIT} an import keeps (import_limits.maxStringBytes)`);
          } else {
            expect(error).toBeNull();
          }
        },
      ),
      { seed: 25, numRuns: 150 },
    );
    // Both sides of the limit were tried, many times each.
    expect(seen.past).toBeGreaterThan(30);
    expect(seen.within).toBeGreaterThan(30);
  }, 60_000);
});
