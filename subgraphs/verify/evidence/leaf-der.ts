/**
 * A strict DER reader for the one chip-leaf shape: an X.509 v3 certificate signed with ecdsa-with-SHA256 (no
 * parameters), names made of printable-ASCII strings, UTCTime or GeneralizedTime validity in whole seconds, the
 * canonical 91-byte P-256 SubjectPublicKeyInfo, and extensions among basicConstraints (cA absent), keyUsage,
 * authorityKeyIdentifier (key identifier only) and subjectKeyIdentifier, each at most once.
 *
 * It answers null for anything else, including valid certificates of other shapes: the caller then validates with
 * pkijs, which stays the authority for outcomes and reasons. Everything accepted here is a subset of what asn1js and
 * pkijs parse, and every value returned is the value pkijs would read from the same bytes.
 */
import { bytesEqual } from "./encoding.js";

/** One attribute of a name: its type as a dotted OID and its string value (printable ASCII). */
export interface NameAttribute {
  type: string;
  value: string;
}

export interface ChipLeafFields {
  /** The signed bytes (TBSCertificate, as encoded). */
  tbs: Uint8Array;
  /** The ECDSA-Sig-Value DER from the signature BIT STRING. */
  signature: Uint8Array;
  issuer: NameAttribute[];
  subject: NameAttribute[];
  notBefore: number;
  notAfter: number;
  /** The 65-byte uncompressed point of the canonical P-256 SPKI (not yet checked to be on the curve). */
  point: Uint8Array;
  authorityKeyId: Uint8Array | null;
  subjectKeyId: Uint8Array | null;
}

