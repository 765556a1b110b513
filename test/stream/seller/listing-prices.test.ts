/**
 * Listing prices and time over the real routes (REST and GraphQL): an optional `pricePerChunk` (validated like the
 * price) that a strict subset of chunks pays per chunk in stream orders and purchases (the whole listing pays the
 * price); `timeStart` / `timeEnd` from the chunks' times (metadata `timeStart` / `timeEnd`, else when the chunk was
 * registered); the `from` / `to` filter of GET /stream/listings and of the listings' entries in GET /market/services. Every refusal leaves the rows as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import {
  api, buildChunks, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, postChunk, prismaOf, putChunkData, sellerHeaders,
  startMarketsPlatform, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";
import { buyerCall, createMarket, purchaseBody, type Market } from "../purchases/purchases-helpers.js";

/** The address a stream order names as its payer (the orders here are priced, not paid). */
const PAYER = `0x${"b0".repeat(20)}`;

let p: MarketsPlatform;
let m: Market;
let seller: StreamSeller;
beforeAll(async () => {
  p = await startMarketsPlatform();
  m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
  seller = m.seller;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => {
  const prisma = prismaOf(p);
  return {
    listings: await prisma.streamListing.count(),
    chunks: await prisma.streamChunk.count(),
    services: await prisma.marketsService.count(),
    audit: await prisma.marketAuditEvent.count(),
  };
};
const at = (day: string, time = "00:00:00") => `2026-${day}T${time}Z`;

/** Registers and stores chunks with the given metadata each; answers their IDs. */
async function publishWith(metadata: Array<Record<string, unknown> | undefined>): Promise<string[]> {
  const chunks = buildChunks(seller, metadata.length, 64, lastManifest);
  for (const [i, chunk] of chunks.entries()) {
    expectOk(await postChunk(p, seller, chunk.manifest, metadata[i]), 201);
    expect((await putChunkData(p, seller, chunk.manifest.chunkId, chunk.ciphertext)).status).toBe(200);
  }
  lastManifest = chunks.at(-1)!.manifest;
  return chunks.map((c) => c.manifest.chunkId);
}
let lastManifest: ReturnType<typeof buildChunks>[number]["manifest"] | undefined;

const createListing = (body: Record<string, unknown>) =>
  api(p, "POST", `/machines/${seller.machineId}/stream/listings`, { title: "priced", price: { amount: "2", currency: "USD" }, ...body }, sellerHeaders(seller));

describe("pricePerChunk", () => {
  let listingId: string;
  let chunkIds: string[];

  beforeAll(async () => {
    lastManifest = m.chunks.at(-1)!.manifest;
    chunkIds = await publishWith([undefined, undefined, undefined, undefined]);
    const listing = expectOk(await createListing({ chunkIds, pricePerChunk: "0.25" }), 201).item;
    listingId = listing.id;
    expect(listing).toMatchObject({ price: { amount: "2", currency: "USD" }, pricePerChunk: "0.25" });
    const service = await prismaOf(p).marketsService.findUniqueOrThrow({ where: { id: listing.serviceId } });
    expect(JSON.stringify((service.record as any).pricing.notes)).toContain("0.25 USD per chunk");
  });

  it("invalid per-chunk prices are VALIDATION_ERROR; nothing is created", async () => {
    const before = await state();
    for (const pricePerChunk of ["-1", "1.", "abc", "", "1.0000000000000000001", 1]) {
      expectMarketsError(await createListing({ chunkIds, pricePerChunk }), 400, "VALIDATION_ERROR");
    }
    expect(await state()).toEqual(before);
    // Without one, the listing has none (the full price for any selection).
    expect(expectOk(await createListing({ chunkIds: chunkIds.slice(0, 1) }), 201).item.pricePerChunk).toBeNull();
  });

  it("a stream order for a subset pays per chunk; the whole listing pays the price", async () => {
    const order = (ids?: string[]) =>
      api(p, "POST", "/stream/orders", { listingId, buyerId: "buyer-prices", buyerPublicKeyHex: m.buyer.publicKeyHex, payerAddress: PAYER, ...(ids ? { chunkIds: ids } : {}) });
    expect(expectOk(await order([chunkIds[3]!, chunkIds[1]!, chunkIds[0]!]), 201).item.price).toEqual({ amount: "0.75", currency: "USD" });
    expect(expectOk(await order([chunkIds[2]!]), 201).item.price).toEqual({ amount: "0.25", currency: "USD" });
    expect(expectOk(await order(chunkIds), 201).item.price).toEqual({ amount: "2", currency: "USD" });
    expect(expectOk(await order(), 201).item.price).toEqual({ amount: "2", currency: "USD" });
  });

  it("a purchase for a subset pays per chunk; the whole listing pays the price", async () => {
    const purchase = (ids?: string[]) => buyerCall(p, m, "POST", "/purchases", purchaseBody({ ...m, listingId }, ids ? { chunkIds: ids } : {}));
    expect(expectOk(await purchase([chunkIds[0]!, chunkIds[2]!]), 201).item.price).toEqual({ amount: "0.5", currency: "USD" });
    expect(expectOk(await purchase(chunkIds), 201).item.price).toEqual({ amount: "2", currency: "USD" });
    expect(expectOk(await purchase(), 201).item.price).toEqual({ amount: "2", currency: "USD" });
  });
});

describe("time range", () => {
  let january: any;
  let february: any;

  it("a listing spans its chunks' times: metadata timeStart/timeEnd, else the registration time", async () => {
    const ids = await publishWith([
      { timeStart: at("01-10", "00:01:00"), timeEnd: at("01-10", "00:02:00") },
      { timeStart: at("01-10"), timeEnd: "2026-01-10T01:00:00.500+01:00" },
      { timeEnd: at("01-11") },
    ]);
    january = expectOk(await createListing({ chunkIds: ids }), 201).item;
    expect([january.timeStart, january.timeEnd]).toEqual(["2026-01-10T00:00:00.000Z", "2026-01-11T00:00:00.000Z"]);
    const feb = await publishWith([{ timeStart: at("02-01"), timeEnd: at("02-02") }]);
    february = expectOk(await createListing({ chunkIds: feb }), 201).item;
    expect([february.timeStart, february.timeEnd]).toEqual(["2026-02-01T00:00:00.000Z", "2026-02-02T00:00:00.000Z"]);
    // The market's listing: chunks without times, so its range is when they were registered.
    const registered = await prismaOf(p).streamChunk.findMany({ where: { chunkId: { in: m.chunks.map((c) => c.manifest.chunkId) } }, orderBy: { index: "asc" } });
    const own = expectOk(await api(p, "GET", `/stream/listings/${m.listingId}`)).item;
    expect([own.timeStart, own.timeEnd]).toEqual([registered[0]!.createdAt.toISOString(), registered.at(-1)!.createdAt.toISOString()]);
    const service = await prismaOf(p).marketsService.findUniqueOrThrow({ where: { id: january.serviceId } });
    expect((service.record as any).metadata).toMatchObject({ timeStart: january.timeStart, timeEnd: january.timeEnd });
  });

  it("chunk metadata with a malformed or inverted time range is VALIDATION_ERROR; nothing is registered", async () => {
    const before = await state();
    const [chunk] = buildChunks(seller, 1, 64, lastManifest);
    for (const metadata of [
      { timeStart: "yesterday" },
      { timeEnd: "2026-01-10" },
      { timeStart: "2026-13-40T00:00:00Z" },
      { timeStart: 1767225600000 },
      { timeStart: at("01-02"), timeEnd: at("01-01") },
    ]) {
      expectMarketsError(await postChunk(p, seller, chunk!.manifest, metadata), 400, "VALIDATION_ERROR");
    }
    expect(await state()).toEqual(before);
  });

  it("GET /stream/listings?from=&to= keeps listings whose range overlaps; bad values are VALIDATION_ERROR", async () => {
    const ids = async (query: string) =>
      expectOk(await api(p, "GET", `/stream/listings?machineId=${seller.machineId}&${query}`)).items.map((l: any) => l.id).sort();
    const both = [january.id, february.id].sort();
    expect(await ids(`from=${at("01-01")}&to=${at("03-01")}`)).toEqual(both);
    expect(await ids(`from=${at("01-10", "12:00:00")}&to=${at("01-20")}`)).toEqual([january.id]);
    expect(await ids(`from=${at("01-11")}&to=${at("01-11")}`)).toEqual([january.id]);
    expect(await ids(`from=${at("01-12")}&to=${at("01-31")}`)).toEqual([]);
    expect(await ids(`to=${at("01-31")}`)).toEqual([january.id]);
    expect(await ids(`from=${at("02-01", "12:00:00")}&to=${at("06-01")}`)).toEqual([february.id]);
    expect(await ids(`from=${encodeURIComponent("2026-01-31T23:00:00-02:00")}&to=${at("06-01")}`)).toEqual([february.id]);
    for (const query of ["from=yesterday", "to=2026-01-01", `from=${at("02-01")}&to=${at("01-01")}`, `from=${at("01-01")}&from=${at("01-02")}`]) {
      expectMarketsError(await api(p, "GET", `/stream/listings?${query}`), 400, "VALIDATION_ERROR");
    }
    const gql = await graphql(p.graphql, `query($m: String, $f: String, $t: String) { streamListings(machineId: $m, from: $f, to: $t) { items { id timeStart timeEnd } } }`, {
      m: seller.machineId, f: at("01-01"), t: at("01-31"),
    });
    expect(gql.body.data.streamListings.items).toEqual([{ id: january.id, timeStart: january.timeStart, timeEnd: january.timeEnd }]);
    const bad = await graphql(p.graphql, `query { streamListings(from: "soon") { items { id } } }`);
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  });

  it("GET /market/services?from=&to= keeps the listings' data.stream entries whose range overlaps; other services stay; bad values are VALIDATION_ERROR", async () => {
    const day = (d: string, time = "00:00:00") => `2031-${d}T${time}Z`;
    const march = expectOk(await createListing({ chunkIds: await publishWith([{ timeStart: day("03-01"), timeEnd: day("03-02") }]) }), 201).item;
    const may = expectOk(await createListing({ chunkIds: await publishWith([{ timeStart: day("05-01"), timeEnd: day("05-03") }]) }), 201).item;
    const provider = `stream-${seller.machineId}`;
    const ids = async (query: string) =>
      expectOk(await api(p, "GET", `/market/services?providerKey=${provider}&limit=500&${query}`)).items.map((s: any) => s.id).filter((id: string) => id === march.serviceId || id === may.serviceId).sort();
    expect(await ids(`from=${day("02-01")}&to=${day("06-01")}`)).toEqual([march.serviceId, may.serviceId].sort());
    expect(await ids(`from=${day("03-02")}&to=${day("04-30")}`)).toEqual([march.serviceId]);
    expect(await ids(`from=${day("03-02", "00:00:01")}&to=${day("04-30", "23:59:59")}`)).toEqual([]);
    expect(await ids(`from=${day("05-02")}`)).toEqual([may.serviceId]);
    expect(await ids(`to=${day("04-01")}`)).toEqual([march.serviceId]);
    expect(await ids(`from=${encodeURIComponent("2031-03-02T01:00:00+02:00")}&to=${day("03-31")}`)).toEqual([march.serviceId]);
    // Services without a time dimension are not narrowed by the filter.
    const seeded = expectOk(await api(p, "GET", "/market/services?limit=500")).items.filter((s: any) => s.serviceType !== "data.stream").map((s: any) => s.id);
    expect(seeded.length).toBeGreaterThan(0);
    const filtered = expectOk(await api(p, "GET", `/market/services?limit=500&from=${day("03-02", "00:00:01")}&to=${day("04-30")}`)).items.map((s: any) => s.id);
    expect(filtered).toEqual(expect.arrayContaining(seeded));
    expect(filtered).not.toContain(march.serviceId);
    for (const query of ["from=yesterday", "to=2031-01-01", `from=${day("05-01")}&to=${day("03-01")}`, `from=${day("01-01")}&from=${day("01-02")}`]) {
      expectMarketsError(await api(p, "GET", `/market/services?${query}`), 400, "VALIDATION_ERROR");
    }
    const gql = await graphql(p.graphql, `query($k: String, $f: String, $t: String) { marketServices(providerKey: $k, from: $f, to: $t, limit: 500) { items { id metadata } } }`, {
      k: provider, f: day("04-01"), t: day("12-31"),
    });
    const entries = gql.body.data.marketServices.items.filter((s: any) => s.id === march.serviceId || s.id === may.serviceId);
    expect(entries.map((s: any) => [s.id, s.metadata.timeStart, s.metadata.timeEnd])).toEqual([[may.serviceId, may.timeStart, may.timeEnd]]);
    for (const [f, t] of [["soon", null], [day("05-01"), day("03-01")]]) {
      const bad = await graphql(p.graphql, `query($f: String, $t: String) { marketServices(from: $f, to: $t) { items { id } } }`, { f, t });
      expect(bad.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
      expect(bad.body.data ?? null).toBeNull();
    }
  });
});
