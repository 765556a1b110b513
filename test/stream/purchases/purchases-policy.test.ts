/**
 * Purchases within the buyer pairing's delegation policy (document 3, Authentication 5), checked as market orders are:
 * allow and deny lists against the skill `stream-data-listing` and the listing's `data.stream` catalogue service ID,
 * the currency, the per-transaction limit and the daily limit, whose sum counts the pairing's orders AND purchases of
 * the day under the pairing's row lock. 50 parallel purchases against a limit for 10 create exactly 10; every refusal
 * leaves the purchases and the audit log as they were. Over REST and GraphQL, on PGlite or PostgreSQL (DATABASE_URL).
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql } from "../../support/platform.js";
import {
  agentHeaders,
  api,
  bindMachine,
  createOrder,
  expectMarketsError,
  expectOk,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  usesPostgres,
  type MarketsPlatform,
} from "../../markets/helpers.js";
import { createListing } from "../helpers.js";
import { createSeller, putCapabilities, TCP_CAPABILITY } from "./purchases-helpers.js";
import nacl from "tweetnacl";
import { toHex } from "../../../subgraphs/markets/stream/index.js";

describe("purchases within the buyer pairing's delegation policy", () => {
  let p: MarketsPlatform;
  let buyerMachine: string;
  let listingId: string;
  let serviceId: string;
  const publicKeyHex = toHex(nacl.box.keyPair().publicKey);

  beforeAll(async () => {
    p = await startMarketsPlatform();
    const seller = await createSeller(p, 0);
    const { listing } = await createListing(p, seller, 2, { price: { amount: "0.02", currency: "USD" } });
    listingId = listing.id;
    serviceId = listing.serviceId;
    expectOk(await putCapabilities(p, seller, { capabilities: [TCP_CAPABILITY] }), 201);
    buyerMachine = (await bindMachine(p, p.machine("active", 1))).id;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const pair = (policy: Record<string, unknown>) => pairAgent(p, buyerMachine, Wallet.createRandom(), policy);
  const body = () => ({
    resource: { type: "stream.listing", listingId },
    buyer: { publicKey: { type: "x25519", publicKeyHex }, deliveryCapabilities: [{ transportId: "tcp", version: "1" }] },
  });
  const buy = (token: string) => api(p, "POST", "/purchases", body(), agentHeaders(token));
  const state = async () => {
    const prisma = prismaOf(p);
    return { purchases: await prisma.streamPurchase.count(), orders: await prisma.marketOrder.count(), audits: await prisma.marketAuditEvent.count() };
  };

  it("the listing's catalogue service is the data.stream service with skill stream-data-listing", async () => {
    const service = expectOk(await api(p, "GET", `/market/services/${serviceId}`)).item;
    expect(service).toMatchObject({ id: serviceId, skillKey: "stream-data-listing", serviceType: "data.stream" });
  });

  it("allow and deny lists, currency and per-transaction limit: the order codes, nothing written", async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ deniedSkillKeys: ["stream-data-listing"] }, "AGENT_POLICY_DENIED"],
      [{ allowedSkillKeys: ["oracle.price-feed"] }, "AGENT_POLICY_DENIED"],
      [{ deniedServiceIds: [serviceId] }, "AGENT_POLICY_DENIED"],
      [{ allowedServiceIds: ["svc_other"] }, "AGENT_POLICY_DENIED"],
      [{ perTransactionLimit: 1, currency: "EUR" }, "AGENT_POLICY_DENIED"],
      [{ perTransactionLimit: 0.01, currency: "USD" }, "AGENT_SPEND_LIMIT_EXCEEDED"],
      [{ dailySpendLimit: 0.01 }, "AGENT_DAILY_LIMIT_EXCEEDED"],
    ];
    for (const [policy, code] of refusals) {
      const { pairingToken } = await pair(policy);
      const before = await state();
      expectMarketsError(await buy(pairingToken), 403, code);
      const gql = await graphql(p.graphql, "mutation($t: String, $i: JSONObject!) { createPurchase(pairingToken: $t, input: $i) { id } }", { t: pairingToken, i: body() });
      expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(policy)).toBe(code);
      expect(await state()).toEqual(before);
    }
    for (const policy of [{ allowedSkillKeys: ["stream-data-listing"], allowedServiceIds: [serviceId] }, { perTransactionLimit: 0.02, currency: "USD" }, { deniedServiceIds: ["svc_other"] }]) {
      const { pairingToken } = await pair(policy);
      expect(expectOk(await buy(pairingToken), 201).item, JSON.stringify(policy)).toMatchObject({ status: "payment_pending" });
    }
  });

  it("orders and purchases share one daily limit", async () => {
    const pairing = await pair({ dailySpendLimit: 0.05, currency: "USD" });
    expectOk(await createOrder(p, buyerMachine, pairing.pairingToken), 201);
    expectOk(await buy(pairing.pairingToken), 201);
    expectOk(await buy(pairing.pairingToken), 201);
    const before = await state();
    expectMarketsError(await buy(pairing.pairingToken), 403, "AGENT_DAILY_LIMIT_EXCEEDED");
    expectMarketsError(await createOrder(p, buyerMachine, pairing.pairingToken), 403, "AGENT_DAILY_LIMIT_EXCEEDED");
    expect(await state()).toEqual(before);
    // A cancelled purchase no longer counts: 0.01 + 0.02 spent, room for an order of 0.01 but not a purchase of 0.02.
    const purchase = (await prismaOf(p).streamPurchase.findFirst({ where: { agentPairingId: pairing.id } }))!;
    const cancel = { type: "purchase.cancelled", actor: { type: "buyer", id: pairing.agentDid }, data: {} };
    expectOk(await api(p, "POST", `/purchases/${purchase.id}/events`, cancel, agentHeaders(pairing.pairingToken)), 201);
    expectOk(await createOrder(p, buyerMachine, pairing.pairingToken), 201);
    expectMarketsError(await buy(pairing.pairingToken), 403, "AGENT_DAILY_LIMIT_EXCEEDED");
  });

  it(`50 parallel purchases against a daily limit for 10 create exactly 10 (${usesPostgres ? "PostgreSQL" : "PGlite"})`, async () => {
    const pairing = await pair({ dailySpendLimit: 0.2, currency: "USD" });
    const answers = await Promise.all(Array.from({ length: 50 }, () => buy(pairing.pairingToken)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    for (const answer of answers.filter((a) => a.status !== 201)) expectMarketsError(answer, 403, "AGENT_DAILY_LIMIT_EXCEEDED");
    const rows = await prismaOf(p).streamPurchase.findMany({ where: { agentPairingId: pairing.id } });
    expect(rows.map((r) => r.status)).toEqual(Array(10).fill("payment_pending"));
    const audits = await prismaOf(p).marketAuditEvent.findMany({ where: { kind: "stream.purchase.created" } });
    expect(audits.filter((a: any) => rows.some((r) => r.id === a.data?.purchaseId))).toHaveLength(10);
  });
});
