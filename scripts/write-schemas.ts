/**
 * Writes the published JSON Schemas to public/schema/<name>.json from the zod
 * definitions. Run `npm run schemas` after changing a schema; a test fails
 * while the committed files are stale.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaText, PUBLISHED_SCHEMAS } from '../src/schema/json-schema.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'public', 'schema');
await mkdir(outDir, { recursive: true });
for (const name of Object.keys(PUBLISHED_SCHEMAS) as (keyof typeof PUBLISHED_SCHEMAS)[]) {
  const file = join(outDir, `${name}.json`);
  await writeFile(file, jsonSchemaText(name));
  console.log(`wrote ${file.slice(root.length + 1)}`);
}
