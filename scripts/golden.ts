/**
 * Regenerates the golden files of the demo evidence: `npm run golden` writes
 * test/golden/demo-report.json (the report) and
 * test/golden/demo-site-model.json (the site model the pages render). Run it
 * only when a change to either is intended, and review the diff; tests
 * compare against the committed files and never write them.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoReportText } from '../test/golden/demo-report.ts';
import { demoSiteModel, siteModelText } from '../test/golden/demo-site-model.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [name, text] of [
  ['demo-report.json', await demoReportText(root)],
  ['demo-site-model.json', siteModelText(await demoSiteModel(root))],
] as const) {
  const file = join(root, 'test', 'golden', name);
  await writeFile(file, text);
  console.log(`wrote ${file.slice(root.length + 1)}`);
}
