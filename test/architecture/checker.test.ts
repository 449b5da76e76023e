/**
 * The checker itself fails where it should: a small tree in a temporary
 * directory with a model file importing the build, a cycle, a type-only
 * arrow the runtime rule leaves out but the room rule catches, a view
 * reaching the verifier through the report; the exact lines are asserted.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStageList } from '../../scripts/docs/stages.ts';
import { importsOfCode, readGraph, codeOf } from './graph.ts';
import { check, placeOf } from './rules.ts';

const LIST = readStageList();

describe('reading imports with the TypeScript parser', () => {
  const code = [
    "import a from './a.ts';",
    "import type { B } from './b.ts';",
    "import { type C } from './c.ts';",
    "import { type D, d } from './d.ts';",
    "import './e.ts';",
    "export * from './f.ts';",
    "export type { G } from './g.ts';",
    "export { type H } from './h.ts';",
    "const i = await import('./i.ts');",
    "type J = import('./j.ts').J;",
    "import k = require('./k.ts');",
    "import type l = require('./l.ts');",
    "const m = require('./m.ts');",
    "// import n from './n.ts';",
    "const o = \"import p from './p.ts'\";",
    'const q = import(`./q.ts`);',
    'const r = import(name);',
  ].join('\n');
  const kinds = (verbatim: boolean): string[] => importsOfCode('x.ts', code, { verbatimModuleSyntax: verbatim }).map((f) => `${f.specifier} ${f.kind}`);

  it('finds every form, marks each type-only or runtime, and never reads comments or strings', () => {
    expect(kinds(false)).toEqual([
      './a.ts runtime',
      './b.ts type',
      './c.ts type', // every named binding type-qualified: elided
      './d.ts runtime',
      './e.ts runtime',
      './f.ts runtime',
      './g.ts type',
      './h.ts type',
      './i.ts runtime',
      './j.ts type',
      './k.ts runtime',
      './l.ts type',
      './m.ts runtime',
      './q.ts runtime',
    ]);
  });

  it('under verbatimModuleSyntax (this repository), `import { type C }` and `export { type H }` still load the module: runtime', () => {
    const v = kinds(true);
    expect(v).toContain('./c.ts runtime');
    expect(v).toContain('./h.ts runtime');
    expect(v).toContain('./b.ts type');
    expect(v).toContain('./g.ts type');
  });

  it('reads an .astro file: its frontmatter and its <script> tags, not its template', () => {
    const astro = [
      '---',
      "import model from 'virtual:ledgerboard/site-model';",
      "import { f } from '../site/views/format.ts';",
      '---',
      '<p>import x from "./not-an-import.ts"</p>',
      "<script>import { g } from '../site/charts/g.ts';</script>",
      '<script is:inline src="/public.js"></script>',
    ].join('\n');
    const found = codeOf('pages/x.astro', astro).flatMap((c) => importsOfCode('pages/x.astro', c, { verbatimModuleSyntax: true }).map((f) => f.specifier));
    expect(found).toEqual(['virtual:ledgerboard/site-model', '../site/views/format.ts', '../site/charts/g.ts', '/public.js']);
  });
});

describe('where a file lives (docs/stages.json, by path)', () => {
  it('the flat site is the site stage, unordered; a room of the site is ordered; pages sit below the build', () => {
    expect(placeOf(LIST, 'site/model.ts')).toEqual({ stage: 8, room: 'site', order: null });
    expect(placeOf(LIST, 'site/views/format.ts')).toEqual({ stage: 8, room: 'site/views', order: 0 });
    expect(placeOf(LIST, 'site/model/model.ts')).toEqual({ stage: 8, room: 'site/model', order: 2 });
    expect(placeOf(LIST, 'components/A.astro')).toEqual({ stage: 8, room: 'pages', order: 3 });
    expect(placeOf(LIST, 'site/build/render.ts')).toEqual({ stage: 8, room: 'site/build', order: 4 });
    expect(placeOf(LIST, 'files/open.ts')).toEqual({ stage: 0, room: 'files', order: null });
    expect(placeOf(LIST, 'errors.ts')).toEqual({ stage: 0, room: 'errors.ts', order: null });
    expect(placeOf(LIST, 'facts/compare.ts')).toEqual({ stage: 5, room: 'facts', order: null });
    expect(placeOf(LIST, 'import/sources.ts')).toEqual({ stage: 3, room: 'import', order: null });
    expect(placeOf(LIST, 'sitemap.ts')).toBeNull(); // 'site' holds site/…, not every name that starts with it
  });
});

describe('the checker on a tree that breaks the rules', () => {
  let root: string;
  const tree: Record<string, string> = {
    'json/a.ts': 'export const a = 1;\n',
    'verify/v.ts': "import { a } from '../json/a.ts';\nexport const v = a;\n",
    'report/r.ts': "import { v } from '../verify/v.ts';\nexport const r = v;\n",
    // a forbidden runtime arrow: the model imports the build, which touches the disk
    'site/model/m.ts': "import { b } from '../build/b.ts';\nexport const m = b;\n",
    'site/build/b.ts': "import { readFileSync } from 'node:fs';\nexport const b = readFileSync;\n",
    // a type-only arrow up: the room rule catches it, the runtime closure leaves it out (types.ts touches the disk)
    'site/model/t.ts': "import type { T } from '../build/types.ts';\nexport const t: T | null = null;\n",
    'site/build/types.ts': "import { statSync } from 'node:fs';\nexport type T = ReturnType<typeof statSync>;\n",
    // a view reaches the verifier at runtime through the report (each arrow allowed alone)
    'site/views/f.ts': "import { r } from '../../report/r.ts';\nexport const f = r;\n",
    // a cycle, one arrow of it type-only
    'analysis/x.ts': "import type { Y } from './y.ts';\nexport type X = Y | 1;\n",
    'analysis/y.ts': "import { x } from './z.ts';\nexport type Y = 2;\nexport const y = x;\n",
    'analysis/z.ts': "export type { X } from './x.ts';\nexport const x = 3;\n",
    // a page: frontmatter only, the model as data
    'pages/index.astro': "---\nimport { m } from '../site/model/m.ts';\n---\n<p>{m}</p>\n",
    'components/G.astro': '---\nconst g = globalThis;\n---\n',
    'rederive/main.ts': "import { missing } from './missing.ts';\nexport const w = missing;\n",
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'lb-imports-'));
    for (const [path, text] of Object.entries(tree)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('names each broken rule, exactly', async () => {
    const graph = await readGraph(root, { verbatimModuleSyntax: true });
    expect(check(graph, LIST)).toEqual([
      "rederive/main.ts: './missing.ts' resolves to no file",
      'site/model/m.ts -> site/build/b.ts: up from room site/model to room site/build of stage 9 (site)',
      'site/model/t.ts -> site/build/types.ts (import type): up from room site/model to room site/build of stage 9 (site)',
      'cycle: analysis/x.ts -> analysis/y.ts -> analysis/z.ts -> analysis/x.ts',
      'runtime: site, pages, components, layouts reach verify/v.ts (site/views/f.ts -> report/r.ts -> verify/v.ts)',
      'runtime: a pure room reaches node:fs through site/build/b.ts (site/model/m.ts -> site/build/b.ts -> node:fs)',
      'components/G.astro: uses globalThis',
    ]);
  });

  it('keeps quiet once the arrows are fixed: the model imports no build, the cycle is cut', async () => {
    await writeFile(join(root, 'site/model/m.ts'), 'export const m = 1;\n');
    await writeFile(join(root, 'site/model/t.ts'), 'export const t = null;\n');
    await writeFile(join(root, 'site/views/f.ts'), 'export const f = 1;\n');
    await writeFile(join(root, 'analysis/z.ts'), 'export const x = 3;\n');
    await writeFile(join(root, 'components/G.astro'), '---\nconst g = 1;\n---\n');
    await writeFile(join(root, 'rederive/main.ts'), 'export const w = 1;\n');
    const graph = await readGraph(root, { verbatimModuleSyntax: true });
    expect(check(graph, LIST)).toEqual([]);
  });

  it('a page importing the build, a view importing node:fs and the site importing the verifier are each named', async () => {
    await writeFile(join(root, 'pages/index.astro'), "---\nimport { b } from '../site/build/b.ts';\n---\n");
    await writeFile(join(root, 'site/views/f.ts'), "import type { Stats } from 'node:fs';\nexport type F = Stats;\n");
    await writeFile(join(root, 'site/model/m.ts'), "import { v } from '../../verify/v.ts';\nexport const m = v;\n");
    const graph = await readGraph(root, { verbatimModuleSyntax: true });
    expect(check(graph, LIST)).toEqual([
      'pages/index.astro -> site/build/b.ts: up from room pages to room site/build of stage 9 (site)',
      `site/views/f.ts -> node:fs (import type): room site/views may not import node:fs (only ${LIST.rules.touch[0]!.only.join(', ')})`,
      'site/model/m.ts -> verify/v.ts: site, pages, components, layouts never import verify, pipeline, evidence',
    ]);
  });
});
