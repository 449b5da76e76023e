/**
 * Writes the generated files from their one source:
 * - public/schema/<name>.json from the zod schemas (src/schema/),
 * - docs/finding-codes.md from the finding catalog (src/verify/findings.ts),
 * - docs/config.md from the config's schema (src/config/config.ts),
 * - docs/architecture.md's picture, stage table and rules from docs/stages.json.
 * Run `npm run generate` after changing either; tests fail while they are stale.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaText, PUBLISHED_SCHEMAS } from '../src/report/json-schemas.ts';
import { findingCodesMarkdown } from './docs/finding-codes.ts';
import { configMarkdown } from './docs/config.ts';
import { architectureMarkdown } from './docs/architecture.ts';
import { readStageList } from './docs/stages.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function write(relative: string, text: string): Promise<void> {
  const file = join(root, relative);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  console.log(`wrote ${relative}`);
}

for (const name of Object.keys(PUBLISHED_SCHEMAS) as (keyof typeof PUBLISHED_SCHEMAS)[]) {
  await write(`public/schema/${name}.json`, jsonSchemaText(name));
}
await write('docs/finding-codes.md', findingCodesMarkdown());
await write('docs/config.md', configMarkdown());
await write('docs/architecture.md', architectureMarkdown(await readFile(join(root, 'docs/architecture.md'), 'utf8'), readStageList()));
