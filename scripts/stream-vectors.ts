/**
 * Test vectors of the stream formats (docs/stream-formats.md, section "Test vectors"). Every random value (chunk keys,
 * nonces, ephemeral sealed-box keys) comes from a documented deterministic generator, so the outputs are a pure
 * function of the inputs. `tsx scripts/stream-vectors.ts` rewrites the section; `--check` fails when it is stale;
 * both refuse chunks that libsodium's XChaCha20-Poly1305 does not open (a second implementation, not the one that
 * sealed them); test/stream/formats/vectors.test.ts recomputes the outputs from the inputs it parses out of the doc.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import sodium from "libsodium-wrappers";
import nacl from "tweetnacl";
import {
  canonicalBytes, createBuyerAccess, encryptStream, fromHex, manifestSigningBytes, seal, signEnvelope, toHex,
  unwrapChunkKey, type EnvelopeFields, type RandomSource,
} from "../subgraphs/markets/stream/index.js";

export interface VectorInputs {
  randomSeed: string;
  signingSeedHex: string;
  machineDid: string;
  keyId: string;
  machineX25519SecretHex: string;
  ownerX25519SecretHex: string;
  buyerX25519SecretHex: string;
  plaintextUtf8: string;
  chunkSize: number;
  boughtChunkIndex: number;
  envelope: EnvelopeFields;
  envelopePayload: unknown;
}

export const VECTOR_INPUTS: VectorInputs = {
  randomSeed: "stream-formats-vectors/1",
  signingSeedHex: "01".repeat(32),
  machineDid: "did:peaq:0x7a11b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3",
  keyId: "machine-7-ed25519-1",
  machineX25519SecretHex: "02".repeat(32),
  ownerX25519SecretHex: "03".repeat(32),
  buyerX25519SecretHex: "04".repeat(32),
  plaintextUtf8: "lidar frame 0001|lidar frame 0002|tail",
  chunkSize: 16,
  boughtChunkIndex: 1,
  envelope: {
    machineId: "7", agentId: "agent-7", identityRef: "did:peaq:0x7a11b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3", topic: "/lidar/scan",
    messageType: "sensor_msgs/msg/LaserScan", policyId: "policy-1", policyVersion: 2, sequenceNumber: 41,
    timestamps: { sourceTimestamp: "2026-11-24T01:00:00.000Z", agentReceivedAt: "2026-11-24T01:00:00.004Z", signedAt: "2026-11-24T01:00:00.005Z" },
  },
  envelopePayload: { angleMin: -1.5, ranges: [0.5, 1.25, 2], frameId: "laser" },
};

/** Deterministic randomness: the concatenation of SHA-256(seed || uint32be(counter)), counter = 0, 1, ... */
export function vectorRandom(seed: string): RandomSource {
  let counter = 0;
  let pool = Buffer.alloc(0);
  return (length) => {
    while (pool.length < length) {
      const block = Buffer.alloc(4);
      block.writeUInt32BE(counter++);
      pool = Buffer.concat([pool, createHash("sha256").update(seed).update(block).digest()]);
    }
    const out = new Uint8Array(pool.subarray(0, length));
    pool = pool.subarray(length);
    return out;
  };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

export async function computeVectors(inputs: VectorInputs) {
  const random = vectorRandom(inputs.randomSeed);
  const signing = nacl.sign.keyPair.fromSeed(fromHex(inputs.signingSeedHex, 32)!);
  const machine = nacl.box.keyPair.fromSecretKey(fromHex(inputs.machineX25519SecretHex, 32)!);
  const owner = nacl.box.keyPair.fromSecretKey(fromHex(inputs.ownerX25519SecretHex, 32)!);
  const buyer = nacl.box.keyPair.fromSecretKey(fromHex(inputs.buyerX25519SecretHex, 32)!);
  const chunks = [];
  for await (const { manifest, ciphertext } of encryptStream([new TextEncoder().encode(inputs.plaintextUtf8)], {
    chunkSize: inputs.chunkSize,
    random,
    signer: { machineDid: inputs.machineDid, keyId: inputs.keyId, secretKey: signing.secretKey },
    recipients: [
      { recipientId: "machine-7", recipientType: "machine", publicKey: machine.publicKey },
      { recipientId: "owner-1", recipientType: "owner", publicKey: owner.publicKey },
    ],
  })) {
    const start = manifest.index * inputs.chunkSize;
    chunks.push({
      plaintextHex: toHex(new TextEncoder().encode(inputs.plaintextUtf8).subarray(start, start + inputs.chunkSize)),
      keyHex: toHex(unwrapChunkKey(manifest, machine.secretKey)),
      ciphertextHex: toHex(ciphertext),
      chunkIdInput: text(canonicalBytes({
        schemaVersion: manifest.schemaVersion, previousChunkId: manifest.previousChunkId, index: manifest.index,
        plaintextHash: manifest.plaintextHash, encryptedDataHash: manifest.encryptedDataHash,
      })),
      signedText: text(manifestSigningBytes(manifest)),
      manifest,
    });
  }
  const bought = chunks[inputs.boughtChunkIndex]!.manifest;
  const buyerAccess = createBuyerAccess(bought, machine.secretKey, { recipientId: "buyer-1", publicKey: buyer.publicKey }, random);
  const envelope = signEnvelope(inputs.envelope, inputs.envelopePayload, { keyId: inputs.keyId, secretKey: signing.secretKey });
  const { signature: _signature, ...unsignedEnvelope } = envelope;
  const sealMessage = new TextEncoder().encode("sealed box vector");
  const ephemeralSecret = random(32);
  return {
    inputs,
    outputs: {
      signingPublicKeyHex: toHex(signing.publicKey),
      machineX25519PublicKeyHex: toHex(machine.publicKey),
      ownerX25519PublicKeyHex: toHex(owner.publicKey),
      buyerX25519PublicKeyHex: toHex(buyer.publicKey),
      chunks,
      buyerAccess,
      envelope,
      envelopeSignedText: text(canonicalBytes(unsignedEnvelope)),
      sealedBox: {
        messageHex: toHex(sealMessage),
        recipientPublicKeyHex: toHex(buyer.publicKey),
        ephemeralSecretHex: toHex(ephemeralSecret),
        sealedHex: toHex(seal(sealMessage, buyer.publicKey, () => ephemeralSecret.slice())),
      },
    },
  };
}

export type Vectors = Awaited<ReturnType<typeof computeVectors>>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const FORMATS_DOC = path.join(root, "docs/stream-formats.md");
const BEGIN = "<!-- vectors:begin (generated by scripts/stream-vectors.ts; do not edit) -->";
const END = "<!-- vectors:end -->";

export const vectorsSection = (vectors: Vectors) => `${BEGIN}\n\`\`\`json\n${JSON.stringify(vectors, null, 2)}\n\`\`\`\n${END}`;

/** The vectors as published in the doc (the one copy there is). */
export function parseVectorSection(doc: string): Vectors {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error("docs/stream-formats.md has no vectors section");
  const block = doc.slice(start + BEGIN.length, end).trim();
  return JSON.parse(block.replace(/^```json\n/, "").replace(/\n```$/, "")) as Vectors;
}

export function replaceVectorSection(doc: string, section: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error("docs/stream-formats.md has no vectors section");
  return doc.slice(0, start) + section + doc.slice(end + END.length);
}

/**
 * The chunks are sealed by encryptChunk (OpenSSL's cipher under the HChaCha20 subkey); a second implementation
 * (libsodium's XChaCha20-Poly1305, empty AAD) must open each one to its plaintext, or the vectors would only agree with the library that made them. Throws otherwise.
 */
export async function openChunksWithLibsodium(vectors: Vectors): Promise<void> {
  await sodium.ready;
  for (const c of vectors.outputs.chunks) {
    let opened: Uint8Array | null = null;
    try {
      opened = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, fromHex(c.ciphertextHex)!, null, fromHex(c.manifest.encryption.nonce)!, fromHex(c.keyHex)!);
    } catch {
      opened = null;
    }
    if (opened === null || toHex(opened) !== c.plaintextHex) {
      throw new Error(`chunk ${c.manifest.index}: libsodium's XChaCha20-Poly1305 does not open it to its plaintext`);
    }
  }
}

async function main(check: boolean): Promise<void> {
  const current = readFileSync(FORMATS_DOC, "utf8");
  const vectors = await computeVectors(VECTOR_INPUTS);
  await openChunksWithLibsodium(vectors);
  const next = replaceVectorSection(current, vectorsSection(vectors));
  if (check) {
    if (next !== current) throw new Error("docs/stream-formats.md vectors are stale: run tsx scripts/stream-vectors.ts");
    return;
  }
  writeFileSync(FORMATS_DOC, next);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.includes("--check"));
}
