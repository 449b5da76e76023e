#!/usr/bin/env node
// Entry point: the CLI compiled to JavaScript in lib/ (`npm run compile`,
// which `npm install` and `npm ci` run as the prepare step). No TypeScript
// loader at run time.
import { existsSync } from 'node:fs';

// A reader that stops early (`ledgerboard report --json | head`) closes the
// pipe: later writes fail with EPIPE, which is not an error of ours. Say
// nothing and finish with the command's own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.env.ASTRO_TELEMETRY_DISABLED = '1';
const compiled = new URL('../lib/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('ledgerboard: the compiled CLI (lib/) is missing: run `npm run compile` in the ledgerboard checkout (npm install does it)\n');
  process.exit(3);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
