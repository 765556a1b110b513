/**
 * A payer is who pays, on the stream side and for x402 (docs/stream-marketplace.md "Who pays", docs/markets-payments.md
 * "Who may pay"): over the real REST shim against the embedded anvil,
 * - a stream order binds its payer when it is created (`payerAddress`, or a `buyerId` that is an address); without
 *   one it is STREAM_PAYER_REQUIRED and nothing is created; a qualifying transfer of someone else is
 *   PAYMENT_PAYER_MISMATCH (403) and the order stays payment_pending; the payer's own transfer pays;
 * - a purchase binds its pairing's agent: an intent `payer`, a proof `from`, a transfer or an x402 authorization of
 *   another address is PAYMENT_PAYER_MISMATCH, nothing is settled and the purchase is unchanged;
 * - a market order's intent `payer` and x402 authorization `from` must be the pairing's agent (PAYMENT_PAYER_MISMATCH).
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomNonce, signAuthorization } from "../../subgraphs/markets/orders/payments/eip3009.js";
import {
  agentHeaders,
  api,
  createOrder,
  expectMarketsError,
  expectOk,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  providerMachineWithAgent,
  startMarketsPlatform,
  type MarketsPlatform,
} from "../markets/helpers.js";
import { createListing } from "./helpers.js";
import { buyerCall, chainOf, createMarket, purchaseBody, purchaseState, type Market } from "./purchases/purchases-helpers.js";
import { newBuyer, orderState } from "./orders/orders-helpers.js";

const AMOUNT = 10_000n; // 0.01 USD

describe("a payer is who pays: stream orders, purchases and x402 authorizations", () => {
  let p: MarketsPlatform;
  let m: Market;
  let agent: Wallet;
  let victim: Wallet;
  let chain: ReturnType<typeof chainOf>;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    chain = chainOf(p);
    agent = new Wallet(chain.payments.agents[0]!.privateKey, chain.provider);
    victim = new Wallet(chain.payments.agents[1]!.privateKey, chain.provider);
    m = await createMarket(p, 1, 2, agent.privateKey);
    const { listing } = await createListing(p, m.seller, 1, { price: { amount: "0.01", currency: "USD" } });
    m = { ...m, listingId: listing.id };
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chain?.provider.destroy();
    await p?.close();
  });

  const payee = () => chain.payments.payee.address;
  const balance = async (address: string) => (await chain.stablecoin.balanceOf(address)) as bigint;

  it("a stream order binds its payer at creation; without one it is STREAM_PAYER_REQUIRED and nothing is created", async () => {
    const buyer = newBuyer();
    const body = { listingId: m.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex };
    const count = () => prismaOf(p).streamOrder.count();
    const before = await count();
    expectMarketsError(await api(p, "POST", "/stream/orders", body), 400, "STREAM_PAYER_REQUIRED");
    expectMarketsError(await api(p, "POST", "/stream/orders", { ...body, payerAddress: null }), 400, "STREAM_PAYER_REQUIRED");
    expectMarketsError(await api(p, "POST", "/stream/orders", { ...body, payerAddress: "0x1234" }), 400, "VALIDATION_ERROR");
    expect(await count()).toBe(before);
    const named = expectOk(await api(p, "POST", "/stream/orders", { ...body, payerAddress: agent.address.toLowerCase() }), 201).item;
    expect(named.payerAddress).toBe(agent.address);
    // A buyerId that is an address is its own payer.
    const byId = expectOk(await api(p, "POST", "/stream/orders", { ...body, buyerId: victim.address.toLowerCase() }), 201).item;
    expect(byId.payerAddress).toBe(victim.address);
    expect(expectOk(await api(p, "GET", `/stream/orders/${named.id}`)).item.payerAddress).toBe(agent.address);
  });

  it("a stream order is paid by its payer's transfer only: someone else's is PAYMENT_PAYER_MISMATCH and changes nothing", async () => {
    const buyer = newBuyer();
    const order = expectOk(await api(p, "POST", "/stream/orders", { listingId: m.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: agent.address }), 201).item;
    const before = await orderState(p, order.id);
    const victims = await chain.transfer(victim, payee(), AMOUNT);
    const pay = (body: unknown) => api(p, "POST", `/stream/orders/${order.id}/payment`, body);
    expectMarketsError(await pay({ paymentReference: victims }), 403, "PAYMENT_PAYER_MISMATCH");
    expectMarketsError(await pay({ paymentReference: "tx", proof: { chainId: String(p.demo.chainId), txHash: victims } }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await orderState(p, order.id)).toEqual(before);
    expect(await prismaOf(p).spentTransaction.count({ where: { txHash: victims } })).toBe(0);
    const own = await chain.transfer(agent, payee(), AMOUNT);
    const paid = expectOk(await pay({ paymentReference: own })).item;
    expect([paid.status, paid.paymentProof.from]).toEqual(["paid", agent.address]);
  });

  it("a purchase binds its pairing's agent: another payer, `from`, transfer or x402 signer is PAYMENT_PAYER_MISMATCH", async () => {
    const purchase = expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 201).item;
    expect((await prismaOf(p).streamPurchase.findUniqueOrThrow({ where: { id: purchase.id } })).payerAddress).toBe(agent.address);
    const intent = (body: unknown) => buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-intent`, body);
    const proof = (body: unknown) => buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-proof`, body);
    const initial = await purchaseState(p, purchase.id);
    expectMarketsError(await intent({ rail: "transfer", payer: victim.address }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await purchaseState(p, purchase.id)).toEqual(initial);
    expect(expectOk(await intent({ rail: "transfer", payer: agent.address })).item.paymentIntent.payer).toBe(agent.address);
    const transferState = await purchaseState(p, purchase.id);
    const victims = await chain.transfer(victim, payee(), AMOUNT);
    expectMarketsError(await proof({ rail: "transfer", transactionHash: victims }), 403, "PAYMENT_PAYER_MISMATCH");
    expectMarketsError(await proof({ rail: "transfer", transactionHash: victims, from: victim.address }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await purchaseState(p, purchase.id)).toEqual(transferState);

    // x402: an authorization spending the victim, signed by the victim, is refused before anything is settled.
    const x402 = expectOk(await intent({ rail: "x402" })).item.paymentIntent;
    expect(x402.payer).toBe(agent.address);
    const x402State = await purchaseState(p, purchase.id);
    const requirements = x402.paymentRequirements;
    const now = Math.floor(Date.now() / 1000);
    const authorization = { from: victim.address, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + 300), nonce: randomNonce() };
    const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: p.demo.chainId, verifyingContract: requirements.asset };
    const signature = await signAuthorization(victim, domain, authorization);
    const paymentSignature = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } })).toString("base64");
    const victimBefore = await balance(victim.address);
    expectMarketsError(await proof({ rail: "x402", paymentSignature }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await balance(victim.address)).toBe(victimBefore);
    expect(await purchaseState(p, purchase.id)).toEqual(x402State);
  });

  it("a market order's intent payer and x402 authorization must be the pairing's agent", async () => {
    const { machine, token } = await providerMachineWithAgent(p, agent);
    const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectMarketsError(await post(order.id, "/payment-intent", { rail: "x402", payer: victim.address }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await prismaOf(p).marketPayment.findUnique({ where: { orderId: order.id } })).toBeNull();
    const requirements = expectOk(await post(order.id, "/payment-intent", { rail: "x402" })).item.payment.details.paymentRequirements;
    const before = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } });
    const now = Math.floor(Date.now() / 1000);
    const authorization = { from: victim.address, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + 300), nonce: randomNonce() };
    const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: p.demo.chainId, verifyingContract: chain.payments.stablecoin.address };
    const signature = await signAuthorization(victim, domain, authorization);
    const paymentSignature = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } })).toString("base64");
    expectMarketsError(await post(order.id, "/payment-proof", { paymentSignature }), 403, "PAYMENT_PAYER_MISMATCH");
    expect(await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } })).toEqual(before);
  });
});
