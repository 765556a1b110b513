/**
 * Helpers of the purchase-flow suites (issue 10, part p): a seller with a listing of real encrypted chunks, its
 * delivery capabilities, a paired buyer agent with an X25519 key, purchase calls with the buyer's pairing token, and
 * the rows a refusal must leave unchanged.
 */
import nacl from "tweetnacl";
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { createBuyerAccess, toHex, type EncryptedChunk } from "../../subgraphs/markets/stream/index.js";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { agentHeaders, api, bindMachine, expectOk, pairAgent, prismaOf, type MarketsPlatform } from "../markets/helpers.js";
import { buildChunks, enrollAgent, sellerHeaders, signingKey, type StreamSeller } from "./helpers.js";

export const TCP_CAPABILITY = {
  transportId: "tcp",
  version: "1",
  features: ["resume"],
  protocols: ["/peaqos/stream/chunk/1.0.0"],
  encoding: "peaqos-json-frame-v1",
  params: { addresses: ["127.0.0.1:47001"] },
};
export const LIBP2P_CAPABILITY = {
  ...TCP_CAPABILITY,
  transportId: "libp2p",
  params: { addresses: ["/ip4/127.0.0.1/tcp/47002/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN"], peerId: "12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN" },
};

export interface Market {
  seller: StreamSeller;
  chunks: EncryptedChunk[];
  listingId: string;
  buyer: { wallet: Wallet; token: string; did: string; secretKey: Uint8Array; publicKeyHex: string; machineId: string };
}

/**
 * A listing of `count` chunks of seller `index`. The listing row is written directly until the seller's listing
 * route (issue-10s) is merged here; the chunks are real encrypted, signed manifests.
 */
export async function createListing(p: MarketsPlatform, seller: StreamSeller, chunks: EncryptedChunk[], price = { amount: "0.03", currency: "USD", perChunk: "0.01" as string | null }) {
  const now = new Date();
  const id = `slst_${toHex(nacl.randomBytes(8))}`;
  await prismaOf(p).streamListing.create({
    data: {
      id,
      machineId: seller.machineId,
      identityRef: seller.identityRef,
      title: "lidar",
      chunkIds: chunks.map((c) => c.manifest.chunkId),
      chunkCount: chunks.length,
      totalBytes: BigInt(chunks.reduce((n, c) => n + c.ciphertext.length, 0)),
      storageProvider: "local",
      priceAmount: price.amount,
      priceCurrency: price.currency,
      pricePerChunk: price.perChunk,
      status: "active",
      createdAt: now,
      updatedAt: now,
    },
  });
  return id;
}

/**
 * A seller on demo machine ("active", index): bound with a real identity proof and an agent enrolled over the real
 * routes; its signing key is made locally (the listing is a fixture row, so no chunk route checks it here).
 */
export async function createSeller(p: MarketsPlatform, index: number): Promise<StreamSeller> {
  const machine = await bindMachine(p, p.machine("active", index));
  const { agentId, agentToken } = await enrollAgent(p, machine.id);
  const { signer, publicKeyHex } = signingKey(machine.identityRef, `key-${index}-1`);
  const box = nacl.box.keyPair();
  return { machineId: machine.id, identityRef: machine.identityRef, agentId, agentToken, signer, publicKeyHex, boxSecretKey: box.secretKey, boxPublicKey: box.publicKey };
}

export function putCapabilities(p: MarketsPlatform, seller: StreamSeller, body: Record<string, unknown>, headers: Record<string, string> = sellerHeaders(seller)) {
  return api(p, "PUT", `/machines/${seller.machineId}/delivery-capabilities`, body, headers);
}

