/**
 * Stream listings over the real routes: create (chunks exist, belong to the machine, are stored; figures
 * computed; a data.stream catalogue service with skill stream-data-listing), list (filters, cursor pages), detail
 * (no plaintext, no key), chunks for verification (manifests that verify with the listed signing keys).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyChain } from "../../../subgraphs/markets/stream/index.js";
import {
  api, buildChunks, createListing, createSeller, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, postChunk, prismaOf,
  publishChunks, sellerHeaders, startMarketsPlatform, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let other: StreamSeller;
beforeAll(async () => {
  p = await startMarketsPlatform();
  seller = await createSeller(p, 0);
  other = await createSeller(p, 1);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => ({
  listings: await prismaOf(p).streamListing.count(),
  services: await prismaOf(p).marketsService.count(),
  audit: await prismaOf(p).marketAuditEvent.count(),
});
const post = (machineId: string, body: unknown, headers = sellerHeaders(seller)) => api(p, "POST", `/machines/${machineId}/stream/listings`, body, headers);

describe("POST /machines/:machineId/stream/listings", () => {
  it("201: figures computed from the chunks; a data.stream catalogue service; an audit event", async () => {
    const { listing, chunks } = await createListing(p, seller, 3, { topic: "/camera/front" });
    expect(listing).toMatchObject({
      machineId: seller.machineId,
      identityRef: seller.identityRef,
      title: "camera feed",
      topic: "/camera/front",
      chunkIds: chunks.map((c) => c.manifest.chunkId),
      chunkCount: 3,
      totalBytes: chunks.reduce((sum, c) => sum + c.ciphertext.length, 0),
      storageProvider: "local",
      price: { amount: "1.5", currency: "USDC" },
      status: "active",
    });
    expect(listing.id).toMatch(/^slst_[0-9a-f]{24}$/);
    const service = await prismaOf(p).marketsService.findUniqueOrThrow({ where: { id: listing.serviceId } });
    expect(service).toMatchObject({ skillKey: "stream-data-listing", serviceType: "data.stream", providerKey: `stream-${seller.machineId}` });
    expect(await prismaOf(p).marketsSkill.findUnique({ where: { key: "stream-data-listing" } })).not.toBeNull();
    const catalogue = expectOk(await api(p, "GET", "/market/services?skillKey=stream-data-listing"));
    expect(JSON.stringify(catalogue)).toContain(listing.id);
    const event = await prismaOf(p).marketAuditEvent.findFirst({ where: { kind: "stream.listing.created" }, orderBy: { id: "desc" } });
    expect(event?.data).toMatchObject({ listingId: listing.id, chunkCount: 3 });
  });

  it("refusals leave no listing, no service, no event", async () => {
    const stored = buildChunks(seller, 1);
    await publishChunks(p, seller, stored);
    const [pending] = buildChunks(seller, 1);
    expectOk(await postChunk(p, seller, pending!.manifest), 201);
    const [foreign] = buildChunks(other, 1);
    await publishChunks(p, other, [foreign!]);
    const ok = { title: "t", chunkIds: [stored[0]!.manifest.chunkId], price: { amount: "1", currency: "USD" } };
    const before = await state();
    expectMarketsError(await post(seller.machineId, { ...ok, chunkIds: [pending!.manifest.chunkId] }), 409, "CHUNK_NOT_STORED");
    expectMarketsError(await post(seller.machineId, { ...ok, chunkIds: [foreign!.manifest.chunkId] }), 404, "NOT_FOUND");
    expectMarketsError(await post(seller.machineId, { ...ok, chunkIds: [`sha256:${"9".repeat(64)}`] }), 404, "NOT_FOUND");
    for (const bad of [
      { ...ok, title: "" },
      { ...ok, chunkIds: [] },
      { ...ok, chunkIds: [ok.chunkIds[0], ok.chunkIds[0]] },
      { ...ok, chunkIds: ["nope"] },
      { ...ok, price: { amount: "-1", currency: "USD" } },
      { ...ok, price: { amount: "1", currency: "" } },
      { ...ok, price: { amount: 1, currency: "USD" } },
    ]) {
      expectMarketsError(await post(seller.machineId, bad), 400, "VALIDATION_ERROR");
    }
    expectMarketsError(await post(seller.machineId, ok, {} as never), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await post(seller.machineId, ok, sellerHeaders(other)), 401, "AGENT_AUTH_INVALID");
    expect(await state()).toEqual(before);
  });

  it("takes bodies beyond the 64 KiB of other markets routes (up to 10,000 chunk IDs), bounded at 1 MiB", async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `sha256:${i.toString(16).padStart(64, "0")}`);
    const body = { title: "t", chunkIds: ids(2_000), price: { amount: "1", currency: "USD" } };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(65_536);
    const before = await state();
    // Past the body limit, the service answers: the chunks do not exist.
    expectMarketsError(await post(seller.machineId, body), 404, "NOT_FOUND");
    expectMarketsError(await post(seller.machineId, { ...body, chunkIds: ids(10_001) }), 400, "VALIDATION_ERROR");
    expectMarketsError(await post(seller.machineId, { ...body, padding: "x".repeat(1024 * 1024) }), 413, "PAYLOAD_TOO_LARGE");
    expect(await state()).toEqual(before);
  });
});

describe("GET /stream/listings", () => {
  it("filters by machine and storage provider; pages with a cursor; hides inactive unless asked", async () => {
    await createListing(p, other, 1);
    await createListing(p, other, 1);
    const mine = expectOk(await api(p, "GET", `/stream/listings?machineId=${other.machineId}`)).items;
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((l: any) => l.machineId === other.machineId)).toBe(true);
    const first = expectOk(await api(p, "GET", `/stream/listings?machineId=${other.machineId}&limit=1`));
    expect(first.items).toHaveLength(1);
    const second = expectOk(await api(p, "GET", `/stream/listings?machineId=${other.machineId}&limit=1&cursor=${first.nextCursor}`));
    expect(second.items[0].id).not.toBe(first.items[0].id);
    expect(expectOk(await api(p, "GET", "/stream/listings?storageProvider=s3")).items).toEqual([]);
    expect(expectOk(await api(p, "GET", "/stream/listings?storageProvider=local")).items.length).toBeGreaterThanOrEqual(2);
    await prismaOf(p).streamListing.update({ where: { id: mine[0].id }, data: { status: "inactive" } });
    const active = expectOk(await api(p, "GET", `/stream/listings?machineId=${other.machineId}`)).items.map((l: any) => l.id);
    expect(active).not.toContain(mine[0].id);
    const all = expectOk(await api(p, "GET", `/stream/listings?machineId=${other.machineId}&includeInactive=true`)).items.map((l: any) => l.id);
    expect(all).toContain(mine[0].id);
  });

  it.each(["limit=0", "limit=501", "includeInactive=yes", "cursor=%21", "storageProvider=Bad%20One"])("400 VALIDATION_ERROR for %s", async (query) => {
    expectMarketsError(await api(p, "GET", `/stream/listings?${query}`), 400, "VALIDATION_ERROR");
  });
});

describe("GET /stream/listings/:listingId and /chunks", () => {
  it("the detail carries no plaintext and no key; unknown is 404", async () => {
    const { listing, chunks } = await createListing(p, seller, 2);
    const detail = expectOk(await api(p, "GET", `/stream/listings/${listing.id}`)).item;
    expect(detail).toEqual(listing);
    const text = JSON.stringify(detail);
    expect(text).not.toContain("wrappedKeyHex");
    expect(text).not.toContain(Buffer.from(chunks[0]!.ciphertext).toString("hex").slice(0, 32));
    expectMarketsError(await api(p, "GET", "/stream/listings/slst_000000000000000000000000"), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "GET", "/stream/listings/nope"), 404, "NOT_FOUND");
  });

  it("chunks: the signed manifests in order and the machine's keys; they verify as a chain; pages", async () => {
    const { listing, chunks } = await createListing(p, seller, 3);
    const page = expectOk(await api(p, "GET", `/stream/listings/${listing.id}/chunks`));
    expect(page).toMatchObject({ listingId: listing.id, machineId: seller.machineId, machineDid: seller.identityRef });
    expect(page.items.map((i: any) => i.manifest)).toEqual(chunks.map((c) => c.manifest));
    expect(page.nextCursor).toBeUndefined();
    const trusted = page.signingKeys.map((k: any) => ({ machineDid: page.machineDid, keyId: k.keyId, publicKeyHex: k.publicKeyHex }));
    expect(verifyChain(page.items.map((i: any) => i.manifest), trusted)).toHaveLength(3);
    const first = expectOk(await api(p, "GET", `/stream/listings/${listing.id}/chunks?limit=2`));
    expect(first.items).toHaveLength(2);
    const rest = expectOk(await api(p, "GET", `/stream/listings/${listing.id}/chunks?limit=2&cursor=${first.nextCursor}`));
    expect(rest.items.map((i: any) => i.chunkId)).toEqual([chunks[2]!.manifest.chunkId]);
    expectMarketsError(await api(p, "GET", `/stream/listings/${listing.id}/chunks?cursor=abc`), 400, "VALIDATION_ERROR");
  });
});
