/**
 * The wallet proof's `recorded` mode with MARKET_PAYMENT_RECORDED_PROOFS=on (development only; docs/markets-payments.md):
 * the hash is stored as the agent's attestation without reading the chain, and still pays one payment only. Off (the
 * default) it is PAYMENT_PROOF_MODE_DISABLED (payments-rails.test.ts); on a non-loopback HOST the setting is refused
 * (test/edges/public-address.test.ts).
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentHeaders, api, bindMachine, createOrder, expectMarketsError, expectOk, pairAgent, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

describe("MARKET_PAYMENT_RECORDED_PROOFS=on", () => {
  let p: MarketsPlatform;
  let machine: string;
  let token: string;
  let agent: Wallet;

  beforeAll(async () => {
    p = await startMarketsPlatform({ MARKET_PAYMENT_RECORDED_PROOFS: "on" });
    agent = new Wallet(p.demo.payments!.agents[0]!.privateKey);
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    token = (await pairAgent(p, machine, agent)).pairingToken;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const walletOrder = async () => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail: "wallet" }));
    return order.id as string;
  };

  it("stores the attestation without reading the chain; the hash pays one payment only", async () => {
    const first = await walletOrder();
    const txHash = `0x${"5e".repeat(32)}`;
    const proved = expectOk(await post(first, "/payment-proof", { mode: "recorded", txHash, from: agent.address })).item;
    expect(proved.payment).toMatchObject({ status: "held", proofMode: "recorded", txHash });
    expect(proved.orderStatus).toBe("ready");
    const second = await walletOrder();
    const before = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: second } });
    expectMarketsError(await post(second, "/payment-proof", { mode: "recorded", txHash, from: agent.address }), 409, "PAYMENT_TX_ALREADY_USED");
    expect(await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: second } })).toEqual(before);
  });
});
