/**
 * parseWithArrayMember (src/json/array-member.ts) parses a top-level object
 * element by element of one array member. Whenever it gives a value, the
 * strict parser must give the same document (that value with the elements
 * put back, member order and -0 included); whenever the strict parser finds
 * an error, it must decline. It may decline valid text (the caller then
 * parses whole), but not grades-like text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWithArrayMember } from '../../src/json/array-member.ts';
import { parseStrictJson, type JsonValue } from '../../src/json/strict-json.ts';

const encoder = new TextEncoder();

function viaMember(text: string, maxDepth?: number) {
  const elements: JsonValue[] = [];
  const top = parseWithArrayMember(encoder.encode(text), 'results', (e, i) => {
    expect(i).toBe(elements.length);
    elements.push(e);
    return true;
  }, maxDepth === undefined ? {} : { maxDepth });
  return top === undefined ? undefined : { top, elements };
}

/** JSON.stringify with Object.is for numbers (so -0 shows) and member order. */
function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (Object.is(x, -0) ? '-0' : x));
}

let taken = 0;

function agrees(text: string, maxDepth?: number): boolean {
  const got = viaMember(text, maxDepth);
  if (got !== undefined) taken++;
  const strict = parseStrictJson(encoder.encode(text), maxDepth === undefined ? {} : { maxDepth });
  if (got === undefined) return true;
  expect(strict.ok, text).toBe(true);
  if (!strict.ok) return false;
  const whole = strict.value as Record<string, JsonValue>;
  expect(Array.isArray(whole['results'])).toBe(true);
  expect(show(got.elements)).toBe(show(whole['results']));
  expect(show({ ...got.top, results: got.elements })).toBe(show(whole));
  return true;
}

const ws = fc.constantFrom('', ' ', '\n', '\n  ', '\t');
const member = fc.tuple(fc.constantFrom('schema', 'generation', 'results', 'x', 'a:b', '{', 'results '), fc.jsonValue({ maxDepth: 3 }));
const pieces = fc.record({
  before: fc.array(member, { maxLength: 3 }),
  after: fc.array(member, { maxLength: 3 }),
  elements: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant({ attempt_id: 'a-1', verdict: 'pass' })), { maxLength: 6 }),
  ws: fc.array(ws, { minLength: 8, maxLength: 8 }),
  raw: fc.array(fc.constantFrom('', '-0', '1e400', '"\\u0041"', '"é"', '"\\ud800"', ',', '[', '}', '{"a":1,"a":2}', '"results":[1]', '[[[[[[[[[[]]]]]]]]]]'), { maxLength: 2 }),
});

type Pieces = typeof pieces extends fc.Arbitrary<infer T> ? T : never;

function textOf(p: Pieces): string {
  const w = p.ws;
  const members = (list: readonly (readonly [string, unknown])[]) => list.map(([k, v]) => `${JSON.stringify(k)}${w[0]}:${w[1]}${JSON.stringify(v)}`);
  const elements = [...p.elements.map((e) => JSON.stringify(e) ?? 'null'), ...p.raw];
  return `${w[2]}{${w[3]}${[...members(p.before), `"results"${w[4]}:${w[5]}[${w[6]}${elements.join(`,${w[7]}`)}${w[6]}]`, ...members(p.after)].join(`,${w[3]}`)}}${w[2]}`;
}

describe('parseWithArrayMember', () => {
  it('gives the strict parser\'s document, or declines', () => {
    fc.assert(
      fc.property(pieces, fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }), (p, maxDepth) => agrees(textOf(p), maxDepth)),
      { seed: 20261130, numRuns: 3000 },
    );
    // The comparison is not vacuous: many of the random documents take this path.
    expect(taken).toBeGreaterThan(100);
  });

  it('declines text the strict parser rejects, and cuts that do not match', () => {
    for (const text of ['{"results":[1,]}', '{"results":[,1]}', '{"results":[1 2]}', '{"results":[1],"results":[]}', '{"results":[}', '{"results":[1]', '{"results":[{"a":1,"a":2}]}', '{"results":[1e400]}', '[{"results":[1]}]', '{"a":"results":[1]}', '\ufeff{"results":[]}']) {
      expect(viaMember(text), text).toBeUndefined();
    }
  });

  it('takes grades-like text, results in order', () => {
    const doc = { schema: 'ledgerboard.grades.v1', generation: 1, created_at: '2026-09-15T09:00:00Z', grader: { id: 'g', version: '1', executable: 'sha256:x' }, results: [{ attempt_id: 'a-1', verdict: 'pass' }, { attempt_id: 'a-2', verdict: 'fail' }] };
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2), JSON.stringify({ ...doc, results: [] }, null, 2)]) {
      const got = viaMember(text);
      expect(got, text).toBeDefined();
      expect(agrees(text)).toBe(true);
    }
  });

  it('stops when the visitor declines', () => {
    let seen = 0;
    expect(parseWithArrayMember(encoder.encode('{"results":[1,2,3]}'), 'results', () => ++seen < 2)).toBeUndefined();
    expect(seen).toBe(2);
  });
});
