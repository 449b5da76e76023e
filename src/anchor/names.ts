/**
 * An X.509 Name as an RFC 4514 string: the relative distinguished names
 * last first, joined by commas, the attributes of one joined by `+` (also
 * last first, as `openssl -nameopt RFC2253` writes them), the
 * types of RFC 4514 section 3 by their short names and any other by its
 * dotted OID, string values escaped as section 2.4 says and any other value
 * as `#` and the hex of its DER.
 */
import { AsnConvert } from '@peculiar/asn1-schema';
import type { AttributeTypeAndValue, Name } from '@peculiar/asn1-x509';

/** RFC 4514 section 3's short names (and the two RFC 4519 types openssl also prints by name). */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.9': 'STREET',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
};

/** Section 2.4: `"+,;<>\` and NUL anywhere, a space or `#` first, a space last. */
export function escapeRfc4514(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\0') out += '\\00';
    else if ('"+,;<>\\'.includes(c) || (i === 0 && (c === ' ' || c === '#')) || (i === value.length - 1 && c === ' ')) out += `\\${c}`;
    else out += c;
  }
  return out;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function attributeString(attribute: AttributeTypeAndValue): string {
  const type = SHORT_NAMES[attribute.type] ?? attribute.type;
  const v = attribute.value;
  const text = v.utf8String ?? v.printableString ?? v.ia5String ?? v.teletexString ?? v.bmpString ?? v.universalString;
  // A type without a short name is written with its DER (section 2.4: "#" hexstring), as is a value of no string type.
  if (text !== undefined && type !== attribute.type) return `${type}=${escapeRfc4514(text)}`;
  return `${type}=#${hex(new Uint8Array(AsnConvert.serialize(v)))}`;
}

/** The RFC 4514 string of a Name (the empty string for an empty Name). */
export function rfc4514(name: Name): string {
  return [...name]
    .reverse()
    .map((rdn) => [...rdn].reverse().map(attributeString).join('+'))
    .join(',');
}
