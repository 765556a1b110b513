/**
 * Buyer access `peaq.stream.buyer-access.v1`: a chunk key re-wrapped to the buyer's X25519 key. The seller opens its
 * own recipient entry, checks the key against the signed commitment and seals the same key to the buyer; the server
 * only ever stores sealed keys. The buyer checks the entry is for its key and the chunk, opens it, and checks the key
 * commitment before decrypting.
 */
import { fromHex, toHex, type RandomSource } from "./encoding.js";
import { StreamFormatError } from "./errors.js";
import { KEY_WRAP, type ChunkManifest } from "./manifest.js";
import { checkKeyCommitment } from "./chunk.js";
import { openSealed, seal, x25519PublicKey } from "./sealed-box.js";

export const ACCESS_SCHEMA = "peaq.stream.buyer-access.v1";

export interface BuyerAccess {
  schemaVersion: typeof ACCESS_SCHEMA;
  chunkId: string;
  buyer: {
    recipientId: string;
    recipientType: "buyer";
    algorithm: typeof KEY_WRAP;
    publicKeyHex: string;
    wrappedKeyHex: string;
  };
}

/** Opens the key recipient entry of the holder of `secretKey` and checks the key against the commitment. */
export function unwrapChunkKey(manifest: ChunkManifest, secretKey: Uint8Array, position?: number): Uint8Array {
  const publicKeyHex = toHex(x25519PublicKey(secretKey));
  const entry = manifest.encryption.keyRecipients.find((r) => r.publicKeyHex === publicKeyHex);
  if (!entry) throw new StreamFormatError("ACCESS_WRONG_RECIPIENT", `chunk ${manifest.chunkId} has no key recipient for this key`, position);
  const key = openSealed(fromHex(entry.wrappedKeyHex)!, secretKey);
  if (!key) throw new StreamFormatError("ACCESS_UNWRAP_FAILED", `chunk ${manifest.chunkId}: the wrapped key does not open`, position);
  checkKeyCommitment(manifest, key, position);
  return key;
}

/** Seller side: re-wraps one chunk's key (opened with the seller's X25519 secret key) to the buyer's public key. */
export function createBuyerAccess(
  manifest: ChunkManifest,
  sellerSecretKey: Uint8Array,
  buyer: { recipientId: string; publicKey: Uint8Array },
  random?: RandomSource,
): BuyerAccess {
  const key = unwrapChunkKey(manifest, sellerSecretKey);
  try {
    return {
      schemaVersion: ACCESS_SCHEMA,
      chunkId: manifest.chunkId,
      buyer: {
        recipientId: buyer.recipientId,
        recipientType: "buyer",
        algorithm: KEY_WRAP,
        publicKeyHex: toHex(buyer.publicKey),
        wrappedKeyHex: toHex(seal(key, buyer.publicKey, random)),
      },
    };
  } finally {
    key.fill(0);
  }
}

export function parseAccess(value: unknown, position?: number): BuyerAccess {
  const a = value as BuyerAccess;
  const ok = typeof a === "object" && a !== null && a.schemaVersion === ACCESS_SCHEMA && typeof a.chunkId === "string"
    && typeof a.buyer === "object" && a.buyer !== null && a.buyer.recipientType === "buyer" && a.buyer.algorithm === KEY_WRAP
    && typeof a.buyer.recipientId === "string" && fromHex(a.buyer.publicKeyHex, 32) !== null && fromHex(a.buyer.wrappedKeyHex, 80) !== null;
  if (!ok) throw new StreamFormatError("ACCESS_MALFORMED", "not a peaq.stream.buyer-access.v1 entry", position);
  return a;
}

/**
 * Buyer side: the chunk key from an access entry, after checking it names this chunk and this buyer's key, opens,
 * and matches the manifest's key commitment. The manifest must already be verified.
 */
export function openBuyerAccess(value: unknown, manifest: ChunkManifest, buyerSecretKey: Uint8Array, position?: number): Uint8Array {
  const access = parseAccess(value, position);
  if (access.chunkId !== manifest.chunkId) {
    throw new StreamFormatError("ACCESS_CHUNK_MISMATCH", `access is for ${access.chunkId}, not ${manifest.chunkId}`, position);
  }
  if (access.buyer.publicKeyHex !== toHex(x25519PublicKey(buyerSecretKey))) {
    throw new StreamFormatError("ACCESS_WRONG_RECIPIENT", `access for ${access.chunkId} is sealed to another key`, position);
  }
  const key = openSealed(fromHex(access.buyer.wrappedKeyHex)!, buyerSecretKey);
  if (!key) throw new StreamFormatError("ACCESS_UNWRAP_FAILED", `access for ${access.chunkId} does not open`, position);
  checkKeyCommitment(manifest, key, position);
  return key;
}
