/** manifest.json (FORMAT.md section 2.1). */
import { z } from 'zod';
import { Count, Digest } from './common.ts';

/** One listed file. Path safety is checked apart (UNSAFE_PATH), not by the schema. */
export const ManifestEntry = z.strictObject({
  path: z.string(),
  sha256: Digest,
  bytes: Count,
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

/** The bundle's manifest: its id, its plan's id, every other file. */
export const Manifest = z.strictObject({
  schema: z.literal('ledgerboard.manifest.v1'),
  bundle_id: Digest,
  plan_id: Digest,
  files: z.array(ManifestEntry),
});
export type Manifest = z.infer<typeof Manifest>;
