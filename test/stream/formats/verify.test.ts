/**
 * Every tamper a buyer must catch before paying or decrypting, each with its own code: a chunk byte, a hash, the
 * signature or signer, the chunkId order, a wrong key, a wrong recipient, and a machine that signs inconsistent data.
 * The last case checks that every documented code was met here.
 */
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import {
  STREAM_FORMAT_ERROR_CODES, StreamFormatError, computeChunkId, createBuyerAccess, decryptChunk, encryptStream, fromHex,
  openBuyerAccess, seal, sealChunk, sha256Tag, signEnvelope, signManifest, toHex, verifyChain, verifyCiphertext,
  verifyEnvelope, verifyManifest, type ChunkManifest, type EncryptedChunk, type StreamFormatErrorCode,
} from "../../../subgraphs/markets/stream/index.js";
import { collect, patternStream, streamParties } from "../fixtures.js";

const seen = new Set<StreamFormatErrorCode>();
async function expectCode(work: () => unknown, code: StreamFormatErrorCode, chunkIndex?: number): Promise<void> {
  let caught: unknown;
  try {
    await work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(StreamFormatError);
  expect((caught as StreamFormatError).code).toBe(code);
  if (chunkIndex !== undefined) expect((caught as StreamFormatError).chunkIndex).toBe(chunkIndex);
  seen.add(code);
}
const clone = <T>(value: T): T => structuredClone(value);
const flipHex = (hex: string, at = 0) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);

const parties = streamParties();
let chunks: EncryptedChunk[];
let manifests: ChunkManifest[];
const buyer = { recipientId: "buyer-1", publicKey: parties.buyerBox.publicKey };

beforeAll(async () => {
  chunks = await collect(encryptStream(patternStream(5000), { signer: parties.signer, recipients: parties.recipients, chunkSize: 1024 }));
  manifests = chunks.map((c) => c.manifest);
});

