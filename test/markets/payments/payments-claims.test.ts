/**
 * Claim, then act on chain, then record (docs/markets-payments.md): a refund claims its transition (payment
 * held -> refund_pending, order ready -> cancelled) under the order's row lock before it sends the escrow refund,
 * and execute claims ready -> executing under the same lock, so the two cannot both win. 20 escrowed orders each
 * get a refund and an execute at once, over the real REST shim against anvil's PaymentEscrow; no order may end
 * delivered with its payment refunded, and every escrow on chain must match its payment row. Likewise an escrow lock
 * claims intent_created -> lock_pending before it sends, so a cancel sent with it cannot leave the stablecoin locked
 * for a cancelled order. A claim left behind (lock_pending, refund_pending) is completed from the chain by the next
 * call. An x402 authorization settled on chain by an execute whose record did not commit is recorded by the next
 * execute, not refused as used nor paid twice; concurrent releases or refunds all answer the one transition and the
 * escrow pays out once. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpAnswer } from "../../support/http.js";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { randomNonce, signAuthorization } from "../../../subgraphs/markets/orders/payments/eip3009.js";
import { escrowOrderKey } from "../../../subgraphs/markets/orders/payments/escrow.js";
import {
  agentHeaders,
  api,
  createOrder,
  expectMarketsError,
  expectOk,
  marketsServices,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  usesPostgres,
  type MarketsPlatform,
  providerMachineWithAgent,
} from "../helpers.js";

const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD in 6-decimal units
const PAIRS = 20;
const ESCROW_STATES = ["none", "locked", "released", "refunded"];

describe(`escrow refund and execute claim their transitions (${usesPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let p: MarketsPlatform;
  let machine: string;
  let token: string;
  let agent: Wallet;
  let provider: JsonRpcProvider;
  let payments: DemoPaymentsFixture;
  let stablecoin: Contract;
  let escrow: Contract;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    payments = p.demo.payments!;
    provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    agent = new Wallet(payments.agents[0].privateKey, provider);
    stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), provider);
    escrow = new Contract(payments.escrow.address, contractInterface("PaymentEscrow"), provider);
    ({ machine, token } = await providerMachineWithAgent(p, agent));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    provider?.destroy();
    await p?.close();
  });

  const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const escrowState = async (orderId: string) => ESCROW_STATES[Number((await escrow.getEscrow(escrowOrderKey(orderId))).state)];

  /** An order whose payment is held in PaymentEscrow (the agent's approval, lockFrom) and which is `ready`. */
  async function escrowedOrder(): Promise<string> {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail: "onchain-escrow" }));
    const locked = expectOk(await post(order.id, "/payment/escrow-lock", { payer: agent.address })).item;
    expect(locked).toMatchObject({ orderStatus: "ready", payment: { status: "held" } });
    return order.id;
  }

  it(`${PAIRS} parallel refund/execute pairs: never delivered and refunded; the chain matches every record`, async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW * BigInt(PAIRS)));
    const orderIds: string[] = [];
    for (let i = 0; i < PAIRS; i++) orderIds.push(await escrowedOrder());

    // Half the pairs send execute first, half refund first; each answer pair is [refund, execute].
    const answers = await Promise.all(
      orderIds.map(async (id, i) => {
        if (i % 2 === 0) return Promise.all([post(id, "/payment/refund"), post(id, "/execute")]);
        const [execute, refund] = await Promise.all([post(id, "/execute"), post(id, "/payment/refund")]);
        return [refund, execute] as const;
      }),
    );

    const prisma = prismaOf(p);
    const outcomes: string[] = [];
    for (const [i, orderId] of orderIds.entries()) {
      const [refund, execute] = answers[i]!;
      const order = await prisma.marketOrder.findUniqueOrThrow({ where: { id: orderId } });
      const payment = await prisma.marketPayment.findUniqueOrThrow({ where: { orderId } });
      const onChain = await escrowState(orderId);
      outcomes.push(`${order.status}/${payment.status}`);
      // Exactly one side won the order: a refunded payment cancels an order that never ran; a delivered order keeps its escrow.
      if (payment.status === "refunded") {
        expect({ order: order.status, onChain, refund: refund.status, run: order.runId }).toEqual({ order: "cancelled", onChain: "refunded", refund: 200, run: null });
        expectMarketsError(execute, 409, "ORDER_CLOSED");
      } else {
        expect({ order: order.status, payment: payment.status, onChain, execute: execute.status }).toEqual({ order: "delivered", payment: "held", onChain: "locked", execute: 200 });
        expectMarketsError(refund, 409, "ORDER_STATE_INVALID");
      }
    }
    expect(outcomes.filter((o) => o === "delivered/refunded")).toEqual([]);
  }, 240_000);

  it("a refund whose record did not commit (payment left refund_pending) is completed from the chain, without a second transaction", async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW));
    const orderId = await escrowedOrder();
    const before = (await stablecoin.balanceOf(agent.address)) as bigint;
    // The claim committed and the escrow was refunded on chain, then the process stopped before recording it.
    const prisma = prismaOf(p);
    await prisma.marketPayment.update({ where: { orderId }, data: { status: "refund_pending" } });
    await prisma.marketOrder.update({ where: { id: orderId }, data: { status: "cancelled" } });
    expectMarketsError(await post(orderId, "/execute"), 409, "ORDER_CLOSED");
    // Sent through the platform's own escrow operator (one nonce counter per process).
    await marketsServices(p).paymentChain.escrow().refund(orderId);
    expect(await stablecoin.balanceOf(agent.address)).toBe(before + AMOUNT_RAW);

    const refunded = expectOk(await post(orderId, "/payment/refund")).item;
    expect(refunded).toMatchObject({ orderStatus: "cancelled", payment: { status: "refunded", details: { refund: { txHash: null } } } });
    expect(await stablecoin.balanceOf(agent.address)).toBe(before + AMOUNT_RAW);
    expect(await escrowState(orderId)).toBe("refunded");
    expectMarketsError(await post(orderId, "/payment/refund"), 409, "ORDER_CLOSED");
  }, 60_000);

  it("a refund claimed but not sent (payment left refund_pending, escrow still locked) is sent by the next call", async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW));
    const orderId = await escrowedOrder();
    const before = (await stablecoin.balanceOf(agent.address)) as bigint;
    const prisma = prismaOf(p);
    await prisma.marketPayment.update({ where: { orderId }, data: { status: "refund_pending" } });
    await prisma.marketOrder.update({ where: { id: orderId }, data: { status: "cancelled" } });
    expect(await escrowState(orderId)).toBe("locked");

    const refunded = expectOk(await post(orderId, "/payment/refund")).item;
    expect(refunded).toMatchObject({ orderStatus: "cancelled", payment: { status: "refunded" } });
    expect(refunded.payment.details.refund.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await stablecoin.balanceOf(agent.address)).toBe(before + AMOUNT_RAW);
    expect(await escrowState(orderId)).toBe("refunded");
  }, 60_000);

  it(`${PAIRS} parallel escrow-lock/cancel pairs: the stablecoin is locked exactly when the payment is held`, async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW * BigInt(PAIRS)));
    const orderIds: string[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const order = expectOk(await createOrder(p, machine, token), 201).item;
      expectOk(await post(order.id, "/payment-intent", { rail: "onchain-escrow" }));
      orderIds.push(order.id);
    }
    const lockBody = { payer: agent.address };
    const answers = await Promise.all(
      orderIds.map(async (id, i) => {
        if (i % 2 === 0) return Promise.all([post(id, "/payment/escrow-lock", lockBody), post(id, "/cancel")]);
        const [cancel, lock] = await Promise.all([post(id, "/cancel"), post(id, "/payment/escrow-lock", lockBody)]);
        return [lock, cancel] as const;
      }),
    );
    const prisma = prismaOf(p);
    for (const [i, orderId] of orderIds.entries()) {
      const [lock, cancel] = answers[i]!;
      const order = await prisma.marketOrder.findUniqueOrThrow({ where: { id: orderId } });
      const payment = await prisma.marketPayment.findUniqueOrThrow({ where: { orderId } });
      const onChain = await escrowState(orderId);
      if (payment.status === "held") {
        expect({ order: order.status, onChain, lock: lock.status }).toEqual({ order: "ready", onChain: "locked", lock: 200 });
        expectMarketsError(cancel, 409, "ORDER_STATE_INVALID");
      } else {
        expect({ order: order.status, payment: payment.status, onChain, cancel: cancel.status }).toEqual({ order: "cancelled", payment: "intent_created", onChain: "none", cancel: 200 });
        expectMarketsError(lock, 409, "ORDER_CLOSED");
      }
    }
  }, 240_000);

  it("a lock claimed but not recorded (payment left lock_pending) is completed from the chain by the next call; cancel waits for it", async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW * 2n));
    const prisma = prismaOf(p);
    const payee = payments.payee.address;
    // Locked on chain by the platform's operator, then the process stopped before recording it.
    const sent = expectOk(await createOrder(p, machine, token), 201).item.id as string;
    expectOk(await post(sent, "/payment-intent", { rail: "onchain-escrow" }));
    await prisma.marketPayment.update({ where: { orderId: sent }, data: { status: "lock_pending", payer: agent.address } });
    expectMarketsError(await post(sent, "/cancel"), 409, "ORDER_STATE_INVALID");
    const lockTx = await marketsServices(p).paymentChain.escrow().lock({ orderId: sent, payer: agent.address, payee, amountRaw: AMOUNT_RAW });
    const balanceAfterLock = (await stablecoin.balanceOf(agent.address)) as bigint;
    const recorded = expectOk(await post(sent, "/payment/escrow-lock", {})).item;
    expect(recorded).toMatchObject({ orderStatus: "ready", payment: { status: "held", payer: agent.address, txHash: null, details: { escrowLock: { txHash: null, state: "locked" } } } });
    expect(lockTx.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await stablecoin.balanceOf(agent.address)).toBe(balanceAfterLock);

    // Claimed, nothing sent: the next call sends the lock for the claimed payer; another payer is refused.
    const unsent = expectOk(await createOrder(p, machine, token), 201).item.id as string;
    expectOk(await post(unsent, "/payment-intent", { rail: "onchain-escrow" }));
    await prisma.marketPayment.update({ where: { orderId: unsent }, data: { status: "lock_pending", payer: agent.address } });
    expectMarketsError(await post(unsent, "/payment/escrow-lock", { payer: payments.agents[1]!.address }), 403, "PAYMENT_PAYER_MISMATCH");
    const locked = expectOk(await post(unsent, "/payment/escrow-lock", {})).item;
    expect(locked).toMatchObject({ orderStatus: "ready", payment: { status: "held", payer: agent.address } });
    expect(locked.payment.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await escrowState(unsent)).toBe("locked");
    expect(await stablecoin.balanceOf(agent.address)).toBe(balanceAfterLock - AMOUNT_RAW);
  }, 60_000);

  it("an x402 settlement mined by an execute whose record did not commit is recorded by the next execute, once", async () => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const requirements = expectOk(await post(order.id, "/payment-intent", { rail: "x402" })).item.payment.details.paymentRequirements;
    const now = Math.floor(Date.now() / 1000);
    const authorization = { from: agent.address, to: requirements.payTo, value: requirements.maxAmountRequired, validAfter: String(now - 60), validBefore: String(now + 300), nonce: randomNonce() };
    const domain = { name: requirements.extra.name, version: requirements.extra.version, chainId: p.demo.chainId, verifyingContract: payments.stablecoin.address };
    const signature = await signAuthorization(agent, domain, authorization);
    const payload = { x402Version: 1, scheme: "exact", network: requirements.network, payload: { signature, authorization } };
    expectOk(await post(order.id, "/payment-proof", { paymentSignature: Buffer.from(JSON.stringify(payload)).toString("base64") }));

    // The authorization is settled on chain (as an earlier execute's send would have), and nothing was recorded.
    const a = authorization;
    const settle = await (stablecoin.connect(new NonceManager(agent)) as Contract)["transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)"](
      a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, signature,
    );
    const mined = await minedReceipt(settle);
    const payeeBefore = (await stablecoin.balanceOf(payments.payee.address)) as bigint;

    const executed = expectOk(await post(order.id, "/execute")).item;
    expect(executed.order.status).toBe("confirmed");
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId: order.id } });
    expect({ status: payment.status, txHash: payment.txHash }).toEqual({ status: "released", txHash: mined.hash.toLowerCase() });
    expect(await stablecoin.balanceOf(payments.payee.address)).toBe(payeeBefore);
  }, 60_000);

  it("three releases or three refunds sent at once: each answers the one transition or, arriving after it was recorded, the order's closed state; the escrow pays out once", async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW * 2n));
    const balance = async (address: string) => (await stablecoin.balanceOf(address)) as bigint;
    // A call that finds the transition in progress answers it; one the scheduler delays until the record committed
    // finds the payment settled and answers as a sequential second call does (release: ORDER_STATE_INVALID, refund:
    // ORDER_CLOSED). Nothing else, and at least the first call answers the transition.
    const outcome = (answer: HttpAnswer, late: string) =>
      answer.status === 200 ? [200, answer.json().item.payment.status, answer.json().item.orderStatus] : [answer.status, answer.json().error?.code ?? answer.text, late];
    const released = await escrowedOrder();
    expectOk(await post(released, "/execute"));
    expectOk(await post(released, "/confirm"));
    const payeeBefore = await balance(payments.payee.address);
    const releases = (await Promise.all([1, 2, 3].map(() => post(released, "/payment/release")))).map((a) => outcome(a, "late"));
    for (const answer of releases) expect([[200, "released", "confirmed"], [409, "ORDER_STATE_INVALID", "late"]]).toContainEqual(answer);
    expect(releases).toContainEqual([200, "released", "confirmed"]);
    expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
    expect(await escrowState(released)).toBe("released");
    // The late answer, deterministically: a release after the recorded one.
    expect(outcome(await post(released, "/payment/release"), "late")).toEqual([409, "ORDER_STATE_INVALID", "late"]);

    const refunded = await escrowedOrder();
    const payerBefore = await balance(agent.address);
    const refunds = (await Promise.all([1, 2, 3].map(() => post(refunded, "/payment/refund")))).map((a) => outcome(a, "late"));
    for (const answer of refunds) expect([[200, "refunded", "cancelled"], [409, "ORDER_CLOSED", "late"]]).toContainEqual(answer);
    expect(refunds).toContainEqual([200, "refunded", "cancelled"]);
    expect(await balance(agent.address)).toBe(payerBefore + AMOUNT_RAW);
    expect(await escrowState(refunded)).toBe("refunded");
    expect(outcome(await post(refunded, "/payment/refund"), "late")).toEqual([409, "ORDER_CLOSED", "late"]);
  }, 60_000);

  it("a release sent while another one's transaction waits to be mined shares that transaction: both answer the transition, the escrow pays out once", async () => {
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW));
    const orderId = await escrowedOrder();
    expectOk(await post(orderId, "/execute"));
    expectOk(await post(orderId, "/confirm"));
    const payeeBefore = (await stablecoin.balanceOf(payments.payee.address)) as bigint;
    const pending = async () => Number(BigInt((await provider.send("txpool_status", [])).pending));
    await provider.send("evm_setAutomine", [false]);
    let first: Promise<HttpAnswer> | undefined;
    let second: Promise<HttpAnswer> | undefined;
    try {
      first = post(orderId, "/payment/release");
      // The first release's transaction is in the pool, not mined: a second send now would be refused by the escrow
      // (its gas estimate sees the pending release) while the latest block still shows the escrow locked.
      for (const deadline = Date.now() + 10_000; (await pending()) === 0; ) {
        if (Date.now() > deadline) throw new Error("the first release sent no transaction");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      second = post(orderId, "/payment/release");
      await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 1_500))]);
      expect(await pending()).toBe(1);
    } finally {
      await provider.send("evm_setAutomine", [true]);
    }
    const answers = await Promise.all([first!, second!]);
    for (const answer of answers) expect(expectOk(answer).item).toMatchObject({ orderStatus: "confirmed", payment: { status: "released" } });
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } });
    const txHash = (payment.details as { release?: { txHash?: string } }).release?.txHash;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await provider.getTransactionReceipt(txHash!))?.status).toBe(1);
    expect(await escrowState(orderId)).toBe("released");
    expect(await stablecoin.balanceOf(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
  }, 60_000);
});
