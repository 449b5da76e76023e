/**
 * Shared building blocks of the evidence schemas (FORMAT.md sections 1-5).
 * Every object schema is strict: an unknown member is a finding, never ignored.
 */
import { z } from 'zod';
import { DIGEST_PATTERN } from '../json/canonical.ts';
import { isValidTimestamp, TIMESTAMP_PATTERN } from './timestamp.ts';

/** `sha256:` followed by 64 lowercase hex digits. */
export const Digest = z.string().regex(DIGEST_PATTERN, 'expected a digest "sha256:" + 64 lowercase hex digits');

/** RFC 3339 UTC timestamp `YYYY-MM-DDTHH:MM:SS[.fraction]Z` naming a real calendar instant. */
export const Timestamp = z
  .string()
  .regex(TIMESTAMP_PATTERN, 'expected an RFC 3339 UTC timestamp YYYY-MM-DDTHH:MM:SS[.fraction]Z')
  .refine(isValidTimestamp, 'expected a real calendar date and time');

/** A name, identity or version: any string (FORMAT.md sets no length rule; an empty one is shown as such). */
export const Name = z.string();

/** An integer >= 0 (safe integer range). */
export const Count = z.int().min(0);

/** An agent identity: name and version. */
export const Agent = z.strictObject({ name: Name, version: Name });
export type Agent = z.infer<typeof Agent>;
