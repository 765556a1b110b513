/**
 * The chunk manifest `peaq.stream.chunks.v1` (docs/stream-formats.md): one per encrypted chunk, chained by `chunkId`,
 * signed with the machine's registered Ed25519 key.
 */
import { ed25519Sign } from "./primitives.js";
import { canonicalBytes, sha256Tag, toHex } from "./encoding.js";

export const CHUNK_SCHEMA = "peaq.stream.chunks.v1";
export const CHUNK_CIPHER = "xchacha20-poly1305";
export const KEY_WRAP = "x25519-sealedbox";
export const RECIPIENT_TYPES = ["machine", "owner", "operator"] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export interface KeyRecipient {
  recipientId: string;
  recipientType: RecipientType;
  algorithm: typeof KEY_WRAP;
  publicKeyHex: string;
  wrappedKeyHex: string;
}

export interface ManifestSignature {
  algorithm: "ed25519";
  machineDid: string;
  keyId: string;
  publicKeyHex: string;
  value: string;
}

export interface ChunkManifest {
  schemaVersion: typeof CHUNK_SCHEMA;
  chunkId: string;
  previousChunkId: string | null;
  index: number;
  plaintextHash: string;
  encryptedDataHash: string;
  /** Bytes of the stored ciphertext (plaintext + 16-byte tag): lets a downloader size, bound and resume it. */
  encryptedSize: number;
  /** Where the ciphertext is kept (storage/driver.ts); not signed, so a chunk can move without being re-signed. */
  storageRef?: string;
  encryption: {
    algorithm: typeof CHUNK_CIPHER;
    nonce: string;
    keyCommitment: string;
    keyRecipients: KeyRecipient[];
  };
  signature: ManifestSignature;
}

/** The machine's signing key: tweetnacl's 64-byte Ed25519 secret key (seed || public key). */
export interface ManifestSigner {
  machineDid: string;
  keyId: string;
  secretKey: Uint8Array;
}

/** `chunkId` = sha256 of the canonical JSON of these five members (the notes' definition). */
export function computeChunkId(fields: {
  previousChunkId: string | null;
  index: number;
  plaintextHash: string;
  encryptedDataHash: string;
}): string {
  return sha256Tag(
    canonicalBytes({
      schemaVersion: CHUNK_SCHEMA,
      previousChunkId: fields.previousChunkId,
      index: fields.index,
      plaintextHash: fields.plaintextHash,
      encryptedDataHash: fields.encryptedDataHash,
    }),
  );
}

/** `keyCommitment` = sha256 of the 32 raw key bytes. */
export const keyCommitment = (key: Uint8Array): string => sha256Tag(key);

/**
 * The bytes the signature covers: the canonical JSON of the whole manifest without `storageRef` and without
 * `signature.value` (so the signer's DID, key ID and public key are signed too).
 */
export function manifestSigningBytes(manifest: Omit<ChunkManifest, "signature"> & { signature: Omit<ManifestSignature, "value"> | ManifestSignature }): Uint8Array {
  const { storageRef: _ref, signature, ...rest } = manifest;
  const { value: _value, ...signer } = signature as ManifestSignature;
  return canonicalBytes({ ...rest, signature: signer });
}

export function signerPublicKeyHex(signer: ManifestSigner): string {
  return toHex(signer.secretKey.subarray(32));
}

/** Signs an unsigned manifest: fills `signature` (algorithm, DID, key ID, public key, value). */
export function signManifest(unsigned: Omit<ChunkManifest, "signature">, signer: ManifestSigner, publicKeyHex = signerPublicKeyHex(signer)): ChunkManifest {
  const signature = { algorithm: "ed25519" as const, machineDid: signer.machineDid, keyId: signer.keyId, publicKeyHex };
  const value = toHex(ed25519Sign(manifestSigningBytes({ ...unsigned, signature }), signer.secretKey));
  return { ...unsigned, signature: { ...signature, value } };
}
