/**
 * `ledgerboard sign --key FILE`: sign the current report (FORMAT.md 10) and
 * keep the envelope, create-only, as <attestations_dir>/<report-hex>/<keyid>.json.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { envelopeBytes, keyIdOf, manifestSubjectName, publicPemOf, signStatement, statementFor, type SubjectFile } from '../attest/envelope.ts';
import { ATTESTATION_KEYS_DIR } from '../attest/published.ts';
import { readPrivateKey } from '../attest/keys.ts';
import { AlreadyExistsError } from '../author/problems.ts';
import { writeCreateOnlyOrSame } from '../author/create-only.ts';
import { bundleDirs, configPath, loadConfigFile, siteUrlOf, freezeLogPathOf } from '../config/config.ts';
import { canonicalJson } from '../json/canonical.ts';
import type { BundleResult } from '../pipeline/results.ts';
import type { Report } from '../report/schema.ts';
import { runPipeline } from '../run/pipeline.ts';
import { CACHE_HELP, CACHE_OPTIONS, cacheOf } from './cache-option.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { guardedDirs, guardedPlaceOf, shownPath } from './guarded-dirs.ts';

/** What the statement names: report.json as published, and each counted bundle's manifest.json bytes, re-read and checked against the digest verified. */
export async function signedFiles(report: Report, results: readonly BundleResult[]): Promise<SubjectFile[]> {
  const files: SubjectFile[] = [{ name: 'report.json', bytes: Buffer.from(`${canonicalJson(report)}\n`, 'utf8') }];
  const counted = new Set(report.bundles.filter((b) => b.counted).map((b) => b.bundle_id));
  const done = new Set<string>();
  for (const r of results) {
    const id = r.verification.bundle_id;
    if (id === null || !counted.has(id) || done.has(id) || r.verification.status !== 'verified') continue;
    const entry = r.entries.find((e) => e.path === 'manifest.json');
    const bytes = await readFile(join(r.path, 'manifest.json'));
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (!entry || entry.sha256 !== digest) throw new Error(`${join(r.path, 'manifest.json')} changed since it was verified: nothing signed; run sign again`);
    files.push({ name: manifestSubjectName(id), bytes });
    done.add(id);
  }
  return files;
}

export const signCommand: Command = {
  summary: 'sign the current report with an Ed25519 key (a DSSE envelope, create-only)',
  usage: `Usage: ledgerboard sign --key FILE [--bundles DIR] [--config FILE] [--cache DIR | --no-cache]

Builds the current report, as build and retain do, and signs it (FORMAT.md
section 10): an in-toto Statement v1 naming report.json and the manifest.json
of every counted bundle by their SHA-256 as the site publishes them, in a DSSE
envelope with an Ed25519 signature over its pre-authentication encoding. The
envelope is kept create-only as
  <attestations_dir>/<report-hex>/<keyid>.json
and the public key as <attestations_dir>/keys/<keyid>.pem (the config's
attestations_dir: history/attestations in a board ledgerboard init made,
beside the retained reports; content/attestations when the config has no
such member); signing the same
report with the same key again is a no-op (Ed25519 signatures are
deterministic). build publishes every envelope under /attestations/<report-hex>/
and the public keys in /keys.json; a reader trusts a signature only for a key
pinned out of band (verify.mjs --key).

Sign the report you retain: ledgerboard retain, then ledgerboard sign.

Options:
  --key FILE      the private key (PKCS#8 PEM, ledgerboard-<keyid>.key from ledgerboard keygen;
                  its .pub twin is refused, naming the .key); never
                  inside the evidence (--bundles included), the history, the
                  attestations or dist/, by its real path (links resolved)
  --bundles DIR   the bundles directory (default: the config's bundles_dir)
  --config FILE   the config (default ./ledgerboard.config.json when present)
${CACHE_HELP}

Exit: 0 signed (or already signed), 1 refused (another envelope under that name), 2 usage.`,
  options: { key: { type: 'string' }, bundles: { type: 'string' }, config: { type: 'string' }, ...CACHE_OPTIONS },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('sign takes no positional arguments', 'sign');
    if (typeof values.key !== 'string') throw new UsageError('sign needs --key FILE: the private key (ledgerboard keygen writes one)', 'sign');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const place = await guardedPlaceOf(values.key, guardedDirs(loaded, typeof values.bundles === 'string' ? [values.bundles] : []));
    if (place) throw new UsageError(`the key ${shownPath(values.key, place.real)} lies inside ${place.what} ${place.dir}, which is published or kept as history: move it out (and make a new key: this one may already be public)`, 'sign');
    let key;
    try {
      const read = await readPrivateKey(values.key);
      key = read.key;
      if (read.warning) io.stderr.write(`ledgerboard: warning: ${read.warning}\n`);
    } catch (error) {
      throw new UsageError((error as Error).message, 'sign');
    }
    const { config } = loaded;
    const dirs = typeof values.bundles === 'string' ? [values.bundles] : bundleDirs(loaded);
    const retainedDir = configPath(loaded, config.retained_reports_dir);
    const { results, report } = await runPipeline({ paths: dirs, config, retainedDir, freezeLog: freezeLogPathOf(loaded), requireBundles: typeof values.bundles === 'string', cache: cacheOf(values, loaded, 'sign', dirs, (line) => io.stderr.write(`sign: ${line}\n`)) });
    const files = await signedFiles(report, results);
    const envelope = signStatement(statementFor(files, report.report_id, siteUrlOf(config)), key);
    const keyid = keyIdOf(key);
    const dir = join(configPath(loaded, config.attestations_dir), report.report_id.replace(/^sha256:/, ''));
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${keyid}.json`);
    const keysDir = join(configPath(loaded, config.attestations_dir), ATTESTATION_KEYS_DIR);
    await mkdir(keysDir, { recursive: true });
    try {
      // The public key beside the envelopes: build publishes it in /keys.json (which proves nothing on its own: readers pin keys out of band).
      await writeCreateOnlyOrSame(join(keysDir, `${keyid}.pem`), Buffer.from(publicPemOf(key)), `the public key ${keyid}`);
      const outcome = await writeCreateOnlyOrSame(path, envelopeBytes(envelope), `the attestation ${path}`);
      io.stdout.write(`${outcome === 'created' ? 'signed' : 'already signed'} report ${report.report_id} with key ${keyid}: ${path} (${files.length - 1} counted manifests and report.json)\n`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      io.stderr.write(`ledgerboard: ${error.message}\n`);
      return EXIT.notVerified;
    }
  },
};
