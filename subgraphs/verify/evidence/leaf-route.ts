/**
 * The fast path for a new chip leaf: the bundle's part of every path (which intermediate chains to which pinned root)
 * is worked out once when the bundle loads, with pkijs' own issuer search; a leaf read by the strict reader
 * (leaf-der.ts) then needs only its own checks: the one issuer pkijs would find for it, the name chaining, its
 * signature under that intermediate's key (OpenSSL), the validity windows at the check time and its P-256 point (the
 * key's import into OpenSSL, which the chip signature's check needs anyway, refuses any point that is not on the
 * curve, or whose coordinates are not below the field's prime, as pkijs' side refuses it).
 *
 * It only ever accepts: every leaf it cannot prove valid exactly as pkijs' CertificateChainValidationEngine would
 * (same path leaf -> intermediate -> root, same validity window) answers null, and the caller runs pkijs, so outcomes
 * and failure reasons stay pkijs'. The conditions below mirror pkijs 4's path building (`defaultFindIssuer`,
 * `buildPath`, `basicCheck`, `checkForCA`); policy and name-constraint processing cannot change the outcome because
 * neither the leaf nor a routed intermediate may carry any extension but basicConstraints, keyUsage and the two key
 * identifiers (the root is not part of that processing).
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { bytesEqual } from "./encoding.js";
import { readChipLeaf, type ChipLeafFields, type NameAttribute } from "./leaf-der.js";

export interface ValidityWindow {
  notBefore: number;
  notAfter: number;
}

/** One attribute as pkijs compares it: type, whether the value is a string, and the prepared string. */
interface ComparableAttribute {
  type: string;
  prepared: string | null;
}

/** A bundle certificate as a possible issuer of a leaf, in pkijs' search order (roots, then intermediates). */
interface PossibleIssuer {
  subject: ComparableAttribute[];
  /** The first parsed subjectKeyIdentifier, which pkijs matches against an authorityKeyIdentifier. */
  subjectKeyId: Uint8Array | null;
  /** Present when this is an intermediate whose own path is exactly intermediate -> one pinned root. */
  route: Route | null;
}

interface Route {
  key: KeyObject;
  /** The intermediate's issuer name and key identifier: a leaf must not be a possible issuer of it. */
  issuerName: ComparableAttribute[];
  authorityKeyId: Uint8Array | null;
  /** Intersection of the intermediate's and the root's validity. */
  window: ValidityWindow;
}

export interface LeafRoutes {
  readonly issuers: readonly PossibleIssuer[];
}

const EXTENSIONS_ALLOWED = new Set(["2.5.29.19", "2.5.29.15", "2.5.29.14", "2.5.29.35"]);
const OID_BASIC_CONSTRAINTS = "2.5.29.19";
const OID_KEY_USAGE = "2.5.29.15";
const OID_SUBJECT_KEY_ID = "2.5.29.14";
const OID_AUTHORITY_KEY_ID = "2.5.29.35";
const STRING_BLOCKS = new Set([
  asn1js.Utf8String, asn1js.BmpString, asn1js.UniversalString, asn1js.NumericString, asn1js.PrintableString,
  asn1js.TeletexString, asn1js.VideotexString, asn1js.IA5String, asn1js.GraphicString, asn1js.VisibleString,
  asn1js.GeneralString, asn1js.CharacterString,
].map((block) => block.blockName()));

/** Work out, once per bundle, which intermediates a new leaf may be validated through without pkijs. */
export async function planLeafRoutes(
  roots: readonly pkijs.Certificate[],
  intermediates: readonly pkijs.Certificate[],
  crypto: pkijs.ICryptoEngine,
): Promise<LeafRoutes> {
  const engine = new pkijs.CertificateChainValidationEngine({ trustedCerts: [...roots], certs: [...intermediates] });
  const issuers: PossibleIssuer[] = [];
  try {
    for (const cert of roots) issuers.push({ subject: comparableName(cert.subject), subjectKeyId: subjectKeyId(cert), route: null });
    for (const cert of intermediates) {
      const route = await routeOf(cert, roots, engine, crypto).catch(() => null);
      issuers.push({ subject: comparableName(cert.subject), subjectKeyId: subjectKeyId(cert), route });
    }
  } catch {
    // A bundle certificate this module cannot describe could be a leaf's issuer: no fast path for this bundle.
    return { issuers: [] };
  }
  return { issuers };
}

