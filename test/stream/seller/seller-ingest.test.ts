/**
 * Seller ingest over the real routes (public notes 3.3): signing keys, policies (version bump), stream
 * heartbeat, events and batches (envelope verified against a registered key; duplicate sequence idempotent), chain
 * receipts, buyer access upload and read. Every refusal leaves the state unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuyerAccess, signEnvelope, type EncryptedChunk } from "../../../subgraphs/markets/stream/index.js";
import {
  api, buildChunks, buyerKeys, createSeller, enrollAgent, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, postChunk, prismaOf,
  registerSigningKey, sellerBody, sellerHeaders, signingKey, startMarketsPlatform, type MarketsPlatform, type StreamSeller,
} from "../helpers.js";

let p: MarketsPlatform;
let seller: StreamSeller;
let other: StreamSeller;
let policy: any;
beforeAll(async () => {
  p = await startMarketsPlatform();
  seller = await createSeller(p, 0);
  other = await createSeller(p, 1);
  policy = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, policyBody(), sellerHeaders(seller)), 201).item;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const state = async () => ({
  keys: await prismaOf(p).streamSigningKey.findMany({ orderBy: { id: "asc" } }),
  policies: await prismaOf(p).streamPolicy.findMany({ orderBy: { id: "asc" } }),
  events: await prismaOf(p).streamEvent.findMany({ orderBy: { id: "asc" } }),
  access: await prismaOf(p).streamBuyerAccess.findMany({ orderBy: { id: "asc" } }),
  audit: await prismaOf(p).marketAuditEvent.count(),
});
const lastEvent = () => prismaOf(p).marketAuditEvent.findFirst({ orderBy: { id: "desc" } });

function policyBody(extra: Record<string, unknown> = {}) {
  return {
    name: "front camera",
    topicRules: [{ topic: "/camera", messageType: "sensor_msgs/Image", qosPreset: "sensor_data", depth: 10, fieldRules: [{ path: "data", action: "encrypt", publicKeyHex: "a".repeat(64) }] }],
    buffer: { maxMessages: 100 },
    payload: { mode: "inline" },
    destinations: [{ type: "platform" }],
    ...extra,
  };
}

let sequence = 0;
function envelope(s: StreamSeller = seller, extra: Record<string, unknown> = {}, payload: unknown = { v: sequence }) {
  const now = new Date().toISOString();
  return signEnvelope(
    {
      machineId: s.machineId, agentId: s.agentId, identityRef: s.identityRef, topic: "/camera", messageType: "sensor_msgs/Image",
      policyId: policy.id, policyVersion: policy.version, sequenceNumber: ++sequence,
      timestamps: { sourceTimestamp: now, agentReceivedAt: now, signedAt: now }, ...extra,
    } as never,
    payload,
    s.signer,
  );
}

describe("POST /machines/:machineId/stream/signing-keys", () => {
  it("201 registers; the same key again 200; another key under the keyId 409 SIGNING_KEY_EXISTS", async () => {
    const { publicKeyHex } = signingKey(seller.identityRef, "k2");
    const created = expectOk(await registerSigningKey(p, seller, "k2", publicKeyHex), 201).item;
    expect(created).toMatchObject({ machineId: seller.machineId, agentId: seller.agentId, keyId: "k2", algorithm: "ed25519", publicKeyHex, status: "active" });
    expect((await lastEvent())?.kind).toBe("stream.signing-key.registered");
    expect(expectOk(await registerSigningKey(p, seller, "k2", publicKeyHex), 200).item).toEqual(created);
    const before = await state();
    expectMarketsError(await registerSigningKey(p, seller, "k2", signingKey("x", "k2").publicKeyHex), 409, "SIGNING_KEY_EXISTS");
    expect(await state()).toEqual(before);
    // The keyId is per machine: another machine may use it.
    expectOk(await registerSigningKey(p, other, "k2", signingKey("x", "k2").publicKeyHex), 201);
  });

  it.each([
    ["a bad keyId", "has space", "a".repeat(64)],
    ["an uppercase key", "k3", "A".repeat(64)],
    ["a short key", "k3", "a".repeat(62)],
  ])("400 VALIDATION_ERROR for %s, nothing written", async (_name, keyId, hex) => {
    const before = await state();
    expectMarketsError(await registerSigningKey(p, seller, keyId, hex), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
  });
});

describe("stream policies", () => {
  it("create 201 at version 1; list; PATCH bumps version each time; audit events", async () => {
    expect(policy).toMatchObject({ machineId: seller.machineId, name: "front camera", status: "active", version: 1 });
    const listed = expectOk(await api(p, "GET", `/machines/${seller.machineId}/stream/policies`, undefined, sellerHeaders(seller))).items;
    expect(listed.map((x: any) => x.id)).toContain(policy.id);
    const created = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, policyBody({ name: "temp" }), sellerHeaders(seller)), 201).item;
    const patched = expectOk(await api(p, "PATCH", `/machines/${seller.machineId}/stream/policies/${created.id}`, { status: "paused" }, sellerHeaders(seller))).item;
    expect([patched.version, patched.status, patched.name]).toEqual([2, "paused", "temp"]);
    expect((await lastEvent())?.kind).toBe("stream.policy.updated");
    const again = expectOk(await api(p, "PATCH", `/machines/${seller.machineId}/stream/policies/${created.id}`, { name: "renamed" }, sellerHeaders(seller))).item;
    expect([again.version, again.name]).toEqual([3, "renamed"]);
  });

  it("refusals change nothing: bad values 400, another machine's policy 404, no credentials 401", async () => {
    const before = await state();
    const post = (body: unknown) => api(p, "POST", `/machines/${seller.machineId}/stream/policies`, body, sellerHeaders(seller));
    expectMarketsError(await post(policyBody({ status: "on" })), 400, "VALIDATION_ERROR");
    expectMarketsError(await post(policyBody({ topicRules: [{ topic: "/x", messageType: "m", qosPreset: "fast" }] })), 400, "VALIDATION_ERROR");
    expectMarketsError(await post(policyBody({ topicRules: [{ topic: "/x", messageType: "m", qosPreset: "default", fieldRules: [{ path: "a", action: "encrypt" }] }] })), 400, "VALIDATION_ERROR");
    expectMarketsError(await post({ name: "no rules" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "PATCH", `/machines/${other.machineId}/stream/policies/${policy.id}`, { name: "x" }, sellerHeaders(other)), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, policyBody()), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await api(p, "GET", `/machines/${seller.machineId}/stream/policies`), 401, "AGENT_AUTH_REQUIRED");
    expect(await state()).toEqual(before);
  });
});

describe("POST /stream/heartbeat", () => {
  it("200: the agent active with lastSeenAt, the policy version echoed; audit event", async () => {
    const item = expectOk(await api(p, "POST", "/stream/heartbeat", { ...sellerBody(seller), policyId: policy.id })).item;
    expect(item).toMatchObject({ machineId: seller.machineId, agentId: seller.agentId, policyId: policy.id, policyVersion: 1 });
    const agent = await prismaOf(p).marketMachineAgent.findUniqueOrThrow({ where: { id: seller.agentId } });
    expect([agent.status, agent.lastSeenAt?.toISOString()]).toEqual(["active", item.receivedAt]);
    expect((await lastEvent())?.kind).toBe("stream.heartbeat");
  });

  it("unknown policy 404; paused policy 409 STREAM_POLICY_INACTIVE; revoked agent 409 AGENT_PAIRING_INACTIVE", async () => {
    const paused = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, policyBody({ status: "paused" }), sellerHeaders(seller)), 201).item;
    const revoked = await enrollAgent(p, seller.machineId);
    expectOk(await api(p, "POST", `/machines/${seller.machineId}/agents/${revoked.agentId}/revoke`));
    const before = await state();
    expectMarketsError(await api(p, "POST", "/stream/heartbeat", { ...sellerBody(seller), policyId: "spol_000000000000000000000000" }), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "POST", "/stream/heartbeat", { ...sellerBody(seller), policyId: paused.id }), 409, "STREAM_POLICY_INACTIVE");
    expectMarketsError(await api(p, "POST", "/stream/heartbeat", { machineId: seller.machineId, ...revoked }), 409, "AGENT_PAIRING_INACTIVE");
    expect(await state()).toEqual(before);
  });
});

describe("POST /stream/events and /stream/events/batch", () => {
  it("201 a receipt; the same sequence and payload again 200 the same receipt; another payload 409", async () => {
    const signed = envelope();
    const answer = await api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope: signed });
    const receipt = expectOk(answer, 201).item;
    expect(receipt).toMatchObject({ machineId: seller.machineId, agentId: seller.agentId, payloadHash: signed.payloadHash, policyId: policy.id, policyVersion: 1, sequenceNumber: signed.sequenceNumber, chainReceipt: null });
    expect((await lastEvent())?.kind).toBe("stream.event.received");
    expect(expectOk(await api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope: signed }), 200).item).toEqual(receipt);
    const before = await state();
    const conflicting = envelope(seller, { sequenceNumber: signed.sequenceNumber }, { v: "other" });
    expectMarketsError(await api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope: conflicting }), 409, "EVENT_SEQUENCE_CONFLICT");
    expect(await state()).toEqual(before);
  });

  it("tampered envelopes are refused with their codes, nothing written", async () => {
    const signed = envelope();
    const unregistered = signEnvelope({ ...(({ signature: _s, schemaVersion: _v, payloadHash: _h, payloadRef: _r, payload: _p, ...rest }) => rest)(envelope()) } as never, { v: 1 }, signingKey("x", "ghost").signer);
    const before = await state();
    const send = (e: unknown) => api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope: e });
    expectMarketsError(await send({ ...signed, payload: { v: "changed" } }), 400, "ENVELOPE_PAYLOAD_HASH_MISMATCH");
    expectMarketsError(await send({ ...signed, topic: "/other" }), 400, "ENVELOPE_SIGNATURE_INVALID");
    expectMarketsError(await send({ ...signed, schemaVersion: "v0" }), 400, "ENVELOPE_MALFORMED");
    expectMarketsError(await send(unregistered), 400, "SIGNER_UNKNOWN");
    expectMarketsError(await send(envelope(seller, { policyId: "spol_000000000000000000000000" })), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "POST", "/stream/events", { agentId: other.agentId, agentToken: seller.agentToken, envelope: signed }), 400, "ENVELOPE_MALFORMED");
    expectMarketsError(await api(p, "POST", "/stream/events", { machineId: other.machineId, agentToken: seller.agentToken, envelope: signed }), 400, "ENVELOPE_MALFORMED");
    expectMarketsError(await api(p, "POST", "/stream/events", { envelope: signed }), 401, "AGENT_AUTH_REQUIRED");
    expectMarketsError(await api(p, "POST", "/stream/events", { agentToken: other.agentToken, envelope: signed }), 401, "AGENT_AUTH_INVALID");
    expect(await state()).toEqual(before);
  });

  it("batch: 201 every receipt; one bad envelope refuses the whole batch", async () => {
    const good = [envelope(), envelope()];
    const items = expectOk(await api(p, "POST", "/stream/events/batch", { agentToken: seller.agentToken, items: good }), 201).items;
    expect(items.map((r: any) => r.payloadHash)).toEqual(good.map((e) => e.payloadHash));
    const before = await state();
    const bad = [envelope(), { ...envelope(), topic: "/tampered" }];
    expectMarketsError(await api(p, "POST", "/stream/events/batch", { agentToken: seller.agentToken, items: bad }), 400, "ENVELOPE_SIGNATURE_INVALID");
    expectMarketsError(await api(p, "POST", "/stream/events/batch", { agentToken: seller.agentToken, items: [] }), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
  });
});

describe("PATCH /stream/events/:receiptId/chain-receipt", () => {
  it("200 records it once; the same again 200; another 409 CHAIN_RECEIPT_EXISTS; bad hashes 400", async () => {
    const receipt = expectOk(await api(p, "POST", "/stream/events", { agentToken: seller.agentToken, envelope: envelope() }), 201).item;
    const body = { ...sellerBody(seller), txHash: `0x${"ab".repeat(32)}`, dataHash: receipt.payloadHash };
    const path = `/stream/events/${receipt.id}/chain-receipt`;
    const item = expectOk(await api(p, "PATCH", path, body)).item;
    expect(item.chainReceipt).toMatchObject({ txHash: body.txHash, dataHash: body.dataHash });
    expect((await lastEvent())?.kind).toBe("stream.event.chain-receipt");
    expect(expectOk(await api(p, "PATCH", path, body)).item).toEqual(item);
    const before = await state();
    expectMarketsError(await api(p, "PATCH", path, { ...body, txHash: `0x${"cd".repeat(32)}` }), 409, "CHAIN_RECEIPT_EXISTS");
    expectMarketsError(await api(p, "PATCH", path, { ...body, txHash: "0x12" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await api(p, "PATCH", path, { ...sellerBody(other), txHash: body.txHash, dataHash: body.dataHash }), 404, "NOT_FOUND");
    expect(await state()).toEqual(before);
  });
});

describe("buyer access", () => {
  let chunk: EncryptedChunk;
  beforeAll(async () => {
    [chunk] = buildChunks(seller, 1) as [EncryptedChunk];
    expectOk(await postChunk(p, seller, chunk.manifest), 201);
  });

  it("POST 201, same again 200, GET by buyer; a re-wrap replaces the wrapped key", async () => {
    const buyer = buyerKeys();
    const access = createBuyerAccess(chunk.manifest, seller.boxSecretKey, { recipientId: "buyer-7", publicKey: buyer.publicKey });
    const created = expectOk(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(seller), access }), 201).item;
    expect(created).toMatchObject({ chunkId: chunk.manifest.chunkId, buyerId: "buyer-7", publicKeyHex: buyer.publicKeyHex, access });
    expect((await lastEvent())?.kind).toBe("stream.buyer-access.created");
    expect(expectOk(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(seller), access }), 200).item).toEqual(created);
    const read = expectOk(await api(p, "GET", `/stream/chunks/${encodeURIComponent(chunk.manifest.chunkId)}/buyer-access?buyerId=buyer-7`)).items;
    expect(read).toEqual([created]);
    const rewrap = createBuyerAccess(chunk.manifest, seller.boxSecretKey, { recipientId: "buyer-7", publicKey: buyer.publicKey });
    expect(expectOk(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(seller), access: rewrap }), 200).item.access).toEqual(rewrap);
    expect(expectOk(await api(p, "GET", `/stream/chunks/${encodeURIComponent(chunk.manifest.chunkId)}/buyer-access?buyerId=nobody`)).items).toEqual([]);
  });

  it("refusals change nothing: malformed 400 ACCESS_MALFORMED, another machine's chunk 404, no buyerId 400", async () => {
    const buyer = buyerKeys();
    const access = createBuyerAccess(chunk.manifest, seller.boxSecretKey, { recipientId: "buyer-8", publicKey: buyer.publicKey });
    const before = await state();
    expectMarketsError(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(seller), access: { ...access, extra: 1 } }), 400, "ACCESS_MALFORMED");
    expectMarketsError(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(seller), access: { ...access, buyer: { ...access.buyer, recipientType: "owner" } } }), 400, "ACCESS_MALFORMED");
    expectMarketsError(await api(p, "POST", "/stream/buyer-access", { ...sellerBody(other), access }), 404, "NOT_FOUND");
    expectMarketsError(await api(p, "GET", `/stream/chunks/${encodeURIComponent(chunk.manifest.chunkId)}/buyer-access`), 400, "VALIDATION_ERROR");
    expect(await state()).toEqual(before);
  });
});
