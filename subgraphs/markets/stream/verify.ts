/**
 * What a buyer runs before paying (docs/stream-formats.md "Verification"): each manifest's shape, its chunkId, that
 * its signer is the machine's registered key, the Ed25519 signature, the chain of chunkIds; after download, the
 * ciphertext hash of every chunk. Each failure throws a StreamFormatError with its own code.
 */
import { createHash } from "node:crypto";
import { ed25519Verify } from "./primitives.js";
import { fromHex, isHash } from "./encoding.js";
import { StreamFormatError } from "./errors.js";
import {
  CHUNK_CIPHER, CHUNK_SCHEMA, KEY_WRAP, RECIPIENT_TYPES, computeChunkId, manifestSigningBytes, type ChunkManifest,
} from "./manifest.js";

/**
 * A signing key registered for a machine (POST /machines/:machineId/stream/signing-keys). A revoked key
 * (`revokedAt`, an ISO 8601 instant) still vouches for the chunks registered before its revocation, and for no other.
 */
export interface TrustedSigningKey {
  machineDid: string;
  keyId: string;
  publicKeyHex: string;
  revokedAt?: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown, max = 512): v is string => typeof v === "string" && v.length > 0 && v.length <= max;
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const MAX_RECIPIENTS = 16;

function hasOnly(value: Record<string, unknown>, required: string[], optional: string[] = []): boolean {
  const allowed = new Set([...required, ...optional]);
  return required.every((k) => k in value) && Object.keys(value).every((k) => allowed.has(k));
}

/** Checks the exact shape of a manifest (no missing or extra members, every lexical form); returns it typed. */
export function parseManifest(value: unknown, position?: number): ChunkManifest {
  const fail = (why: string): never => { throw new StreamFormatError("MANIFEST_MALFORMED", why, position); };
  if (!isObject(value)) return fail("a manifest is a JSON object");
  if (!hasOnly(value, ["schemaVersion", "chunkId", "previousChunkId", "index", "plaintextHash", "encryptedDataHash", "encryptedSize", "encryption", "signature"], ["storageRef"])) {
    fail("members missing or unknown");
  }
  if (value.schemaVersion !== CHUNK_SCHEMA) fail(`schemaVersion is not ${CHUNK_SCHEMA}`);
  if (!isHash(value.chunkId) || !isHash(value.plaintextHash) || !isHash(value.encryptedDataHash)) fail("a hash is not sha256:<64 hex>");
  if (value.previousChunkId !== null && !isHash(value.previousChunkId)) fail("previousChunkId is neither null nor a hash");
  if (!isCount(value.index) || !isCount(value.encryptedSize) || (value.encryptedSize as number) < 16) fail("index or encryptedSize out of range");
  if (value.storageRef !== undefined && !isText(value.storageRef, 1024)) fail("storageRef is not a string");
  const enc = value.encryption;
  if (!isObject(enc) || !hasOnly(enc, ["algorithm", "nonce", "keyCommitment", "keyRecipients"])) return fail("encryption members missing or unknown");
  if (enc.algorithm !== CHUNK_CIPHER || !fromHex(enc.nonce, 24) || !isHash(enc.keyCommitment)) fail("encryption algorithm, nonce or keyCommitment malformed");
  if (!Array.isArray(enc.keyRecipients) || enc.keyRecipients.length > MAX_RECIPIENTS) return fail("keyRecipients is not a list of at most 16");
  for (const r of enc.keyRecipients) {
    if (!isObject(r) || !hasOnly(r, ["recipientId", "recipientType", "algorithm", "publicKeyHex", "wrappedKeyHex"])) fail("a key recipient has missing or unknown members");
    const recipient = r as Record<string, unknown>;
    if (!isText(recipient.recipientId) || !RECIPIENT_TYPES.includes(recipient.recipientType as never) || recipient.algorithm !== KEY_WRAP
      || !fromHex(recipient.publicKeyHex, 32) || !fromHex(recipient.wrappedKeyHex, 80)) fail("a key recipient is malformed");
  }
  const sig = value.signature;
  if (!isObject(sig) || !hasOnly(sig, ["algorithm", "machineDid", "keyId", "publicKeyHex", "value"])) return fail("signature members missing or unknown");
  if (sig.algorithm !== "ed25519" || !isText(sig.machineDid) || !isText(sig.keyId) || !fromHex(sig.publicKeyHex, 32) || !fromHex(sig.value, 64)) {
    fail("signature malformed");
  }
  return value as unknown as ChunkManifest;
}