async function routeOf(
  intermediate: pkijs.Certificate,
  roots: readonly pkijs.Certificate[],
  engine: pkijs.CertificateChainValidationEngine,
  crypto: pkijs.ICryptoEngine,
): Promise<Route | null> {
  if (!(intermediate.extensions ?? []).every((e) => EXTENSIONS_ALLOWED.has(e.extnID))) return null;
  const found = await engine.defaultFindIssuer(intermediate, engine, crypto);
  const root = found.length === 1 ? found[0]! : null;
  if (!root || !roots.includes(root) || bytesEqual(root.tbsView, intermediate.tbsView)) return null;
  if (!intermediate.issuer.isEqual(intermediate.subject) && !intermediate.issuer.isEqual(root.subject)) return null;
  if (!passesCaCheck(intermediate) || !passesCaCheck(root)) return null;
  const aki = intermediate.extensions?.find((e) => e.extnID === OID_AUTHORITY_KEY_ID && e.parsedValue instanceof pkijs.AuthorityKeyIdentifier)
    ?.parsedValue as pkijs.AuthorityKeyIdentifier | undefined;
  if (aki && !aki.keyIdentifier && (aki.authorityCertIssuer || aki.authorityCertSerialNumber)) return null;
  return {
    key: createPublicKey({ key: Buffer.from(intermediate.subjectPublicKeyInfo.toSchema().toBER()), format: "der", type: "spki" }),
    issuerName: comparableName(intermediate.issuer),
    authorityKeyId: aki?.keyIdentifier ? new Uint8Array(aki.keyIdentifier.valueBlock.valueHexView) : null,
    window: {
      notBefore: Math.max(intermediate.notBefore.value.getTime(), root.notBefore.value.getTime()),
      notAfter: Math.min(intermediate.notAfter.value.getTime(), root.notAfter.value.getTime()),
    },
  };
}

/** pkijs' `checkForCA` (without the CRL part) for a certificate above the leaf; false where pkijs would throw. */
function passesCaCheck(cert: pkijs.Certificate): boolean {
  let isCa = false;
  let mustBeCa = false;
  let keyUsagePresent = false;
  for (const extension of cert.extensions ?? []) {
    if (extension.critical && !extension.parsedValue) return false;
    if (extension.extnID === OID_KEY_USAGE) {
      const bits = extension.parsedValue as asn1js.BitString | undefined;
      if (!bits) return false;
      keyUsagePresent = true;
      if ((new Uint8Array(bits.valueBlock.valueHexView)[0]! & 4) === 4) mustBeCa = true;
    }
    if (extension.extnID === OID_BASIC_CONSTRAINTS) {
      const constraints = extension.parsedValue as pkijs.BasicConstraints | undefined;
      if (!constraints) return false;
      if (constraints.cA === true) isCa = true;
    }
  }
  if (mustBeCa && !isCa) return false;
  if (keyUsagePresent && isCa && !mustBeCa) return false;
  return isCa;
}

function subjectKeyId(cert: pkijs.Certificate): Uint8Array | null {
  const extension = cert.extensions?.find((e) => e.extnID === OID_SUBJECT_KEY_ID && e.parsedValue);
  return extension ? new Uint8Array((extension.parsedValue as asn1js.OctetString).valueBlock.valueHexView) : null;
}

function comparableName(name: pkijs.RelativeDistinguishedNames): ComparableAttribute[] {
  return name.typesAndValues.map((attribute) => {
    const value = attribute.value as asn1js.BaseStringBlock;
    const isString = STRING_BLOCKS.has((value.constructor as typeof asn1js.BaseBlock).blockName());
    return { type: attribute.type, prepared: isString ? stringPrep(value.valueBlock.value) : null };
  });
}

function leafName(attributes: NameAttribute[]): ComparableAttribute[] {
  return attributes.map((a) => ({ type: a.type, prepared: stringPrep(a.value) }));
}

/**
 * pkijs' name equality where one side (the leaf's) holds only strings: same count, and pairwise the same type and
 * equal prepared strings under `localeCompare`. A non-string value on the other side makes the pair unequal.
 */
function namesEqual(leaf: ComparableAttribute[], other: ComparableAttribute[]): boolean {
  if (leaf.length !== other.length) return false;
  for (let i = 0; i < leaf.length; i++) {
    const a = leaf[i]!;
    const b = other[i]!;
    if (a.type !== b.type || a.prepared === null || b.prepared === null) return false;
    if (a.prepared.localeCompare(b.prepared) !== 0) return false;
  }
  return true;
}

