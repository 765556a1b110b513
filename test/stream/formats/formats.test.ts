/**
 * Publishing and reading a stream with real cryptography: chunking, the manifest members and their derivations, the
 * chain, buyer access re-wrapped to the buyer, decryption chunk by chunk, the event envelope.
 */
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { createHash } from "node:crypto";
import sodium from "libsodium-wrappers";
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_CHUNK_SIZE, canonicalBytes, computeChunkId, createBuyerAccess, decryptStream, encryptStream, fromHex,
  manifestSigningBytes, openBuyerAccess, rechunk, signEnvelope, unwrapChunkKey, verifyChain, verifyEnvelope,
  type EncryptedChunk,
} from "../../../subgraphs/markets/stream/index.js";
import { collect, concat, patternStream, sameBytes, streamParties } from "../fixtures.js";

const sha = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

beforeAll(async () => {
  await sodium.ready;
});

describe("rechunk", () => {
  it("cuts any part sizes into chunks of exactly the size, the last one shorter", async () => {
    const data = concat(await collect(patternStream(10_000, 777)));
    for (const [partSize, size] of [[777, 1000], [5000, 1000], [1, 64], [10_000, 10_000], [3000, 4096]]) {
      const chunks = await collect(rechunk(patternStream(10_000, partSize), size));
      expect(chunks.slice(0, -1).every((c) => c.length === size)).toBe(true);
      expect(chunks.at(-1)!.length).toBe(10_000 % size || size);
      expect(sameBytes(concat(chunks), data)).toBe(true);
    }
  });

  it("yields nothing for an empty stream and refuses a chunk size out of range", async () => {
    expect(await collect(rechunk([], 16))).toEqual([]);
    await expect(collect(rechunk([new Uint8Array(1)], 0))).rejects.toThrow(RangeError);
    await expect(collect(rechunk([new Uint8Array(1)], 32 * 1024 * 1024))).rejects.toThrow(RangeError);
  });
});

describe("encrypting a stream", () => {
  const parties = streamParties();
  const size = 3 * DEFAULT_CHUNK_SIZE + 12_345;
  let chunks: EncryptedChunk[];
  beforeAll(async () => {
    chunks = await collect(encryptStream(patternStream(size), { signer: parties.signer, recipients: parties.recipients }));
  });

  it("makes chained, signed manifests whose members derive as documented", () => {
    expect(chunks.map((c) => c.manifest.index)).toEqual([0, 1, 2, 3]);
    expect(verifyChain(chunks.map((c) => c.manifest), parties.trusted)).toHaveLength(4);
    chunks.forEach(({ manifest, ciphertext }, i) => {
      expect(manifest.previousChunkId).toBe(i === 0 ? null : chunks[i - 1]!.manifest.chunkId);
      expect(manifest.encryptedDataHash).toBe(sha(ciphertext));
      expect(manifest.encryptedSize).toBe(ciphertext.length);
      expect(manifest.chunkId).toBe(sha(canonicalBytes({
        schemaVersion: "peaq.stream.chunks.v1", previousChunkId: manifest.previousChunkId, index: i,
        plaintextHash: manifest.plaintextHash, encryptedDataHash: manifest.encryptedDataHash,
      })));
      expect(computeChunkId(manifest)).toBe(manifest.chunkId);
      expect(manifest.encryption.keyRecipients.map((r) => r.recipientType)).toEqual(["machine", "owner"]);
      expect(nacl.sign.detached.verify(manifestSigningBytes(manifest), fromHex(manifest.signature.value)!, parties.signing.publicKey)).toBe(true);
      expect(sodium.crypto_sign_verify_detached(fromHex(manifest.signature.value)!, manifestSigningBytes(manifest), parties.signing.publicKey)).toBe(true);
    });
    expect(chunks.at(-1)!.ciphertext.length).toBe(12_345 + 16);
  });

  it("wraps a fresh key and nonce per chunk to every recipient, committed by sha256 of the key", () => {
    const keys = chunks.map(({ manifest }) => unwrapChunkKey(manifest, parties.machineBox.secretKey));
    chunks.forEach(({ manifest, ciphertext }, i) => {
      const owner = unwrapChunkKey(manifest, parties.ownerBox.secretKey);
      expect(owner).toEqual(keys[i]);
      expect(manifest.encryption.keyCommitment).toBe(sha(keys[i]!));
      const wrapped = fromHex(manifest.encryption.keyRecipients[0]!.wrappedKeyHex)!;
      expect(sodium.crypto_box_seal_open(wrapped, parties.machineBox.publicKey, parties.machineBox.secretKey)).toEqual(keys[i]);
      const plaintext = xchacha20poly1305(keys[i]!, fromHex(manifest.encryption.nonce)!).decrypt(ciphertext);
      expect(manifest.plaintextHash).toBe(sha(plaintext));
    });
    expect(new Set(keys.map((k) => Buffer.from(k).toString("hex"))).size).toBe(4);
    expect(new Set(chunks.map((c) => c.manifest.encryption.nonce)).size).toBe(4);
  });

  it("continues an existing chain from startIndex and previousChunkId", async () => {
    const last = chunks.at(-1)!.manifest;
    const more = await collect(encryptStream(patternStream(100), {
      signer: parties.signer, recipients: parties.recipients, startIndex: last.index + 1, previousChunkId: last.chunkId,
    }));
    expect(verifyChain([...chunks, ...more].map((c) => c.manifest), parties.trusted)).toHaveLength(5);
  });

  it("gives a buyer exactly the bought chunks' keys, and decrypts them back to the plaintext", async () => {
    const bought = [chunks[1]!, chunks[3]!];
    const access = bought.map((c) => createBuyerAccess(c.manifest, parties.machineBox.secretKey, { recipientId: "buyer-1", publicKey: parties.buyerBox.publicKey }));
    expect(access.map((a) => a.chunkId)).toEqual(bought.map((c) => c.manifest.chunkId));
    expect(access[0]!.buyer).toMatchObject({ recipientId: "buyer-1", recipientType: "buyer", algorithm: "x25519-sealedbox" });
    const byChunk = new Map(access.map((a) => [a.chunkId, a]));
    const plaintext = concat(await collect(decryptStream(bought, (m) => openBuyerAccess(byChunk.get(m.chunkId), m, parties.buyerBox.secretKey))));
    const whole = concat(await collect(patternStream(size)));
    expect(plaintext.length).toBe(DEFAULT_CHUNK_SIZE + 12_345);
    expect(sameBytes(plaintext, concat([whole.subarray(DEFAULT_CHUNK_SIZE, 2 * DEFAULT_CHUNK_SIZE), whole.subarray(3 * DEFAULT_CHUNK_SIZE)]))).toBe(true);
    // libsodium opens the buyer's access too: the key is a plain crypto_box_seal to the buyer.
    const key = sodium.crypto_box_seal_open(fromHex(access[0]!.buyer.wrappedKeyHex)!, parties.buyerBox.publicKey, parties.buyerBox.secretKey);
    expect(sha(key)).toBe(bought[0]!.manifest.encryption.keyCommitment);
  });
});