describe("before paying: manifests and chain", () => {
  it("accepts the untouched chain", () => {
    expect(verifyChain(manifests, parties.trusted).map((m) => m.chunkId)).toEqual(manifests.map((m) => m.chunkId));
  });

  it("MANIFEST_MALFORMED: a missing or extra member, a wrong spelling, a foreign algorithm", async () => {
    const mutations: Array<(m: any) => void> = [
      (m) => delete m.plaintextHash,
      (m) => (m.extra = 1),
      (m) => (m.chunkId = m.chunkId.toUpperCase()),
      (m) => (m.encryption.nonce = m.encryption.nonce.slice(2)),
      (m) => (m.encryption.algorithm = "aes-256-gcm"),
      (m) => (m.index = -1),
      (m) => (m.signature.value = `0x${m.signature.value}`),
      (m) => (m.encryption.keyRecipients[0].recipientType = "buyer"),
      (m) => delete m.encryption.keyRecipients[0].wrappedKeyHex,
    ];
    for (const mutate of mutations) {
      const m = clone(manifests[1]!);
      mutate(m);
      await expectCode(() => verifyManifest(m, parties.trusted, 1), "MANIFEST_MALFORMED", 1);
    }
    await expectCode(() => verifyManifest("{}", parties.trusted), "MANIFEST_MALFORMED");
  });

  it("CHUNK_ID_MISMATCH: a hash changed without recomputing the chunkId", async () => {
    for (const field of ["plaintextHash", "encryptedDataHash"] as const) {
      const m = clone(manifests[2]!);
      m[field] = flipHex(m[field], 10);
      await expectCode(() => verifyManifest(m, parties.trusted, 2), "CHUNK_ID_MISMATCH", 2);
    }
    const m = clone(manifests[2]!);
    m.index = 7;
    await expectCode(() => verifyManifest(m, parties.trusted), "CHUNK_ID_MISMATCH");
  });

  it("SIGNATURE_INVALID: a hash changed with the chunkId recomputed, a flipped signature, a key commitment or nonce swapped", async () => {
    const rehashed = clone(manifests[2]!);
    rehashed.encryptedDataHash = flipHex(rehashed.encryptedDataHash, 10);
    rehashed.chunkId = computeChunkId(rehashed);
    await expectCode(() => verifyManifest(rehashed, parties.trusted), "SIGNATURE_INVALID");
    const flipped = clone(manifests[0]!);
    flipped.signature.value = flipHex(flipped.signature.value, 5);
    await expectCode(() => verifyManifest(flipped, parties.trusted, 0), "SIGNATURE_INVALID", 0);
    const committed = clone(manifests[0]!);
    committed.encryption.keyCommitment = manifests[1]!.encryption.keyCommitment;
    await expectCode(() => verifyManifest(committed, parties.trusted), "SIGNATURE_INVALID");
    const renonced = clone(manifests[0]!);
    renonced.encryption.nonce = manifests[1]!.encryption.nonce;
    await expectCode(() => verifyManifest(renonced, parties.trusted), "SIGNATURE_INVALID");
  });

  it("SIGNER_UNKNOWN: signed by a key that is not registered for the machine, or claimed for another machine", async () => {
    const stranger = nacl.sign.keyPair();
    const { signature: _s, ...unsigned } = manifests[0]!;
    const foreign = signManifest(unsigned, { ...parties.signer, secretKey: stranger.secretKey });
    await expectCode(() => verifyManifest(foreign, parties.trusted), "SIGNER_UNKNOWN");
    const otherMachine = signManifest(unsigned, { ...parties.signer, machineDid: "did:peaq:0xother" });
    await expectCode(() => verifyManifest(otherMachine, parties.trusted), "SIGNER_UNKNOWN");
    // A storageRef is not signed: moving a chunk keeps its signature valid.
    expect(verifyManifest({ ...manifests[0]!, storageRef: "local:listing-1/chunk-0" }, parties.trusted).chunkId).toBe(manifests[0]!.chunkId);
  });

  it("SIGNING_KEY_REVOKED: a chunk registered at or after its key's revocation, or at an unknown time; earlier chunks stay valid", async () => {
    const revokedAt = "2026-05-01T12:00:00.000Z";
    const revoked = parties.trusted.map((k) => ({ ...k, revokedAt }));
    const [a, b, c] = manifests;
    const before = ["2026-05-01T11:00:00.000Z", "2026-05-01T11:59:59.999Z", "2026-05-01T11:59:59.999Z"];
    expect(verifyChain([a, b, c], revoked, before)).toHaveLength(3);
    await expectCode(() => verifyChain([a, b, c], revoked, [before[0]!, before[1]!, revokedAt]), "SIGNING_KEY_REVOKED", 2);
    await expectCode(() => verifyChain([a, b, c], revoked, [before[0]!, "2026-05-02T00:00:00.000Z", before[2]!]), "SIGNING_KEY_REVOKED", 1);
    await expectCode(() => verifyManifest(a, revoked, 0), "SIGNING_KEY_REVOKED", 0);
    await expectCode(() => verifyManifest(a, revoked, 0, "not a time"), "SIGNING_KEY_REVOKED", 0);
    // A key that is not revoked needs no registration time.
    expect(verifyManifest(a, parties.trusted.map((k) => ({ ...k, revokedAt: null }))).chunkId).toBe(a!.chunkId);
  });

  it("CHAIN_BROKEN: chunks swapped, one left out, one repeated, a chain not starting at index 0", async () => {
    const [a, b, c, d] = manifests;
    await expectCode(() => verifyChain([a, c, b, d], parties.trusted), "CHAIN_BROKEN", 1);
    await expectCode(() => verifyChain([a, b, d], parties.trusted), "CHAIN_BROKEN", 2);
    await expectCode(() => verifyChain([a, b, b], parties.trusted), "CHAIN_BROKEN", 2);
    expect(verifyChain([b, c, d], parties.trusted)).toHaveLength(3);
    const { signature: _s, ...unsigned } = clone(b!);
    const orphan = signManifest({ ...unsigned, previousChunkId: null, chunkId: computeChunkId({ ...unsigned, previousChunkId: null }) }, parties.signer);
    await expectCode(() => verifyChain([orphan], parties.trusted), "CHAIN_BROKEN", 0);
  });
});

