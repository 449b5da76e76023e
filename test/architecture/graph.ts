/**
 * The import graph of a source tree, read with the TypeScript parser (not a
 * regex): every import declaration, re-export, `import()` of a string,
 * `import x = require()`, `require()` of a string and `import('…')` type,
 * in .ts / .mjs files and in .astro files (the frontmatter between the `---`
 * lines and the <script> tags). Each arrow is type-only or runtime: runtime
 * when it is loaded when the module runs.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export type ArrowKind = 'runtime' | 'type';

/** One import. `to` is a file under the root (a path relative to it, with `/`), `node:<name>` or a package name. */
export interface Arrow {
  from: string;
  to: string;
  kind: ArrowKind;
  /** The specifier as written. */
  specifier: string;
}

export interface Graph {
  /** Every source file under the root, relative, sorted. */
  files: string[];
  arrows: Arrow[];
  /** Relative specifiers that resolve to no file: `file: 'specifier'`. */
  unresolved: string[];
  /** Each file's text (for the rules that read words). */
  texts: Map<string, string>;
}

export interface ReadOptions {
  /**
   * tsconfig's `verbatimModuleSyntax` (astro's strict config sets it): then `import { type A } from 'x'` is emitted as
   * `import {} from 'x'`, and loads x, so it is a runtime arrow. Without it, an import whose every binding is
   * type-qualified is elided: a type arrow.
   */
  verbatimModuleSyntax: boolean;
}

const SOURCE = /\.(ts|mts|mjs|js|astro)$/;
const TRY = ['', '.ts', '.mts', '.mjs', '.js', '.astro', '.d.ts', '/index.ts', '/index.mjs', '/index.js'];

/** Every source file under `root` (relative paths with `/`, sorted). */
export async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** The code of a file the TypeScript parser reads: for .astro, the frontmatter and each <script>'s body, other lines blanked (so positions stay). */
export function codeOf(file: string, text: string): string[] {
  if (!file.endsWith('.astro')) return [text];
  const parts: string[] = [];
  const front = /^\s*---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (front) parts.push(front[1]!);
  for (const m of text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    const attributes = m[1]!;
    const src = /\bsrc\s*=\s*["']([^"']+)["']/.exec(attributes);
    if (src) parts.push(`import ${JSON.stringify(src[1])};`);
    if (m[2]!.trim() !== '') parts.push(m[2]!);
  }
  return parts;
}

interface Found {
  specifier: string;
  kind: ArrowKind;
}

function literal(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

/** The imports of one piece of code, each type-only or runtime. */
export function importsOfCode(fileName: string, code: string, options: ReadOptions): Found[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Found[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== undefined) {
        const clause = node.importClause;
        let type = false;
        if (clause?.isTypeOnly) type = true;
        else if (clause && !clause.name && !options.verbatimModuleSyntax) {
          const named = clause.namedBindings;
          type = named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
        }
        found.push({ specifier, kind: type ? 'type' : 'runtime' });
      }
    } else if (ts.isExportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== undefined) {
        let type = node.isTypeOnly;
        const clause = node.exportClause;
        if (!type && !options.verbatimModuleSyntax && clause && ts.isNamedExports(clause)) {
          type = clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
        }
        found.push({ specifier, kind: type ? 'type' : 'runtime' });
      }
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) {
        const specifier = literal(node.moduleReference.expression);
        if (specifier !== undefined) found.push({ specifier, kind: node.isTypeOnly ? 'type' : 'runtime' });
      }
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      const specifier = ts.isLiteralTypeNode(argument) ? literal(argument.literal) : undefined;
      if (specifier !== undefined) found.push({ specifier, kind: 'type' });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isImport || isRequire) {
        const specifier = literal(node.arguments[0]);
        if (specifier !== undefined) found.push({ specifier, kind: 'runtime' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const BUILTIN = new Set(builtinModules);

/** Where a specifier of `from` goes: a file under the root, `node:<name>`, a package, or nothing (virtual modules, public URLs). */
export function resolveSpecifier(root: string, from: string, specifier: string): { to: string } | { unresolved: true } | null {
  if (specifier.startsWith('virtual:')) return null;
  if (specifier.startsWith('/') || /^[a-z]+:\/\//.test(specifier)) return null; // a URL of the published site (public/), not a source file
  const bare = specifier.replace(/^node:/, '');
  if (specifier.startsWith('node:') || BUILTIN.has(bare)) return { to: `node:${bare}` };
  if (!specifier.startsWith('.')) return { to: specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]! };
  const path = specifier.split(/[?#]/)[0]!;
  const base = resolve(root, dirname(from), path);
  const candidates = [...TRY.map((t) => base + t)];
  if (/\.js$/.test(path)) candidates.push(base.replace(/\.js$/, '.ts'));
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return { to: relative(root, candidate).split(sep).join('/') };
  }
  return { unresolved: true };
}

/** Reads the import graph of every source file under `root`. */
export async function readGraph(root: string, options: ReadOptions): Promise<Graph> {
  const files = await sourceFiles(root);
  const arrows: Arrow[] = [];
  const unresolved: string[] = [];
  const texts = new Map<string, string>();
  for (const file of files) {
    const text = await readFile(join(root, file), 'utf8');
    texts.set(file, text);
    for (const code of codeOf(file, text)) {
      for (const { specifier, kind } of importsOfCode(file, code, options)) {
        const target = resolveSpecifier(root, file, specifier);
        if (target === null) continue;
        if ('unresolved' in target) unresolved.push(`${file}: '${specifier}'`);
        else arrows.push({ from: file, to: target.to, kind, specifier });
      }
    }
  }
  return { files, arrows, unresolved, texts };
}
