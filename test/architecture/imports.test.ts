/**
 * docs/architecture.md, held against the code: every import in src/ goes to
 * the same stage or a lower one, and there is no import cycle between files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The stages, lowest first: a file may import its own stage's files and lower stages' (docs/architecture.md). */
export const STAGES: readonly (readonly string[])[] = [
  ['json', 'version.ts'],
  ['schema', 'evidence', 'bundle', 'cache'],
  ['verify'],
  ['config', 'pipeline', 'import'],
  ['analysis', 'author', 'claims'],
  ['report'],
  ['history', 'attest'],
  ['run'],
  ['site', 'pages', 'layouts', 'components'],
  ['rederive'],
  ['cli'],
];

function stageOf(file: string): number {
  const top = relative(SRC, file).split(/[\\/]/)[0]!;
  const stage = STAGES.findIndex((names) => names.includes(top));
  if (stage < 0) throw new Error(`${relative(SRC, file)}: src/${top} is in no stage of docs/architecture.md`);
  return stage;
}

async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(SRC, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.(ts|mjs|astro)$/.test(e.name)).map((e) => join(e.parentPath, e.name)).sort();
}

/** Relative imports of a file (static, re-exports and dynamic import() of a string), resolved to files. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specifiers.map((s) => resolve(dirname(file), s));
}

/** What the site may not import (issue 12, point 3): it is built from the report and what the build publishes, never from the verifier's, the pipeline's or the reader's objects. */
export const SITE = ['site', 'pages', 'components', 'layouts'] as const;
export const NOT_FOR_THE_SITE = ['verify', 'pipeline', 'evidence'] as const;

const topOf = (file: string): string => relative(SRC, file).split(/[\\/]/)[0]!;

describe('the import graph of src/', () => {
  it('the site (src/site, pages, components, layouts) imports neither src/verify, src/pipeline nor src/evidence', async () => {
    const wrong: string[] = [];
    let edges = 0;
    for (const file of await sourceFiles()) {
      if (!(SITE as readonly string[]).includes(topOf(file))) continue;
      for (const target of await importsOf(file)) {
        edges++;
        if ((NOT_FOR_THE_SITE as readonly string[]).includes(topOf(target))) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(edges).toBeGreaterThan(50); // the site's imports were read, .astro files included
  });

  it('pages, components and layouts get the model as data (the virtual module or props), never from a global', async () => {
    const wrong: string[] = [];
    for (const file of await sourceFiles()) {
      if (!(SITE as readonly string[]).includes(topOf(file))) continue;
      if (/\bglobalThis\b/.test(await readFile(file, 'utf8'))) wrong.push(relative(SRC, file));
    }
    expect(wrong).toEqual([]);
  });

  it('imports only the same stage or a lower one', async () => {
    const wrong: string[] = [];
    let edges = 0;
    for (const file of await sourceFiles()) {
      for (const target of await importsOf(file)) {
        edges++;
        if (stageOf(target) > stageOf(file)) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(edges).toBeGreaterThan(300); // the graph was read (static, type, re-export and dynamic imports)
  });

  it('the parser, schemas, tables and verifier touch no file system: only the reader (src/evidence) does', async () => {
    const pure = ['json', 'schema', 'bundle', 'verify', 'version.ts'];
    const touching: string[] = [];
    for (const file of await sourceFiles()) {
      if (!pure.includes(relative(SRC, file).split(/[\\/]/)[0]!)) continue;
      const text = await readFile(file, 'utf8');
      if (/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](?:node:)?fs(?:\/promises)?['"]/m.test(text)) touching.push(relative(SRC, file));
    }
    expect(touching).toEqual([]);
  });

  it('has no cycle', async () => {
    const files = await sourceFiles();
    const graph = new Map<string, string[]>();
    for (const file of files) graph.set(file, (await importsOf(file)).filter((t) => graph.has(t) || files.includes(t)));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