describe("after download: ciphertext, access, key, decryption", () => {
  it("CIPHERTEXT_HASH_MISMATCH: one flipped byte, a truncated or extended download, streamed or whole", async () => {
    const { manifest, ciphertext } = chunks[1]!;
    await verifyCiphertext(manifest, ciphertext);
    await verifyCiphertext(manifest, (async function* () { yield ciphertext.subarray(0, 10); yield ciphertext.subarray(10); })());
    const flipped = ciphertext.slice();
    flipped[500] ^= 0x01;
    await expectCode(() => verifyCiphertext(manifest, flipped, 1), "CIPHERTEXT_HASH_MISMATCH", 1);
    await expectCode(() => verifyCiphertext(manifest, ciphertext.subarray(1)), "CIPHERTEXT_HASH_MISMATCH");
    await expectCode(() => verifyCiphertext(manifest, (async function* () { yield ciphertext; yield new Uint8Array(1); })()), "CIPHERTEXT_HASH_MISMATCH");
    const key = openBuyerAccess(createBuyerAccess(manifest, parties.machineBox.secretKey, buyer), manifest, parties.buyerBox.secretKey);
    await expectCode(() => decryptChunk(manifest, flipped, key), "CIPHERTEXT_HASH_MISMATCH");
  });

  it("ACCESS_WRONG_RECIPIENT and ACCESS_UNWRAP_FAILED: access sealed to another buyer, or relabelled as ours", async () => {
    const { manifest } = chunks[0]!;
    const theirs = createBuyerAccess(manifest, parties.machineBox.secretKey, { recipientId: "buyer-2", publicKey: parties.otherBuyerBox.publicKey });
    await expectCode(() => openBuyerAccess(theirs, manifest, parties.buyerBox.secretKey, 0), "ACCESS_WRONG_RECIPIENT", 0);
    const relabelled = clone(theirs);
    relabelled.buyer.publicKeyHex = toHex(parties.buyerBox.publicKey);
    await expectCode(() => openBuyerAccess(relabelled, manifest, parties.buyerBox.secretKey), "ACCESS_UNWRAP_FAILED");
    // The seller cannot re-wrap without a recipient entry of its own.
    await expectCode(() => createBuyerAccess(manifest, parties.otherBuyerBox.secretKey, buyer), "ACCESS_WRONG_RECIPIENT");
  });

  it("ACCESS_CHUNK_MISMATCH and ACCESS_MALFORMED: access for another chunk, or not an access entry", async () => {
    const access = createBuyerAccess(chunks[0]!.manifest, parties.machineBox.secretKey, buyer);
    await expectCode(() => openBuyerAccess(access, chunks[1]!.manifest, parties.buyerBox.secretKey), "ACCESS_CHUNK_MISMATCH");
    await expectCode(() => openBuyerAccess({ ...access, schemaVersion: "v0" }, chunks[0]!.manifest, parties.buyerBox.secretKey), "ACCESS_MALFORMED");
    await expectCode(() => openBuyerAccess(null, chunks[0]!.manifest, parties.buyerBox.secretKey), "ACCESS_MALFORMED");
  });

  it("KEY_COMMITMENT_MISMATCH: a wrong key, given directly or sealed properly to the buyer, is refused before decryption", async () => {
    const { manifest, ciphertext } = chunks[0]!;
    const otherKey = openBuyerAccess(createBuyerAccess(chunks[1]!.manifest, parties.machineBox.secretKey, buyer), chunks[1]!.manifest, parties.buyerBox.secretKey);
    await expectCode(() => decryptChunk(manifest, ciphertext, otherKey, 0), "KEY_COMMITMENT_MISMATCH", 0);
    const forged = createBuyerAccess(manifest, parties.machineBox.secretKey, buyer);
    forged.buyer.wrappedKeyHex = toHex(seal(otherKey, parties.buyerBox.publicKey));
    await expectCode(() => openBuyerAccess(forged, manifest, parties.buyerBox.secretKey), "KEY_COMMITMENT_MISMATCH");
  });

  it("DECRYPTION_FAILED and PLAINTEXT_HASH_MISMATCH: a machine that signs bytes that do not decrypt, or a wrong plaintext hash", async () => {
    const key = nacl.randomBytes(32);
    const nonce = nacl.randomBytes(24);
    const good = sealChunk(key, nonce, new Uint8Array([1, 2, 3]));
    const make = (ciphertext: Uint8Array, plaintextHash: string) => {
      const encryptedDataHash = sha256Tag(ciphertext);
      const position = { index: 0, previousChunkId: null, plaintextHash, encryptedDataHash };
      return signManifest({
        schemaVersion: "peaq.stream.chunks.v1", chunkId: computeChunkId(position), ...position, encryptedSize: ciphertext.length,
        encryption: { algorithm: "xchacha20-poly1305", nonce: toHex(nonce), keyCommitment: sha256Tag(key), keyRecipients: [] },
      }, parties.signer);
    };
    const badTag = good.slice();
    badTag[badTag.length - 1] ^= 1;
    const m1 = verifyManifest(make(badTag, sha256Tag(new Uint8Array([1, 2, 3]))), parties.trusted);
    await expectCode(() => decryptChunk(m1, badTag, key), "DECRYPTION_FAILED");
    const m2 = verifyManifest(make(good, sha256Tag(new Uint8Array([9]))), parties.trusted);
    await expectCode(() => decryptChunk(m2, good, key), "PLAINTEXT_HASH_MISMATCH");
    expect(decryptChunk(make(good, sha256Tag(new Uint8Array([1, 2, 3]))), good, key)).toEqual(new Uint8Array([1, 2, 3]));
  });
});

