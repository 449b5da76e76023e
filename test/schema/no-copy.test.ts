/**
 * checkSchema (src/verify/parse-evidence.ts) runs each evidence schema as
 * compiled by zod itself (z.compile), and keeps a value the schema accepts as
 * it is instead of zod's copy of it. Both are sound only while:
 * - the compiled schema answers exactly as the schema does (same success,
 *   same data, same issues), and
 * - the schemas only validate (no default, transform, pipe or catch), so that
 *   for an accepted value zod's output is a copy of the value.
 * The zod schemas stay the single source of truth; these tests hold the two
 * shortcuts to them.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { Attempt, Grades, Grant, LedgerRecord, Manifest, Plan } from '../../src/schema/index.ts';
import { compiled } from '../../src/verify/parse-evidence.ts';
import { sealBundle, validBundle } from '../helpers/bundle-builder.ts';

fc.configureGlobal({ seed: 20261129 });

const SCHEMAS = { Attempt, Grades, Grant, LedgerRecord, Manifest, Plan } as const;

/** The zod def types an evidence schema may use: none of them changes the value it accepts. */
const VALIDATING_TYPES = new Set(['object', 'string', 'number', 'int', 'boolean', 'null', 'literal', 'enum', 'array', 'nullable', 'optional', 'union', 'never']);

function defTypes(schema: z.core.$ZodType, out = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (seen.has(schema)) return out;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  out.add(def.type);
  const children: unknown[] = [];
  if (def.type === 'object') children.push(...Object.values(def.shape as object), def.catchall);
  if (def.type === 'array') children.push(def.element);
  if (def.type === 'nullable' || def.type === 'optional') children.push(def.innerType);
  if (def.type === 'union') children.push(...(def.options as unknown[]));
  for (const child of children) if (child) defTypes(child as z.core.$ZodType, out, seen);
  return out;
}

describe('the evidence schemas only validate', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name} uses no default, transform, pipe or catch`, () => {
      const types = [...defTypes(schema)];
      expect(types.filter((t) => !VALIDATING_TYPES.has(t)), name).toEqual([]);
    });
  }
});

/** Valid evidence objects to start from (the test bundle's own). */
function samples(): Record<keyof typeof SCHEMAS, unknown[]> {
  const model = validBundle();
  const sealed = sealBundle(model);
  const json = (path: string): unknown => JSON.parse(new TextDecoder().decode(sealed.disk.get(path)!));
  return {
    Attempt: model.attempts.map((a) => structuredClone(a)),
    Grades: model.grades.map((g) => structuredClone(g.value)),
    Grant: sealed.files.has('grant.json') ? [json('grant.json')] : [],
    LedgerRecord: model.ledger.map((t) => structuredClone(t)),
    Manifest: [json('manifest.json')],
    Plan: [json('plan.json')],
  };
}

/** A value changed in one place: a member replaced, removed or added, at any depth. */
function mutate(value: unknown, path: number[], replacement: unknown, how: number): unknown {
  const copy = structuredClone(value) as Record<string, unknown> | unknown[];
  let target: unknown = copy;
  for (const step of path) {
    if (target === null || typeof target !== 'object') break;
    const keys = Object.keys(target);
    if (keys.length === 0) break;
    const key = keys[step % keys.length]!;
    const inner = (target as Record<string, unknown>)[key];
    if (inner === null || typeof inner !== 'object' || step % 3 === 0) {
      if (how === 0) (target as Record<string, unknown>)[key] = replacement;
      else if (how === 1 && !Array.isArray(target)) delete (target as Record<string, unknown>)[key];
      else if (!Array.isArray(target)) (target as Record<string, unknown>)[`extra_${step}`] = replacement;
      return copy;
    }
    target = inner;
  }
  return copy;
}

describe('z.compile gives what the schema gives', () => {
  const all = samples();
  const replacement = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(-1, 0, -0, 1.5, 2 ** 53, '', 'sha256:' + 'a'.repeat(64), 'SHA256:xyz', '2026-02-30T00:00:00Z', '2026-09-14T23:59:60Z', 'complete', 'pass', null),
  );
  for (const [name, schema] of Object.entries(SCHEMAS) as [keyof typeof SCHEMAS, z.ZodType][]) {
    it(`${name}: same success, data and issues; an accepted value is zod's output as it is`, () => {
      const bases = all[name];
      expect(bases.length).toBeGreaterThan(0);
      const fast = compiled(schema);
      fc.assert(
        fc.property(fc.nat(), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), replacement, fc.integer({ min: 0, max: 3 }), (pick, path, value, how) => {
          const input = how === 3 ? structuredClone(bases[pick % bases.length]) : mutate(bases[pick % bases.length], path, value, how);
          const slow = schema.safeParse(input);
          const quick = fast.safeParse(input);
          expect(quick.success).toBe(slow.success);
          if (slow.success && quick.success) {
            expect(isDeepStrictEqual(quick.data, slow.data)).toBe(true);
            // What checkSchema relies on: the accepted value equals zod's output (member order aside).
            expect(isDeepStrictEqual(input, slow.data)).toBe(true);
          } else {
            expect(quick.error!.issues).toEqual(slow.error!.issues);
          }
          expect(fast.validate(input)).toBe(slow.success);
        }),
        { numRuns: 400 },
      );
    });
  }
});