const ECDSA_SHA256 = Uint8Array.from([0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]);
const VERSION_3 = Uint8Array.from([0xa0, 0x03, 0x02, 0x01, 0x02]);
const P256_SPKI_PREFIX = Uint8Array.from(Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex"));
const CRITICAL_TRUE = Uint8Array.from([0x01, 0x01, 0xff]);
const EMPTY_SEQUENCE = Uint8Array.from([0x30, 0x00]);
const OID_BASIC_CONSTRAINTS = "2.5.29.19";
const OID_KEY_USAGE = "2.5.29.15";
const OID_AUTHORITY_KEY_ID = "2.5.29.35";
const OID_SUBJECT_KEY_ID = "2.5.29.14";
/** UTF8String, PrintableString, IA5String: string types for pkijs' name comparison. */
const STRING_TAGS = new Set([0x0c, 0x13, 0x16]);

interface Tlv {
  tag: number;
  start: number;
  body: number;
  end: number;
}

/** One TLV at `at`, inside `limit`: low tag numbers only, definite minimal lengths up to 0xffff. */
function tlv(der: Uint8Array, at: number, limit: number): Tlv | null {
  if (at + 2 > limit) return null;
  const tag = der[at]!;
  if ((tag & 0x1f) === 0x1f) return null;
  let length = der[at + 1]!;
  let body = at + 2;
  if (length === 0x81) {
    if (body + 1 > limit || der[body]! < 0x80) return null;
    length = der[body]!;
    body += 1;
  } else if (length === 0x82) {
    if (body + 2 > limit || der[body]! === 0) return null;
    length = (der[body]! << 8) | der[body + 1]!;
    body += 2;
  } else if (length >= 0x80) {
    return null;
  }
  const end = body + length;
  return end <= limit ? { tag, start: at, body, end } : null;
}

function expect(der: Uint8Array, at: number, limit: number, tag: number): Tlv | null {
  const t = tlv(der, at, limit);
  return t && t.tag === tag ? t : null;
}

function isExactly(der: Uint8Array, t: Tlv | null, bytes: Uint8Array): boolean {
  return t !== null && bytesEqual(der.subarray(t.start, t.end), bytes);
}

export function readChipLeaf(der: Uint8Array): ChipLeafFields | null {
  const cert = expect(der, 0, der.length, 0x30);
  if (!cert || cert.end !== der.length) return null;
  const tbs = expect(der, cert.body, cert.end, 0x30);
  if (!tbs) return null;
  const outerAlgorithm = tlv(der, tbs.end, cert.end);
  if (!outerAlgorithm || !isExactly(der, outerAlgorithm, ECDSA_SHA256)) return null;
  const signature = expect(der, outerAlgorithm.end, cert.end, 0x03);
  if (!signature || signature.end !== cert.end || signature.end - signature.body < 2 || der[signature.body] !== 0) {
    return null;
  }

  const version = tlv(der, tbs.body, tbs.end);
  if (!version || !isExactly(der, version, VERSION_3)) return null;
  const serial = expect(der, version.end, tbs.end, 0x02);
  if (!serial || serial.end - serial.body < 1 || serial.end - serial.body > 20 || !minimalInteger(der, serial)) return null;
  const innerAlgorithm = tlv(der, serial.end, tbs.end);
  if (!innerAlgorithm || !isExactly(der, innerAlgorithm, ECDSA_SHA256)) return null;
  const issuerTlv = expect(der, innerAlgorithm.end, tbs.end, 0x30);
  const issuer = issuerTlv && readName(der, issuerTlv);
  if (!issuerTlv || !issuer) return null;
  const validity = expect(der, issuerTlv.end, tbs.end, 0x30);
  if (!validity) return null;
  const notBeforeTlv = tlv(der, validity.body, validity.end);
  const notBefore = notBeforeTlv && readTime(der, notBeforeTlv);
  if (!notBeforeTlv || notBefore === null) return null;
  const notAfterTlv = tlv(der, notBeforeTlv.end, validity.end);
  const notAfter = notAfterTlv && readTime(der, notAfterTlv);
  if (!notAfterTlv || notAfter === null || notAfterTlv.end !== validity.end) return null;
  const subjectTlv = expect(der, validity.end, tbs.end, 0x30);
  const subject = subjectTlv && readName(der, subjectTlv);
  if (!subjectTlv || !subject) return null;
  const spki = expect(der, subjectTlv.end, tbs.end, 0x30);
  if (!spki || spki.end - spki.start !== P256_SPKI_PREFIX.length + 65) return null;
  if (!bytesEqual(der.subarray(spki.start, spki.start + P256_SPKI_PREFIX.length), P256_SPKI_PREFIX)) return null;
  const extensionsWrapper = expect(der, spki.end, tbs.end, 0xa3);
  if (!extensionsWrapper || extensionsWrapper.end !== tbs.end) return null;
  const extensions = readExtensions(der, extensionsWrapper);
  if (!extensions) return null;

  return {
    tbs: der.subarray(tbs.start, tbs.end),
    signature: der.subarray(signature.body + 1, signature.end),
    issuer,
    subject,
    notBefore,
    notAfter,
    point: der.slice(spki.start + P256_SPKI_PREFIX.length, spki.end),
    ...extensions,
  };
}

function minimalInteger(der: Uint8Array, t: Tlv): boolean {
  if (t.end - t.body < 2) return true;
  const [first, second] = [der[t.body]!, der[t.body + 1]!];
  return !(first === 0x00 && second < 0x80) && !(first === 0xff && second >= 0x80);
}

/** Name ::= SEQUENCE OF SET OF SEQUENCE { OID, string }: attributes in order across the sets, as pkijs lists them. */
function readName(der: Uint8Array, name: Tlv): NameAttribute[] | null {
  const attributes: NameAttribute[] = [];
  for (let at = name.body; at < name.end; ) {
    const set = expect(der, at, name.end, 0x31);
    if (!set || set.body === set.end) return null;
    for (let inner = set.body; inner < set.end; ) {
      const attribute = expect(der, inner, set.end, 0x30);
      const type = attribute && expect(der, attribute.body, attribute.end, 0x06);
      const value = type && tlv(der, type.end, attribute.end);
      if (!attribute || !type || !value || value.end !== attribute.end || !STRING_TAGS.has(value.tag)) return null;
      const oid = readOid(der.subarray(type.body, type.end));
      if (!oid) return null;
      let text = "";
      for (let i = value.body; i < value.end; i++) {
        const byte = der[i]!;
        if (byte < 0x20 || byte > 0x7e) return null;
        text += String.fromCharCode(byte);
      }
      attributes.push({ type: oid, value: text });
      inner = attribute.end;
    }
    at = set.end;
  }
  return attributes.length > 0 ? attributes : null;
}

/** A dotted OID from minimal content bytes with sub-identifiers below 2^28. */
function readOid(bytes: Uint8Array): string | null {
  const arcs: number[] = [];
  let value = 0;
  let digits = 0;
  for (const byte of bytes) {
    if (digits === 0 && byte === 0x80) return null;
    if (++digits > 4) return null;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
      digits = 0;
    }
  }
  if (arcs.length === 0 || digits !== 0) return null;
  const first = arcs[0]!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs.slice(1)].join(".");
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** UTCTime YYMMDDHHMMSSZ or GeneralizedTime YYYYMMDDHHMMSSZ (year 1950 and later), every field in range. */
function readTime(der: Uint8Array, t: Tlv): number | null {
  const text = Buffer.from(der.subarray(t.body, t.end)).toString("latin1");
  let year: number;
  let rest: string;
  if (t.tag === 0x17 && /^\d{12}Z$/.test(text)) {
    const yy = Number(text.slice(0, 2));
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
    rest = text.slice(2);
  } else if (t.tag === 0x18 && /^\d{14}Z$/.test(text)) {
    year = Number(text.slice(0, 4));
    if (year < 1950) return null;
    rest = text.slice(4);
  } else {
    return null;
  }
  const [month, day, hour, minute, second] = [0, 2, 4, 6, 8].map((i) => Number(rest.slice(i, i + 2))) as [
    number, number, number, number, number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! || hour > 23 || minute > 59 || second > 59) {
    return null;
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // 29 February of a common year would roll over to 1 March: refuse it rather than normalise.
  return new Date(ms).getUTCDate() === day ? ms : null;
}

type KeyIds = Pick<ChipLeafFields, "authorityKeyId" | "subjectKeyId">;

function readExtensions(der: Uint8Array, wrapper: Tlv): KeyIds | null {
  const list = expect(der, wrapper.body, wrapper.end, 0x30);
  if (!list || list.end !== wrapper.end || list.body === list.end) return null;
  const seen = new Set<string>();
  const ids: KeyIds = { authorityKeyId: null, subjectKeyId: null };
  let keyUsageOk = true;
  for (let at = list.body; at < list.end; ) {
    const extension = expect(der, at, list.end, 0x30);
    const id = extension && expect(der, extension.body, extension.end, 0x06);
    if (!extension || !id) return null;
    const oid = readOid(der.subarray(id.body, id.end));
    if (!oid || seen.has(oid)) return null;
    seen.add(oid);
    let next = tlv(der, id.end, extension.end);
    if (next && next.tag === 0x01) {
      if (!isExactly(der, next, CRITICAL_TRUE)) return null;
      next = tlv(der, next.end, extension.end);
    }
    if (!next || next.tag !== 0x04 || next.end !== extension.end) return null;
    const value = der.subarray(next.body, next.end);
    if (oid === OID_BASIC_CONSTRAINTS) {
      if (!bytesEqual(value, EMPTY_SEQUENCE)) return null;
    } else if (oid === OID_KEY_USAGE) {
      keyUsageOk = isSigningKeyUsage(value);
    } else if (oid === OID_AUTHORITY_KEY_ID) {
      // SEQUENCE { [0] keyIdentifier } and nothing else.
      if (value.length < 5 || value[0] !== 0x30 || value[1] !== value.length - 2 || value[1]! >= 0x80) return null;
      if (value[2] !== 0x80) return null;
      if (value[3] !== value.length - 4 || value[3]! >= 0x80) return null;
      ids.authorityKeyId = value.slice(4);
    } else if (oid === OID_SUBJECT_KEY_ID) {
      if (value.length < 3 || value[0] !== 0x04 || value[1] !== value.length - 2 || value[1]! >= 0x80) return null;
      ids.subjectKeyId = value.slice(2);
    } else {
      return null;
    }
    at = extension.end;
  }
  return keyUsageOk ? ids : null;
}

/** keyUsage as a one- or two-byte DER BIT STRING (no trailing zero bits) with digitalSignature set. */
function isSigningKeyUsage(value: Uint8Array): boolean {
  if (value.length < 4 || value.length > 5 || value[0] !== 0x03 || value[1] !== value.length - 2) return false;
  const unused = value[2]!;
  const last = value[value.length - 1]!;
  if (unused > 7 || last === 0 || (last & ((1 << unused) - 1)) !== 0 || (last & (1 << unused)) === 0) return false;
  return (value[3]! & 0x80) !== 0;
}
