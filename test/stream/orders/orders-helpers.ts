/**
 * Helpers of the stream order suites (buyer order flow): a seller (bound machine + enrolled agent over the
 * real routes, Ed25519 signer and X25519 box key), chunks built with the formats library, a listing of them, and
 * the order-flow calls. Listings and chunks are written as the seller routes leave them (the seller's suites prove
 * those routes); everything the order flow does goes through the real REST routes.
 */
import { randomBytes } from "node:crypto";
import { createBuyerAccess, type BuyerAccess, type EncryptedChunk } from "../../../subgraphs/markets/stream/index.js";
import { api, bindMachine, buildChunks, buyerKeys, enrollAgent, expectOk, prismaOf, sellerHeaders, signingKey, type MarketsPlatform, type StreamSeller } from "../helpers.js";
import nacl from "tweetnacl";
import { Contract, NonceManager, parseUnits, Wallet } from "ethers";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";

export * from "../helpers.js";

/** A seller on demo machine `("active", index)` without a registered signing key (the order flow does not need it). */
export async function orderSeller(p: MarketsPlatform, index = 0): Promise<StreamSeller> {
  const machine = await bindMachine(p, p.machine("active", index));
  const { agentId, agentToken } = await enrollAgent(p, machine.id);
  const { signer, publicKeyHex } = signingKey(machine.identityRef, `key-${index}-1`);
  const box = nacl.box.keyPair();
  return { machineId: machine.id, identityRef: machine.identityRef, agentId, agentToken, signer, publicKeyHex, boxSecretKey: box.secretKey, boxPublicKey: box.publicKey };
}

export interface SeededListing {
  listingId: string;
  chunks: EncryptedChunk[];
  chunkIds: string[];
}

/** `count` chunks and an active listing of them (price `amount` USD; `perChunk` when given). */
export async function seedListing(
  p: MarketsPlatform,
  seller: StreamSeller,
  options: { count?: number; amount?: string; perChunk?: string; currency?: string; status?: string; storageRef?: (index: number) => string } = {},
): Promise<SeededListing> {
  const prisma = prismaOf(p);
  const chunks = buildChunks(seller, options.count ?? 3);
  const now = new Date();
  for (const [index, chunk] of chunks.entries()) {
    const m = chunk.manifest;
    await prisma.streamChunk.create({
      data: {
        chunkId: m.chunkId,
        machineId: seller.machineId,
        agentId: seller.agentId,
        keyId: seller.signer.keyId,
        index: m.index,
        previousChunkId: m.previousChunkId,
        plaintextHash: m.plaintextHash,
        encryptedDataHash: m.encryptedDataHash,
        encryptedSize: BigInt(m.encryptedSize),
        storageRef: options.storageRef ? options.storageRef(index) : `local:${seller.machineId}/${m.chunkId.slice(7)}`,
        storedVerifiedAt: now,
        manifest: m as never,
        createdAt: now,
      },
    });
  }
  const listingId = `slst_${randomBytes(12).toString("hex")}`;
  await prisma.streamListing.create({
    data: {
      id: listingId,
      machineId: seller.machineId,
      title: "test listing",
      chunkIds: chunks.map((c) => c.manifest.chunkId),
      chunkCount: chunks.length,
      totalBytes: BigInt(chunks.reduce((sum, c) => sum + c.manifest.encryptedSize, 0)),
      storageProvider: "local",
      priceAmount: options.amount ?? "0.5",
      priceCurrency: options.currency ?? "USD",
      pricePerChunk: options.perChunk ?? null,
      status: options.status ?? "active",
      createdAt: now,
      updatedAt: now,
    },
  });
  return { listingId, chunks, chunkIds: chunks.map((c) => c.manifest.chunkId) };
}

export type Buyer = ReturnType<typeof buyerKeys> & { id: string };

export function newBuyer(): Buyer {
  return { ...buyerKeys(), id: `buyer-${randomBytes(4).toString("hex")}` };
}

