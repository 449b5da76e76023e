/** The first problem zod found in a source document, as "<path>: <message>" for an ImportError (every importer's schemas). */
import type { z } from 'zod';

export function describeIssue(error: z.ZodError, fallback = 'does not match the expected shape'): string {
  const issue = error.issues[0];
  if (!issue) return fallback;
  const path = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
  return `${path}: ${issue.message}`;
}
