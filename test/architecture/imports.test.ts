/**
 * docs/architecture.md, held against the code: the import graph of src/, read
 * with the TypeScript parser (graph.ts), keeps every rule of the one stage
 * list docs/stages.json (rules.ts): arrows go to the same stage or room or a
 * lower one, no cycle, which rooms touch the disk, what the site never
 * imports nor reaches at runtime, what the pure rooms never reach.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { readStageList } from '../../scripts/docs/stages.ts';
import { readGraph, type Graph } from './graph.ts';
import { check } from './rules.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** tsconfig.json's verbatimModuleSyntax, as tsc, tsx and Astro read it (through astro's `extends`). */
export function verbatimModuleSyntax(): boolean {
  const parsed = ts.getParsedCommandLineOfConfigFile(`${ROOT}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  return parsed?.options.verbatimModuleSyntax === true;
}

/**
 * Runtime reaches the code has today that the rules forbid, each a line's start up to its path. Each is to be removed by
 * the change named; the test fails on any other problem, and on a line here that no longer happens (delete it then).
 */
const KNOWN: readonly string[] = [];

const isKnown = (problem: string): boolean => KNOWN.some((k) => problem.startsWith(`${k} (`));

describe('the import graph of src/ (docs/stages.json)', () => {
  let graph: Graph;
  let problems: string[];
  beforeAll(async () => {
    graph = await readGraph(SRC, { verbatimModuleSyntax: verbatimModuleSyntax() });
    problems = check(graph, readStageList());
  }, 60_000);

  it('is read whole: static, type-only, re-exported and dynamic imports, .astro frontmatter included, every relative one resolved', () => {
    expect(verbatimModuleSyntax()).toBe(true); // so `import { type A }` loads A's module: a runtime arrow
    expect(graph.unresolved).toEqual([]);
    expect(graph.arrows.length).toBeGreaterThan(1000);
    expect(graph.arrows.filter((a) => a.kind === 'type').length).toBeGreaterThan(200);
    const siteArrows = graph.arrows.filter((a) => /^(site|pages|components|layouts)\//.test(a.from) && !a.to.includes(':') && graph.files.includes(a.to));
    expect(siteArrows.length).toBeGreaterThan(50);
    expect(graph.arrows.some((a) => a.from.endsWith('.astro') && a.to.startsWith('site/'))).toBe(true);
    expect(graph.arrows.some((a) => a.specifier.startsWith('node:') || a.to === 'node:fs/promises')).toBe(true);
  });

  it('puts every file of src/ in a stage', () => {
    expect(problems.filter((p) => p.includes('in no stage'))).toEqual([]);
  });

  it('imports only the same stage or a lower one, and within the site the same room or a lower one (type-only imports too)', () => {
    expect(problems.filter((p) => p.includes(': up from '))).toEqual([]);
  });

  it('has no cycle (type-only imports too)', () => {
    expect(problems.filter((p) => p.startsWith('cycle: '))).toEqual([]);
  });

  it('the site (src/site, pages, components, layouts) imports neither src/verify, src/pipeline nor src/evidence', () => {
    expect(problems.filter((p) => p.includes(' never import '))).toEqual([]);
  });

  it('only the rooms the stage list names import node:fs, node:worker_threads or node:child_process (the parser, schemas, tables and verifier never)', () => {
    expect(problems.filter((p) => p.includes(' may not import node:'))).toEqual([]);
  });

  it('pages, components and layouts get the model as data (the virtual module or props), never from a global', () => {
    expect(problems.filter((p) => p.includes(': uses globalThis'))).toEqual([]);
  });

  it('at runtime, the site reaches no verify, pipeline or evidence file and the pure rooms no file system, but for the known reaches', () => {
    expect(problems.filter((p) => !isKnown(p))).toEqual([]);
  });

  it('every known reach still happens (a line of KNOWN that no longer does is deleted)', () => {
    expect(KNOWN.filter((k) => !problems.some((p) => p.startsWith(`${k} (`)))).toEqual([]);
  });
});