/**
 * One manifest on its own: shape, chunkId recomputed from its members, signer among the machine's registered keys,
 * Ed25519 signature over manifestSigningBytes, and, when the signer is revoked, that the chunk was registered
 * (`registeredAt`, ISO 8601) strictly before the revocation: SIGNING_KEY_REVOKED otherwise, or when the registration
 * time is not known.
 */
export function verifyManifest(value: unknown, trusted: TrustedSigningKey[], position?: number, registeredAt?: string | null): ChunkManifest {
  const manifest = parseManifest(value, position);
  if (computeChunkId(manifest) !== manifest.chunkId) {
    throw new StreamFormatError("CHUNK_ID_MISMATCH", `chunk ${position ?? manifest.index}: chunkId does not match its members`, position);
  }
  const { machineDid, keyId, publicKeyHex, value: signature } = manifest.signature;
  const signer = trusted.find((k) => k.machineDid === machineDid && k.keyId === keyId && k.publicKeyHex === publicKeyHex);
  if (!signer) {
    throw new StreamFormatError("SIGNER_UNKNOWN", `key ${keyId} is not a registered signing key of ${machineDid}`, position);
  }
  if (!ed25519Verify(manifestSigningBytes(manifest), fromHex(signature, 64)!, fromHex(publicKeyHex, 32)!)) {
    throw new StreamFormatError("SIGNATURE_INVALID", `chunk ${manifest.chunkId}: the signature does not verify`, position);
  }
  if (signer.revokedAt != null && !registeredBefore(registeredAt, signer.revokedAt)) {
    throw new StreamFormatError("SIGNING_KEY_REVOKED", `chunk ${manifest.chunkId}: key ${keyId} was revoked before the chunk was registered`, position);
  }
  return manifest;
}

/** True when `registeredAt` is a known instant strictly before `revokedAt`. */
function registeredBefore(registeredAt: string | null | undefined, revokedAt: string): boolean {
  if (registeredAt == null) return false;
  const registered = Date.parse(registeredAt);
  const revoked = Date.parse(revokedAt);
  return Number.isFinite(registered) && Number.isFinite(revoked) && registered < revoked;
}

/**
 * A run of consecutive chunks: every manifest verified, indexes consecutive, each previousChunkId the chunkId before
 * it (the first chunk of a stream, index 0, has null), no chunkId twice. `registeredAt[i]` is when chunk i was
 * registered (needed only for chunks signed by a revoked key).
 */
export function verifyChain(values: unknown[], trusted: TrustedSigningKey[], registeredAt: ReadonlyArray<string | null> = []): ChunkManifest[] {
  const manifests = values.map((v, i) => verifyManifest(v, trusted, i, registeredAt[i]));
  manifests.forEach((m, i) => {
    const before = manifests[i - 1];
    const linked = before
      ? m.index === before.index + 1 && m.previousChunkId === before.chunkId
      : (m.index === 0) === (m.previousChunkId === null);
    if (!linked) throw new StreamFormatError("CHAIN_BROKEN", `chunk at position ${i} does not follow the one before it`, i);
  });
  return manifests;
}

/** Hashes downloaded ciphertext (bytes or a stream of parts) and compares it with the manifest before anything else. */
export async function verifyCiphertext(
  manifest: ChunkManifest,
  data: Uint8Array | AsyncIterable<Uint8Array>,
  position?: number,
): Promise<void> {
  const hash = createHash("sha256");
  let size = 0;
  if (data instanceof Uint8Array) {
    hash.update(data);
    size = data.length;
  } else {
    for await (const part of data) {
      size += part.length;
      if (size > manifest.encryptedSize) break;
      hash.update(part);
    }
  }
  if (size !== manifest.encryptedSize || `sha256:${hash.digest("hex")}` !== manifest.encryptedDataHash) {
    throw new StreamFormatError("CIPHERTEXT_HASH_MISMATCH", `chunk ${manifest.chunkId}: the downloaded bytes do not match encryptedDataHash`, position);
  }
}