describe("event envelopes", () => {
  const fields = {
    machineId: "7", agentId: "agent-1", identityRef: "did:peaq:0xmachine-7", topic: "/imu", messageType: "sensor_msgs/msg/Imu",
    policyId: "policy-1", policyVersion: 1, sequenceNumber: 1,
    timestamps: { sourceTimestamp: "2026-11-24T01:00:00Z", agentReceivedAt: "2026-11-24T01:00:01Z", signedAt: "2026-11-24T01:00:02Z" },
  };
  const keyFor = (id: string) => (id === "k1" ? parties.signing.publicKey : undefined);
  const envelope = signEnvelope(fields, { x: 1 }, { keyId: "k1", secretKey: parties.signing.secretKey });

  it("ENVELOPE_PAYLOAD_HASH_MISMATCH, ENVELOPE_SIGNATURE_INVALID, SIGNER_UNKNOWN, ENVELOPE_MALFORMED", async () => {
    expect(verifyEnvelope(envelope, keyFor).sequenceNumber).toBe(1);
    await expectCode(() => verifyEnvelope({ ...envelope, payload: { x: 2 } }, keyFor), "ENVELOPE_PAYLOAD_HASH_MISMATCH");
    await expectCode(() => verifyEnvelope({ ...envelope, sequenceNumber: 2 }, keyFor), "ENVELOPE_SIGNATURE_INVALID");
    await expectCode(() => verifyEnvelope({ ...envelope, signature: { ...envelope.signature, value: flipHex(envelope.signature.value) } }, keyFor), "ENVELOPE_SIGNATURE_INVALID");
    await expectCode(() => verifyEnvelope({ ...envelope, signature: { ...envelope.signature, keyId: "k2" } }, keyFor), "SIGNER_UNKNOWN");
    const { payload: _p, ...noPayload } = envelope;
    await expectCode(() => verifyEnvelope(noPayload, keyFor), "ENVELOPE_MALFORMED");
    await expectCode(() => verifyEnvelope({ ...envelope, timestamps: { ...envelope.timestamps, signedAt: "yesterday" } }, keyFor), "ENVELOPE_MALFORMED");
    await expectCode(() => verifyEnvelope([], keyFor), "ENVELOPE_MALFORMED");
  });
});

it("every documented error code was met above", () => {
  expect([...seen].sort()).toEqual([...STREAM_FORMAT_ERROR_CODES].sort());
  expect(fromHex("AB")).toBeNull();
});
