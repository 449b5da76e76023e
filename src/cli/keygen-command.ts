/** `ledgerboard keygen -o DIR`: a new Ed25519 key pair for signed reports (FORMAT.md 10). */
import { mkdir } from 'node:fs/promises';
import { writeKeyPair } from '../attest/keys.ts';
import { loadConfigFile } from '../config/config.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { guardedDirs, guardedPlaceOf, shownPath } from './guarded-dirs.ts';

export const keygenCommand: Command = {
  summary: 'write a new Ed25519 key pair for signing reports',
  usage: `Usage: ledgerboard keygen -o DIR [--config FILE]

Writes a new Ed25519 key pair into DIR (created if missing):
  ledgerboard-<keyid>.key   the private key, PKCS#8 PEM, mode 0600: keep it secret
  ledgerboard-<keyid>.pub   the public key, SPKI PEM: give it to readers out of band
and prints the key id (the SHA-256 of the public key's DER SubjectPublicKeyInfo,
FORMAT.md 10), which readers pin with verify.mjs --key. The file names carry the
whole 64-hex key id, so the name is the pin (older pairs were named by its first
16 hex digits: pass those as files, --key FILE, which works the same). Never overwrites.

DIR may not be inside the evidence, the retained reports, the attestations
or the default output directory (dist/, beside the config or here): those
are published or kept as history, and a private key there would be too.
Where DIR is is decided by its real path (a link into one of them is inside
it) and by the device and inode of its directories. Exit 2 if it is.

Options:
  -o, --out DIR   where to write the pair (required)
  --config FILE   the config whose directories DIR must stay out of (default ./ledgerboard.config.json when present)

Exit: 0 written, 2 usage (no DIR, DIR in a forbidden place, a key file already there).`,
  options: { out: { type: 'string', short: 'o' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('keygen takes no positional arguments', 'keygen');
    if (typeof values.out !== 'string') throw new UsageError('keygen needs -o DIR: where to write the key pair', 'keygen');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const places = guardedDirs(loaded);
    const refuse = (place: { what: string; dir: string; real: string }) =>
      new UsageError(`${shownPath(values.out as string, place.real)} lies inside ${place.what} ${place.dir}: a private key there would be published or kept as history; choose a directory outside it`, 'keygen');
    const before = await guardedPlaceOf(values.out, places);
    if (before) throw refuse(before);
    await mkdir(values.out, { recursive: true });
    // Again, now that DIR exists (its own device and inode count too).
    const after = await guardedPlaceOf(values.out, places);
    if (after) throw refuse(after);
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
