/** `ledgerboard keygen -o DIR`: a new Ed25519 key pair for signed reports (FORMAT.md 10). */
import { mkdir } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { writeKeyPair } from '../attest/keys.ts';
import { bundleDirs, configPath, loadConfigFile, type LoadedConfig } from '../config/config.ts';
import { DEFAULT_OUT_DIR } from './build-command.ts';
import { EXIT, UsageError, type Command } from './command.ts';

/** The places a private key must never be: they are published or kept as history. */
export function forbiddenKeyPlaces(loaded: LoadedConfig): { what: string; dir: string }[] {
  return [
    ...bundleDirs(loaded).map((dir) => ({ what: 'the evidence directory', dir })),
    { what: 'the retained reports directory', dir: configPath(loaded, loaded.config.retained_reports_dir) },
    { what: 'the attestations directory', dir: configPath(loaded, loaded.config.attestations_dir) },
    { what: 'the default output directory', dir: configPath(loaded, DEFAULT_OUT_DIR) },
  ];
}

/** The first forbidden place `path` lies in (or is), or null. */
export function insideForbidden(path: string, places: readonly { what: string; dir: string }[]): { what: string; dir: string } | null {
  for (const place of places) {
    const inside = relative(resolve(place.dir), resolve(path));
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) return place;
  }
  return null;
}

export const keygenCommand: Command = {
  summary: 'write a new Ed25519 key pair for signing reports',
  usage: `Usage: ledgerboard keygen -o DIR [--config FILE]

Writes a new Ed25519 key pair into DIR (created if missing):
  ledgerboard-<keyid>.key   the private key, PKCS#8 PEM, mode 0600: keep it secret
  ledgerboard-<keyid>.pub   the public key, SPKI PEM: give it to readers out of band
and prints the key id (the SHA-256 of the public key's DER SubjectPublicKeyInfo,
FORMAT.md 10), which readers pin with verify.mjs --key. Never overwrites.

DIR may not be inside the evidence, the retained reports, the attestations
or the default output directory (dist/): those are published or kept as
history, and a private key there would be too. Exit 2 if it is.

Options:
  -o, --out DIR   where to write the pair (required)
  --config FILE   the config whose directories DIR must stay out of (default ./ledgerboard.config.json when present)

Exit: 0 written, 2 usage (no DIR, DIR in a forbidden place, a key file already there).`,
  options: { out: { type: 'string', short: 'o' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('keygen takes no positional arguments', 'keygen');
    if (typeof values.out !== 'string') throw new UsageError('keygen needs -o DIR: where to write the key pair', 'keygen');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const place = insideForbidden(values.out, forbiddenKeyPlaces(loaded));
    if (place) throw new UsageError(`${values.out} lies inside ${place.what} ${place.dir}: a private key there would be published or kept as history; choose a directory outside it`, 'keygen');
    await mkdir(values.out, { recursive: true });
    try {
      const written = await writeKeyPair(values.out);
      io.stdout.write(`key id ${written.keyid}\nprivate key ${written.privatePath} (mode 0600: keep it secret)\npublic key ${written.publicPath} (give it to readers; they pin it with verify.mjs --key)\n`);
      return EXIT.ok;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`a key file is already at ${(error as NodeJS.ErrnoException).path ?? values.out}; it is never overwritten`, 'keygen');
      throw error;
    }
  },
};
