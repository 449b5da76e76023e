/**
 * Makes the demo's time-stamp anchors (FORMAT.md 12), by hand, once: a new
 * throw-away time-stamp authority (scripts/demo/tsa.ts: a root CA and a TSA
 * certificate, EC P-256 keys made in memory by node:crypto), a granted
 * TimeStampResp for each entry of scripts/demo/anchors.ts DEMO_ANCHORS over
 * its plan's id at the genTime chosen there, and then the keys are
 * dropped: they are never written, so nobody, this script included, can
 * make another token that chains to the committed root.
 *
 * Writes (replacing what was there):
 * - content/anchors/<bundle-dir>/<authority>.tsr, one per DEMO_ANCHORS entry;
 * - content/anchors/README.md, what these are and how to remake them;
 * - content/timestamp-roots/demo-tsa-root.pem, the root certificate only
 *   (the demo config pins it: `timestamp_roots`).
 *
 * Remaking changes every token (new keys, new signatures), so the anchored
 * bundles' manifests and ids, and the freeze log's anchor digests, change
 * with the next `npm run demo`: deliberate, the plan ids do not change.
 *
 * Usage: npx tsx scripts/make-demo-anchors.ts [--out DIR]   (default: the repo's content/), then npm run demo
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { digestHex, shortDigest } from '../src/json/canonical.ts';
import { DEMO_ANCHORS, DEMO_ROOT_FILE } from './demo/anchors.ts';
import { freezePlan } from './demo/bundle.ts';
import { DEMO_PLANS } from './demo/plans.ts';
import { DEMO_TSA_NAMES, DEMO_TSA_VALIDITY, makeDemoTsa } from './demo/tsa.ts';
import { isEntryPoint } from './entry-point.ts';

/** content/anchors/README.md, with the root's fingerprint and the tokens made. */
export function anchorsReadme(rootSha256Hex: string): string {
  const dn = (parts: readonly (readonly [string, string])[]) => parts.map(([k, v]) => `${k}=${v}`).join(', ');
  const rows = DEMO_ANCHORS.map((a) => `| \`${a.dir}/${a.authority}.tsr\` | ${a.genTime} | ${a.obtained === 'at_freeze' ? 'at freeze (`freeze --anchor`): before the first attempt' : 'later (`freeze --anchor-only`): after the first attempt, ANCHOR_AFTER_ATTEMPT'} |`);
  return [
    '# The demo\'s time-stamp anchors',
    '',
    'RFC 3161 time-stamp tokens (DER TimeStampResp, status granted) over demo',
    'plan ids (FORMAT.md 12: a SHA-256 imprint of the plan id\'s 32 bytes), and',
    'the root of the throw-away authority that signed them. They are inputs:',
    '`npm run demo` (scripts/make-demo.ts) checks each against its plan and',
    'copies it into the bundle as `anchors/<authority>.tsr` before sealing;',
    'scripts/demo/anchors.ts says which bundles are anchored and why.',
    '',
    '| token | genTime | got |',
    '|---|---|---|',
    ...rows,
    '',
    `Not anchored: ${DEMO_PLANS.filter((p) => !DEMO_ANCHORS.some((a) => a.dir === p.dir)).map((p) => `\`${p.dir}\``).join(', ')}.`,
    '',
    'The authority: a root CA and a time-stamping certificate it issued',
    '(extendedKeyUsage critical, timeStamping), EC P-256 keys, both valid',
    `${DEMO_TSA_VALIDITY.notBefore.toISOString().slice(0, 10)} to ${DEMO_TSA_VALIDITY.notAfter.toISOString().slice(0, 10)}:`,
    '',
    `- root: ${dn(DEMO_TSA_NAMES.root)}, \`content/timestamp-roots/${DEMO_ROOT_FILE}\`,`,
    `  SHA-256 of its DER \`${rootSha256Hex}\`,`,
    '  pinned by the demo config (`timestamp_roots`);',
    `- time-stamping certificate: ${dn(DEMO_TSA_NAMES.tsa)}; pages name the authority by its`,
    `  subject in RFC 4514 form, \`${[...DEMO_TSA_NAMES.tsa].reverse().map(([k, v]) => `${k}=${v}`).join(',')}\`.`,
    '',
    'Both private keys were made in memory by `scripts/make-demo-anchors.ts`',
    'and discarded when it ended: they were never written, so no other token',
    'can chain to this root. Do not pin it for anything but this demo.',
    '',
    'Check a token with OpenSSL (the hex is the plan id without `sha256:`):',
    '',
    '```sh',
    'openssl ts -verify -digest <plan-id-hex> -in content/anchors/<bundle>/demo-tsa.tsr \\',
    '  -CAfile content/timestamp-roots/demo-tsa-root.pem',
    '```',
    '',
    'To remake them (after a change to a demo plan, which changes its id):',
    '',
    '```sh',
    'npx tsx scripts/make-demo-anchors.ts && npm run demo',
    '```',
    '',
    'New keys sign new tokens: the anchored bundles\' ids and the freeze log\'s',
    'anchor digests change with them (deliberate; plan ids do not).',
    '',
  ].join('\n');
}

/** Makes a new authority, writes the tokens, the README and the root under outDir; returns one line per file. */
export async function makeDemoAnchors(outDir: string): Promise<string[]> {
  const tsa = makeDemoTsa();
  const anchorsDir = join(outDir, 'anchors');
  const rootsDir = join(outDir, 'timestamp-roots');
  await rm(anchorsDir, { recursive: true, force: true });
  await mkdir(rootsDir, { recursive: true });
  const lines: string[] = [];
  for (const spec of DEMO_ANCHORS) {
    const demo = DEMO_PLANS.find((p) => p.dir === spec.dir);
    if (demo === undefined) throw new Error(`demo bug: the anchor of ${spec.dir} names no demo plan`);
    const plan = freezePlan(demo);
    const bytes = tsa.stamp(digestHex(plan.plan_id), new Date(spec.genTime), spec.serial);
    await mkdir(join(anchorsDir, spec.dir), { recursive: true });
    await writeFile(join(anchorsDir, spec.dir, `${spec.authority}.tsr`), bytes, { flag: 'wx' });
    lines.push(`anchors/${spec.dir}/${spec.authority}.tsr: plan ${shortDigest(plan.plan_id)} at ${spec.genTime}, ${bytes.length} bytes`);
  }
  const rootHex = createHash('sha256').update(tsa.rootDer).digest('hex');
  await writeFile(join(anchorsDir, 'README.md'), anchorsReadme(rootHex));
  await writeFile(join(rootsDir, DEMO_ROOT_FILE), tsa.rootPem);
  lines.push(`timestamp-roots/${DEMO_ROOT_FILE}: root sha256:${rootHex}`);
  return lines;
}

async function main(argv: string[]): Promise<number> {
  let out: string;
  try {
    const { values } = parseArgs({ args: argv, options: { out: { type: 'string' } }, strict: true, allowPositionals: false });
    out = values.out ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'content');
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: npx tsx scripts/make-demo-anchors.ts [--out DIR]`);
    return 2;
  }
  for (const line of await makeDemoAnchors(resolve(out))) console.log(line);
  console.log('now run: npm run demo');
  return 0;
}

if (isEntryPoint(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
