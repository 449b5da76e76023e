/**
 * Fuzzing the shapes issue 26 added to the helm importer: arbitrary JSON as
 * run_spec.json for configurationDifferences (never throws; sorted, bounded
 * names of the known components), as scenario_state.json and
 * per_instance_stats.json for transcripts (a map, or an ImportError; never
 * another error), arbitrary group names for the main-metric lookup (only the
 * table's own rows), and failed requests (success false) with or without
 * stats in a run (a bundle or an ImportError). Fixed seed; FUZZ_SEED overrides.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/import/errors.ts';
import { helmImporter } from '../../../src/import/helm/importer.ts';
import { lookupMainMetric, mainMetricRows } from '../../../src/import/helm/main-metric.ts';
import { HELM_MAIN_METRIC_ROWS } from '../../../src/import/helm/main-metrics.generated.ts';
import { helmConfigurationDifferences, MAX_DIFFERENCES } from '../../../src/import/helm/transcript.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { compareUtf8 } from '../../../src/json/compare.ts';
import { entry, mapRun, requestState, runInput, runSpec, scenarioState, stat } from './fixtures.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const json = fc.jsonValue({ maxDepth: 4 });
const bytes = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');
const KNOWN = /^(adapter_spec\.|scenario_spec\.|annotators$|metric_specs$|data_augmenter_spec$|and \d+ more$)/;

describe('configurationDifferences on arbitrary run_spec.json', () => {
  it('never throws; names are known components, sorted, at most MAX_DIFFERENCES + 1', () => {
    const spec = fc.oneof(json, fc.record({ adapter_spec: json, scenario_spec: fc.oneof(json, fc.record({ class_name: json, args: json })), annotators: json }));
    fc.assert(
      fc.property(spec, spec, fc.boolean(), (a, b, raw) => {
        const bb = raw ? Buffer.from(JSON.stringify(b)?.slice(0, 7) ?? '') : bytes(b);
        const names = helmConfigurationDifferences(new Map([['source/run_spec.json', bytes(a)]]), new Map([['source/run_spec.json', bb]]), DEFAULT_IMPORT_LIMITS);
        expect(names.length).toBeLessThanOrEqual(MAX_DIFFERENCES + 1);
        for (const n of names) expect(n).toMatch(KNOWN);
        const body = names.filter((n) => !/^and \d+ more$/.test(n));
        expect([...body].sort(compareUtf8)).toEqual(body);
        expect(helmConfigurationDifferences(new Map([['source/run_spec.json', bytes(a)]]), new Map([['source/run_spec.json', bytes(a)]]))).toEqual([]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('transcripts on arbitrary scenario states', () => {
  it('a map or an ImportError, never another error', async () => {
    const state = fc.oneof(
      json,
      fc.record({ request_states: fc.array(fc.oneof(json, fc.record({ instance: fc.record({ id: json, input: json }), train_trial_index: fc.nat(3), request: json, result: json })), { maxLength: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(state, json, async (s, stats) => {
        try {
          const out = await helmImporter.transcripts!(new Map([['source/scenario_state.json', bytes(s)], ['source/per_instance_stats.json', bytes(stats)]]), DEFAULT_IMPORT_LIMITS);
          for (const t of out.values()) for (const m of t.messages) expect(typeof m.text).toBe('string');
        } catch (e) {
          expect(e).toBeInstanceOf(ImportError);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('the main-metric lookup on arbitrary group names', () => {
  it('returns only rows the table holds for that exact name', () => {
    const names = new Set(HELM_MAIN_METRIC_ROWS.map((r) => r[0]));
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'mmlu', 'bbq')), { maxLength: 5 }), (groups) => {
        for (const g of groups) expect(mainMetricRows(g).length > 0).toBe(names.has(g));
        const r = lookupMainMetric(groups, 'test', new Set(['exact_match', 'bbq_accuracy']));
        for (const row of r.rows) expect(groups).toContain(row.group);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('failed requests with or without stats', () => {
  it('a bundle or an ImportError; a failed request with a value is completed, without one a harness_failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ success: fc.boolean(), value: fc.oneof(fc.constant(null), fc.constantFrom(0, 1)) }), { minLength: 1, maxLength: 4 }), async (cases) => {
        const perInstance = cases.map((c, i) => entry(`id${i}`, 0, c.value === null ? [stat('num_prompt_tokens', 1), stat('exact_match', 0, { count: 0 })] : [stat('exact_match', c.value)]));
        const states = cases.map((c, i) => requestState(`id${i}`, 0, { success: c.success }));
        try {
          const m = await mapRun(runInput({ runSpec: runSpec(), perInstance, scenarioState: scenarioState(states) }));
          const attempts = Buffer.from(m.files.get('attempts.jsonl')!).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { task_id: string; outcome: string });
          for (const a of attempts) {
            const c = cases[Number(a.task_id.slice(2))]!;
            expect(a.outcome).toBe(!c.success && c.value === null ? 'harness_failure' : 'completed');
          }
        } catch (e) {
          expect(e).toBeInstanceOf(ImportError);
        }
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