/** Seller `sellerIndex` with 3 chunks, a listing, tcp capabilities; a buyer paired with active machine `buyerIndex`. */
export async function createMarket(p: MarketsPlatform, sellerIndex: number, buyerIndex: number, buyerKey: string): Promise<Market> {
  const seller = await createSeller(p, sellerIndex);
  const chunks = buildChunks(seller, 3);
  const listingId = await createListing(p, seller, chunks);
  expectOk(await putCapabilities(p, seller, { capabilities: [TCP_CAPABILITY] }), 201);
  const buyerMachine = await bindMachine(p, p.machine("active", buyerIndex));
  const wallet = new Wallet(buyerKey);
  const pairing = await pairAgent(p, buyerMachine.id, wallet);
  const box = nacl.box.keyPair();
  return {
    seller,
    chunks,
    listingId,
    buyer: { wallet, token: pairing.pairingToken, did: pairing.agentDid, secretKey: box.secretKey, publicKeyHex: toHex(box.publicKey), machineId: buyerMachine.id },
  };
}

export function purchaseBody(m: Market, extra: { chunkIds?: string[]; buyer?: Record<string, unknown>; delivery?: Record<string, unknown> } = {}) {
  return {
    resource: { type: "stream.listing", listingId: m.listingId, ...(extra.chunkIds ? { selection: { chunkIds: extra.chunkIds } } : {}) },
    buyer: { id: m.buyer.did, publicKey: { type: "x25519", publicKeyHex: m.buyer.publicKeyHex }, deliveryCapabilities: [{ transportId: "tcp", version: "1" }], ...extra.buyer },
    ...(extra.delivery ? { delivery: extra.delivery } : {}),
  };
}

/** A purchase call with the buyer's pairing token. */
export const buyerCall = (p: MarketsPlatform, m: Market, method: string, path: string, body?: unknown) => api(p, method, path, body, agentHeaders(m.buyer.token));

/** The access items the seller prepares: each bought chunk's key re-wrapped to the purchase's buyer key. */
export function accessFor(m: Market, chunkIds: string[], buyerId = m.buyer.did, publicKeyHex = m.buyer.publicKeyHex) {
  return m.chunks
    .filter((c) => chunkIds.includes(c.manifest.chunkId))
    .map((c) => createBuyerAccess(c.manifest, m.seller.boxSecretKey, { recipientId: buyerId, publicKey: Buffer.from(publicKeyHex, "hex") }));
}

/** Everything a refused purchase call must leave alone: the row, its sessions, events, access and audit events. */
export async function purchaseState(p: MarketsPlatform, purchaseId: string) {
  const prisma = prismaOf(p);
  const [purchase, sessions, events, access, audits] = await Promise.all([
    prisma.streamPurchase.findUnique({ where: { id: purchaseId } }),
    prisma.streamDeliverySession.findMany({ where: { purchaseId }, orderBy: { id: "asc" } }),
    prisma.streamPurchaseEvent.count({ where: { purchaseId } }),
    prisma.streamBuyerAccess.count({ where: { purchaseId } }),
    prisma.marketAuditEvent.findMany({ where: { kind: { startsWith: "stream." } } }),
  ]);
  return { purchase, sessions, events, access, audits: audits.filter((a: any) => a.data?.purchaseId === purchaseId).length };
}

/** The stream.* audit kinds of a purchase, oldest first. */
export async function purchaseKinds(p: MarketsPlatform, purchaseId: string): Promise<string[]> {
  const rows = await prismaOf(p).marketAuditEvent.findMany({ where: { kind: { startsWith: "stream." } }, orderBy: { id: "asc" } });
  return rows.filter((a: any) => a.data?.purchaseId === purchaseId).map((a: any) => a.kind);
}

/** The chain side of the tests: the stablecoin, a provider and ERC-20 transfers by the buyer's wallet. */
export function chainOf(p: MarketsPlatform) {
  const payments = p.demo.payments!;
  const provider: JsonRpcProvider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
  const stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
  const transfer = async (from: Wallet, to: string, amount: bigint) =>
    (await minedReceipt(await (stablecoin.connect(new NonceManager(from.connect(provider))) as Contract).transfer(to, amount))).hash as string;
  return { payments, provider, stablecoin, transfer };
}
