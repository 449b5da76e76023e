/** `ledgerboard seal [--json] [--all] <bundle-dir>` (issue #6): write manifest.json, create-only, then verify. */
import { sep } from 'node:path';
import { AlreadyExistsError, AuthorInputError, refusalText } from '../author/problems.ts';
import { sealBundle } from '../author/seal.ts';
import { verifyDirectory } from '../pipeline/verify-paths.ts';
import { verifyJson, verifyText } from './format-verify.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { painter, terminalSafe, useColour } from './terminal.ts';

export const sealCommand: Command = {
  summary: 'write manifest.json for a filled bundle directory (create-only), then verify it',
  usage: `Usage: ledgerboard seal [--json] [--all] <bundle-dir>

Seals a bundle directory a harness has filled (plan.json and ledger.jsonl
from ledgerboard freeze, attempts.jsonl, grades/, artifacts/, ...): writes
manifest.json listing every regular file, sorted by path in byte order, with
its size and SHA-256, the plan's id and the manifest's bundle_id (FORMAT.md
2.1). Then verifies the sealed bundle and prints its findings as
ledgerboard verify does.

An assessments.json (a red team's levels for score-card indicators,
FORMAT.md 11.2) is sealed like any file, with the basis files it names.

Refused instead of sealed, listing every one: a symbolic link, FIFO, socket
or device anywhere in the directory, a name that is not UTF-8 or breaks the
path rules, a missing or unreadable plan.json, an assessment's basis that is
not a file of the directory. Create-only: an existing manifest.json is never
overwritten (to seal again after adding files, remove it first). Guide:
docs/harness-authors.md.

Options:
  --json    print the verification as ledgerboard verify --json does
  --all     list every finding (by default at most 10 per code and file)

Exit: 0 sealed and verified; 1 sealed but not verified, or already sealed;
2 usage error or refused (nothing written).`,
  options: { json: { type: 'boolean' }, all: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError(`seal takes one bundle directory (got ${positionals.length})`);
    const dir = positionals[0]!;
    let sealed;
    try {
      sealed = await sealBundle(dir);
    } catch (error) {
      if (error instanceof AuthorInputError) {
        io.stderr.write(refusalText('seal', error, terminalSafe));
        return EXIT.usage;
      }
      if (error instanceof AlreadyExistsError) {
        io.stderr.write(`ledgerboard seal: ${terminalSafe(error.message)}\n`);
        return EXIT.notVerified;
      }
      throw error;
    }
    const line = `sealed ${sealed.files.length} files: bundle ${sealed.bundleId}, plan ${sealed.planId}\n`;
    // The directory the user named is followed when it is a link, as sealing followed it (a trailing separator makes lstat follow).
    const verified = await verifyDirectory(dir.endsWith(sep) ? dir : `${dir}${sep}`);
    const { verification } = verified;
    const results = [{ path: dir, ...verified }];
    if (values.json) {
      io.stderr.write(line);
      io.stdout.write(verifyJson(results));
    } else {
      io.stdout.write(line);
      io.stdout.write(verifyText(results, painter(useColour(io.stdout)), values.all === true));
    }
    return verification.status === 'verified' ? EXIT.ok : EXIT.notVerified;
  },
};
