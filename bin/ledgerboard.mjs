#!/usr/bin/env node
// Entry point: run the TypeScript CLI through tsx's loader, so a fresh clone
// needs only `npm install` (no compile step) for `npx ledgerboard`.
import { register } from 'tsx/esm/api';

process.env.ASTRO_TELEMETRY_DISABLED = '1';
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
