/**
 * The read + verify stage for a list of user-given paths: discover bundles,
 * read each from disk, verify it. Shared by `verify`, `build` and later
 * stages; the only stage here that touches the disk is the reading.
 */
import { discoverBundles } from '../evidence/discover.ts';
import { readBundle } from '../evidence/read-bundle.ts';
import { finding } from '../verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../verify/verify-bundle.ts';

/** One verified bundle and where it was found (as the user spelled the path). */
export interface VerifiedBundle {
  path: string;
  verification: BundleVerification;
}

/** Progress callback: bundles done so far and the total. */
export type Progress = (done: number, total: number) => void;

/** Discovers and verifies every bundle under the given paths, in argument order, bundles sorted within each. */
export async function verifyPaths(paths: readonly string[], onProgress?: Progress): Promise<VerifiedBundle[]> {
  const dirs: string[] = [];
  for (const path of paths) dirs.push(...(await discoverBundles(path)));
  const results: VerifiedBundle[] = [];
  for (const dir of dirs) {
    results.push({ path: dir, verification: await verifyDirectory(dir) });
    onProgress?.(results.length, dirs.length);
  }
  return results;
}

/** Reads and verifies one bundle directory; a root that cannot be listed is a no_verdict bundle, not a crash. */
export async function verifyDirectory(dir: string): Promise<BundleVerification> {
  try {
    return verifyBundle(await readBundle(dir));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') throw error;
    return {
      bundle_id: null,
      plan_id: null,
      status: 'no_verdict',
      findings: [finding('MISSING_FILE', 'manifest.json', `the bundle directory cannot be read (${code})`)],
      evidence: { manifest: null, plan: null, ledger: [], attempts: [], grades: [], grant: null, notes: null },
    };
  }
}
