/**
 * One transfer pays one thing (docs/markets-payments.md "Spent transactions"): over the real REST shim against the
 * embedded anvil, one stablecoin transfer of the agent that qualifies as a market wallet payment, a stream order's
 * payment and a purchase's payment pays the first of them only. Every cross pair and the same kind again is
 * PAYMENT_TX_ALREADY_USED and leaves the second payment as it was; the spent transactions hold one row for the
 * transfer, of the kind it paid. Transactions the platform sent (a faucet transfer, an escrow release, an x402
 * settlement) pay no kind (PAYMENT_TRANSFER_NOT_FOUND). Two payments of different kinds claiming one transfer at the
 * same moment leave exactly one winner. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
import { Contract, NonceManager, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";
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
  usesPostgres,
  type MarketsPlatform,
} from "../markets/helpers.js";
import { createListing } from "./helpers.js";
import { buyerCall, chainOf, createMarket, purchaseBody, purchaseState, type Market } from "./purchases/purchases-helpers.js";
import { newBuyer, orderState } from "./orders/orders-helpers.js";

const AMOUNT = 10_000n; // 0.01 USD: the demo price feed's market price, the listing's price
type Kind = "market" | "order" | "purchase";

describe(`one transfer pays one thing across market payments, stream orders and purchases (${usesPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let p: MarketsPlatform;
  let m: Market;
  let machine: string;
  let token: string;
  let agent: Wallet;
  let chain: ReturnType<typeof chainOf>;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    chain = chainOf(p);
    agent = new Wallet(chain.payments.agents[0]!.privateKey, chain.provider);
    ({ machine, token } = await providerMachineWithAgent(p, agent));
    // The purchase buyer is the same agent, paired with another machine: one transfer of its qualifies everywhere.
    m = await createMarket(p, 1, 2, agent.privateKey);
    const { listing } = await createListing(p, m.seller, 1, { price: { amount: "0.01", currency: "USD" } });
    m = { ...m, listingId: listing.id, chunks: m.chunks };
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    chain?.provider.destroy();
    await p?.close();
  });

  const marketPost = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const pay = (from: Wallet = agent, to = chain.payments.payee.address) => chain.transfer(from, to, AMOUNT);

  /** A fresh payable item of `kind`, how to pay it with a transaction hash, and its state for "unchanged" checks. */
  async function payable(kind: Kind): Promise<{ id: string; pay: (txHash: string) => ReturnType<typeof api>; state: () => Promise<unknown> }> {
    if (kind === "market") {
      const order = expectOk(await createOrder(p, machine, token), 201).item;
      expectOk(await marketPost(order.id, "/payment-intent", { rail: "wallet" }));
      const state = async () => {
        const prisma = prismaOf(p);
        const [payment, row, events] = await Promise.all([
          prisma.marketPayment.findUnique({ where: { orderId: order.id } }),
          prisma.marketOrder.findUnique({ where: { id: order.id } }),
          prisma.marketAuditEvent.count({ where: { machineId: machine } }),
        ]);
        return { payment, row, events };
      };
      return { id: (await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } })).id, pay: (txHash) => marketPost(order.id, "/payment-proof", { txHash }), state };
    }
    if (kind === "order") {
      const buyer = newBuyer();
      const body = { listingId: m.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: agent.address };
      const order = expectOk(await api(p, "POST", "/stream/orders", body), 201).item;
      return { id: order.id, pay: (txHash) => api(p, "POST", `/stream/orders/${order.id}/payment`, { paymentReference: txHash }), state: () => orderState(p, order.id) };
    }
    const purchase = expectOk(await buyerCall(p, m, "POST", "/purchases", purchaseBody(m)), 201).item;
    expect(purchase.status).toBe("payment_pending");
    expectOk(await buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-intent`, { rail: "transfer" }));
    return {
      id: purchase.id,
      pay: (txHash) => buyerCall(p, m, "POST", `/purchases/${purchase.id}/payment-proof`, { rail: "transfer", transactionHash: txHash }),
      state: () => purchaseState(p, purchase.id),
    };
  }

  const spentRows = (txHash: string) => prismaOf(p).spentTransaction.findMany({ where: { txHash } });
  const KIND_OF: Record<Kind, string> = { market: "market_payment", order: "stream_order", purchase: "stream_purchase" };
  const kinds: Kind[] = ["market", "order", "purchase"];
  const pairs = kinds.flatMap((first) => kinds.map((second) => [first, second] as const));

  it.each(pairs)("a transfer that paid a %s pays no %s: PAYMENT_TX_ALREADY_USED, unchanged", async (first, second) => {
    const a = await payable(first);
    const b = await payable(second);
    const txHash = await pay();
    expectOk(await a.pay(txHash));
    const before = await b.state();
    expectMarketsError(await b.pay(txHash), 409, "PAYMENT_TX_ALREADY_USED");
    expect(await b.state()).toEqual(before);
    const rows = await spentRows(txHash);
    expect(rows.map((r: any) => [r.chainId, r.kind, r.paidId])).toEqual([[String(p.demo.chainId), KIND_OF[first], a.id]]);
    expect(rows[0]!.logIndex).toBeGreaterThanOrEqual(0);
    // The first payment's retry answers as paid where the same proof is idempotent (a stream order's payment is not).
    expect((await a.pay(txHash)).status).toBe(first === "order" ? 409 : 200);
    expect(await spentRows(txHash)).toEqual(rows);
  });

  it("a faucet transfer pays nothing, even to an order naming the faucet as its payer", async () => {
    const faucet = new Wallet(p.config.ratings.faucet.privateKey!, chain.provider);
    await chain.transfer(agent, faucet.address, AMOUNT);
    const txHash = await pay(faucet);
    const buyer = newBuyer();
    const order = expectOk(await api(p, "POST", "/stream/orders", { listingId: m.listingId, buyerId: buyer.id, buyerPublicKeyHex: buyer.publicKeyHex, payerAddress: faucet.address }), 201).item;
    const before = await orderState(p, order.id);
    expectMarketsError(await api(p, "POST", `/stream/orders/${order.id}/payment`, { paymentReference: txHash }), 400, "PAYMENT_TRANSFER_NOT_FOUND");
    expect(await orderState(p, order.id)).toEqual(before);
    for (const kind of ["market", "purchase"] as const) {
      const item = await payable(kind);
      const state = await item.state();
      const answer = await item.pay(txHash);
      expect([400, 403]).toContain(answer.status);
      expect(await item.state()).toEqual(state);
    }
    expect(await spentRows(txHash)).toEqual([]);
  });

  it("an escrow release and an x402 settlement, both the platform's transactions, pay no kind", async () => {
    const stablecoin = new Contract(chain.payments.stablecoin.address, contractInterface("TestStablecoin"), new NonceManager(agent));
    // An escrowed market order, locked, executed, confirmed and released: the release moves AMOUNT escrow -> payee.
    const escrowed = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await marketPost(escrowed.id, "/payment-intent", { rail: "onchain-escrow" }));
    await minedReceipt(await stablecoin.approve!(chain.payments.escrow.address, AMOUNT));
    expectOk(await marketPost(escrowed.id, "/payment/escrow-lock", {}));
    expectOk(await marketPost(escrowed.id, "/execute"));
    expectOk(await marketPost(escrowed.id, "/confirm"));
    expectOk(await marketPost(escrowed.id, "/payment/release"));
    const escrowPayment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: escrowed.id } });
    const release = (escrowPayment.details as any).release.txHash as string;
    // The escrow lock's transaction is spent by its payment.
    expect((await spentRows(escrowPayment.txHash!)).map((r: any) => [r.kind, r.paidId, r.logIndex])).toEqual([["market_payment", escrowPayment.id, -1]]);

    // An x402 market order: the operator settles the agent's authorization, a Transfer agent -> payee of AMOUNT.
    const x402 = expectOk(await createOrder(p, machine, token), 201).item;
    const intent = expectOk(await marketPost(x402.id, "/payment-intent", { rail: "x402" })).item;
    const requirements = intent.payment.details.paymentRequirements;
    const now = Math.floor(Date.now() / 1000);
    const authorization = { from: agent.address, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + 300), nonce: randomNonce() };
    const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: p.demo.chainId, verifyingContract: chain.payments.stablecoin.address };
    const signature = await signAuthorization(agent, domain, authorization);
    const paymentSignature = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } })).toString("base64");
    expectOk(await marketPost(x402.id, "/payment-proof", { paymentSignature }));
    expectOk(await marketPost(x402.id, "/execute"));
    const x402Payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: x402.id } });
    const settlement = x402Payment.txHash!;
    expect((await spentRows(settlement)).map((r: any) => [r.kind, r.paidId])).toEqual([["market_payment", x402Payment.id]]);

    for (const txHash of [release, settlement]) {
      for (const kind of kinds) {
        const item = await payable(kind);
        const before = await item.state();
        expectMarketsError(await item.pay(txHash), 400, "PAYMENT_TRANSFER_NOT_FOUND");
        expect(await item.state()).toEqual(before);
      }
    }
  });

  it("two payments claiming one transfer at the same moment: exactly one wins, every pair of kinds", async () => {
    for (const [first, second] of [["order", "purchase"], ["market", "order"], ["purchase", "market"], ["order", "order"]] as const) {
      const a = await payable(first);
      const b = await payable(second);
      const txHash = await pay();
      const answers = await Promise.all([a.pay(txHash), b.pay(txHash)]);
      const statuses = answers.map((x) => x.status).sort();
      expect(statuses, `${first}/${second}: ${answers.map((x) => x.text).join(" ")}`).toEqual([200, 409]);
      const loser = answers.find((x) => x.status === 409)!;
      expect(JSON.parse(loser.text).error.code).toBe("PAYMENT_TX_ALREADY_USED");
      const winner = answers[0]!.status === 200 ? a : b;
      expect((await spentRows(txHash)).map((r: any) => r.paidId)).toEqual([winner.id]);
    }
  });
});
