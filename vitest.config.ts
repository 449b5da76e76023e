import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // lib/ (the compiled CLI that bin/ledgerboard.mjs runs) is fresh before any test spawns it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Determinism: tests run in UTC whatever the machine says.
    env: { TZ: 'UTC', ASTRO_TELEMETRY_DISABLED: '1' },
    pool: 'forks',
    // Files at once: one per core. vitest's default is one fewer, a single
    // file at a time on a 2-core machine, which left a core idle while a file
    // waited on another process (a site build, Chromium, the CLI). One more
    // than the cores was no faster (the suite is CPU-bound: docs/benchmarks.md)
    // and made the page crawls time out. VITEST_MAX_WORKERS overrides it.
    maxWorkers: availableParallelism(),
    // The longest files first (test/durations.json), the same order on every machine.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
