/**
 * The order flow end to end over real sockets, using only REST routes: the seller registers a signing
 * key, publishes encrypted chunks (manifest + checked upload) and lists them; a buyer checks the listing's manifests,
 * orders two of three chunks, pays; the seller's agent polls the requested session, re-wraps the bought keys to the
 * buyer (formats library) and prepares the access; the buyer gets the delivery, downloads each bought chunk's
 * ciphertext with the bearer delivery token, checks it against the manifest and decrypts it with its X25519 key.
 * The unbought chunk is neither in the grants nor downloadable with the token; another key opens nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuyerAccess, decryptChunk, openBuyerAccess, sha256Tag, StreamFormatError, verifyCiphertext, type ChunkManifest } from "../../../subgraphs/markets/stream/index.js";
import {
  api,
  buildChunks,
  createSeller,
  createStreamOrder,
  expectMarketsError,
  expectOk,
  getDelivery,
  newBuyer,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prepareAccess,
  publishChunks,
  sellerBody,
  sellerHeaders,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type StreamSeller,
} from "./orders-helpers.js";

describe("stream order flow end to end (REST only)", () => {
  let p: MarketsPlatform;
  let seller: StreamSeller;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    seller = await createSeller(p, 0);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  it("publish, list, order, pay, prepare, deliver, download with the token, decrypt", async () => {
    const chunks = buildChunks(seller, 3, 256);
    await publishChunks(p, seller, chunks);
    const chunkIds = chunks.map((c) => c.manifest.chunkId);
    const listing = expectOk(
      await api(p, "POST", `/machines/${seller.machineId}/stream/listings`, { title: "lidar", chunkIds, price: { amount: "1.5", currency: "USD" } }, sellerHeaders(seller)),
      201,
    ).item;

    // The buyer reads the listing's manifests before buying.
    const manifests: ChunkManifest[] = expectOk(await api(p, "GET", `/stream/listings/${listing.id}/chunks`)).items.map((c: any) => c.manifest ?? c);
    expect(manifests.map((m) => m.chunkId)).toEqual(chunkIds);

    const buyer = newBuyer();
    const bought = [chunks[0]!, chunks[2]!];
    const order = expectOk(
      await createStreamOrder(p, { listingId: listing.id, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: bought.map((c) => c.manifest.chunkId) }),
      201,
    ).item;
    expect(order.price).toEqual({ amount: "1.5", currency: "USD" });
    expectOk(await payStreamOrder(p, order.id, { paymentReference: await transferToPayee(p, order.price.amount) }));

    // The seller's agent polls, prepares exactly the bought chunks for the buyer's key.
    const sessions = expectOk(await api(p, "POST", "/stream/delivery-sessions/poll", { ...sellerBody(seller), statuses: ["requested"] })).items;
    const session = sessions.find((s: any) => s.orderId === order.id);
    expect(session).toMatchObject({ buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, chunkIds: order.chunkIds });
    const publicKey = Buffer.from(session.buyerPublicKeyHex, "hex");
    const items = session.chunkIds.map((id: string) => createBuyerAccess(chunks.find((c) => c.manifest.chunkId === id)!.manifest, seller.boxSecretKey, { recipientId: session.buyerId, publicKey }));
    expect(expectOk(await prepareAccess(p, seller, order.id, items)).deliverySession.id).toBe(session.id);

    const delivery = expectOk(await getDelivery(p, order.id, buyer.id));
    expect(delivery.access.map((a: any) => a.chunkId)).toEqual(order.chunkIds);
    const stranger = newBuyer();
    for (const [index, entry] of delivery.delivery.chunks.entries()) {
      const manifest = bought[index]!.manifest;
      const response = await fetch(new URL(entry.url, p.markets), { headers: { authorization: `Bearer ${delivery.delivery.token}` } });
      expect(response.status).toBe(200);
      const ciphertext = new Uint8Array(await response.arrayBuffer());
      expect(sha256Tag(ciphertext)).toBe(entry.encryptedDataHash);
      await verifyCiphertext(manifest, ciphertext);
      const key = openBuyerAccess(delivery.access[index], manifest, buyer.secretKey);
      const plaintext = decryptChunk(manifest, ciphertext, key);
      expect(sha256Tag(plaintext)).toBe(manifest.plaintextHash);
      expect(() => openBuyerAccess(delivery.access[index], manifest, stranger.secretKey)).toThrow(StreamFormatError);
    }
    // The unbought chunk: no grant, and the token does not open its data.
    expect(JSON.stringify(delivery)).not.toContain(chunks[1]!.manifest.chunkId);
    const unbought = await fetch(`${p.markets}/api/v1/stream/chunks/${encodeURIComponent(chunks[1]!.manifest.chunkId)}/data`, {
      headers: { authorization: `Bearer ${delivery.delivery.token}` },
    });
    expect([unbought.status, ((await unbought.json()) as any).error.code]).toEqual([403, "DELIVERY_TOKEN_SCOPE"]);
    expectMarketsError(await getDelivery(p, order.id, stranger.id), 404, "STREAM_ORDER_NOT_FOUND");
    expect(expectOk(await api(p, "GET", `/stream/orders/${order.id}`)).item.status).toBe("delivered");
  });
});