/** pkijs' `stringPrep`: trim, collapse runs of spaces, lower case. */
function stringPrep(input: string): string {
  let isSpace = false;
  let result = "";
  const trimmed = input.trim();
  for (let i = 0; i < trimmed.length; i++) {
    if (trimmed.charCodeAt(i) === 32) {
      isSpace = true;
    } else {
      if (isSpace) result += " ";
      isSpace = false;
      result += trimmed[i];
    }
  }
  return result.toLowerCase();
}

/**
 * Validate a leaf through a planned route at `at`. Returns the leaf's P-256 point, its key and the path's validity
 * window when pkijs would accept the leaf with the path leaf -> routed intermediate -> its root; null when it cannot
 * tell.
 */
export function validateLeafFast(
  leafDer: Uint8Array,
  routes: LeafRoutes,
  at: Date,
): { point: Uint8Array; key: KeyObject; window: ValidityWindow } | null {
  const leaf = readChipLeaf(leafDer);
  if (!leaf) return null;
  const issuerName = leafName(leaf.issuer);
  const subjectName = leafName(leaf.subject);
  // A self-issued leaf takes pkijs' self-signed branch; a leaf that names itself as its issuer is its own candidate.
  if (namesEqual(issuerName, subjectName)) return null;
  if (leaf.authorityKeyId && leaf.subjectKeyId && bytesEqual(leaf.authorityKeyId, leaf.subjectKeyId)) return null;

  const route = onlyIssuer(leaf, issuerName, routes);
  if (!route) return null;
  // The leaf must not be a possible issuer of the intermediate (pkijs searches the leaf too when building upwards).
  const leafIssuesIntermediate = route.authorityKeyId && leaf.subjectKeyId
    ? bytesEqual(route.authorityKeyId, leaf.subjectKeyId)
    : namesEqual(subjectName, route.issuerName);
  if (leafIssuesIntermediate) return null;

  const atMs = at.getTime();
  const window = {
    notBefore: Math.max(leaf.notBefore, route.window.notBefore),
    notAfter: Math.min(leaf.notAfter, route.window.notAfter),
  };
  if (!(window.notBefore <= atMs && atMs <= window.notAfter)) return null;
  let key: KeyObject;
  try {
    if (!verify("sha256", leaf.tbs, route.key, leaf.signature)) return null;
    key = p256KeyObject(leaf.point);
  } catch {
    return null;
  }
  return { point: leaf.point, key, window };
}

/**
 * A node:crypto key for an uncompressed P-256 point (65 bytes, 0x04 || X || Y). Imported as a JWK: OpenSSL 3 builds
 * it straight from the coordinates and checks the point (each coordinate below the prime, on the curve, of the
 * group's order), where a DER import goes through its decoder search (about 60 us more per key). The JWK carries only
 * the coordinates, so the encoding's first byte is checked here. Throws for any point either check refuses.
 */
export function p256KeyObject(point: Uint8Array): KeyObject {
  if (point.length !== 65 || point[0] !== 0x04) throw new Error("not an uncompressed P-256 point");
  const bytes = Buffer.from(point.buffer, point.byteOffset, point.byteLength);
  return createPublicKey({
    key: { kty: "EC", crv: "P-256", x: bytes.subarray(1, 33).toString("base64url"), y: bytes.subarray(33, 65).toString("base64url") },
    format: "jwk",
  });
}

/** The single bundle certificate pkijs would consider as the leaf's issuer, when it is a routed intermediate. */
function onlyIssuer(leaf: ChipLeafFields, issuerName: ComparableAttribute[], routes: LeafRoutes): Route | null {
  let match: PossibleIssuer | null = null;
  for (const candidate of routes.issuers) {
    const matches = leaf.authorityKeyId && candidate.subjectKeyId
      ? bytesEqual(leaf.authorityKeyId, candidate.subjectKeyId)
      : namesEqual(issuerName, candidate.subject);
    if (!matches) continue;
    if (match) return null;
    match = candidate;
  }
  if (!match?.route) return null;
  // pkijs' name chaining: the leaf's issuer name must equal the intermediate's subject even when matched by key id.
  return namesEqual(issuerName, match.subject) ? match.route : null;
}
