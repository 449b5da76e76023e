/**
 * What a build publishes of the signed reports (FORMAT.md 10): every
 * envelope kept for a report the site carries (the current one and every
 * retained one), byte for byte at /attestations/<report-hex>/<keyid>.json,
 * and the public keys kept beside them in /keys.json as
 * {"keys": [{"keyid", "public_key_pem"}]}, sorted by keyid.
 *
 * The attestations directory is the publisher's, not evidence, but names are
 * still never trusted: only `<64 hex>.json` under a `<64 hex>` report
 * directory and `keys/<64 hex>.pem` are read; anything else is ignored and
 * named. A key file whose name is not its key's id, or that is not an
 * Ed25519 public key, stops the build (a publisher's mistake to fix, never
 * published as it is).
 */
import { createPublicKey } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../json/canonical.ts';
import { keyIdOf } from './envelope.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** The subdirectory of the attestations directory that holds the public keys. */
export const ATTESTATION_KEYS_DIR = 'keys';

const HEX64 = /^[0-9a-f]{64}$/;

export interface PublishedAttestations {
  /** Site path (e.g. /attestations/<report-hex>/<keyid>.json) and bytes. */
  files: { path: string; bytes: Uint8Array }[];
  /** The envelopes per report hex: their key ids, sorted. */
  byReport: Map<string, string[]>;
  keys: { keyid: string; public_key_pem: string }[];
  /** Names in the directory that were not read (not a report hex, a key id, or .json/.pem). */
  ignored: string[];
}

/** Thrown for a key file that is not what its name says. */
export class AttestationKeyError extends LedgerboardError {
  static override readonly code: string = 'ATTESTATION_KEY';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}

/** Reads the envelopes of these reports and the public keys from `dir` (a missing directory: none). */
export async function readAttestations(dir: string, reportHexes: readonly string[]): Promise<PublishedAttestations> {
  const out: PublishedAttestations = { files: [], byReport: new Map(), keys: [], ignored: [] };
  const list = async (d: string): Promise<string[]> => {
    try {
      return (await readdir(d)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };
  const wanted = new Set(reportHexes);
  for (const name of await list(dir)) {
    if (name === ATTESTATION_KEYS_DIR) continue;
    if (!HEX64.test(name)) {
      out.ignored.push(name);
      continue;
    }
    if (!wanted.has(name)) continue;
    const ids: string[] = [];
    for (const file of await list(join(dir, name))) {
      const keyid = file.endsWith('.json') ? file.slice(0, -'.json'.length) : '';
      if (!HEX64.test(keyid)) {
        out.ignored.push(`${name}/${file}`);
        continue;
      }
      out.files.push({ path: `/attestations/${name}/${file}`, bytes: await readFile(join(dir, name, file)) });
      ids.push(keyid);
    }
    if (ids.length > 0) out.byReport.set(name, ids);
  }
  for (const file of await list(join(dir, ATTESTATION_KEYS_DIR))) {
    const keyid = file.endsWith('.pem') ? file.slice(0, -'.pem'.length) : '';
    if (!HEX64.test(keyid)) {
      out.ignored.push(`${ATTESTATION_KEYS_DIR}/${file}`);
      continue;
    }
    const pem = await readFile(join(dir, ATTESTATION_KEYS_DIR, file), 'utf8');
    let actual: string;
    try {
      const key = createPublicKey(pem);
      if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType ?? 'typeless'} key, not Ed25519`);
      actual = keyIdOf(key);
    } catch (error) {
      throw new AttestationKeyError(`${join(dir, ATTESTATION_KEYS_DIR, file)} is not an Ed25519 public key in PEM (${(error as Error).message}): fix or remove it`);
    }
    if (actual !== keyid) throw new AttestationKeyError(`${join(dir, ATTESTATION_KEYS_DIR, file)} holds the key ${actual}, not ${keyid}: a key file is named by its key id`);
    out.keys.push({ keyid, public_key_pem: pem });
  }
  return out;
}

/** /keys.json: RFC 8785 plus a newline. */
export function keysJson(keys: PublishedAttestations['keys']): string {
  return `${canonicalJson({ keys: [...keys].sort((a, b) => (a.keyid < b.keyid ? -1 : 1)) })}\n`;
}
