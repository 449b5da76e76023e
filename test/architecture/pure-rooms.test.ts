/**
 * Pure rooms: the config's schema and parser (src/config/ but its loader
 * config.ts) and the error base (src/errors.ts) reach no file system and no
 * process: their runtime import closure (imports read with the TypeScript
 * parser; `import type` and type-only specifiers left out, as they are
 * erased) holds no node:fs module and no use of process.env or
 * process.cwd(). The safe-file primitives (src/files/) are the opposite: the
 * room that touches the disk, imported by the rooms allowed to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** The runtime imports of a file: module specifiers of value imports, re-exports and dynamic imports. */
export function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every file a file reaches at run time (itself included), and every bare module named on the way. */
export function runtimeClosure(start: string): { files: string[]; modules: string[] } {
  const files = new Set<string>();
  const modules = new Set<string>();
  const queue = [resolve(start)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of runtimeImports(file)) {
      if (!specifier.startsWith('.')) {
        modules.add(specifier);
        continue;
      }
      const target = resolve(dirname(file), specifier);
      if (!existsSync(target)) throw new Error(`${relative(root, file)} imports ${specifier}, which is not a file`);
      if (/\.(ts|mjs|js)$/.test(target)) queue.push(target);
    }
  }
  return { files: [...files].map((f) => relative(root, f)).sort(), modules: [...modules].sort() };
}

const PURE = ['src/errors.ts', 'src/config/schema.ts', 'src/config/parse.ts', 'src/config/errors.ts', 'src/config/withhold.ts', 'src/config/source-date.ts'];
const DISK = /^(node:)?fs(\/promises)?$/;

describe('pure rooms', () => {
  it('the parser sees value imports, re-exports and dynamic imports, and leaves type-only ones out', () => {
    const dir = join(root, 'test', 'architecture');
    const file = join(dir, 'pure-rooms.test.ts');
    expect(runtimeImports(file)).toEqual(['node:fs', 'node:path', 'typescript', 'vitest']);
    // The loader itself is not pure: the rule below would catch it.
    expect(runtimeClosure(join(root, 'src/config/config.ts')).modules).toContain('node:fs/promises');
  });

  it.each(PURE)('%s reaches no node:fs, no process and not the loader', (file) => {
    const { files, modules } = runtimeClosure(join(root, file));
    expect(modules.filter((m) => DISK.test(m))).toEqual([]);
    expect(files).not.toContain('src/config/config.ts');
    const usesProcess = files.filter((f) => /\bprocess\.(env|cwd)\b/.test(readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(usesProcess).toEqual([]);
  });

  it('src/errors.ts imports nothing (stage 1: every room may import it)', () => {
    expect(runtimeImports(join(root, 'src/errors.ts'))).toEqual([]);
  });
});
