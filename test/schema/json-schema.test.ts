/**
 * The published JSON Schemas (public/schema/<name>.json) are generated from the
 * zod schemas: committed files must equal jsonSchemaText(name), and nothing
 * else may sit in public/schema.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jsonSchemaText, PUBLISHED_SCHEMAS } from '../../src/report/json-schemas.ts';

const schemaDir = new URL('../../public/schema/', import.meta.url);
const names = Object.keys(PUBLISHED_SCHEMAS) as (keyof typeof PUBLISHED_SCHEMAS)[];

describe('public/schema', () => {
  for (const name of names) {
    it(`${name}.json is fresh`, async () => {
      let committed: string | undefined;
      try {
        committed = await readFile(new URL(`${name}.json`, schemaDir), 'utf8');
      } catch {
        committed = undefined;
      }
      expect(committed, `public/schema/${name}.json is missing or stale: run \`npm run schemas\``).toBe(jsonSchemaText(name));
    });
  }

  it('holds no file besides the published schemas', async () => {
    const present = (await readdir(schemaDir)).sort();
    expect(present, 'public/schema holds files no schema generates: remove them, or run `npm run schemas`').toEqual(names.map((n) => `${n}.json`).sort());
  });

  it('each schema is a JSON object with its $id and title', () => {
    for (const name of names) {
      const schema = JSON.parse(jsonSchemaText(name)) as Record<string, unknown>;
      expect(schema.$id).toBe(`/schema/${name}.json`);
      expect(typeof schema.title).toBe('string');
      expect(jsonSchemaText(name).endsWith('}\n')).toBe(true);
    }
  });
});
