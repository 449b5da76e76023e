/** Synthetic SWE-bench run directories for the importer's tests. */
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../src/import/limits.ts';
import { mapImportInput } from '../../../src/import/import-input.ts';
import type { MappedBundle } from '../../../src/import/importer.ts';
import { sweBenchImporter } from '../../../src/import/swebench/importer.ts';
import { compareUtf8 } from '../../../src/json/compare.ts';

export const MODEL = 'acme__agent-1';

export function pred(id: string, patch: string | null, model = MODEL): Record<string, unknown> {
  return { instance_id: id, model_name_or_path: model, model_patch: patch };
}

export function report(id: string, o: { resolved: boolean; applied?: boolean; p2pFail?: string[]; patchNone?: boolean }): Record<string, unknown> {
  return {
    [id]: {
      patch_is_None: o.patchNone ?? false,
      patch_exists: !(o.patchNone ?? false),
      patch_successfully_applied: o.applied ?? true,
      resolved: o.resolved,
      tests_status: {
        FAIL_TO_PASS: { success: o.resolved ? ['t::f2p'] : [], failure: o.resolved ? [] : ['t::f2p'] },
        PASS_TO_PASS: { success: ['t::p2p'], failure: o.p2pFail ?? [] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    },
  };
}

export function runReport(o: { submitted: string[]; resolved: string[]; unresolved: string[]; empty?: string[]; error?: string[] }): Record<string, unknown> {
  const empty = o.empty ?? [];
  const error = o.error ?? [];
  const completed = [...o.resolved, ...o.unresolved];
  return {
    total_instances: 300,
    submitted_instances: o.submitted.length,
    completed_instances: completed.length,
    resolved_instances: o.resolved.length,
    unresolved_instances: o.unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: error.length,
    completed_ids: completed,
    incomplete_ids: [],
    empty_patch_ids: empty,
    submitted_ids: o.submitted,
    resolved_ids: o.resolved,
    unresolved_ids: o.unresolved,
    error_ids: error,
    schema_version: 2,
  };
}

/** A run directory input from relative path -> JSON value (string: raw text). */
export function dirInput(files: Record<string, unknown>, name = 'run'): ImportInput {
  const map = new Map<string, Uint8Array>();
  for (const [path, value] of Object.entries(files)) map.set(path, Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, null, 4), 'utf8'));
  return { name, kind: 'directory', files: new Map([...map].sort(([a], [b]) => compareUtf8(a, b))), skipped: [] };
}

export function jsonl(lines: unknown[]): string {
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

export function harnessPath(id: string, run = 'r1', model = MODEL): string {
  return `logs/run_evaluation/${run}/${model}/${id}/report.json`;
}

export async function mapRun(input: ImportInput, limits: Partial<ImportLimits> = {}, license = 'MIT'): Promise<MappedBundle> {
  return mapImportInput(sweBenchImporter, input, { license, flags: {}, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads of known bundle files
export function jsonOf(m: MappedBundle, path: string): any {
  return JSON.parse(Buffer.from(m.files.get(path)!).toString('utf8'));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads of known bundle files
export function linesOf(m: MappedBundle, path: string): any[] {
  return Buffer.from(m.files.get(path)!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

export function notesOf(m: MappedBundle): string {
  return Buffer.from(m.files.get('NOTES.md')!).toString('utf8');
}