describe("event envelope", () => {
  const { signing } = streamParties();
  const fields = {
    machineId: "7", agentId: "agent-1", identityRef: "did:peaq:0xmachine-7", topic: "/lidar/scan", messageType: "sensor_msgs/msg/LaserScan",
    policyId: "policy-1", policyVersion: 3, sequenceNumber: 42,
    timestamps: { sourceTimestamp: "2026-11-24T01:00:00.000Z", agentReceivedAt: "2026-11-24T01:00:00.010Z", signedAt: "2026-11-24T01:00:00.020Z" },
  };
  const payload = { ranges: [1.5, 2.25], frame: "laser", note: "ünïcode" };
  const keyFor = (id: string) => (id === "k1" ? signing.publicKey : undefined);

  it("signs the canonical JSON of the unsigned envelope and hashes the canonical payload", () => {
    const envelope = signEnvelope(fields, payload, { keyId: "k1", secretKey: signing.secretKey });
    expect(envelope).toMatchObject({ ...fields, schemaVersion: "peaqos-stream-envelope@v1", payloadRef: "inline", payload, signature: { keyId: "k1", algorithm: "ed25519" } });
    expect(envelope.payloadHash).toBe(sha(canonicalBytes(payload)));
    const { signature, ...unsigned } = envelope;
    expect(nacl.sign.detached.verify(canonicalBytes(unsigned), fromHex(signature.value)!, signing.publicKey)).toBe(true);
    expect(verifyEnvelope(JSON.parse(JSON.stringify(envelope)), keyFor)).toEqual(envelope);
  });

  it("leaves the payload out when hash-only, still verifiable", () => {
    const envelope = signEnvelope(fields, payload, { keyId: "k1", secretKey: signing.secretKey }, { inline: false });
    expect(envelope.payloadRef).toBe("hash-only");
    expect("payload" in envelope).toBe(false);
    expect(verifyEnvelope(envelope, keyFor).payloadHash).toBe(sha(canonicalBytes(payload)));
  });
});
