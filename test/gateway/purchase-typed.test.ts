/**
 * The purchase flow's typed fields through the gateway: purchases answer `Purchase` (status as the `PurchaseStatus`
 * enum, UPPER_CASE; instants as `DateTime`; the payment deadline `paymentDueAt` = createdAt +
 * STREAM_PURCHASE_PAYMENT_TTL_SECONDS), payment rails the `PaymentRail` union and delivery transports
 * `DeliveryTransport`; REST keeps its spellings (`payment_pending`) and only GET of a purchase adds the deadline.
 * Real sockets, real database, real chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspectServedSchema, typeFields as fields } from "../support/served-schema.js";
import { graphql } from "../support/platform.js";
import { agentHeaders, api, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../markets/helpers.js";
import { createMarket, purchaseBody, type Market } from "../stream/purchases/purchases-helpers.js";

const TTL_SECONDS = 900;
const PURCHASE = `query ($id: String!, $token: String) { purchase(purchaseId: $id, pairingToken: $token) {
  id status price { amount currency } resource { listingId selection { chunkIds } } failure { code } paidAt completedAt createdAt updatedAt paymentDueAt
} }`;

describe("purchases: typed fields through the gateway", () => {
  let p: MarketsPlatform;
  let m: Market;

  beforeAll(async () => {
    p = await startMarketsPlatform({ STREAM_PURCHASE_PAYMENT_TTL_SECONDS: String(TTL_SECONDS) });
    m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  it("introspection: purchase operations answer object types, status is PurchaseStatus, instants are DateTime", async () => {
    const query = `{
      ${["Purchase", "DeliveryTransport", "Query", "Mutation"].map(fields).join("\n")}
      rails: __type(name: "PaymentRail") { kind possibleTypes { name } }
      status: __type(name: "PurchaseStatus") { kind enumValues { name } }
    }`;
    const { errors, data: t, shape } = await introspectServedSchema(query);
    expect(errors).toBeUndefined();

    expect(shape("Query")).toMatchObject({ purchase: "Purchase!", paymentRails: "[PaymentRail!]!", deliveryTransports: "[DeliveryTransport!]!" });
    expect(shape("Mutation")).toMatchObject({
      createPurchase: "Purchase!", createPurchasePaymentIntent: "Purchase!", submitPurchasePaymentProof: "Purchase!",
      putDeliveryCapabilities: "DeliveryCapabilitiesResult!", getPurchaseDelivery: "PurchaseDelivery!", createPurchaseEvent: "PurchaseEvent!",
      preparePurchaseAccess: "PreparedPurchaseAccess!", verifyPurchaseHandoff: "PurchaseHandoffGrant!",
    });
    expect(shape("Purchase")).toEqual({
      id: "String!", status: "PurchaseStatus!", resource: "PurchaseResource!", machineId: "String!", buyer: "PurchaseBuyer!",
      price: "PurchasePrice!", delivery: "PurchaseNegotiatedDelivery", failure: "PurchaseFailure", rail: "String", paymentIntent: "JSONObject",
      payment: "JSONObject", paidAt: "DateTime", completedAt: "DateTime", createdAt: "DateTime!", updatedAt: "DateTime!", paymentDueAt: "DateTime!",
    });
    expect(shape("DeliveryTransport")).toEqual({
      mode: "String!", transportId: "String!", protocols: "[String!]!", encodings: "[String!]!", addressFormat: "String!", features: "[String!]!",
    });
    expect(t.rails.kind).toBe("UNION");
    expect(t.rails.possibleTypes.map((x: any) => x.name).sort()).toEqual(["TransferPaymentRail", "X402PaymentRail"]);
    expect(t.status.enumValues.map((v: any) => v.name)).toEqual([
      "DELIVERY_RESERVING", "PAYMENT_PENDING", "PAID", "DELIVERING", "DELIVERED", "COMPLETED", "FAILED", "CANCELLED", "EXPIRED",
    ]);
  });

  it("a new purchase: PAYMENT_PENDING with DateTime instants and paymentDueAt on GraphQL; REST lowercase, deadline only on GET", async () => {
    const created = expectOk(await api(p, "POST", "/purchases", purchaseBody(m), agentHeaders(m.buyer.token)), 201).item;
    expect(created.status).toBe("payment_pending");
    expect(created).not.toHaveProperty("paymentDueAt");

    const row = await prismaOf(p).streamPurchase.findUniqueOrThrow({ where: { id: created.id } });
    const due = new Date(row.createdAt.getTime() + TTL_SECONDS * 1000).toISOString();
    const { status, body } = await graphql(p.graphql, PURCHASE, { id: created.id, token: m.buyer.token });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.purchase).toEqual({
      id: created.id,
      status: "PAYMENT_PENDING",
      price: created.price,
      resource: { listingId: m.listingId, selection: { chunkIds: row.chunkIds } },
      failure: null,
      paidAt: null,
      completedAt: null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      paymentDueAt: due,
    });

    const read = expectOk(await api(p, "GET", `/purchases/${created.id}`, undefined, agentHeaders(m.buyer.token))).item;
    expect(read).toEqual({ ...created, paymentDueAt: due });
    expect(Object.keys(read)).toEqual([...Object.keys(created), "paymentDueAt"]);
  });

  it("payment rails and delivery transports through GraphQL equal the REST items", async () => {
    const rails = expectOk(await api(p, "GET", "/payment-rails")).items;
    const transports = expectOk(await api(p, "GET", "/delivery-transports")).items;
    const { body } = await graphql(
      p.graphql,
      `{ paymentRails { __typename ... on TransferPaymentRail { type payTo proof chains { chainId confirmations } } ... on X402PaymentRail { type x402Version network asset extra { name version } } }
         deliveryTransports { mode transportId protocols encodings addressFormat features } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.deliveryTransports).toEqual(transports);
    expect(body.data.paymentRails.map((r: any) => r.__typename)).toEqual(["TransferPaymentRail", "X402PaymentRail"]);
    expect(body.data.paymentRails[0]).toMatchObject({ type: "transfer", payTo: rails[0].payTo, proof: "transactionHash", chains: rails[0].chains.map((c: any) => ({ chainId: c.chainId, confirmations: c.confirmations })) });
    expect(body.data.paymentRails[1]).toMatchObject({ type: "x402", x402Version: 1, network: rails[1].network, asset: rails[1].asset, extra: rails[1].extra });
  });
});
