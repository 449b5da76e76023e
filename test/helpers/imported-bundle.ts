/**
 * Hand-made copies of a demo import (content/imported/bundles/), tampered the
 * way a hostile publisher would and resealed (plan id and manifest
 * re-derived), for the import re-derivation's tests (IMPORT_MISMATCH,
 * IMPORT_NOT_REPRODUCED).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prettyJson, withSelfId, writeBundle } from '../../src/evidence/seal.ts';
import { makeTempDir } from './bundle-builder.ts';

/** The demo bundles' directory. */
export const IMPORTED_BUNDLES = new URL('../../content/imported/bundles/', import.meta.url).pathname;

/** A small demo Inspect import with 3 grades (1 fail, 2 pass). */
export const DEMO_INSPECT = join(IMPORTED_BUNDLES, '2025-05-12t20-28-13-04-00-popularity-85cd23ca8e6f');

/** Every file of a bundle directory but its manifest, by bundle path. */
export async function bundleFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name).slice(dir.length + 1);
    if (path !== 'manifest.json') files.set(path, await readFile(join(dir, path)));
  }
  return files;
}

function json(files: ReadonlyMap<string, Uint8Array>, path: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(files.get(path)!).toString('utf8')) as Record<string, unknown>;
}

/** The plan id of the files' plan.json. */
export function planIdOf(files: ReadonlyMap<string, Uint8Array>): string {
  return json(files, 'plan.json').plan_id as string;
}

/** Sets every verdict of grades/1.json to pass. */
export function flipGradesToPass(files: Map<string, Uint8Array>): void {
  const grades = json(files, 'grades/1.json') as { results: { verdict: string }[] };
  for (const r of grades.results) r.verdict = 'pass';
  files.set('grades/1.json', prettyJson(grades));
}

/** Rewrites the plan's origin.tool (its plan id re-derived); returns the new plan id. */
export function claimTool(files: Map<string, Uint8Array>, tool: { name: string; version: string }): string {
  const plan = json(files, 'plan.json') as { origin: { tool: { name: string; version: string } } };
  plan.origin.tool = tool;
  const sealed = withSelfId(plan as unknown as Record<string, unknown>, 'plan_id');
  files.set('plan.json', prettyJson(sealed));
  return sealed.plan_id as string;
}

/** Rewrites the plan's origin.format (its plan id re-derived); returns the new plan id. */
export function claimFormat(files: Map<string, Uint8Array>, format: string): string {
  const plan = json(files, 'plan.json') as { origin: { format: string } };
  plan.origin.format = format;
  const sealed = withSelfId(plan as unknown as Record<string, unknown>, 'plan_id');
  files.set('plan.json', prettyJson(sealed));
  return sealed.plan_id as string;
}

/** Writes the files as a bundle (manifest re-derived) into a fresh temporary directory; returns it. */
export async function writeImported(files: ReadonlyMap<string, Uint8Array>, name = 'bundle'): Promise<string> {
  const dir = join(await makeTempDir(), name);
  await writeBundle(dir, files, planIdOf(files));
  return dir;
}
