/**
 * Stream seller writes and their `stream.*` audit events commit in one transaction: with a failure injected after
 * both were written (MarketsStore.beforeCommit) the request answers 500 and neither exists; without it, both do.
 * Also: the same operations over GraphQL on the gateway (the shim maps REST onto them) with the same codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signEnvelope } from "../../../subgraphs/markets/stream/index.js";
import { graphql } from "../../support/platform.js";
import {
  api, buildChunks, createSeller, expectMarketsError, expectOk, marketsServices, PLATFORM_START_TIMEOUT_MS, postChunk, prismaOf,
  publishChunks, putChunkData, registerSigningKey, sellerBody, sellerHeaders, signingKey, startMarketsPlatform,
  type HttpAnswer, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let policyId: string;
beforeAll(async () => {
  p = await startMarketsPlatform();
  seller = await createSeller(p, 0);
  policyId = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, { name: "p", topicRules: [], buffer: {}, payload: {}, destinations: [] }, sellerHeaders(seller)), 201).item.id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const snapshot = async () => {
  const prisma = prismaOf(p);
  return {
    keys: await prisma.streamSigningKey.findMany({ orderBy: { id: "asc" } }),
    policies: await prisma.streamPolicy.findMany({ orderBy: { id: "asc" } }),
    events: await prisma.streamEvent.findMany({ orderBy: { id: "asc" } }),
    chunks: await prisma.streamChunk.findMany({ orderBy: { chunkId: "asc" } }),
    listings: await prisma.streamListing.findMany({ orderBy: { id: "asc" } }),
    services: await prisma.marketsService.count(),
    agents: await prisma.marketMachineAgent.findMany({ orderBy: { id: "asc" } }),
    audit: await prisma.marketAuditEvent.findMany({ orderBy: { id: "asc" } }),
  };
};

let seq = 0;
const CASES: Array<{ kind: string; ok: number; request(): Promise<() => Promise<HttpAnswer | { status: number; text: string; json(): any }>> }> = [
  { kind: "stream.signing-key.registered", ok: 201, request: async () => () => registerSigningKey(p, seller, `k-${++seq}`, signingKey("x", "k").publicKeyHex) },
  { kind: "stream.policy.created", ok: 201, request: async () => () => api(p, "POST", `/machines/${seller.machineId}/stream/policies`, { name: "q", topicRules: [], buffer: {}, payload: {}, destinations: [] }, sellerHeaders(seller)) },
  { kind: "stream.policy.updated", ok: 200, request: async () => () => api(p, "PATCH", `/machines/${seller.machineId}/stream/policies/${policyId}`, { name: "r" }, sellerHeaders(seller)) },
  { kind: "stream.heartbeat", ok: 200, request: async () => () => api(p, "POST", "/stream/heartbeat", sellerBody(seller)) },
  {
    kind: "stream.event.received",
    ok: 201,
    request: async () => {
      const now = new Date().toISOString();
      const envelope = signEnvelope({ machineId: seller.machineId, agentId: seller.agentId, identityRef: seller.identityRef, topic: "/t", messageType: "m", policyId, policyVersion: 1, sequenceNumber: ++seq, timestamps: { sourceTimestamp: now, agentReceivedAt: now, signedAt: now } }, { n: seq }, seller.signer);
      return () => api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope });
    },
  },
  { kind: "stream.chunk.registered", ok: 201, request: async () => { const [c] = buildChunks(seller, 1); return () => postChunk(p, seller, c!.manifest); } },
  {
    kind: "stream.chunk.stored",
    ok: 200,
    request: async () => {
      const [c] = buildChunks(seller, 1);
      expectOk(await postChunk(p, seller, c!.manifest), 201);
      return async () => {
        const answer = await putChunkData(p, seller, c!.manifest.chunkId, c!.ciphertext);
        return { status: answer.status, text: JSON.stringify(answer.json), json: () => answer.json };
      };
    },
  },
  {
    kind: "stream.listing.created",
    ok: 201,
    request: async () => {
      const chunks = buildChunks(seller, 1);
      await publishChunks(p, seller, chunks);
      return () => api(p, "POST", `/machines/${seller.machineId}/stream/listings`, { title: "t", chunkIds: [chunks[0]!.manifest.chunkId], price: { amount: "1", currency: "USD" } }, sellerHeaders(seller));
    },
  },
  {
    kind: "stream.listing.deactivated",
    ok: 200,
    request: async () => {
      const id = await newListing();
      return () => api(p, "POST", `/machines/${seller.machineId}/stream/listings/${id}/deactivate`, {}, sellerHeaders(seller));
    },
  },
  {
    kind: "stream.listing.reactivated",
    ok: 200,
    request: async () => {
      const id = await newListing();
      expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/listings/${id}/deactivate`, {}, sellerHeaders(seller)));
      return () => api(p, "POST", `/machines/${seller.machineId}/stream/listings/${id}/reactivate`, {}, sellerHeaders(seller));
    },
  },
  {
    kind: "stream.signing-key.revoked",
    ok: 200,
    request: async () => {
      const keyId = `k-${++seq}`;
      expectOk(await registerSigningKey(p, seller, keyId, signingKey("x", keyId).publicKeyHex), 201);
      return () => api(p, "POST", `/machines/${seller.machineId}/stream/signing-keys/${keyId}/revoke`, {}, sellerHeaders(seller));
    },
  },
];

/** A listing of one fresh stored chunk: its ID. */
async function newListing(): Promise<string> {
  const chunks = buildChunks(seller, 1);
  await publishChunks(p, seller, chunks);
  const body = { title: "t", chunkIds: [chunks[0]!.manifest.chunkId], price: { amount: "1", currency: "USD" } };
  return expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/listings`, body, sellerHeaders(seller)), 201).item.id;
}

describe("stream writes and their audit events are atomic", () => {
  it.each(CASES.map((c) => [c.kind, c] as const))("%s", async (kind, c) => {
    const store = marketsServices(p).store;
    const send = await c.request();
    const before = await snapshot();
    store.beforeCommit = () => {
      throw new Error("injected failure before commit");
    };
    try {
      const failed = await send();
      expect(failed.status).toBe(500);
      expect(failed.json().error.code).toBe("INTERNAL_ERROR");
    } finally {
      store.beforeCommit = null;
    }
    expect(await snapshot()).toEqual(before);
    const answer = await send();
    expect(answer.status, answer.text).toBe(c.ok);
    const events = (await snapshot()).audit.slice(before.audit.length);
    expect(events.map((e) => e.kind)).toEqual([kind]);
  });
});

describe("GraphQL on the gateway", () => {
  it("the same operations, the same codes", async () => {
    const listed = await graphql(p.graphql, `query { streamListings(limit: 5) { items { id } nextCursor } }`);
    expect(listed.body.errors).toBeUndefined();
    const denied = await graphql(p.graphql, `mutation($m: String!) { registerStreamSigningKey(machineId: $m, keyId: "k", publicKeyHex: "${"a".repeat(64)}") { created } }`, { m: seller.machineId });
    expect(denied.body.errors?.[0]?.extensions?.code).toBe("AGENT_AUTH_REQUIRED");
    const [c] = buildChunks(seller, 1);
    const registered = await graphql(
      p.graphql,
      `mutation($m: String!, $a: String, $t: String, $manifest: JSONObject!) { registerStreamChunk(machineId: $m, agentId: $a, agentToken: $t, manifest: $manifest) { created chunk { chunkId stored } } }`,
      { m: seller.machineId, a: seller.agentId, t: seller.agentToken, manifest: c!.manifest },
    );
    expect(registered.body.data?.registerStreamChunk).toEqual({ created: true, chunk: { chunkId: c!.manifest.chunkId, stored: false } });
    const download = await graphql(p.graphql, `query($c: String!) { streamChunkDownload(chunkId: $c) { storageRef } }`, { c: c!.manifest.chunkId });
    expect(download.body.errors?.[0]?.extensions?.code).toBe("DELIVERY_TOKEN_REQUIRED");
    expectMarketsError(await api(p, "GET", `/stream/chunks/${encodeURIComponent(c!.manifest.chunkId)}/data`), 401, "DELIVERY_TOKEN_REQUIRED");
  });
});
