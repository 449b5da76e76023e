/**
 * Test helper: bundles with time-stamp anchors (FORMAT.md 12). A token at a
 * chosen genTime is a real token's TSTInfo with its genTime and imprint
 * replaced, signed again by the test TSA's key with `openssl cms -sign`
 * (tsa-tokens.ts cmsToken): so a test places an anchor before, at or after
 * any moment. The certificates of a test TSA are valid from the day the test
 * runs for ten years, so a token is `pinned` only at a genTime in that span:
 * {@link futureBundle} moves the valid model's times four years ahead.
 */
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { TSTInfo } from '@peculiar/asn1-tsp';
import { afterAll } from 'vitest';
import { parsePinnedRoots, tokenParts, type PinnedRoot } from '../../src/anchor/check.ts';
import { removeTempDirs, sealBundle, validBundle, type BundleModel } from './bundle-builder.ts';
import { makeTsa, type Tsa } from './tsa-tokens.ts';

const baseTstInfo = new WeakMap<Tsa, Uint8Array>();

/**
 * A bare TimeStampToken of `tsa` over `imprintHex` (the hex of a SHA-256 imprint: a plan id's 64 digits) at
 * `genTime` (RFC 3339 UTC, whole seconds), signed with the TSA's key and carrying its chain.
 */
export function tokenAt(tsa: Tsa, imprintHex: string, genTime: string): Buffer {
  let base = baseTstInfo.get(tsa);
  if (base === undefined) {
    base = tokenParts(tsa.token(tsa.query('00'.repeat(32))).bytes).tstInfoBytes;
    baseTstInfo.set(tsa, base);
  }
  const tstInfo = AsnConvert.parse(base, TSTInfo);
  tstInfo.genTime = new Date(genTime);
  tstInfo.messageImprint.hashedMessage = new OctetString(Buffer.from(imprintHex, 'hex'));
  return tsa.cmsToken(new Uint8Array(AsnConvert.serialize(tstInfo)));
}

/** The hex of a model's plan id as sealing gives it (tokens in `extra` do not change it). */
export function planHexOf(model: BundleModel): string {
  return sealBundle(model).planId.slice('sha256:'.length);
}

/** Adds tokens to a model as listed files `anchors/<name>` (a name ends in .tsr to be a token). */
export function withTokens(model: BundleModel, tokens: Record<string, Uint8Array>): BundleModel {
  for (const [name, bytes] of Object.entries(tokens)) model.extra.set(`anchors/${name}`, bytes);
  return model;
}

const YEARS_AHEAD = 4;

function ahead(time: string): string {
  const year = Number(time.slice(0, 4));
  return `${year + YEARS_AHEAD}${time.slice(4)}`;
}

/**
 * The valid model (bundle-builder.ts) with every time four years later: frozen 2030-09-14T12:00:00Z, the
 * first attempt started 2030-09-15T08:00:02Z. It verifies with no finding like the model it comes from.
 */
export function futureBundle(): BundleModel {
  const model = validBundle();
  model.plan.created_at = ahead(model.plan.created_at);
  for (const task of model.ledger) task.created_at = ahead(task.created_at);
  for (const attempt of model.attempts) {
    attempt.started_at = ahead(attempt.started_at);
    attempt.ended_at = ahead(attempt.ended_at);
  }
  for (const grades of model.grades) grades.value.created_at = ahead(grades.value.created_at);
  if (model.grant !== null && typeof model.grant.expires_at === 'string') model.grant.expires_at = ahead(model.grant.expires_at);
  return model;
}

/** futureBundle's times: when it was frozen and when its first attempt started. */
export const FUTURE_CREATED_AT = '2030-09-14T12:00:00Z';
export const FUTURE_FIRST_START = '2030-09-15T08:00:02Z';

/**
 * The two throw-away authorities the anchor tests pin one of: `tsa` (its root
 * pinned as `roots`) and `other` (a root nobody pins), removed with the
 * test file's temporary directories after its tests.
 */
export function twoAuthorities(): { tsa: Tsa; other: Tsa; roots: PinnedRoot[] } {
  const tsa = makeTsa();
  const other = makeTsa({ rootSubject: '/C=XX/O=Someone Else/CN=Other Root CA' });
  afterAll(async () => {
    tsa.remove();
    other.remove();
    await removeTempDirs();
  });
  return { tsa, other, roots: parsePinnedRoots(tsa.rootPem) };
}
