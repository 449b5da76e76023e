/**
 * The order vitest starts test files in: the longest first, by the times in
 * test/durations.json (a run's per-file times with hooks, written by
 * `node scripts/test-times.mjs <run> --durations test/durations.json`), so
 * the last file to start is a short one and the workers finish together.
 * vitest's own order comes from a cache of earlier runs on this machine,
 * which a fresh CI clone does not have (it then starts the largest files by
 * bytes first, which are not the slowest). A file the list does not know (a
 * new one) starts first: it may be slow, and a fast one costs nothing there.
 * A stale list changes only the order, never what runs.
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..');

/** Seconds per file (repository-relative, `/`-separated) as test/durations.json records them. */
export function loadDurations(file = join(ROOT, 'test', 'durations.json')): Map<string, number> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { files?: Record<string, unknown> };
  const durations = new Map<string, number>();
  for (const [name, seconds] of Object.entries(parsed.files ?? {})) if (typeof seconds === 'number' && Number.isFinite(seconds)) durations.set(name, seconds);
  return durations;
}

/** `files` in the order to start them: unknown files first, then the longest first; ties by name, so the order is the same on every machine. */
export function longestFirst<T>(files: readonly T[], nameOf: (file: T) => string, durations: ReadonlyMap<string, number>): T[] {
  const key = (file: T): number => durations.get(nameOf(file)) ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => key(b) - key(a) || (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = loadDurations();
    return longestFirst(files, (spec) => relative(ROOT, spec.moduleId).split(sep).join('/'), durations);
  }
}
