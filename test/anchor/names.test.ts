/**
 * The authority's name as RFC 4514 (src/anchor/names.ts): the same string
 * `openssl x509 -nameopt RFC2253` prints for a subject with every special
 * character, and a type without a short name written as its OID with the
 * value's DER in hex.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AttributeTypeAndValue, AttributeValue, Certificate, Name, RelativeDistinguishedName } from '@peculiar/asn1-x509';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeRfc4514, rfc4514 } from '../../src/anchor/names.ts';

const dir = mkdtempSync(join(tmpdir(), 'lb-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rfc4514', () => {
  it("matches openssl's RFC 2253 form for a subject with escapes (a leading and trailing space, + , \" \\ ; < >)", () => {
    const pem = join(dir, 'n.pem');
    const subject = '/C=XX/O=a\\+b, "c"\\\\d;<e>/CN= #lead= trail ';
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k'), '-out', pem, '-days', '1', '-subj', subject, '-multivalue-rdn'], { stdio: 'pipe' });
    const printed = execFileSync('openssl', ['x509', '-in', pem, '-noout', '-subject', '-nameopt', 'RFC2253']).toString().trim().replace(/^subject=/, '');
    expect(printed).toBe('CN=\\ #lead= trail\\ ,O=a\\+b\\, \\"c\\"\\\\d\\;\\<e\\>,C=XX');
    const der = Buffer.from(readFileSync(pem, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(rfc4514(AsnConvert.parse(der, Certificate).tbsCertificate.subject)).toBe(printed);
  });

  it('a type without a short name is its OID with # and the DER of the value; a leading # is escaped; NUL as \\00', () => {
    const atv = (type: string, value: string) => new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) });
    const name = new Name([new RelativeDistinguishedName([atv('2.5.4.3', '#x\0')]), new RelativeDistinguishedName([atv('1.2.3.4', 'ab')])]);
    expect(rfc4514(name)).toBe('1.2.3.4=#0c026162,CN=\\#x\\00');
    expect(escapeRfc4514('  ')).toBe('\\ \\ ');
    expect(rfc4514(new Name([]))).toBe('');
  });
});
