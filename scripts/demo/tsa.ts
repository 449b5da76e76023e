/**
 * A throw-away RFC 3161 time-stamp authority for the demo, in memory
 * (FORMAT.md 12): a root CA and a TSA certificate issued by it
 * (extendedKeyUsage critical, timeStamping alone; keyUsage critical,
 * digitalSignature), both EC P-256, their keys made by node:crypto and never
 * written anywhere. `stamp` answers a plan id with a granted TimeStampResp
 * whose genTime is the one asked for: `openssl ts -reply` takes the time
 * from the clock, so the TSTInfo, the CMS SignedData and its signed
 * attributes (content type, message digest and the ESS signing-certificate-v2
 * that `openssl ts -verify` requires) are built here with @peculiar/asn1-*
 * and signed with node:crypto.
 *
 * Used by scripts/make-demo-anchors.ts (run by hand, once) and by the test
 * that checks the builder (test/demo-anchors.test.ts); make-demo itself only
 * copies the committed tokens.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  CMSVersion,
  ContentInfo,
  DigestAlgorithmIdentifiers,
  EncapsulatedContent,
  EncapsulatedContentInfo,
  id_contentType,
  id_messageDigest,
  id_signedData,
  IssuerAndSerialNumber,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
} from '@peculiar/asn1-cms';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { id_ct_tstInfo, MessageImprint, PKIStatus, PKIStatusInfo, TimeStampResp, TimeStampToken, TSTInfo, TSTInfoVersion } from '@peculiar/asn1-tsp';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectKeyIdentifier,
  id_kp_timeStamping,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';

/** The demo authority's names (RFC 4514: the TSA shows as `CN=Ledgerboard Demo TSA,O=Ledgerboard Demo,C=XX`). */
export const DEMO_TSA_NAMES = {
  root: [['C', 'XX'], ['O', 'Ledgerboard Demo'], ['CN', 'Ledgerboard Demo TSA Root']],
  tsa: [['C', 'XX'], ['O', 'Ledgerboard Demo'], ['CN', 'Ledgerboard Demo TSA']],
} as const;

/** Both certificates' validity: all of 2026 and long after, so `openssl ts -verify` (which checks at the current time) keeps accepting the tokens. */
export const DEMO_TSA_VALIDITY = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2046-01-01T00:00:00Z') } as const;

/** The TSA policy the tokens name: under 2.999, ITU-T X.660's arc for examples. */
export const DEMO_TSA_POLICY = '2.999.30.1';

const SHA256 = '2.16.840.1.101.3.4.2.1';
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const ATTRIBUTE_OIDS: Readonly<Record<string, string>> = { C: '2.5.4.6', O: '2.5.4.10', CN: '2.5.4.3' };
/** The DER of the OID id-ct-TSTInfo, the content-type attribute's value. */
const TST_INFO_OID_DER = Uint8Array.of(0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04);

/** One DER TLV: a one-byte tag, a definite length, the contents. */
function tlv(tag: number, ...contents: Uint8Array[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : null;
  if (length === null) throw new Error(`demo TSA: a ${n}-byte DER value is larger than this writer makes`);
  return Buffer.concat([Buffer.of(tag, ...length), body]);
}

function der(value: unknown): Buffer {
  return Buffer.from(AsnConvert.serialize(value));
}

function nameOf(parts: readonly (readonly [string, string])[]): Name {
  return new Name(
    parts.map(([type, value]) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type: ATTRIBUTE_OIDS[type]!, value: new AttributeValue(type === 'C' ? { printableString: value } : { utf8String: value }) })])),
  );
}

/** A positive INTEGER's minimal content bytes for a random 16-byte serial. */
function randomSerial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes;
}

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(der(value)) });
}

