/**
 * One chunk: XChaCha20-Poly1305 (xchacha.ts; 32-byte key, 24-byte nonce, empty AAD) under a fresh random key,
 * the key sealed to each recipient, hashed, chained and signed into its manifest.
 */
import { randomBytes } from "node:crypto";
import { bytesEqual, fromHex, sha256Tag, toHex, type RandomSource } from "./encoding.js";
import { StreamFormatError } from "./errors.js";
import {
  CHUNK_CIPHER, CHUNK_SCHEMA, KEY_WRAP, computeChunkId, keyCommitment, signManifest, signerPublicKeyHex,
  type ChunkManifest, type KeyRecipient, type ManifestSigner, type RecipientType,
} from "./manifest.js";
import { seal } from "./sealed-box.js";
import { xchachaOpen, xchachaSeal } from "./xchacha.js";

export const KEY_BYTES = 32;
export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;

/** Someone a chunk key is sealed to at publication (the machine itself, its owner, an operator). */
export interface ChunkRecipient {
  recipientId: string;
  recipientType: RecipientType;
  /** X25519 public key, 32 bytes. */
  publicKey: Uint8Array;
}

export interface ChunkContext {
  signer: ManifestSigner;
  recipients: ChunkRecipient[];
  random?: RandomSource;
  /** Cached hex of the signer's public key (derived when absent). */
  signerPublicKeyHex?: string;
}

export interface EncryptedChunk {
  manifest: ChunkManifest;
  /** ciphertext || 16-byte Poly1305 tag, exactly the bytes stored and hashed into `encryptedDataHash`. */
  ciphertext: Uint8Array;
}

const defaultRandom: RandomSource = (n) => new Uint8Array(randomBytes(n));

/** The raw AEAD step (OpenSSL's cipher under the HChaCha20 subkey, xchacha.ts), also the bench's bare cipher. */
export const sealChunk = (key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Uint8Array =>
  xchachaSeal(key, nonce, plaintext);

export function encryptChunk(
  plaintext: Uint8Array,
  position: { index: number; previousChunkId: string | null },
  context: ChunkContext,
): EncryptedChunk {
  if (context.recipients.length === 0) throw new RangeError("a chunk needs at least one key recipient");
  const random = context.random ?? defaultRandom;
  const key = random(KEY_BYTES);
  const nonce = random(NONCE_BYTES);
  const ciphertext = sealChunk(key, nonce, plaintext);
  const plaintextHash = sha256Tag(plaintext);
  const encryptedDataHash = sha256Tag(ciphertext);
  const keyRecipients: KeyRecipient[] = context.recipients.map((r) => ({
    recipientId: r.recipientId,
    recipientType: r.recipientType,
    algorithm: KEY_WRAP,
    publicKeyHex: toHex(r.publicKey),
    // The ephemeral key comes from OpenSSL's key generation unless a random source was injected (test vectors):
    // importing random bytes as an X25519 key costs a JWK import and export per box, a tenth of a 256 KiB chunk.
    wrappedKeyHex: toHex(seal(key, r.publicKey, context.random)),
  }));
  const manifest = signManifest(
    {
      schemaVersion: CHUNK_SCHEMA,
      chunkId: computeChunkId({ ...position, plaintextHash, encryptedDataHash }),
      previousChunkId: position.previousChunkId,
      index: position.index,
      plaintextHash,
      encryptedDataHash,
      encryptedSize: ciphertext.length,
      encryption: { algorithm: CHUNK_CIPHER, nonce: toHex(nonce), keyCommitment: keyCommitment(key), keyRecipients },
    },
    context.signer,
    context.signerPublicKeyHex ?? signerPublicKeyHex(context.signer),
  );
  key.fill(0);
  return { manifest, ciphertext };
}

/**
 * Decrypts one chunk after checking, in order: the ciphertext hash, the key commitment (before any decryption), the
 * AEAD tag, then the plaintext hash. The manifest must already be verified (verify.ts).
 */
export function decryptChunk(manifest: ChunkManifest, ciphertext: Uint8Array, key: Uint8Array, position?: number): Uint8Array {
  if (sha256Tag(ciphertext) !== manifest.encryptedDataHash) {
    throw new StreamFormatError("CIPHERTEXT_HASH_MISMATCH", `chunk ${manifest.chunkId}: the bytes do not hash to encryptedDataHash`, position);
  }
  checkKeyCommitment(manifest, key, position);
  const nonce = fromHex(manifest.encryption.nonce, NONCE_BYTES);
  if (!nonce) throw new StreamFormatError("MANIFEST_MALFORMED", "encryption.nonce is not 24 bytes of hex", position);
  let plaintext: Uint8Array;
  try {
    plaintext = xchachaOpen(key, nonce, ciphertext);
  } catch {
    throw new StreamFormatError("DECRYPTION_FAILED", `chunk ${manifest.chunkId}: the authentication tag does not match`, position);
  }
  if (sha256Tag(plaintext) !== manifest.plaintextHash) {
    throw new StreamFormatError("PLAINTEXT_HASH_MISMATCH", `chunk ${manifest.chunkId}: the plaintext does not hash to plaintextHash`, position);
  }
  return plaintext;
}

/** A key that does not match the manifest's commitment is refused before it touches the ciphertext. */
export function checkKeyCommitment(manifest: ChunkManifest, key: Uint8Array, position?: number): void {
  const expected = fromHex(manifest.encryption.keyCommitment.slice("sha256:".length), 32);
  const actual = fromHex(keyCommitment(key).slice("sha256:".length), 32)!;
  if (key.length !== KEY_BYTES || !expected || !bytesEqual(expected, actual)) {
    throw new StreamFormatError("KEY_COMMITMENT_MISMATCH", `chunk ${manifest.chunkId}: the key does not match keyCommitment`, position);
  }
}
