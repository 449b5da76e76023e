/**
 * Fuzzing the terminal-bench importer: mutated synthetic TB1 run directories
 * and Harbor jobs (members replaced by hostile values, members removed, bytes
 * cut or flipped, files dropped). For every case the mapping either returns
 * a bundle whose files verify with the project's verifier, or throws an
 * ImportError; never another error. Fixed seed, 400 cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { writeBundle } from '../../src/evidence/seal.ts';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { ImportError } from '../../src/import/errors.ts';
import type { ImportInput } from '../../src/import/input.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { harborInput, harborTrial, mapTb, tb1Input, tb1Trial } from '../import/tbench/fixtures.ts';

const HOSTILE: unknown[] = [null, 0, -1, 1.5, 1e308, '', 'x', '<script>', '2026-13-45T99:99:99Z', '2026-03-01T10:00:00', true, [], {}, ['a'], { reward: 0.5 }, 'unset', 'agent_timeout', 'AgentTimeoutError'];
const TB1_KEYS = ['trial_name', 'task_id', 'instruction', 'is_resolved', 'failure_mode', 'parser_results', 'total_input_tokens', 'total_output_tokens', 'trial_started_at', 'trial_ended_at'];
const HARBOR_KEYS = ['task_name', 'trial_name', 'task_checksum', 'agent_info', 'agent_result', 'verifier_result', 'exception_info', 'started_at', 'finished_at', 'config'];

const base = (layout: 'tb1' | 'harbor', trials: number): ImportInput =>
  layout === 'tb1'
    ? tb1Input(Array.from({ length: trials }, (_, i) => tb1Trial(i % 2 === 0 ? 'a' : 'b', Math.floor(i / 2) + 1, { is_resolved: i % 3 === 0 })))
    : harborInput(Array.from({ length: trials }, (_, i) => harborTrial(i % 2 === 0 ? 'a' : 'b', `T${i}`, { verifier_result: { rewards: { reward: i % 2 } } })));

function mutate(input: ImportInput, m: { file: number; kind: number; key: number; value: number; at: number }): ImportInput {
  const paths = [...input.files.keys()];
  const path = paths[m.file % paths.length]!;
  const files = new Map(input.files);
  const bytes = Buffer.from(files.get(path)!);
  switch (m.kind % 5) {
    case 0: // cut
      files.set(path, bytes.subarray(0, m.at % (bytes.length + 1)));
      break;
    case 1: // flip a byte
      if (bytes.length > 0) bytes[m.at % bytes.length] = (bytes[m.at % bytes.length]! + 1 + (m.value % 200)) % 256;
      files.set(path, bytes);
      break;
    case 2: // drop the file
      files.delete(path);
      break;
    default: {
      // replace or remove a member of the file's object (or of its first trial)
      let doc: unknown;
      try {
        doc = JSON.parse(bytes.toString('utf8'));
      } catch {
        return input;
      }
      const target = (doc as { results?: unknown[] }).results?.[0] ?? doc;
      const keys = [...TB1_KEYS, ...HARBOR_KEYS, 'n_resolved', 'accuracy', 'n_total_trials', 'start_time', 'model_name', 'stats'];
      const key = keys[m.key % keys.length]!;
      if (typeof target === 'object' && target !== null) {
        if (m.kind % 5 === 3) delete (target as Record<string, unknown>)[key];
        else (target as Record<string, unknown>)[key] = HOSTILE[m.value % HOSTILE.length];
      }
      files.set(path, Buffer.from(JSON.stringify(doc)));
    }
  }
  if (files.size === 0) files.set('README.md', Buffer.from('#'));
  return { ...input, files };
}

describe('fuzz: the terminal-bench importer', () => {
  let root = '';
  let n = 0;
  afterAll(async () => {
    if (root !== '') await rm(root, { recursive: true, force: true });
  });
  it('maps to a verifying bundle or refuses with an ImportError, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'tb1' | 'harbor'>('tb1', 'harbor'),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ file: fc.nat(), kind: fc.nat(), key: fc.nat(), value: fc.nat(), at: fc.nat() }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom<Record<string, string>>({}, { 'pass-threshold': '0.5' }),
        async (layout, trials, mutations, flags) => {
          let input = base(layout, trials);
          for (const m of mutations) input = mutate(input, m);
          let mapped;
          try {
            mapped = await mapTb(input, flags);
          } catch (error) {
            if (!(error instanceof ImportError)) throw error;
            return;
          }
          if (root === '') root = await mkdtemp(join(tmpdir(), 'ledgerboard-tbench-fuzz-'));
          const dir = join(root, String(n++));
          await writeBundle(dir, mapped.files, mapped.planId);
          const result = verifyBundle(await readBundle(dir));
          await rm(dir, { recursive: true, force: true });
          expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
          expect(result.status).toBe('verified');
        },
      ),
      { seed: 20261201, numRuns: 400 },
    );
  }, 60_000);
});
