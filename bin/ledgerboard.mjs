#!/usr/bin/env node
// Entry point: run the TypeScript CLI through tsx's loader, so a fresh clone
// needs only `npm install` (no compile step) for `npx ledgerboard`.
import { register } from 'tsx/esm/api';

// A reader that stops early (`ledgerboard report --json | head`) closes the
// pipe: later writes fail with EPIPE, which is not an error of ours. Say
// nothing and finish with the command's own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.env.ASTRO_TELEMETRY_DISABLED = '1';
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
