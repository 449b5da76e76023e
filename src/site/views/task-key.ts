/**
 * A task's key on the site: the lower-case hex SHA-256 of its id's UTF-8
 * bytes. Task pages live at /boards/<board-hex>/tasks/<task-key>/ (docs/site.md):
 * evidence text never chooses a URL, only its digest does.
 */
import { createHash } from 'node:crypto';

/** The 64 hex digits of SHA-256 over the task id's UTF-8 bytes. */
export function taskKey(taskId: string): string {
  return createHash('sha256').update(Buffer.from(taskId, 'utf8')).digest('hex');
}

/** The URL path of a task's page on a board. */
export function taskPath(boardHex: string, key: string): string {
  return `/boards/${boardHex}/tasks/${key}/`;
}
