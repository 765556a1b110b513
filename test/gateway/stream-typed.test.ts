/**
 * The stream marketplace's typed fields through the gateway: a stream order answers its status as the
 * `StreamOrderStatus` enum (UPPER_CASE), its instants as `DateTime`, and its payment deadline `paymentDueAt`
 * (createdAt + STREAM_ORDER_PAYMENT_TTL_SECONDS); the REST routes keep their spellings (`payment_pending`) and GET
 * of the order carries the same deadline. Real sockets, real database, real chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspectServedSchema, sdlType, typeFields as fields } from "../support/served-schema.js";
import { graphql } from "../support/platform.js";
import {
  accessFor,
  api,
  createStreamOrder,
  expectOk,
  newBuyer,
  getDelivery,
  orderSeller,
  paidOrder,
  payStreamOrder,
  PLATFORM_START_TIMEOUT_MS,
  prepareAccess,
  prismaOf,
  seedListing,
  sellerHeaders,
  startMarketsPlatform,
  transferToPayee,
  type MarketsPlatform,
  type SeededListing,
  type StreamSeller,
} from "../stream/orders/orders-helpers.js";

const ORDER_TTL_SECONDS = 900;

const ORDER = `query ($id: String!) { streamOrder(orderId: $id) {
  id status price { amount currency } paidAt createdAt updatedAt paymentDueAt
} }`;

describe("stream orders: typed fields through the gateway", () => {
  let p: MarketsPlatform;
  let listing: SeededListing;

  beforeAll(async () => {
    p = await startMarketsPlatform({ STREAM_ORDER_PAYMENT_TTL_SECONDS: String(ORDER_TTL_SECONDS) });
    listing = await seedListing(p, await orderSeller(p, 0), { count: 2, amount: "0.5" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  async function order(id: string) {
    const { status, body } = await graphql(p.graphql, ORDER, { id });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    return body.data.streamOrder;
  }

  it("an unpaid order: PAYMENT_PENDING, DateTime instants, paymentDueAt = createdAt + TTL on GraphQL and REST", async () => {
    const buyer = newBuyer();
    const created = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    expect(created.status).toBe("payment_pending");
    expect(created).not.toHaveProperty("paymentDueAt");

    const row = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: created.id } });
    const due = new Date(row.createdAt.getTime() + ORDER_TTL_SECONDS * 1000).toISOString();
    expect(await order(created.id)).toEqual({
      id: created.id,
      status: "PAYMENT_PENDING",
      price: { amount: "0.5", currency: "USD" },
      paidAt: null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      paymentDueAt: due,
    });

    const read = expectOk(await api(p, "GET", `/stream/orders/${created.id}`)).item;
    expect(read).toEqual({ ...created, paymentDueAt: due });
    expect(Object.keys(read).at(-1)).toBe("paymentDueAt");
  });

  it("a paid order: PAID with paidAt as a DateTime; REST says paid; the deadline stays the creation's", async () => {
    const buyer = newBuyer();
    const created = expectOk(await createStreamOrder(p, { listingId: listing.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex }), 201).item;
    const paid = expectOk(await payStreamOrder(p, created.id, { paymentReference: await transferToPayee(p, "0.5") })).item;
    expect(paid.status).toBe("paid");

    const row = await prismaOf(p).streamOrder.findUniqueOrThrow({ where: { id: created.id } });
    const typed = await order(created.id);
    expect(typed.status).toBe("PAID");
    expect(typed.paidAt).toBe(row.paidAt!.toISOString());
    expect(typed.paidAt).toBe(paid.paidAt);
    expect(typed.paymentDueAt).toBe(new Date(row.createdAt.getTime() + ORDER_TTL_SECONDS * 1000).toISOString());
  });

  it("introspection of the served API schema: the delivery is typed, instants are DateTime, statuses are enums, signed or free-form JSON stays JSONObject", async () => {
    const query = `{
      ${["StreamOrderDelivery", "StreamPlatformDelivery", "StreamSellerDelivery", "StreamDeliveryChunk", ...Object.keys(INSTANTS)].map(fields).join("\n")}
      union: __type(name: "StreamDelivery") { kind possibleTypes { name } }
      listingStatus: __type(name: "StreamListingStatus") { kind enumValues { name } }
      policyStatus: __type(name: "StreamPolicyStatus") { kind enumValues { name } }
      keyStatus: __type(name: "StreamSigningKeyStatus") { kind enumValues { name } }
      mutation: __type(name: "Mutation") { fields { name type { kind name ofType { kind name } } args { name description type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
    }`;
        const { errors, data: t, shape } = await introspectServedSchema(query);
    expect(errors).toBeUndefined();

    expect(shape("StreamOrderDelivery")).toEqual({
      orderId: "String!", listingId: "String!", machineId: "String!", buyerId: "String!", buyerPublicKeyHex: "String!",
      status: "StreamOrderStatus!", chunkIds: "[String!]!", access: "[JSONObject!]!", delivery: "StreamDelivery!",
    });
    expect(t.union).toEqual({ kind: "UNION", possibleTypes: expect.arrayContaining([{ name: "StreamPlatformDelivery" }, { name: "StreamSellerDelivery" }]) });
    expect(t.union.possibleTypes).toHaveLength(2);
    expect(shape("StreamPlatformDelivery")).toEqual({
      sessionId: "String!", mode: "String!", status: "StreamDeliverySessionStatus!", token: "String!", tokenType: "String!",
      tokenExpiresAt: "DateTime!", chunks: "[StreamDeliveryChunk!]!",
    });
    expect(shape("StreamSellerDelivery")).toEqual({
      sessionId: "String!", mode: "String!", status: "StreamDeliverySessionStatus!", deliveryUrl: "String", message: "String",
    });
    expect(shape("StreamDeliveryChunk")).toEqual({ chunkId: "String!", encryptedDataHash: "String", encryptedSize: "Float", url: "String", reference: "String" });

    for (const [type, instants] of Object.entries(INSTANTS)) {
      const got = shape(type);
      for (const [field, nullable] of Object.entries(instants)) expect([type, field, got[field]]).toEqual([type, field, nullable ? "DateTime" : "DateTime!"]);
      // No instant left as a String on these types.
      expect([type, Object.entries(got).filter(([name, kind]) => /At$|^time(Start|End)$/.test(name) && !String(kind).startsWith("DateTime"))]).toEqual([type, []]);
    }
    expect(Object.values(INSTANTS).reduce((n, fs) => n + Object.keys(fs).length, 0)).toBe(22);

    const values = (e: any) => ({ kind: e.kind, values: e.enumValues.map((v: any) => v.name) });
    expect(values(t.listingStatus)).toEqual({ kind: "ENUM", values: ["ACTIVE", "INACTIVE"] });
    expect(values(t.policyStatus)).toEqual({ kind: "ENUM", values: ["ACTIVE", "PAUSED", "ARCHIVED"] });
    expect(values(t.keyStatus)).toEqual({ kind: "ENUM", values: ["ACTIVE", "REVOKED"] });
    expect(shape("StreamListing").status).toBe("StreamListingStatus!");
    expect(shape("StreamPolicy").status).toBe("StreamPolicyStatus!");
    expect(shape("StreamSigningKey").status).toBe("StreamSigningKeyStatus!");

    const mutation = Object.fromEntries(t.mutation.fields.map((f: any) => [f.name, f]));
    expect(sdlType(mutation.streamOrderDelivery.type)).toBe("StreamOrderDelivery!");
    // Signed documents and service-validated items stay JSON (REST keeps its documented errors); each says why.
    const arg = (field: string, name: string) => mutation[field].args.find((a: any) => a.name === name);
    for (const [field, name, type, says] of [
      ["prepareStreamOrderAccess", "items", "[JSONObject!]!", /validates/],
      ["recordStreamEventBatch", "items", "[JSONObject!]!", /validates/],
      ["recordStreamEvent", "envelope", "JSONObject!", /validates/],
      ["registerStreamChunk", "manifest", "JSONObject!", /verifies/],
      ["registerStreamChunk", "metadata", "JSONObject", /Free-form/],
      ["uploadStreamBuyerAccess", "access", "JSONObject!", /validates/],
    ] as const) {
      expect([field, name, sdlType(arg(field, name).type)]).toEqual([field, name, type]);
      expect(arg(field, name).description).toMatch(says);
    }
  });

  it("streamOrderDelivery through the gateway: typed platform delivery; REST answers the same body with its spellings", async () => {
    const { seller, listing: mine } = await typedListing(p, "walrus://blob-1");
    const buyer = newBuyer();
    const paid = await paidOrder(p, mine, buyer);
    expectOk(await prepareAccess(p, seller, paid.id, accessFor(seller, mine.chunks, buyer)));

    const first = await graphql(p.graphql, DELIVERY, { id: paid.id, buyer: buyer.id });
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    const typed = first.body.data.streamOrderDelivery;
    const session = await prismaOf(p).streamDeliverySession.findFirstOrThrow({ where: { orderId: paid.id } });
    expect(typed).toMatchObject({
      orderId: paid.id, listingId: mine.listingId, machineId: seller.machineId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex,
      status: "DELIVERED", chunkIds: mine.chunkIds,
      delivery: { __typename: "StreamPlatformDelivery", sessionId: session.id, mode: "platform", status: "DELIVERED", tokenType: "Bearer" },
    });
    expect(typed.access).toHaveLength(2);
    expect(typed.access[0]).toMatchObject({ schemaVersion: expect.any(String) });
    expect(new Date(typed.delivery.tokenExpiresAt).toISOString()).toBe(typed.delivery.tokenExpiresAt);
    expect(typed.delivery.chunks).toEqual([
      { chunkId: mine.chunkIds[0], encryptedDataHash: mine.chunks[0]!.manifest.encryptedDataHash, encryptedSize: mine.chunks[0]!.manifest.encryptedSize,
        url: `/api/v1/stream/chunks/${encodeURIComponent(mine.chunkIds[0]!)}/data`, reference: null },
      { chunkId: mine.chunkIds[1], encryptedDataHash: mine.chunks[1]!.manifest.encryptedDataHash, encryptedSize: mine.chunks[1]!.manifest.encryptedSize,
        url: null, reference: "walrus://blob-1" },
    ]);

    // REST: un-enveloped, lowercase statuses, each chunk with its url or its reference only; a fresh token each time.
    const rest = await getDelivery(p, paid.id, buyer.id);
    expect(rest.status).toBe(200);
    const body = rest.json();
    expect(Object.keys(body)).toEqual(["orderId", "listingId", "machineId", "buyerId", "buyerPublicKeyHex", "status", "chunkIds", "access", "delivery"]);
    expect(Object.keys(body.delivery)).toEqual(["sessionId", "mode", "status", "token", "tokenType", "tokenExpiresAt", "chunks"]);
    const { __typename, ...delivery } = typed.delivery;
    expect(body).toEqual({
      ...typed,
      status: "delivered",
      delivery: {
        ...delivery, status: "delivered", token: body.delivery.token, tokenExpiresAt: body.delivery.tokenExpiresAt,
        chunks: [
          { chunkId: mine.chunkIds[0], encryptedDataHash: delivery.chunks[0].encryptedDataHash, encryptedSize: delivery.chunks[0].encryptedSize, url: delivery.chunks[0].url },
          { chunkId: mine.chunkIds[1], encryptedDataHash: delivery.chunks[1].encryptedDataHash, encryptedSize: delivery.chunks[1].encryptedSize, reference: "walrus://blob-1" },
        ],
      },
    });
    expect(body.delivery.token).not.toBe(delivery.token);
  });

  it("streamOrderDelivery of a seller delivery: StreamSellerDelivery with READY; REST keeps `ready` and the same members", async () => {
    const { seller, listing: mine } = await typedListing(p);
    const buyer = newBuyer();
    const paid = await paidOrder(p, mine, buyer, [mine.chunkIds[0]!]);
    const prepared = expectOk(await prepareAccess(p, seller, paid.id, accessFor(seller, [mine.chunks[0]!], buyer), { mode: "seller" }));
    const sessionId = prepared.deliverySession.id;
    const notReady = await graphql(p.graphql, DELIVERY, { id: paid.id, buyer: buyer.id });
    expect(notReady.body.errors?.[0]?.extensions?.code).toBe("STREAM_DELIVERY_NOT_READY");
    expectOk(await api(p, "PATCH", `/stream/delivery-sessions/${sessionId}`, { machineId: seller.machineId, status: "ready", deliveryUrl: "https://seller.example/d/1" }, sellerHeaders(seller)));

    const typed = (await graphql(p.graphql, DELIVERY, { id: paid.id, buyer: buyer.id })).body.data.streamOrderDelivery;
    expect(typed.status).toBe("ACCESS_PREPARED");
    expect(typed.delivery).toEqual({ __typename: "StreamSellerDelivery", sessionId, mode: "seller", status: "READY", deliveryUrl: "https://seller.example/d/1", message: null });
    const rest = (await getDelivery(p, paid.id, buyer.id)).json();
    const { __typename, ...delivery } = typed.delivery;
    expect(rest).toEqual({ ...typed, status: "access_prepared", delivery: { ...delivery, status: "ready" } });
    expect(Object.keys(rest.delivery)).toEqual(["sessionId", "mode", "status", "deliveryUrl", "message"]);
  });

  it("listings, policies and signing keys through the gateway: UPPER_CASE statuses and DateTime instants; REST keeps lowercase", async () => {
    const { seller, listing: mine } = await typedListing(p);
    const listingQuery = `query ($id: String!) { streamListing(listingId: $id) { id status timeStart timeEnd createdAt updatedAt } }`;
    const listed = (await graphql(p.graphql, listingQuery, { id: mine.listingId })).body.data.streamListing;
    const row = await prismaOf(p).streamListing.findUniqueOrThrow({ where: { id: mine.listingId } });
    expect(listed).toEqual({ id: mine.listingId, status: "ACTIVE", timeStart: null, timeEnd: null, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() });
    const vars = { m: seller.machineId, l: mine.listingId, a: seller.agentId, t: seller.agentToken };
    const off = await graphql(p.graphql, `mutation($m: String!, $l: String!, $a: String, $t: String) {
      deactivateStreamListing(machineId: $m, listingId: $l, agentId: $a, agentToken: $t) { status updatedAt } }`, vars);
    expect(off.body.data.deactivateStreamListing.status).toBe("INACTIVE");
    const restListing = expectOk(await api(p, "GET", `/stream/listings/${mine.listingId}`)).item;
    expect(restListing).toMatchObject({ status: "inactive", createdAt: listed.createdAt, updatedAt: off.body.data.deactivateStreamListing.updatedAt });

    const policy = expectOk(await api(p, "POST", `/machines/${seller.machineId}/stream/policies`, {
      name: "typed", status: "paused", topicRules: [{ topic: "/typed", messageType: "std_msgs/String", qosPreset: "default" }], buffer: {}, payload: {}, destinations: [],
    }, sellerHeaders(seller)), 201).item;
    expect(policy.status).toBe("paused");
    const policies = (await graphql(p.graphql, `query($m: String!, $a: String, $t: String) {
      streamPolicies(machineId: $m, agentId: $a, agentToken: $t) { items { id status createdAt updatedAt } } }`, vars)).body.data.streamPolicies.items;
    expect(policies).toContainEqual({ id: policy.id, status: "PAUSED", createdAt: policy.createdAt, updatedAt: policy.updatedAt });

    const keyDoc = `mutation($m: String!, $a: String, $t: String, $k: String!) {
      revokeStreamSigningKey(machineId: $m, agentId: $a, agentToken: $t, keyId: $k) { keyId status revokedAt createdAt } }`;
    const registered = await graphql(p.graphql, `mutation($m: String!, $a: String, $t: String, $k: String!, $h: String!) {
      registerStreamSigningKey(machineId: $m, agentId: $a, agentToken: $t, keyId: $k, publicKeyHex: $h) { created key { status revokedAt createdAt } } }`,
      { ...vars, k: seller.signer.keyId, h: seller.publicKeyHex });
    expect(registered.body.data.registerStreamSigningKey).toMatchObject({ created: true, key: { status: "ACTIVE", revokedAt: null } });
    const revoked = (await graphql(p.graphql, keyDoc, { ...vars, k: seller.signer.keyId })).body.data.revokeStreamSigningKey;
    expect(revoked).toMatchObject({ keyId: seller.signer.keyId, status: "REVOKED", createdAt: registered.body.data.registerStreamSigningKey.key.createdAt });
    expect(new Date(revoked.revokedAt).toISOString()).toBe(revoked.revokedAt);
    const page = expectOk(await api(p, "GET", `/stream/listings/${mine.listingId}/chunks`));
    expect(page.signingKeys).toContainEqual(expect.objectContaining({ keyId: seller.signer.keyId, status: "revoked", revokedAt: revoked.revokedAt }));
  });
});

const DELIVERY = `mutation ($id: String!, $buyer: String!) { streamOrderDelivery(orderId: $id, buyerId: $buyer) {
  orderId listingId machineId buyerId buyerPublicKeyHex status chunkIds access
  delivery {
    __typename
    ... on StreamPlatformDelivery { sessionId mode status token tokenType tokenExpiresAt chunks { chunkId encryptedDataHash encryptedSize url reference } }
    ... on StreamSellerDelivery { sessionId mode status deliveryUrl message }
  }
} }`;

/** The stream types' instants and whether each is nullable: every one a DateTime. */
const INSTANTS: Record<string, Record<string, boolean>> = {
  StreamListing: { timeStart: true, timeEnd: true, createdAt: false, updatedAt: false },
  StreamListingChunk: { registeredAt: false },
  StreamSigningKey: { revokedAt: true, createdAt: false },
  StreamPolicy: { createdAt: false, updatedAt: false },
  StreamHeartbeat: { receivedAt: false },
  StreamChainReceipt: { recordedAt: false },
  StreamEventReceipt: { receivedAt: false },
  StreamChunk: { storedVerifiedAt: true, createdAt: false },
  StreamBuyerAccess: { createdAt: false },
  StreamOrder: { paidAt: true, accessPreparedAt: true, deliveredAt: true, createdAt: false, updatedAt: false, paymentDueAt: false },
  StreamPlatformDelivery: { tokenExpiresAt: false },
};

/**
 * A seller of its own (demo machine "active" #3, which the suite's set-up leaves alone) and a two-chunk listing of it,
 * the second chunk stored at `secondRef` when given: bound once per platform, then reused.
 */
const typedSellers = new WeakMap<object, StreamSeller>();
async function typedListing(p: MarketsPlatform, secondRef?: string): Promise<{ seller: StreamSeller; listing: SeededListing }> {
  let seller = typedSellers.get(p);
  if (!seller) {
    seller = await orderSeller(p, 3);
    typedSellers.set(p, seller);
  }
  const listing = await seedListing(p, seller, {
    count: 2, amount: "0.5", ...(secondRef ? { storageRef: (i: number) => (i === 1 ? secondRef : `local:${seller!.machineId}/chunk-${i}`) } : {}),
  });
  return { seller, listing };
}
