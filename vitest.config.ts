import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Determinism: tests run in UTC whatever the machine says.
    env: { TZ: 'UTC', ASTRO_TELEMETRY_DISABLED: '1' },
    pool: 'forks',
  },
});
