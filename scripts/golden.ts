/**
 * Regenerates the golden report of the demo evidence, test/golden/demo-report.json:
 * `npm run golden`. Run it only when a change to the report is intended, and
 * review the diff; tests compare against the committed file and never write it.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoReportText } from '../test/golden/demo-report.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'test', 'golden', 'demo-report.json');
await writeFile(file, await demoReportText(root));
console.log(`wrote ${file.slice(root.length + 1)}`);
