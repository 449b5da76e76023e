/**
 * A cache store for tests: a directory and a fixed secret (the CLI makes a
 * random one per user, src/cache/secret.ts). Tests that plant entries a
 * stranger could write use another secret ({@link STRANGER_SECRET}).
 */
import { createHmac } from 'node:crypto';
import type { CacheStore } from '../../src/cache/sealed.ts';

/** The secret tests seal their entries with. */
export const TEST_SECRET: Uint8Array = Buffer.alloc(32, 0x5a);

/** A secret nobody running the tests holds: what a contributor planting an entry would use. */
export const STRANGER_SECRET: Uint8Array = Buffer.alloc(32, 0xa5);

/** The store at `dir` sealed with the tests' secret. */
export function testCache(dir: string, secret: Uint8Array = TEST_SECRET): CacheStore {
  return { dir, secret };
}

/** The first line an entry of this format, key and body has when sealed with `secret` (as cache/sealed.ts writes it). */
export function sealHeader(format: string, key: string, body: Uint8Array, secret: Uint8Array = TEST_SECRET): string {
  const mac = createHmac('sha256', secret).update(`${format} ${key}\n`, 'latin1').update(body).digest('hex');
  return `${format} ${key} hmac-sha256:${mac}\n`;
}
