/**
 * verifyPaths may verify bundles on worker threads (src/pipeline/threads.ts)
 * next to the main thread; that is only a scheduling choice. With workers,
 * every result (status, findings, ids, entries, and the evidence with its
 * attempts and grades, built from the tables the workers posted) must be
 * what verifying on the main thread alone gives, and so must the report.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { workersFor } from '../../src/pipeline/threads.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { resultValue } from '../helpers/evidence-value.ts';

const PATHS = ['content/bundles', 'content/examples'];

describe('verifyPaths on worker threads', () => {
  it('gives what the main thread alone gives: results, evidence and report bytes', async () => {
    const alone = await verifyPaths(PATHS, undefined, { workers: 0 });
    const progress: number[] = [];
    const threaded = await verifyPaths(PATHS, (done) => progress.push(done), { workers: 2 });
    expect(alone.length).toBeGreaterThan(2);
    expect(progress).toEqual(alone.map((_, i) => i + 1));
    expect(threaded.map((r) => r.path)).toEqual(alone.map((r) => r.path));
    const config = Config.parse({});
    expect(canonicalJson(buildReport(threaded, config))).toBe(canonicalJson(buildReport(alone, config)));
    for (let i = 0; i < alone.length; i++) {
      expect(isDeepStrictEqual(resultValue(threaded[i]!), resultValue(alone[i]!)), alone[i]!.path).toBe(true);
    }
  }, 60_000);

  it('starts no worker for small evidence, one bundle, or when told so', async () => {
    expect(await workersFor(['content/bundles/2026-09-14-widget-bugs', 'content/bundles/2026-10-05-widget-bugs'])).toBe(0);
    expect(await workersFor(['a'], 4)).toBe(0);
    expect(await workersFor(['a', 'b', 'c'], 8)).toBe(2);
    expect(await workersFor(['a', 'b'], 0)).toBe(0);
  });
});
