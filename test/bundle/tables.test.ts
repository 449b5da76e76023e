/**
 * The verifier keeps attempts and grade results column-wise
 * (src/bundle/tables.ts) and rebuilds their objects on demand. A rebuilt
 * record must be the record the schema accepted: the same members in the
 * same order, the same strings (any Unicode), the same numbers (-0
 * included), whatever the member order of the original.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Attempt, GradeResult, Grades } from '../../src/schema/index.ts';
import { AttemptTable, GradesTable, StringStore } from '../../src/bundle/tables.ts';

/** Deep equality with member order, Object.is for numbers (so -0 is not 0). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The same members in a random order (a permutation of the keys). */
function reorder<T extends object>(value: T, keys: number[]): T {
  const entries = Object.entries(value);
  const order = entries.map((_, i) => i).sort((x, y) => (keys[x] ?? 0) - (keys[y] ?? 0) || x - y);
  return Object.fromEntries(order.map((i) => entries[i]!)) as T;
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const timestamp = fc.constantFrom('2026-09-15T08:00:00Z', '2026-09-15T08:00:00.5Z', '2026-09-15T08:00:00.50Z', '2026-12-31T23:59:60Z', '2027-01-01T00:00:00.000001Z');
const count = fc.oneof(fc.nat(), fc.constant(0), fc.constant(-0), fc.constant(Number.MAX_SAFE_INTEGER));
const digest = fc.constantFrom(`sha256:${'a'.repeat(64)}`, `sha256:${'b'.repeat(64)}`, `sha256:${'0123456789abcdef'.repeat(4)}`);
const order = fc.array(fc.integer(), { minLength: 14, maxLength: 14 });

const attempt = fc
  .record({
    attempt: fc.record({
      attempt_id: text,
      task_id: fc.oneof(text, fc.constantFrom('t1', 't2')),
      model: fc.constantFrom('acme/a', 'acme/b', 'ünï/cødé'),
      agent: fc.record({ name: fc.constantFrom('loop', ''), version: fc.constantFrom('1.0', '2.0') }),
      index: fc.oneof(fc.integer(), fc.constant(-0)),
      observed_model: fc.constantFrom('acme/a', 'acme/c'),
      outcome: fc.constantFrom('completed', 'model_failure', 'safety_failure', 'harness_failure', 'environment_failure', 'invalid_case', 'timeout', 'cancelled'),
      started_at: timestamp,
      ended_at: timestamp,
      wall_seconds: fc.oneof(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.constant(-0)),
      tokens: fc.option(fc.record({ input: count, output: count }), { nil: null }),
      retries: count,
      cost: fc.record({ state: fc.constantFrom('complete', 'partial', 'unavailable', 'not_applicable', 'zero'), micros: fc.option(count, { nil: null }) }),
      patch: fc.option(digest, { nil: null }),
    }),
    shuffle: fc.option(fc.tuple(order, order), { nil: undefined }),
  })
  .map(({ attempt: a, shuffle }) => {
    const value = a as Attempt;
    if (!shuffle) return value;
    const [top, inner] = shuffle;
    return reorder({ ...value, agent: reorder(value.agent, inner), cost: reorder(value.cost, inner.slice(2)) }, top);
  });

describe('AttemptTable', () => {
  it('rebuilds every attempt as it was added: members, order, strings, numbers', () => {
    fc.assert(
      fc.property(fc.array(attempt, { maxLength: 40 }), fc.nat(3), (attempts, expected) => {
        const table = new AttemptTable(expected);
        attempts.forEach((a, i) => expect(table.add(i + 1, a)).toBe(i));
        expect(table.count).toBe(attempts.length);
        const lines = table.lines();
        attempts.forEach((a, i) => {
          expect(same(table.attempt(i), a)).toBe(true);
          expect(lines[i]!.line).toBe(i + 1);
          expect(same(lines[i]!.attempt, a)).toBe(true);
          expect(table.attemptId(i)).toBe(a.attempt_id);
          expect(table.startedAt(i)).toBe(a.started_at);
          expect(table.endedAt(i)).toBe(a.ended_at);
        });
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });
});

describe('StringStore', () => {
  it('gives back every string pushed (any Unicode, empty ones, long ones)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary', minLength: 100, maxLength: 400 }).map((s) => s.toWellFormed())), { maxLength: 60 }), (strings) => {
        const store = new StringStore(1);
        for (const s of strings) store.push(s);
        expect(strings.map((_, i) => store.get(i))).toEqual(strings);
      }),
      { seed: 20261130, numRuns: 200 },
    );
  });
});

describe('GradesTable', () => {
  it('rebuilds the generation: results in order, a result naming no row kept as it is', () => {
    const result = fc
      .record({
        result: fc.record({ attempt_id: fc.constantFrom('x1', 'x2', 'x3', 'unknown'), verdict: fc.constantFrom('pass', 'fail', 'error'), input: digest, output: digest, receipt: digest }),
        shuffle: fc.option(fc.array(fc.integer(), { minLength: 5, maxLength: 5 }), { nil: undefined }),
      })
      .map(({ result: r, shuffle }) => (shuffle ? reorder(r as GradeResult, shuffle) : (r as GradeResult)));
    fc.assert(
      fc.property(fc.array(result, { maxLength: 30 }), (results) => {
        const attempts = new AttemptTable(3);
        const rows = new Map<string, number>();
        for (const id of ['x1', 'x2', 'x3']) {
          rows.set(id, attempts.add(rows.size + 1, { attempt_id: id, task_id: 't', model: 'm', agent: { name: 'a', version: '1' }, index: 1, observed_model: 'm', outcome: 'completed', started_at: '2026-09-15T08:00:00Z', ended_at: '2026-09-15T08:00:00Z', wall_seconds: 1, tokens: null, retries: 0, cost: { state: 'zero', micros: 0 }, patch: null }));
        }
        const grades: Grades = { schema: 'ledgerboard.grades.v1', generation: 2, created_at: '2026-09-16T00:00:00Z', grader: { id: 'g', version: '1', executable: `sha256:${'c'.repeat(64)}` }, results };
        const table = GradesTable.of('grades/2.json', grades, attempts, Int32Array.from(results, (r) => rows.get(r.attempt_id) ?? -1));
        const file = table.file();
        expect(file.path).toBe('grades/2.json');
        expect(same(file.grades, grades)).toBe(true);
        results.forEach((r, i) => expect(table.attemptId(i)).toBe(r.attempt_id));
      }),
      { seed: 20261130, numRuns: 200 },
    );
  });

  it('a generation whose members are out of the schema order is a table too, with the same values', () => {
    const grades = { generation: 1, schema: 'ledgerboard.grades.v1', created_at: '2026-09-16T00:00:00Z', grader: { id: 'g', version: '1', executable: `sha256:${'c'.repeat(64)}` }, results: [] } as Grades;
    const table = GradesTable.of('grades/1.json', grades, new AttemptTable(0), new Int32Array(0));
    expect(table.file().grades).toEqual(grades);
    expect(table.generation).toBe(1);
  });
});
