import { defineConfig } from 'vitest/config';

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
  },
});
