/**
 * Purchase flow, part 2 (public notes 3.4): payment intent on both rails and the payment proof against the embedded
 * anvil chain with the platform's TestStablecoin: a transfer accepted once (wrong payee, short amount, failed
 * transaction, reused hash refused, state unchanged); an x402 authorization verified and settled on chain. Paid
 * requests the seller's delivery session.
 */
import { Wallet, type Contract } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { polledReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import { randomNonce, signAuthorization } from "../../../subgraphs/markets/orders/payments/eip3009.js";
import { graphql } from "../../support/platform.js";
import { expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../../markets/helpers.js";
import { buyerCall, chainOf, createMarket, purchaseBody, purchaseKinds, purchaseState, type Market } from "./purchases-helpers.js";

describe("purchase flow: payment intent and proof on chain", () => {
  let p: MarketsPlatform;
  let m: Market;
  let chain: ReturnType<typeof chainOf>;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    m = await createMarket(p, 0, 1, p.demo.payments!.agents[0].privateKey);
    chain = chainOf(p);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chain?.provider.destroy();
    await p?.close();
  });

  const AMOUNT = 20_000n; // two chunks at 0.01 USD, 6 decimals
  const pending = async () => expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m, { chunkIds: m.chunks.slice(0, 2).map((c) => c.manifest.chunkId) })), 201).item;
  const intent = async (id: string, rail: unknown, extra: Record<string, unknown> = {}) => buyerCall(p, m, "POST", `/purchases/${id}/payment-intent`, { rail, ...extra });
  const proof = (id: string, body: Record<string, unknown>) => buyerCall(p, m, "POST", `/purchases/${id}/payment-proof`, body);

  it("transfer intent: destination chain, token and payTo from config, amount; refusals change nothing", async () => {
    const purchase = await pending();
    const before = await purchaseState(p, purchase.id);
    expectMarketsError(await intent(purchase.id, { type: "cheque" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await intent(purchase.id, { type: "transfer", destination: { payTo: Wallet.createRandom().address } }), 400, "PURCHASE_RAIL_INVALID");
    expectMarketsError(await intent(purchase.id, { type: "transfer", destination: { token: Wallet.createRandom().address } }), 400, "PURCHASE_RAIL_INVALID");
    expectMarketsError(await intent(purchase.id, "transfer", { payer: "0x12" }), 400, "VALIDATION_ERROR");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
    const { payments } = chain;
    const item = expectOk(await intent(purchase.id, { type: "transfer", destination: { chain: "peaq", token: payments.stablecoin.address, payTo: payments.payee.address } })).item;
    expect(item).toMatchObject({
      status: "payment_pending",
      rail: "transfer",
      paymentIntent: { rail: "transfer", amount: "0.02", currency: "USD", amountRaw: "20000", destination: { chain: "peaq", chainId: String(p.demo.chainId), token: payments.stablecoin.address, payTo: payments.payee.address, decimals: 6 } },
    });
    expect(await purchaseKinds(p, purchase.id)).toContain("stream.purchase.payment-intent-created");
  });

  it("transfer proof: wrong payee, short amount, failed and unknown transactions refused with state unchanged; then paid once", async () => {
    const purchase = await pending();
    expectOk(await intent(purchase.id, "transfer"));
    const before = await purchaseState(p, purchase.id);
    const payee = chain.payments.payee.address;
    const wrongPayee = await chain.transfer(m.buyer.wallet, Wallet.createRandom().address, AMOUNT);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: wrongPayee }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    const short = await chain.transfer(m.buyer.wallet, payee, AMOUNT - 1n);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: short }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    const poor = Wallet.createRandom().connect(chain.provider);
    await chain.provider.send("anvil_setBalance", [poor.address, "0xDE0B6B3A7640000"]);
    const reverted = await (chain.stablecoin.connect(poor) as Contract).transfer(payee, AMOUNT, { gasLimit: 100_000 });
    expect((await polledReceipt(reverted)).status).toBe(0);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: reverted.hash }), 402, "PAYMENT_TX_FAILED");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: `0x${"77".repeat(32)}` }), 409, "PAYMENT_NOT_MINED");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: "0x1234" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await proof(purchase.id, { rail: "x402", transactionHash: short }), 400, "PURCHASE_RAIL_INVALID");
    expectMarketsError(await buyerCall(p, m, "GET", `/purchases/${purchase.id}/delivery`), 409, "PURCHASE_STATE_INVALID");
    expect(await purchaseState(p, purchase.id)).toEqual(before);

    const good = await chain.transfer(m.buyer.wallet, payee, AMOUNT);
    const paid = expectOk(await proof(purchase.id, { rail: "transfer", chain: "peaq", token: chain.payments.stablecoin.address, transactionHash: good })).item;
    expect(paid).toMatchObject({ status: "paid", payment: { rail: "transfer", transactionHash: good, payer: m.buyer.wallet.address, chainId: String(p.demo.chainId) } });
    expect(paid.paidAt).not.toBeNull();
    // The same proof again answers the paid purchase (a retry); the session was requested once.
    expect(expectOk(await proof(purchase.id, { rail: "transfer", transactionHash: good })).item).toEqual(paid);
    const sessions = await prismaOf(p).streamDeliverySession.findMany({ where: { purchaseId: purchase.id } });
    expect(sessions.map((s: any) => [s.status, s.mode, s.transportId, s.machineId])).toEqual([["requested", "p2p", "tcp", m.seller.machineId]]);
    expect(await purchaseKinds(p, purchase.id)).toEqual([
      "stream.purchase.created", "stream.purchase.payment-pending", "stream.purchase.payment-intent-created",
      "stream.purchase.paid", "stream.delivery-session.requested",
    ]);
    // Paid: another intent or proof is a state error.
    expectMarketsError(await intent(purchase.id, "transfer"), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: short }), 409, "PURCHASE_STATE_INVALID");

    // The hash pays one purchase only.
    const second = await pending();
    expectOk(await intent(second.id, "transfer"));
    const secondBefore = await purchaseState(p, second.id);
    expectMarketsError(await proof(second.id, { rail: "transfer", transactionHash: good }), 409, "PAYMENT_TX_ALREADY_USED");
    expect(await purchaseState(p, second.id)).toEqual(secondBefore);
  });

  it("proof before an intent is PURCHASE_STATE_INVALID; another pairing's token NOT_FOUND", async () => {
    const purchase = await pending();
    const before = await purchaseState(p, purchase.id);
    expectMarketsError(await proof(purchase.id, { rail: "transfer", transactionHash: `0x${"11".repeat(32)}` }), 409, "PURCHASE_STATE_INVALID");
    expectMarketsError(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-proof`, "not json"), 400, "VALIDATION_ERROR");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
  });

  it("x402: requirements for the purchase; a bad authorization refused; a good one settled on chain -> paid (GraphQL)", async () => {
    const purchase = await pending();
    const item = expectOk(await intent(purchase.id, { type: "x402" })).item;
    const requirements = item.paymentIntent.paymentRequirements;
    expect(requirements).toMatchObject({ scheme: "exact", network: "peaq", maxAmountRequired: "20000", payTo: chain.payments.payee.address, asset: chain.payments.stablecoin.address });
    expect(requirements.resource).toMatch(new RegExp(`/api/v1/purchases/${purchase.id}$`));
    const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: p.demo.chainId, verifyingContract: requirements.asset };
    const signed = async (signer: Wallet, overrides: Record<string, string> = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const authorization = { from: m.buyer.wallet.address, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + 300), nonce: randomNonce(), ...overrides };
      const signature = await signAuthorization(signer, domain, authorization);
      return Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } })).toString("base64");
    };
    const before = await purchaseState(p, purchase.id);
    const other = new Wallet(chain.payments.agents[1].privateKey);
    expectMarketsError(await proof(purchase.id, { rail: "x402", paymentSignature: await signed(other) }), 400, "PAYMENT_AUTHORIZATION_INVALID");
    expectMarketsError(await proof(purchase.id, { rail: "x402", paymentSignature: await signed(m.buyer.wallet, { value: "19999" }) }), 400, "PAYMENT_AUTHORIZATION_INVALID");
    expectMarketsError(await proof(purchase.id, { rail: "x402", paymentSignature: await signed(m.buyer.wallet, { validBefore: String(Math.floor(Date.now() / 1000) - 10) }) }), 400, "PAYMENT_AUTHORIZATION_EXPIRED");
    expectMarketsError(await proof(purchase.id, { rail: "x402", paymentSignature: "%%%" }), 400, "VALIDATION_ERROR");
    expect(await purchaseState(p, purchase.id)).toEqual(before);
    const balance = async (a: string) => (await chain.stablecoin.balanceOf(a)) as bigint;
    const payeeBefore = await balance(chain.payments.payee.address);
    const mutation = `mutation ($t: String, $id: String!, $input: JSONObject) { submitPurchasePaymentProof(pairingToken: $t, purchaseId: $id, input: $input) { status payment } }`;
    const answer = await graphql(p.graphql, mutation, { t: m.buyer.token, id: purchase.id, input: { rail: "x402", paymentSignature: await signed(m.buyer.wallet) } });
    const paid = answer.body.data.submitPurchasePaymentProof;
    expect(paid).toMatchObject({ status: "PAID", payment: { rail: "x402", payer: m.buyer.wallet.address } });
    expect(paid.payment.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(chain.payments.payee.address)).toBe(payeeBefore + AMOUNT);
    expect(await prismaOf(p).streamDeliverySession.count({ where: { purchaseId: purchase.id, status: "requested" } })).toBe(1);
  });
});
