/**
 * Helpers of the purchase-flow suites: a seller with a listing of real encrypted chunks (through the seller routes:
 * signing key, chunks, uploads, listing), its delivery capabilities, a paired buyer agent with an X25519 key, purchase
 * calls with the buyer's pairing token, and the rows a refusal must leave unchanged.
 */
import nacl from "tweetnacl";
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { createBuyerAccess, toHex, type EncryptedChunk } from "../../../subgraphs/markets/stream/index.js";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { agentHeaders, api, bindMachine, expectOk, pairAgent, prismaOf, type MarketsPlatform } from "../../markets/helpers.js";
import { createListing, createSeller, sellerHeaders, type StreamSeller } from "../helpers.js";

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

export { createSeller };

export function putCapabilities(p: MarketsPlatform, seller: StreamSeller, body: Record<string, unknown>, headers: Record<string, string> = sellerHeaders(seller)) {
  return api(p, "PUT", `/machines/${seller.machineId}/delivery-capabilities`, body, headers);
}

/** Seller `sellerIndex` with 3 chunks, a listing, tcp capabilities; a buyer paired with active machine `buyerIndex`. */
export async function createMarket(p: MarketsPlatform, sellerIndex: number, buyerIndex: number, buyerKey: string): Promise<Market> {
  const seller = await createSeller(p, sellerIndex);
  const { listing, chunks } = await createListing(p, seller, 3, { price: { amount: "0.02", currency: "USD" } });
  const listingId = listing.id as string;
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
