/**
 * Every derivation of the evidence format, as pure functions. The server (check.ts), the client kit (kit.ts) and the
 * test-vector script all call these, so there is exactly one definition of each value. The reasons for each choice
 * are in docs/verify-evidence.md.
 */
import canonicalize from "canonicalize";
import type { ServiceNamespace, ChipVendorProfile } from "../../shared/config.js";
import { bigIntToBytes, bytesToBigInt, sha256, toHex, utf8 } from "./encoding.js";
import { keccak256 } from "./keccak.js";
import type { EvidenceFile, EvidenceTranscript } from "./schema.js";

// ---------------------------------------------------------------------------------------------------------------
// Identifiers

/** The fixed identifiers of one deployment, derived from the configured namespace and vendor profile. */
export interface EvidenceProfile {
  didMethod: string;
  verifier: string;
  protocol: string;
  evidenceSchema: string;
  profile: string;
  trustBundle: string;
}

export const CONTROLLER_PROOF_SCHEME = "eip191-secp256k1";
export const REVOCATION_STATUS = "not_evaluated";

export function evidenceProfile(config: { namespace: ServiceNamespace; vendor: ChipVendorProfile }): EvidenceProfile {
  return {
    didMethod: config.namespace.didMethod,
    verifier: config.namespace.verifier,
    protocol: protocolFor(config.namespace.verifier),
    evidenceSchema: evidenceSchemaFor(config.namespace.verifier),
    profile: config.vendor.profile,
    trustBundle: config.vendor.trustBundle,
  };
}

/** `service.verify` -> `service.verify.chip-proof/1`. */
export function protocolFor(verifier: string): string {
  return `${verifier}.chip-proof/1`;
}

/** `service.verify` -> `service.verify.chip-evidence/1`. */
export function evidenceSchemaFor(verifier: string): string {
  return `${verifier}.chip-evidence/1`;
}

/** `vendor-chip-ca306/1` -> `vendor-chip-ca306-roots/1` (the rule config.ts applies to the vendor word). */
export function trustBundleFor(profile: string): string {
  return profile.replace(/\/1$/, "-roots/1");
}

