/**
 * Shared helpers of the stream marketplace suites: a seller over the real routes (a bound active machine, an enrolled
 * machine agent, a registered Ed25519 signing key), a small encrypted chunk chain built with the formats library, and calls carrying the agent credentials.
 */
import nacl from "tweetnacl";
import {
  encryptChunk, toHex,
  type ChunkManifest, type EncryptedChunk, type ManifestSigner,
} from "../../subgraphs/markets/stream/index.js";
import { api, bindMachine, expectOk, type HttpAnswer, type MarketsPlatform } from "../markets/helpers.js";

export * from "../markets/helpers.js";

export interface StreamSeller {
  machineId: string;
  /** The machine's identityRef: the `machineDid` of its manifests' signatures. */
  identityRef: string;
  agentId: string;
  agentToken: string;
  /** The registered signing key (keyId + tweetnacl 64-byte secret key). */
  signer: ManifestSigner;
  publicKeyHex: string;
  /** The machine's own X25519 key pair, a key recipient of every chunk it publishes. */
  boxSecretKey: Uint8Array;
  boxPublicKey: Uint8Array;
}

/** The agent credential headers of a seller. */
export const sellerHeaders = (seller: Pick<StreamSeller, "agentId" | "agentToken">) => ({
  "x-machine-agent-id": seller.agentId,
  "x-machine-agent-token": seller.agentToken,
});

/** The agent credentials as body members (the ROS 2 agent's form). */
export const sellerBody = (seller: StreamSeller) => ({ machineId: seller.machineId, agentId: seller.agentId, agentToken: seller.agentToken });

/** Enrols a machine agent on `machineId` over the real route: `{ agentId, agentToken }`. */
export async function enrollAgent(p: MarketsPlatform, machineId: string): Promise<{ agentId: string; agentToken: string }> {
  const item = expectOk(await api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys: ["stream"], label: "stream agent" }), 201).item;
  return { agentId: item.agent.id, agentToken: item.agentToken };
}

/** A fresh Ed25519 signing key (tweetnacl secret key = seed || public key). */
export function signingKey(machineDid: string, keyId: string): { signer: ManifestSigner; publicKeyHex: string } {
  const pair = nacl.sign.keyPair();
  return { signer: { machineDid, keyId, secretKey: pair.secretKey }, publicKeyHex: toHex(pair.publicKey) };
}

/** POST /machines/:machineId/stream/signing-keys with the body credentials. */
export function registerSigningKey(p: MarketsPlatform, seller: Pick<StreamSeller, "machineId" | "agentId" | "agentToken">, keyId: string, publicKeyHex: string) {
  return api(p, "POST", `/machines/${seller.machineId}/stream/signing-keys`, {
    agentId: seller.agentId,
    agentToken: seller.agentToken,
    keyId,
    publicKeyHex,
  });
}

/**
 * A seller on demo machine `("active", index)`: bound with a real identity proof, an agent enrolled, a signing key
 * registered, all over the real routes. Each demo machine can be bound once per platform.
 */
export async function createSeller(p: MarketsPlatform, index = 0): Promise<StreamSeller> {
  const machine = await bindMachine(p, p.machine("active", index));
  const { agentId, agentToken } = await enrollAgent(p, machine.id);
  const { signer, publicKeyHex } = signingKey(machine.identityRef, `key-${index}-1`);
  expectOk(await registerSigningKey(p, { machineId: machine.id, agentId, agentToken }, signer.keyId, publicKeyHex), 201);
  const box = nacl.box.keyPair();
  return {
    machineId: machine.id,
    identityRef: machine.identityRef,
    agentId,
    agentToken,
    signer,
    publicKeyHex,
    boxSecretKey: box.secretKey,
    boxPublicKey: box.publicKey,
  };
}

/**
 * `count` chunks of `size` random plaintext bytes chained after `after` (or from index 0), encrypted and signed with
 * the seller's key, the key sealed to the machine itself.
 */
export function buildChunks(seller: StreamSeller, count: number, size = 64, after?: ChunkManifest): EncryptedChunk[] {
  const chunks: EncryptedChunk[] = [];
  let previous: ChunkManifest | undefined = after;
  for (let i = 0; i < count; i++) {
    const plaintext = nacl.randomBytes(size);
    const position = { index: previous ? previous.index + 1 : 0, previousChunkId: previous?.chunkId ?? null };
    const chunk = encryptChunk(plaintext, position, {
      signer: seller.signer,
      recipients: [{ recipientId: seller.machineId, recipientType: "machine", publicKey: seller.boxPublicKey }],
    });
    chunks.push(chunk);
    previous = chunk.manifest;
  }
  return chunks;
}

/** POST /stream/chunks for one manifest (body credentials). */
export function postChunk(p: MarketsPlatform, seller: StreamSeller, manifest: unknown, metadata?: unknown): Promise<HttpAnswer> {
  return api(p, "POST", "/stream/chunks", { ...sellerBody(seller), manifest, ...(metadata === undefined ? {} : { metadata }) });
}

/** PUT /stream/chunks/:chunkId/data with raw bytes and the header credentials; fetch, so the bytes go as they are. */
export async function putChunkData(
  p: MarketsPlatform,
  seller: Pick<StreamSeller, "agentId" | "agentToken">,
  chunkId: string,
  bytes: Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(`${p.markets}/api/v1/stream/chunks/${encodeURIComponent(chunkId)}/data`, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream", ...sellerHeaders(seller), ...headers },
    body: Buffer.from(bytes),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

/** Registers and uploads every chunk: the registered chunks' rows as answered. */
export async function publishChunks(p: MarketsPlatform, seller: StreamSeller, chunks: EncryptedChunk[]): Promise<any[]> {
  const items = [];
  for (const chunk of chunks) {
    expectOk(await postChunk(p, seller, chunk.manifest), 201);
    const stored = await putChunkData(p, seller, chunk.manifest.chunkId, chunk.ciphertext);
    if (stored.status !== 200) throw new Error(`upload answered ${stored.status}: ${JSON.stringify(stored.json)}`);
    items.push(stored.json.item);
  }
  return items;
}

/** A buyer's X25519 key pair (the key a chunk key is re-wrapped to). */
export function buyerKeys(): { secretKey: Uint8Array; publicKey: Uint8Array; publicKeyHex: string } {
  const box = nacl.box.keyPair();
  return { secretKey: box.secretKey, publicKey: box.publicKey, publicKeyHex: toHex(box.publicKey) };
}

/** Registers and uploads `count` chunks, then lists them: the listing item. */
export async function createListing(
  p: MarketsPlatform,
  seller: StreamSeller,
  count = 2,
  extra: Record<string, unknown> = {},
): Promise<{ listing: any; chunks: EncryptedChunk[] }> {
  const chunks = buildChunks(seller, count);
  await publishChunks(p, seller, chunks);
  const answer = await api(p, "POST", `/machines/${seller.machineId}/stream/listings`, {
    title: "camera feed",
    chunkIds: chunks.map((c) => c.manifest.chunkId),
    price: { amount: "1.5", currency: "USDC" },
    ...extra,
  }, sellerHeaders(seller));
  return { listing: expectOk(answer, 201).item, chunks };
}