/** A certificate over `subjectKey`, signed with `issuerKey` (ECDSA with SHA-256). */
function certificate(options: {
  serial: Buffer;
  issuer: Name;
  subject: Name;
  subjectKey: KeyObject;
  issuerKey: KeyObject;
  issuerKeyId: Buffer;
  extensions: Extension[];
}): { certificate: Certificate; der: Buffer } {
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: new Uint8Array(options.serial).buffer,
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    issuer: options.issuer,
    validity: new Validity(DEMO_TSA_VALIDITY),
    subject: options.subject,
    subjectPublicKeyInfo: AsnConvert.parse(options.subjectKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions([...options.extensions, extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(options.issuerKeyId) }))]),
  });
  const signature = sign('sha256', der(tbs), options.issuerKey);
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }), signatureValue: new Uint8Array(signature).buffer });
  return { certificate: cert, der: der(cert) };
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the public key's bits. */
function keyIdOf(key: KeyObject): Buffer {
  const spki = AsnConvert.parse(key.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  return createHash('sha1').update(new Uint8Array(spki.subjectPublicKey)).digest();
}

/** X.690 11.6: a SET OF's elements in ascending order of their encodings, the shorter padded with zero octets. */
function compareDer(a: Buffer, b: Buffer): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The demo authority: its root certificate, and `stamp`, which answers plan ids at chosen times. */
export interface DemoTsa {
  /** The root certificate, DER. */
  readonly rootDer: Buffer;
  /** The root certificate, PEM (the file a reader pins). */
  readonly rootPem: string;
  /** The TSA (signer) certificate, DER. */
  readonly tsaDer: Buffer;
  /**
   * A DER TimeStampResp, status granted, over the plan whose id is `sha256:<planIdHex>` (SHA-256 imprint of
   * the id's 32 bytes, FORMAT.md 12) with this genTime (whole seconds) and serial number.
   */
  stamp(planIdHex: string, genTime: Date, serial: number): Buffer;
}

/** The PEM form of a certificate's DER. */
export function certificatePem(der: Uint8Array): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Makes a new demo authority; its two private keys live only in the returned closure. */
export function makeDemoTsa(): DemoTsa {
  const root = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const tsa = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rootName = nameOf(DEMO_TSA_NAMES.root);
  const rootKeyId = keyIdOf(root.publicKey);
  const tsaKeyId = keyIdOf(tsa.publicKey);

  const rootCert = certificate({
    serial: randomSerial(),
    issuer: rootName,
    subject: rootName,
    subjectKey: root.publicKey,
    issuerKey: root.privateKey,
    issuerKeyId: rootKeyId,
    extensions: [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: true })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign)),
      extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(rootKeyId)),
    ],
  });
  const tsaSerial = randomSerial();
  const tsaCert = certificate({
    serial: tsaSerial,
    issuer: rootName,
    subject: nameOf(DEMO_TSA_NAMES.tsa),
    subjectKey: tsa.publicKey,
    issuerKey: root.privateKey,
    issuerKeyId: rootKeyId,
    extensions: [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
      extension(id_ce_extKeyUsage, true, new ExtendedKeyUsage([id_kp_timeStamping])),
      extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(tsaKeyId)),
    ],
  });

  // ESS signing-certificate-v2 (RFC 5035): the TSA certificate's SHA-256 (the default hash, so left out)
  // and its issuer and serial, as `openssl ts -verify` checks them.
  const issuerSerial = tlv(0x30, tlv(0x30, tlv(0xa4, der(rootName))), tlv(0x02, tsaSerial));
  const essCertId = tlv(0x30, tlv(0x04, createHash('sha256').update(tsaCert.der).digest()), issuerSerial);
  const signingCertificateV2 = tlv(0x30, tlv(0x30, essCertId));

  const stamp = (planIdHex: string, genTime: Date, serial: number): Buffer => {
    if (!/^[0-9a-f]{64}$/.test(planIdHex)) throw new TypeError(`demo TSA: ${JSON.stringify(planIdHex)} is not a plan id's 64 hex digits`);
    if (genTime.getTime() % 1000 !== 0) throw new TypeError('demo TSA: the genTime is whole seconds');
    if (!Number.isInteger(serial) || serial < 1 || serial > 0x7fffffff) throw new TypeError('demo TSA: the serial is a positive 31-bit integer');
    const serialBytes = Buffer.alloc(4);
    serialBytes.writeUInt32BE(serial);
    let start = 0;
    while (start < 3 && serialBytes[start] === 0 && serialBytes[start + 1]! < 0x80) start++;
    const tstInfo = der(
      new TSTInfo({
        version: TSTInfoVersion.v1,
        policy: DEMO_TSA_POLICY,
        messageImprint: new MessageImprint({ hashAlgorithm: new AlgorithmIdentifier({ algorithm: SHA256 }), hashedMessage: new OctetString(Buffer.from(planIdHex, 'hex')) }),
        serialNumber: new Uint8Array(serialBytes.subarray(start)).buffer,
        genTime,
      }),
    );
    const attributes = [
      new Attribute({ attrType: id_contentType, attrValues: [new Uint8Array(TST_INFO_OID_DER).buffer] }),
      new Attribute({ attrType: id_messageDigest, attrValues: [new Uint8Array(tlv(0x04, createHash('sha256').update(tstInfo).digest())).buffer] }),
      new Attribute({ attrType: SIGNING_CERTIFICATE_V2, attrValues: [new Uint8Array(signingCertificateV2).buffer] }),
    ]
      .map((attribute) => ({ attribute, bytes: der(attribute) }))
      .sort((a, b) => compareDer(a.bytes, b.bytes));
    const signature = sign('sha256', tlv(0x31, ...attributes.map((a) => a.bytes)), tsa.privateKey);
    const signerInfo = new SignerInfo({
      version: CMSVersion.v1,
      sid: new SignerIdentifier({ issuerAndSerialNumber: new IssuerAndSerialNumber({ issuer: rootName, serialNumber: new Uint8Array(tsaSerial).buffer }) }),
      digestAlgorithm: new AlgorithmIdentifier({ algorithm: SHA256 }),
      signedAttrs: attributes.map((a) => a.attribute),
      signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
      signature: new OctetString(signature),
    });
    const signedData = new SignedData({
      version: CMSVersion.v3,
      digestAlgorithms: new DigestAlgorithmIdentifiers([new AlgorithmIdentifier({ algorithm: SHA256 })]),
      encapContentInfo: new EncapsulatedContentInfo({ eContentType: id_ct_tstInfo, eContent: new EncapsulatedContent({ single: new OctetString(tstInfo) }) }),
      certificates: new CertificateSet([new CertificateChoices({ certificate: tsaCert.certificate })]),
      signerInfos: new SignerInfos([signerInfo]),
    });
    const token = new TimeStampToken(new ContentInfo({ contentType: id_signedData, content: new Uint8Array(der(signedData)).buffer }));
    return der(new TimeStampResp({ status: new PKIStatusInfo({ status: PKIStatus.granted }), timeStampToken: token }));
  };

  return { rootDer: rootCert.der, rootPem: certificatePem(rootCert.der), tsaDer: tsaCert.der, stamp };
}
