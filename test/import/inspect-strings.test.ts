/**
 * Issue 25 (medium): the Inspect importer applies `import_limits.string_bytes`
 * as the other importers do: a string of the log that the mapping keeps (or
 * parses, a timestamp) and that is longer than the limit, in UTF-8 bytes, is
 * refused naming the field and the limit, never cut; in a .json and a .eval
 * log alike, from a config through the command.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportLimitError } from '../../src/import/errors.ts';
import { mapImportInput } from '../../src/import/import-input.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { inspectImporter } from '../../src/import/inspect/importer.ts';
import { runCli } from '../helpers/cli.ts';
import { evalLog, header, jsonLog, sample, tempDirs } from './helpers.ts';

const temp = tempDirs();
const LIMIT = 256;
/** 129 two-byte characters: 258 bytes, fewer than 256 characters (the limit is in bytes). */
const LONG = 'é'.repeat(129);
/** Exactly the limit. */
const AT_LIMIT = 'é'.repeat(128);

type Json = Record<string, unknown>;

/** A log (header, samples) with one string set to `text`, and the field the refusal names. */
const FIELDS: { field: string; log: (text: string) => { header: Json; samples: Json[] } }[] = [
  { field: 'eval.model', log: (t) => ({ header: header({}, { model: t }), samples: [sample(1, 1, { model_usage: {} }), sample(2, 1, { model_usage: {} })] }) },
  { field: 'eval.task', log: (t) => ({ header: header({}, { task: t }), samples: [sample(1, 1), sample(2, 1)] }) },
  { field: 'eval.dataset.name', log: (t) => ({ header: header({}, { dataset: { name: t, samples: 2, sample_ids: [1, 2] } }), samples: [sample(1, 1), sample(2, 1)] }) },
  { field: 'eval.solver', log: (t) => ({ header: header({}, { solver: t }), samples: [sample(1, 1), sample(2, 1)] }) },
  { field: 'eval.packages.inspect_ai', log: (t) => ({ header: header({}, { packages: { inspect_ai: t } }), samples: [sample(1, 1), sample(2, 1)] }) },
  { field: 'eval.sandbox.type', log: (t) => ({ header: header({}, { sandbox: { type: t } }), samples: [sample(1, 1), sample(2, 1)] }) },
  { field: 'plan.steps[0].solver', log: (t) => ({ header: header({ plan: { name: 'plan', steps: [{ solver: t }], config: {} } }), samples: [sample(1, 1)] }) },
  { field: 'eval.scorers[0].name', log: (t) => ({ header: header({ results: null }, { scorers: [{ name: t }] }), samples: [sample(1, 1, { scores: { [t]: { value: 'C' } } })] }) },
  { field: 'samples[0].id', log: (t) => ({ header: header({}, { dataset: { name: 'd' } }), samples: [sample(t, 1), sample(2, 1)] }) },
  { field: 'samples[1].output.model', log: (t) => ({ header: header(), samples: [sample(1, 1), sample(2, 1, { output: { model: t } })] }) },
];

function fileInput(name: string, bytes: Uint8Array): ImportInput {
  return { name, kind: 'file', files: new Map([[name, bytes]]), skipped: [] };
}

async function importAt(format: 'json' | 'eval', log: { header: Json; samples: Json[] }, maxStringBytes: number) {
  const bytes = format === 'json' ? jsonLog(log.samples, log.header) : evalLog(log.samples, log.header);
  return mapImportInput(inspectImporter, fileInput(`log.${format}`, bytes), { license: 'MIT', flags: {}, limits: { ...DEFAULT_IMPORT_LIMITS, maxStringBytes } });
}

describe('import_limits.string_bytes on an Inspect log', () => {
  for (const format of ['json', 'eval'] as const) {
    it.each(FIELDS)(`.${format}: $field past the limit is refused naming it; at the limit it imports`, async ({ field, log }) => {
      const error = await importAt(format, log(LONG), LIMIT).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportLimitError);
      expect((error as ImportLimitError).limit).toBe('maxStringBytes');
      expect((error as Error).message).toBe(`${field} is 258 bytes long, more than the 256 an import keeps (import_limits.maxStringBytes)`);
      // Never cut, never quoted: the message does not hold the string.
      expect((error as Error).message).not.toContain('éé');
      const kept = await importAt(format, log(AT_LIMIT), LIMIT);
      expect(kept.files.size).toBeGreaterThan(0);
    });
  }

  it('the agent name made of many short steps is bounded as a whole', async () => {
    const steps = Array.from({ length: 60 }, (_, i) => ({ solver: `s${i}` }));
    const log = { header: header({ plan: { name: 'plan', steps, config: {} } }), samples: [sample(1, 1)] };
    // s0 ... s59 joined by " > ": 170 + 59 * 3 bytes, each step far under the limit.
    await expect(importAt('json', log, LIMIT)).rejects.toThrow('the agent name (plan.steps[].solver joined) is 347 bytes long, more than the 256 an import keeps (import_limits.maxStringBytes)');
  });

  it('a config sets it for the command: a .eval and a .json log with a long model name are refused (exit 1), the default imports them', async () => {
    const root = await temp();
    await writeFile(join(root, 'c.json'), JSON.stringify({ import_limits: { string_bytes: LIMIT } }));
    const log = FIELDS[0]!.log(LONG);
    for (const format of ['json', 'eval'] as const) {
      const path = join(root, `long-model.${format}`);
      await writeFile(path, format === 'json' ? jsonLog(log.samples, log.header) : evalLog(log.samples, log.header));
      const refused = await runCli(['import', 'inspect', path, '-o', join(root, `out-${format}`), '--license', 'MIT', '--config', join(root, 'c.json')]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(new RegExp(`^refused {4}.*long-model\\.${format}: eval\\.model is 258 bytes long, more than the 256 an import keeps \\(import_limits\\.maxStringBytes\\)$`, 'm'));
      const imported = await runCli(['import', 'inspect', path, '-o', join(root, `default-${format}`), '--license', 'MIT']);
      expect(imported.code).toBe(0);
    }
  });
});
