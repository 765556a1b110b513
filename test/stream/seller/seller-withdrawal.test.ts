/**
 * Withdrawal by the seller's machine agent over the real routes (REST and GraphQL): a listing deactivated (out of the
 * listings unless includeInactive, out of the service catalogue, orders and purchases refused with their codes) and
 * reactivated; a signing key revoked (no new chunk under it: SIGNING_KEY_REVOKED; chunks registered before stay
 * valid, and `cli stream verify` refuses only a chunk registered after its key's revocation). Every refusal leaves the
 * rows and the audit log as they were.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import { runCli } from "../../support/cli.js";
import { writeSellerFile } from "../cli/cli-helpers.js";
import {
  api, buildChunks, createListing, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, postChunk, prismaOf, publishChunks, registerSigningKey,
  sellerHeaders, signingKey, startMarketsPlatform, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";
import { buyerCall, createMarket, createSeller, purchaseBody, type Market } from "../purchases/purchases-helpers.js";

let p: MarketsPlatform;
let m: Market;
let seller: StreamSeller;
let other: StreamSeller;
beforeAll(async () => {
  p = await startMarketsPlatform();
  m = await createMarket(p, 0, 2, p.demo.payments!.agents[0].privateKey);
  seller = m.seller;
  other = await createSeller(p, 1);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => {
  const prisma = prismaOf(p);
  return {
    listings: await prisma.streamListing.findMany({ orderBy: { id: "asc" } }),
    services: await prisma.marketsService.count(),
    keys: await prisma.streamSigningKey.findMany({ orderBy: { id: "asc" } }),
    chunks: await prisma.streamChunk.count(),
    orders: await prisma.streamOrder.count(),
    purchases: await prisma.streamPurchase.count(),
    audit: await prisma.marketAuditEvent.count(),
  };
};
const setListing = (action: string, listingId = m.listingId, machineId = seller.machineId, headers: Record<string, string> = sellerHeaders(seller)) =>
  api(p, "POST", `/machines/${machineId}/stream/listings/${listingId}/${action}`, {}, headers);
const listedIds = async (query = "") => expectOk(await api(p, "GET", `/stream/listings?machineId=${seller.machineId}${query}`)).items.map((l: any) => l.id);
// The payer an order binds at creation (the orders here are created, not paid).
const orderBody = () => ({ listingId: m.listingId, buyerId: "buyer-withdrawal", buyerPublicKeyHex: m.buyer.publicKeyHex, payerAddress: `0x${"b0".repeat(20)}` });
const lastEvent = (kind: string) => prismaOf(p).marketAuditEvent.findFirst({ where: { kind }, orderBy: { id: "desc" } });

describe("listing deactivation and reactivation", () => {
  it("deactivate: inactive, out of the listings and the catalogue, orders and purchases refused; reactivate brings it back", async () => {
    const serviceId = `svc_stream_${m.listingId}`;
    const item = expectOk(await setListing("deactivate")).item;
    expect(item).toMatchObject({ id: m.listingId, status: "inactive", serviceId });
    expect(await prismaOf(p).marketsService.findUnique({ where: { id: serviceId } })).toBeNull();
    expect(JSON.stringify(expectOk(await api(p, "GET", "/market/services?skillKey=stream-data-listing")))).not.toContain(m.listingId);
    expect((await lastEvent("stream.listing.deactivated"))?.data).toMatchObject({ listingId: m.listingId, before: { status: "active" }, after: { status: "inactive" } });
    expect(await listedIds()).not.toContain(m.listingId);
    expect(await listedIds("&includeInactive=true")).toContain(m.listingId);
    expect(expectOk(await api(p, "GET", `/stream/listings/${m.listingId}`)).item.status).toBe("inactive");

    const before = await state();
    expectMarketsError(await api(p, "POST", "/stream/orders", orderBody()), 409, "STREAM_LISTING_INACTIVE");
    expectMarketsError(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 409, "PURCHASE_LISTING_INACTIVE");
    // Again: the same listing, no new event.
    expect(expectOk(await setListing("deactivate")).item.status).toBe("inactive");
    expect(await state()).toEqual(before);

    const back = expectOk(await setListing("reactivate")).item;
    expect(back).toMatchObject({ status: "active", serviceId });
    expect(await prismaOf(p).marketsService.findUnique({ where: { id: serviceId } })).toMatchObject({ skillKey: "stream-data-listing", serviceType: "data.stream" });
    expect((await lastEvent("stream.listing.reactivated"))?.data).toMatchObject({ listingId: m.listingId, before: { status: "inactive" }, after: { status: "active" } });
    expect(await listedIds()).toContain(m.listingId);
    const audit = await prismaOf(p).marketAuditEvent.count();
    expect(expectOk(await setListing("reactivate")).item.status).toBe("active");
    expect(await prismaOf(p).marketAuditEvent.count()).toBe(audit);
    expectOk(await api(p, "POST", "/stream/orders", orderBody()), 201);
    expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 201);
  });

  it("refusals: no credential, another machine's agent, another machine's or an unknown listing; nothing changes", async () => {
    const before = await state();
    for (const action of ["deactivate", "reactivate"]) {
      expectMarketsError(await setListing(action, m.listingId, seller.machineId, {}), 401, "AGENT_AUTH_REQUIRED");
      expectMarketsError(await setListing(action, m.listingId, seller.machineId, sellerHeaders(other)), 401, "AGENT_AUTH_INVALID");
      expectMarketsError(await setListing(action, m.listingId, other.machineId, sellerHeaders(other)), 404, "NOT_FOUND");
      expectMarketsError(await setListing(action, "slst_000000000000000000000000"), 404, "NOT_FOUND");
      expectMarketsError(await setListing(action, "nope"), 404, "NOT_FOUND");
    }
    expect(await state()).toEqual(before);
  });

  it("GraphQL: deactivateStreamListing and reactivateStreamListing with the agent's credential, refused without it", async () => {
    const doc = (name: string) => `mutation($m: String!, $l: String!, $a: String, $t: String) {
      ${name}(machineId: $m, listingId: $l, agentId: $a, agentToken: $t) { id status } }`;
    const vars = { m: seller.machineId, l: m.listingId, a: seller.agentId, t: seller.agentToken };
    const before = await state();
    const refused = await graphql(p.graphql, doc("deactivateStreamListing"), { ...vars, a: null, t: null });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("AGENT_AUTH_REQUIRED");
    expect(await state()).toEqual(before);
    const off = await graphql(p.graphql, doc("deactivateStreamListing"), vars);
    expect(off.body.data.deactivateStreamListing).toEqual({ id: m.listingId, status: "INACTIVE" });
    const on = await graphql(p.graphql, doc("reactivateStreamListing"), vars);
    expect(on.body.data.reactivateStreamListing).toEqual({ id: m.listingId, status: "ACTIVE" });
  });
});

describe("signing key revocation", () => {
  const revoke = (keyId: string, machineId = seller.machineId, headers: Record<string, string> = sellerHeaders(seller)) =>
    api(p, "POST", `/machines/${machineId}/stream/signing-keys/${encodeURIComponent(keyId)}/revoke`, {}, headers);

  it("refusals: no credential, another machine's agent, an unknown key or another machine's key; nothing changes", async () => {
    const before = await state();
    expectMarketsError(await revoke(seller.signer.keyId, seller.machineId, {}), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await revoke(seller.signer.keyId, seller.machineId, sellerHeaders(other)), 401, "AGENT_AUTH_INVALID");
    expectMarketsError(await revoke("no-such-key"), 404, "NOT_FOUND");
    expectMarketsError(await revoke(other.signer.keyId), 404, "NOT_FOUND");
    expect(await state()).toEqual(before);
  });

  it("revoked: no new chunk under it (SIGNING_KEY_REVOKED), earlier chunks stay valid; verify refuses only a chunk registered after", async () => {
    // Two chunks under the seller's key, registered and stored before the revocation.
    const early = buildChunks(seller, 2);
    await publishChunks(p, seller, early);
    const item = expectOk(await revoke(seller.signer.keyId)).item;
    expect(item).toMatchObject({ keyId: seller.signer.keyId, status: "revoked" });
    expect(Date.parse(item.revokedAt)).toBeGreaterThan(0);
    expect((await lastEvent("stream.signing-key.revoked"))?.data).toMatchObject({ keyId: seller.signer.keyId, after: { status: "revoked" } });

    // A new chunk signed by the revoked key is refused, nothing stored; the same earlier manifest answers its chunk.
    const before = await state();
    const [late] = buildChunks(seller, 1, 64, early[1]!.manifest);
    expectMarketsError(await postChunk(p, seller, late!.manifest), 409, "SIGNING_KEY_REVOKED");
    expectMarketsError(await registerSigningKey(p, seller, seller.signer.keyId, seller.publicKeyHex), 409, "SIGNING_KEY_EXISTS");
    expect(expectOk(await revoke(seller.signer.keyId)).item.revokedAt).toBe(item.revokedAt);
    expect(await state()).toEqual(before);
    expectOk(await postChunk(p, seller, early[0]!.manifest), 200);

    // The chain continues under a new key; a listing mixing both keys verifies.
    const fresh = signingKey(seller.identityRef, "key-0-2");
    expectOk(await registerSigningKey(p, seller, fresh.signer.keyId, fresh.publicKeyHex), 201);
    const next = { ...seller, signer: fresh.signer, publicKeyHex: fresh.publicKeyHex };
    const [third] = buildChunks(next, 1, 64, early[1]!.manifest);
    await publishChunks(p, next, [third!]);
    const chunkIds = [...early, third!].map((c) => c.manifest.chunkId);
    const listing = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/listings`, {
      title: "across a key rotation", chunkIds, price: { amount: "1", currency: "USD" },
    }, sellerHeaders(seller)), 201).item;
    const page = expectOk(await api(p, "GET", `/stream/listings/${listing.id}/chunks`));
    expect(page.signingKeys.map((k: any) => [k.keyId, k.status])).toEqual([[seller.signer.keyId, "revoked"], ["key-0-2", "active"]]);
    expect(page.items.every((i: any) => Date.parse(i.registeredAt) > 0)).toBe(true);
    const cli = (args: string[]) => runCli(p, ["stream", ...args, "--api", p.markets]);
    const ok = await cli(["verify", listing.id]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout.trim().split("\n").at(-1)!)).toMatchObject({ verified: true, chunks: 3, signers: [seller.signer.keyId, "key-0-2"] });

    // A record whose revocation predates the second chunk's registration: verify names that chunk.
    const prisma = prismaOf(p);
    const second = await prisma.streamChunk.findUniqueOrThrow({ where: { chunkId: chunkIds[1]! } });
    const key = await prisma.streamSigningKey.findFirstOrThrow({ where: { machineId: seller.machineId, keyId: seller.signer.keyId } });
    await prisma.streamSigningKey.update({ where: { id: key.id }, data: { revokedAt: second.createdAt } });
    try {
      const refused = await cli(["verify", listing.id]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused before payment: SIGNING_KEY_REVOKED at chunk 1: /);
    } finally {
      await prisma.streamSigningKey.update({ where: { id: key.id }, data: { revokedAt: key.revokedAt } });
    }
  });

  it("GraphQL and the CLI: revokeStreamSigningKey, `cli stream revoke-key`, `cli stream deactivate|reactivate`", async () => {
    const extra = signingKey(other.identityRef, "key-1-extra");
    expectOk(await registerSigningKey(p, other, extra.signer.keyId, extra.publicKeyHex), 201);
    const doc = `mutation($m: String!, $k: String!, $a: String, $t: String) {
      revokeStreamSigningKey(machineId: $m, keyId: $k, agentId: $a, agentToken: $t) { keyId status revokedAt } }`;
    const refused = await graphql(p.graphql, doc, { m: other.machineId, k: extra.signer.keyId, a: seller.agentId, t: seller.agentToken });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("AGENT_AUTH_INVALID");
    const done = await graphql(p.graphql, doc, { m: other.machineId, k: extra.signer.keyId, a: other.agentId, t: other.agentToken });
    expect(done.body.data.revokeStreamSigningKey).toMatchObject({ keyId: extra.signer.keyId, status: "REVOKED" });

    const file = `${p.dataDir}/withdrawal-seller.json`;
    await writeSellerFile(file, other);
    const cli = (args: string[]) => runCli(p, ["stream", ...args, "--seller", file, "--api", p.markets]);
    const { listing } = await createListing(p, other, 1);
    const off = await cli(["deactivate", listing.id]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ step: "deactivate", listingId: listing.id, status: "inactive" });
    const on = await cli(["reactivate", listing.id]);
    expect(JSON.parse(on.stdout)).toMatchObject({ step: "reactivate", status: "active" });
    const missing = await cli(["deactivate", "slst_000000000000000000000000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("404 NOT_FOUND");
    const revoked = await cli(["revoke-key"]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ step: "revoke-key", keyId: other.signer.keyId, status: "revoked", sellerFileKeyDropped: true });
    // The seller file lost the revoked key: the next publish registers a new one and its chunks are accepted.
    const saved = JSON.parse(await readFile(file, "utf8"));
    expect([saved.keyId, saved.signingSecretKeyHex, saved.signingKeyRegistered]).toEqual([undefined, undefined, false]);
    await mkdir(`${p.dataDir}/withdrawal-data`, { recursive: true });
    await writeFile(`${p.dataDir}/withdrawal-data/a.bin`, Buffer.alloc(2000, 7));
    const published = await cli(["publish", `${p.dataDir}/withdrawal-data`, "--title", "after rotation", "--price", "1", "--chunk-size", "1024"]);
    expect(published.code, published.stderr).toBe(0);
    const keys = await prismaOf(p).streamSigningKey.findMany({ where: { machineId: other.machineId }, orderBy: { createdAt: "asc" } });
    expect(keys.map((k) => k.status)).toEqual(["revoked", "revoked", "active"]);
  });
});
