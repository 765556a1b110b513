/**
 * The test vectors of docs/stream-formats.md: parsed out of the doc (their only copy), recomputed from their inputs,
 * and cross-checked with independent implementations (libsodium, node:crypto, @noble/ciphers' decryption) so the
 * vectors do not merely agree with themselves: the chunks, sealed with @noble/ciphers, are opened (and sealed again)
 * with libsodium's XChaCha20-Poly1305.
 */
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import sodium from "libsodium-wrappers";
import { beforeAll, describe, expect, it } from "vitest";
import { FORMATS_DOC, VECTOR_INPUTS, computeVectors, openChunksWithLibsodium, parseVectorSection, replaceVectorSection, vectorsSection } from "../../../scripts/stream-vectors.js";
import { fromHex, openBuyerAccess, verifyChain, verifyEnvelope } from "../../../subgraphs/markets/stream/index.js";

const doc = readFileSync(FORMATS_DOC, "utf8");
const published = parseVectorSection(doc);
const o = published.outputs;
const hex = (text: string) => fromHex(text)!;
const sha = (data: Uint8Array | string) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

beforeAll(async () => {
  await sodium.ready;
});

describe("stream format test vectors", () => {
  it("are what the code computes from the inputs printed in the doc", async () => {
    expect(published.inputs).toEqual(VECTOR_INPUTS);
    expect(await computeVectors(published.inputs)).toEqual(published);
    expect(replaceVectorSection(doc, vectorsSection(published))).toBe(doc);
  });

  it("cover a chain of three chunks, the last one short", () => {
    expect(o.chunks.map((c) => c.manifest.index)).toEqual([0, 1, 2]);
    expect(o.chunks.map((c) => hex(c.plaintextHex).length)).toEqual([16, 16, 6]);
    const trusted = [{ machineDid: published.inputs.machineDid, keyId: published.inputs.keyId, publicKeyHex: o.signingPublicKeyHex }];
    expect(verifyChain(o.chunks.map((c) => c.manifest), trusted)).toHaveLength(3);
  });

  it("chunks sealed by @noble/ciphers open with libsodium's XChaCha20-Poly1305 (empty AAD), which seals the same bytes", () => {
    for (const c of o.chunks) {
      const [key, nonce, ciphertext, plaintext] = [hex(c.keyHex), hex(c.manifest.encryption.nonce), hex(c.ciphertextHex), hex(c.plaintextHex)];
      expect(ciphertext.length).toBe(plaintext.length + 16);
      expect(sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, ciphertext, null, nonce, key)).toEqual(plaintext);
      expect(sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, null, null, nonce, key)).toEqual(ciphertext);
      // libsodium checks the tag too: one flipped ciphertext bit, or another key, is refused.
      const flipped = ciphertext.slice();
      flipped[0]! ^= 1;
      expect(() => sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, flipped, null, nonce, key)).toThrow();
      expect(() => sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, ciphertext, null, nonce, hex(o.chunks[(c.manifest.index + 1) % o.chunks.length]!.keyHex))).toThrow();
    }
  });

  it("the generator refuses to publish a chunk libsodium does not open", async () => {
    await expect(openChunksWithLibsodium(published)).resolves.toBeUndefined();
    const altered = structuredClone(published);
    const chunk = altered.outputs.chunks[1]!;
    chunk.ciphertextHex = `${chunk.ciphertextHex.slice(0, -2)}${chunk.ciphertextHex.endsWith("00") ? "01" : "00"}`;
    await expect(openChunksWithLibsodium(altered)).rejects.toThrow("chunk 1: libsodium's XChaCha20-Poly1305 does not open it");
  });

  it("agree with libsodium, node:crypto and a plain XChaCha20-Poly1305 decryption", () => {
    const drbg = Buffer.concat([0, 1].map((i) => createHash("sha256").update(published.inputs.randomSeed).update(Buffer.from([0, 0, 0, i])).digest()));
    expect(o.chunks[0]!.keyHex).toBe(drbg.subarray(0, 32).toString("hex"));
    expect(o.chunks[0]!.manifest.encryption.nonce).toBe(drbg.subarray(32, 56).toString("hex"));
    expect(o.signingPublicKeyHex).toBe(Buffer.from(sodium.crypto_sign_seed_keypair(hex(published.inputs.signingSeedHex)).publicKey).toString("hex"));
    expect(o.machineX25519PublicKeyHex).toBe(Buffer.from(sodium.crypto_scalarmult_base(hex(published.inputs.machineX25519SecretHex))).toString("hex"));
    for (const c of o.chunks) {
      const m = c.manifest;
      expect(xchacha20poly1305(hex(c.keyHex), hex(m.encryption.nonce)).decrypt(hex(c.ciphertextHex))).toEqual(hex(c.plaintextHex));
      expect(m.plaintextHash).toBe(sha(hex(c.plaintextHex)));
      expect(m.encryptedDataHash).toBe(sha(hex(c.ciphertextHex)));
      expect(m.encryption.keyCommitment).toBe(sha(hex(c.keyHex)));
      expect(m.chunkId).toBe(sha(c.chunkIdInput));
      expect(sodium.crypto_sign_verify_detached(hex(m.signature.value), c.signedText, hex(o.signingPublicKeyHex))).toBe(true);
      const [machine, owner] = m.encryption.keyRecipients;
      expect(sodium.crypto_box_seal_open(hex(machine!.wrappedKeyHex), hex(o.machineX25519PublicKeyHex), hex(published.inputs.machineX25519SecretHex))).toEqual(hex(c.keyHex));
      expect(sodium.crypto_box_seal_open(hex(owner!.wrappedKeyHex), hex(o.ownerX25519PublicKeyHex), hex(published.inputs.ownerX25519SecretHex))).toEqual(hex(c.keyHex));
    }
    const bought = o.chunks[published.inputs.boughtChunkIndex]!;
    const buyerSecret = hex(published.inputs.buyerX25519SecretHex);
    expect(sodium.crypto_box_seal_open(hex(o.buyerAccess.buyer.wrappedKeyHex), hex(o.buyerX25519PublicKeyHex), buyerSecret)).toEqual(hex(bought.keyHex));
    expect(openBuyerAccess(o.buyerAccess, bought.manifest, buyerSecret)).toEqual(hex(bought.keyHex));
    const s = o.sealedBox;
    expect(sodium.crypto_box_seal_open(hex(s.sealedHex), hex(s.recipientPublicKeyHex), buyerSecret)).toEqual(hex(s.messageHex));
    expect(s.sealedHex.slice(0, 64)).toBe(Buffer.from(sodium.crypto_scalarmult_base(hex(s.ephemeralSecretHex))).toString("hex"));
    expect(sodium.crypto_sign_verify_detached(hex(o.envelope.signature.value), o.envelopeSignedText, hex(o.signingPublicKeyHex))).toBe(true);
    expect(verifyEnvelope(o.envelope, () => hex(o.signingPublicKeyHex))).toEqual(o.envelope);
  });
});
