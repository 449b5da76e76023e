/**
 * Ed25519 key files for signed reports: `keygen` writes a pair (the private
 * key PKCS#8 PEM, mode 0600, create-only; the public key SPKI PEM), and
 * `sign` reads a private key back. Where a key may live is the command's
 * business (never inside the evidence, the history or the output).
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIdOf } from './envelope.ts';

/** What keygen wrote. */
export interface WrittenKeyPair {
  keyid: string;
  privatePath: string;
  publicPath: string;
}

/**
 * Writes a new key pair into `dir` (which must exist): `ledgerboard-<keyid>.key` (0600) and `.pub`, named by the
 * whole 64-hex key id (the id a reader pins with verify.mjs --key; keys made before were named by its first 16 hex
 * digits, and still work as files); never overwrites.
 */
export async function writeKeyPair(dir: string): Promise<WrittenKeyPair> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyid = keyIdOf(publicKey);
  const base = join(dir, `ledgerboard-${keyid}`);
  const privatePath = `${base}.key`;
  const publicPath = `${base}.pub`;
  await writeNew(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  await writeNew(publicPath, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
  return { keyid, privatePath, publicPath };
}

async function writeNew(path: string, text: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    // The mode given to open is masked by the umask; set it exactly.
    await handle.chmod(mode);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A private Ed25519 key from a PEM file, and a warning when others may read the file. */
export async function readPrivateKey(path: string): Promise<{ key: KeyObject; warning: string | null }> {
  const text = await readFile(path, 'utf8');
  if (/-----BEGIN PUBLIC KEY-----/.test(text) && !/-----BEGIN (?:ENCRYPTED )?PRIVATE KEY-----/.test(text)) throw new Error(publicKeyGiven(path));
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch (e) {
    throw new Error(`${path} is not a private key in PEM: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${path} holds a ${key.asymmetricKeyType ?? 'typeless'} key, not Ed25519`);
  const mode = (await stat(path)).mode & 0o777;
  const warning = (mode & 0o077) !== 0 ? `${path} can be read by others (mode ${mode.toString(8).padStart(3, '0')}); chmod 600 it` : null;
  return { key, warning };
}

/** What sign says when given the public half of a pair: which file it needs instead (keygen writes `<name>.key` beside `<name>.pub`). */
export function publicKeyGiven(path: string): string {
  const twin = path.endsWith('.pub') ? `${path.slice(0, -'.pub'.length)}.key` : null;
  return `${path} is a public key; sign needs the private key${twin === null ? ' (the .key file keygen wrote beside the .pub)' : ` ${twin}`}`;
}