/**
 * POST /stream/orders. A body object without `payerAddress` names the address `transferToPayee` pays from (the demo's
 * third agent), so that the suites' orders are paid by the helper's transfers; `payerAddress: null` sends none.
 */
export const createStreamOrder = (p: MarketsPlatform, body: unknown) =>
  api(p, "POST", "/stream/orders", body !== null && typeof body === "object" && !Array.isArray(body) && !("payerAddress" in body) ? { ...body, payerAddress: streamPayer(p) } : body);

/** The address `transferToPayee` pays from. */
export const streamPayer = (p: MarketsPlatform): string => p.demo.payments!.agents[2]!.address;
export const payStreamOrder = (p: MarketsPlatform, orderId: string, body: unknown) => api(p, "POST", `/stream/orders/${orderId}/payment`, body);
export const getDelivery = (p: MarketsPlatform, orderId: string, buyerId: string) =>
  api(p, "GET", `/stream/orders/${orderId}/delivery?buyerId=${encodeURIComponent(buyerId)}`);

/** The seller's access entries for `chunks`, re-wrapped to the buyer with the formats library. */
export function accessFor(seller: StreamSeller, chunks: EncryptedChunk[], buyer: { id: string; publicKey: Uint8Array }): BuyerAccess[] {
  return chunks.map((c) => createBuyerAccess(c.manifest, seller.boxSecretKey, { recipientId: buyer.id, publicKey: buyer.publicKey }));
}

export const prepareAccess = (p: MarketsPlatform, seller: StreamSeller, orderId: string, items: unknown, delivery?: unknown) =>
  api(p, "POST", `/stream/orders/${orderId}/prepare-access`, { machineId: seller.machineId, items, ...(delivery === undefined ? {} : { delivery }) }, sellerHeaders(seller));

/** One payer per platform (the demo's third agent), so concurrent transfers take their nonces in turn. */
const payers = new WeakMap<MarketsPlatform, { wallet: NonceManager; token: Contract }>();

/**
 * A real TestStablecoin transfer of `amount` (USD, 6 decimals) to the platform's payee on its embedded chain, mined:
 * the transaction hash, which pays a stream order as its `paymentReference`.
 */
export async function transferToPayee(p: MarketsPlatform, amount: string): Promise<string> {
  let payer = payers.get(p);
  if (!payer) {
    const payments = p.demo.payments!;
    const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    const wallet = new NonceManager(new Wallet(payments.agents[2]!.privateKey, provider));
    payer = { wallet, token: new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), wallet) };
    payers.set(p, payer);
  }
  return (await minedReceipt(await payer.token.transfer!(p.demo.payments!.payee.address, parseUnits(amount, 6)))).hash;
}

/** An order of `buyer` on the listing, paid by a real transfer whose hash is the reference: the order after payment. */
export async function paidOrder(p: MarketsPlatform, listing: SeededListing, buyer: Buyer, chunkIds?: string[]): Promise<any> {
  const order = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds }), 201).item;
  const txHash = await transferToPayee(p, order.price.amount);
  return expectOk(await payStreamOrder(p, order.id, { paymentReference: txHash })).item;
}

/** The order, its sessions, its access rows and the stream.* audit events naming it: what a refusal must leave alone. */
export async function orderState(p: MarketsPlatform, orderId: string) {
  const prisma = prismaOf(p);
  const [order, sessions, access, events] = await Promise.all([
    prisma.streamOrder.findUnique({ where: { id: orderId } }),
    prisma.streamDeliverySession.findMany({ where: { orderId }, orderBy: { id: "asc" } }),
    prisma.streamBuyerAccess.findMany({ where: { orderId }, orderBy: { id: "asc" } }),
    prisma.marketAuditEvent.findMany({ where: { kind: { startsWith: "stream." } } }),
  ]);
  return { order, sessions, access, events: events.filter((e: any) => (e.data as any)?.orderId === orderId).map((e: any) => e.kind) };
}