export function machineDidFor(didMethod: string, machineId: string): string {
  return `did:${didMethod}:${machineId}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Certificate-derived values

/** `0x` + SHA-256 of the leaf certificate DER. */
export function certificateFingerprint(leafDer: Uint8Array): string {
  return toHex(sha256(leafDer));
}

/** DER prefix of a SubjectPublicKeyInfo for id-ecPublicKey / prime256v1 with a 65-byte uncompressed point. */
const P256_SPKI_PREFIX = new Uint8Array(Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex"));

/** The one DER spelling of a P-256 public key's SubjectPublicKeyInfo (91 bytes). */
export function p256Spki(uncompressedPoint: Uint8Array): Uint8Array {
  const spki = new Uint8Array(P256_SPKI_PREFIX.length + uncompressedPoint.length);
  spki.set(P256_SPKI_PREFIX);
  spki.set(uncompressedPoint, P256_SPKI_PREFIX.length);
  return spki;
}

/**
 * chipRef identifies the chip key, not the certificate: `0x` + SHA-256(`<protocol>:chip-ref` || 0x00 || SPKI DER).
 * A re-issued certificate for the same key keeps its chipRef; the domain tag keeps it distinct from a plain SPKI pin.
 */
export function chipRef(protocol: string, uncompressedPoint: Uint8Array): string {
  return toHex(sha256(utf8(`${protocol}:chip-ref`), new Uint8Array([0]), p256Spki(uncompressedPoint)));
}

// ---------------------------------------------------------------------------------------------------------------
// Chip prehash and controller message

/** The UTF-8 RFC 8785 form of `{ chipRef, domain: "<protocol>:chip-prehash", transcript }`. */
export function chipPrehashInput(transcript: EvidenceTranscript, ref: string): Uint8Array {
  return utf8(canonicalize({ chipRef: ref, domain: `${transcript.protocol}:chip-prehash`, transcript })!);
}

/**
 * The 32 bytes the chip signs without hashing again: SHA-256 of `chipPrehashInput`. Because it is exactly one
 * SHA-256, the chip's signature is also an ordinary ECDSA-with-SHA-256 signature over the input bytes.
 */
export function chipPrehash(transcript: EvidenceTranscript, ref: string): Uint8Array {
  return sha256(chipPrehashInput(transcript, ref));
}

/**
 * The text the DID controller signs once as an EIP-191 personal message. Lines are joined with `\n`, no trailing
 * newline; every value is a transcript value or a derived hex string, so the text is ASCII.
 */
export function controllerMessage(args: {
  transcript: EvidenceTranscript;
  chipRef: string;
  prehash: Uint8Array;
  chipSignature: Uint8Array;
}): string {
  const t = args.transcript;
  return [
    `${t.verifier} asks the DID controller of machine ${t.machineId} to bind a chip to it.`,
    "",
    "Signing approves this chip proof for this machine only. It moves no funds and grants no other rights.",
    "",
    `Verifier: ${t.verifier}`,
    `Protocol: ${t.protocol}`,
    `Profile: ${t.profile}`,
    `Machine ID: ${t.machineId}`,
    `Machine DID: ${t.machineDid}`,
    `DID Controller: ${t.didController}`,
    `Chain ID: ${t.chainId}`,
    `Nonce: ${t.nonce}`,
    `Expires At: ${t.expiresAt}`,
    `Certificate SHA-256: ${t.certificateFingerprintSha256}`,
    `Chip Ref: ${args.chipRef}`,
    `Chip Prehash: ${toHex(args.prehash)}`,
    `Chip Signature: ${toHex(args.chipSignature)}`,
  ].join("\n");
}

/** keccak256("\x19Ethereum Signed Message:\n" + byte length + message), as personal_sign computes it. */
export function eip191Digest(message: string): Uint8Array {
  const body = utf8(message);
  const prefix = utf8(`\x19Ethereum Signed Message:\n${body.length}`);
  const framed = new Uint8Array(prefix.length + body.length);
  framed.set(prefix);
  framed.set(body, prefix.length);
  return keccak256(framed);
}

// ---------------------------------------------------------------------------------------------------------------
// Chip signature: r and s as two DER INTEGERs without the SEQUENCE header

const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

export interface EcdsaScalars {
  r: bigint;
  s: bigint;
}

export function encodeChipSignature({ r, s }: EcdsaScalars): Uint8Array {
  const ri = derInteger(r);
  const si = derInteger(s);
  const out = new Uint8Array(ri.length + si.length);
  out.set(ri);
  out.set(si, ri.length);
  return out;
}

/**
 * Decode exactly two minimal, positive DER INTEGERs in 1..n-1 and nothing else; null otherwise. Minimal encoding is
 * required so one signature has one spelling.
 */
export function decodeChipSignature(bytes: Uint8Array): EcdsaScalars | null {
  const r = readDerInteger(bytes, 0);
  if (!r) return null;
  const s = readDerInteger(bytes, r.next);
  if (!s || s.next !== bytes.length) return null;
  if (r.value >= P256_ORDER || s.value >= P256_ORDER) return null;
  return { r: r.value, s: s.value };
}

/** Split a DER `SEQUENCE { r INTEGER, s INTEGER }` (the usual ECDSA-Sig-Value) into its two INTEGERs. */
export function stripEcdsaSequence(der: Uint8Array): Uint8Array | null {
  if (der.length < 2 || der[0] !== 0x30 || der[1] >= 0x80 || der[1] !== der.length - 2) return null;
  return der.subarray(2);
}

function derInteger(value: bigint): Uint8Array {
  let body = bigIntToBytes(value, Math.max(1, Math.ceil(value.toString(16).length / 2)));
  if (body[0] >= 0x80) body = new Uint8Array([0, ...body]);
  return new Uint8Array([0x02, body.length, ...body]);
}

function readDerInteger(bytes: Uint8Array, at: number): { value: bigint; next: number } | null {
  if (bytes[at] !== 0x02) return null;
  const length = bytes[at + 1];
  // Short-form lengths only: a P-256 scalar needs at most 33 bytes.
  if (length === undefined || length < 1 || length > 33) return null;
  const start = at + 2;
  const end = start + length;
  if (end > bytes.length) return null;
  const body = bytes.subarray(start, end);
  if (body[0] >= 0x80) return null; // negative
  if (body[0] === 0 && (body.length === 1 || body[1] < 0x80)) return null; // zero or a needless leading zero
  return { value: bytesToBigInt(body), next: end };
}

// ---------------------------------------------------------------------------------------------------------------
// Controller signature: 65 bytes r || s || v

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface ControllerSignatureParts extends EcdsaScalars {
  /** Recovery bit, v - 27. */
  recovery: 0 | 1;
}

/** Decode r || s || v with v 27 or 28 (0/1 are rejected, never normalised), r and s in range and s low; else null. */
export function decodeControllerSignature(bytes: Uint8Array): ControllerSignatureParts | null {
  if (bytes.length !== 65) return null;
  const v = bytes[64];
  if (v !== 27 && v !== 28) return null;
  const r = bytesToBigInt(bytes.subarray(0, 32));
  const s = bytesToBigInt(bytes.subarray(32, 64));
  if (r === 0n || r >= SECP256K1_ORDER || s === 0n || s > SECP256K1_ORDER >> 1n) return null;
  return { r, s, recovery: v === 27 ? 0 : 1 };
}

/** EIP-55 is a display form; addresses compare as 20-byte values. */
export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** `0x` + last 20 bytes of keccak256 of the 64-byte X || Y of an uncompressed secp256k1 point, lowercase. */
export function addressOfPublicKey(uncompressedPoint: Uint8Array): string {
  return toHex(keccak256(uncompressedPoint.subarray(1)).subarray(12));
}

// ---------------------------------------------------------------------------------------------------------------
// Evidence hash and receipt ID

/** `0x` + SHA-256 of the evidence file bytes (which equal their canonical form). */
export function evidenceHash(evidence: EvidenceFile | Uint8Array): string {
  const bytes = evidence instanceof Uint8Array ? evidence : utf8(canonicalize(evidence)!);
  return toHex(sha256(bytes));
}

/**
 * A UUID-shaped receipt ID (RFC 9562 version 8, custom) from SHA-256(`<protocol>:receipt-id` || 0x00 || challengeId
 * || 0x00 || evidenceHash). Deterministic, so a repeated submission of the same bytes returns the same receipt
 * without storing a second random value, and it reveals neither input.
 */
export function receiptIdFor(protocol: string, challengeId: string, evidenceHashHex: string): string {
  const zero = new Uint8Array([0]);
  const bytes = sha256(utf8(`${protocol}:receipt-id`), zero, utf8(challengeId), zero, utf8(evidenceHashHex)).slice(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80; // version 8
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
  const hex = toHex(bytes).slice(2);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
