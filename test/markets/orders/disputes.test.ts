/**
 * The arbiter resolves disputed market orders (docs/markets-orders.md, "Resolving a dispute"), over the real REST
 * shim, GraphQL gateway and CLI against anvil's PaymentEscrow: `release` pays the payee on chain and confirms the
 * order, `refund` returns the escrow to the payer and cancels it, each with its audit events and the decision stored
 * on the order; a claim left behind is completed from the chain; concurrent resolutions send one transaction; every
 * refusal (credential missing or wrong, bad decision or reason, an order that is not disputed) answers its documented
 * code and changes nothing; the pairing can be revoked once its disputed order is resolved; a wallet transfer's
 * dispute is a recorded decision. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import type { DemoPaymentsFixture } from "../../../subgraphs/shared/chain/payments-setup.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { DEV_OPERATOR_TOKEN } from "../../../subgraphs/shared/config.js";
import { escrowOrderKey } from "../../../subgraphs/markets/orders/payments/escrow.js";
import { runCli } from "../../support/cli.js";
import { sessionOf } from "../../support/machine-sessions.js";
import { graphql } from "../../support/platform.js";
import {
  agentHeaders,
  api,
  createOrder,
  expectMarketsError,
  expectOk,
  marketsServices,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  providerMachineWithAgent,
  startMarketsPlatform,
  usesPostgres,
  type MarketsPlatform,
} from "../helpers.js";

const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD in 6-decimal units
const ESCROW_STATES = ["none", "locked", "released", "refunded"];
const OPERATOR = { authorization: `Bearer ${DEV_OPERATOR_TOKEN}` };

describe(`the arbiter resolves disputed orders (${usesPostgres ? "PostgreSQL" : "PGlite"})`, () => {
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
    await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).approve(payments.escrow.address, AMOUNT_RAW * 100n));
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    provider?.destroy();
    await p?.close();
  });

  const post = (orderId: string, suffix: string, body?: unknown, t = token) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(t));
  const resolve = (orderId: string, body: unknown, headers: Record<string, string> = OPERATOR) => api(p, "POST", `/market/orders/${orderId}/resolve`, body, headers);
  const escrowState = async (orderId: string) => ESCROW_STATES[Number((await escrow.getEscrow(escrowOrderKey(orderId))).state)];
  const balance = async (address: string) => (await stablecoin.balanceOf(address)) as bigint;
  const operatorNonce = () => provider.getTransactionCount(payments.escrow.operatorAddress, "latest");
  const kinds = async (orderId: string) =>
    (await prismaOf(p).marketAuditEvent.findMany({ orderBy: { id: "asc" } })).filter((e) => (e.data as { orderId?: string }).orderId === orderId);

  /** An order escrowed in PaymentEscrow, delivered by the demo provider, then disputed by its agent (payment frozen). */
  async function disputedEscrowOrder(t = token, payer = agent.address): Promise<string> {
    const order = expectOk(await createOrder(p, machine, t), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail: "onchain-escrow" }, t));
    expectOk(await post(order.id, "/payment/escrow-lock", { payer }, t));
    expect(expectOk(await post(order.id, "/execute", undefined, t)).item.order.status).toBe("delivered");
    expect(expectOk(await post(order.id, "/dispute", { reason: "the price is stale" }, t)).item.status).toBe("disputed");
    return order.id;
  }

  const snapshot = async (orderId: string) => ({
    order: await prismaOf(p).marketOrder.findUnique({ where: { id: orderId } }),
    payment: await prismaOf(p).marketPayment.findUnique({ where: { orderId } }),
    audit: await prismaOf(p).marketAuditEvent.count(),
    escrow: await escrowState(orderId),
  });

  it("release: the payee is paid on chain, the escrow is released, the order confirmed with the decision and its audit events", async () => {
    const orderId = await disputedEscrowOrder();
    const payeeBefore = await balance(payments.payee.address);
    const payerBefore = await balance(agent.address);
    const resolved = expectOk(await resolve(orderId, { decision: "release", reason: "delivered as quoted" })).item;
    expect(resolved.order).toMatchObject({ id: orderId, status: "confirmed", resolution: { decision: "release", reason: "delivered as quoted", onChain: true } });
    expect(resolved.payment).toMatchObject({ status: "released", details: { release: { byArbiter: true } } });
    expect(resolved.payment.details.release.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
    expect(await balance(agent.address)).toBe(payerBefore);
    expect(await escrowState(orderId)).toBe("released");

    // What each party reads: the buyer agent (the order, its payment) and the provider machine (its orders, its audit log).
    expect(expectOk(await api(p, "GET", `/market/orders/${orderId}`)).item).toMatchObject({ status: "confirmed", resolution: { decision: "release" } });
    expect(expectOk(await api(p, "GET", `/market/orders/${orderId}/payment`)).item.status).toBe("released");
    const listed = expectOk(await api(p, "GET", `/market/orders?machineId=${machine}`)).items.find((o: any) => o.id === orderId);
    expect(listed.resolution.reason).toBe("delivered as quoted");
    const events = expectOk(await api(p, "GET", `/audit-events?machineId=${machine}&actorType=platform`)).items.filter((e: any) => e.data.orderId === orderId);
    expect(events.map((e: any) => e.kind).sort()).toEqual(["market.order.dispute-resolved", "market.payment.released"]);
    const events2 = await kinds(orderId);
    expect(events2.map((e) => e.kind).slice(-2)).toEqual(["market.order.dispute-resolved", "market.payment.released"]);
    expect(events2.at(-2)!.data).toMatchObject({ decision: "release", before: { status: "disputed" }, after: { status: "confirmed" }, paymentStatus: "release_pending" });
    expect(events2.at(-2)).toMatchObject({ actorType: "platform", actorId: "operator" });

    // Resolving again with the same decision answers it as it is, without a transaction; the other decision is closed.
    const nonce = await operatorNonce();
    expect(expectOk(await resolve(orderId, { decision: "release", reason: "again" })).item.order.resolution.reason).toBe("delivered as quoted");
    const before = await snapshot(orderId);
    expectMarketsError(await resolve(orderId, { decision: "refund", reason: "changed my mind" }), 409, "ORDER_CLOSED");
    expect(await snapshot(orderId)).toEqual(before);
    expect(await operatorNonce()).toBe(nonce);
  }, 90_000);

  it("refund: the payer gets the escrow back, the order is cancelled", async () => {
    const orderId = await disputedEscrowOrder();
    const payeeBefore = await balance(payments.payee.address);
    const payerBefore = await balance(agent.address);
    const resolved = expectOk(await resolve(orderId, { decision: "refund", reason: "the data was wrong" })).item;
    expect(resolved.order).toMatchObject({ status: "cancelled", resolution: { decision: "refund", reason: "the data was wrong", onChain: true } });
    expect(resolved.payment.status).toBe("refunded");
    expect(resolved.payment.details.refund.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(agent.address)).toBe(payerBefore + AMOUNT_RAW);
    expect(await balance(payments.payee.address)).toBe(payeeBefore);
    expect(await escrowState(orderId)).toBe("refunded");
    expect((await kinds(orderId)).map((e) => e.kind).slice(-2)).toEqual(["market.order.dispute-resolved", "market.payment.refunded"]);
    // The agent's own refund route finds nothing left to do.
    expectMarketsError(await post(orderId, "/payment/refund"), 409, "ORDER_CLOSED");
  }, 90_000);

  it("each refusal answers its code and changes nothing: credential first, then the request, then the order's state", async () => {
    const orderId = await disputedEscrowOrder();
    const before = await snapshot(orderId);
    const good = { decision: "release", reason: "ok" };
    expectMarketsError(await resolve(orderId, good, { authorization: "" }), 401, "OPERATOR_AUTH_REQUIRED");
    expectMarketsError(await resolve(orderId, good, { authorization: "Bearer not-the-operator-token" }), 401, "OPERATOR_AUTH_INVALID");
    expectMarketsError(await resolve(orderId, good, { authorization: "Basic abc" }), 401, "OPERATOR_AUTH_INVALID");
    // Neither party of the order is the arbiter: the agent's pairing token, the machine's session.
    expectMarketsError(await resolve(orderId, good, { authorization: `Bearer ${token}` }), 401, "OPERATOR_AUTH_INVALID");
    expectMarketsError(await resolve(orderId, good, { authorization: `Bearer ${sessionOf(machine)}` }), 401, "OPERATOR_AUTH_INVALID");
    expectMarketsError(await resolve(orderId, good, { authorization: "", ...agentHeaders(token) }), 401, "OPERATOR_AUTH_REQUIRED");
    // A bad body says nothing to a caller without the credential.
    expectMarketsError(await resolve(orderId, "[1,", { authorization: "" }), 401, "OPERATOR_AUTH_REQUIRED");
    expectMarketsError(await resolve(orderId, { decision: 7 }, { authorization: "Bearer wrong" }), 401, "OPERATOR_AUTH_INVALID");
    // With it, the request's values.
    expectMarketsError(await resolve(orderId, "[1,"), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: "split", reason: "half each" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: "RELEASE", reason: "x" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: 1, reason: "x" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { reason: "no decision" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: "refund" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: "refund", reason: "" }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve(orderId, { decision: "refund", reason: "x".repeat(1001) }), 400, "VALIDATION_ERROR");
    expectMarketsError(await resolve("ord_aaaaaaaaaaaaaaaa", good), 404, "NOT_FOUND");
    expect(await snapshot(orderId)).toEqual(before);

    // Orders that are not disputed: delivered (open) and confirmed (closed).
    const delivered = expectOk(await createOrder(p, machine, token), 201).item.id as string;
    expectOk(await post(delivered, "/payment-intent", {}));
    expectOk(await post(delivered, "/execute"));
    const deliveredBefore = await snapshot(delivered);
    expectMarketsError(await resolve(delivered, good), 409, "ORDER_STATE_INVALID");
    expect(await snapshot(delivered)).toEqual(deliveredBefore);
    expectOk(await post(delivered, "/confirm"));
    const confirmedBefore = await snapshot(delivered);
    expectMarketsError(await resolve(delivered, good), 409, "ORDER_CLOSED");
    expectMarketsError(await resolve(delivered, { decision: "refund", reason: "late" }), 409, "ORDER_CLOSED");
    expect(await snapshot(delivered)).toEqual(confirmedBefore);
  }, 90_000);

  it("three resolutions sent at once resolve once: one chain transaction, the payee paid once", async () => {
    const orderId = await disputedEscrowOrder();
    const payeeBefore = await balance(payments.payee.address);
    const nonce = await operatorNonce();
    const answers = await Promise.all([1, 2, 3].map(() => resolve(orderId, { decision: "release", reason: "fine" })));
    expect(answers.map((a) => [a.status, a.json().item?.order.status, a.json().item?.payment.status])).toEqual([
      [200, "confirmed", "released"],
      [200, "confirmed", "released"],
      [200, "confirmed", "released"],
    ]);
    expect(await operatorNonce()).toBe(nonce + 1);
    expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
    expect((await kinds(orderId)).filter((e) => e.kind === "market.order.dispute-resolved" || e.kind === "market.payment.released")).toHaveLength(2);
  }, 90_000);

  it("a claim left behind is completed from the chain: sent when it was not, recorded without a second transaction when it was", async () => {
    const prisma = prismaOf(p);
    const leaveClaim = async (orderId: string, decision: "release" | "refund") => {
      await prisma.marketOrder.update({
        where: { id: orderId },
        data: { status: decision === "release" ? "confirmed" : "cancelled", resolution: { decision, reason: "claimed", resolvedAt: new Date().toISOString(), onChain: true } },
      });
      await prisma.marketPayment.update({ where: { orderId }, data: { status: decision === "release" ? "release_pending" : "refund_pending" } });
    };
    // Claimed, never sent: the escrow is still locked.
    const unsent = await disputedEscrowOrder();
    await leaveClaim(unsent, "refund");
    const payerBefore = await balance(agent.address);
    const refunded = expectOk(await resolve(unsent, { decision: "refund", reason: "retry" })).item;
    expect(refunded).toMatchObject({ order: { status: "cancelled", resolution: { reason: "claimed" } }, payment: { status: "refunded" } });
    expect(refunded.payment.details.refund.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(agent.address)).toBe(payerBefore + AMOUNT_RAW);

    // Sent on chain, not recorded: recorded with no transaction.
    const sent = await disputedEscrowOrder();
    await leaveClaim(sent, "release");
    await marketsServices(p).paymentChain.escrow().release(sent);
    const payeeAfterSend = await balance(payments.payee.address);
    const nonce = await operatorNonce();
    const released = expectOk(await resolve(sent, { decision: "release", reason: "retry" })).item;
    expect(released.payment).toMatchObject({ status: "released", details: { release: { txHash: null, byArbiter: true } } });
    expect(await operatorNonce()).toBe(nonce);
    expect(await balance(payments.payee.address)).toBe(payeeAfterSend);
  }, 90_000);

  it("a failure before a step's commit: the claim leaves nothing behind; a lost record is completed by the next call", async () => {
    const store = marketsServices(p).store;
    const failCommit = (n: number) => {
      let commits = 0;
      store.beforeCommit = () => {
        if (++commits === n) throw new Error("injected before commit");
      };
    };
    // The claim's transaction fails after its audit write: nothing changes, nothing is sent.
    const orderId = await disputedEscrowOrder();
    const before = await snapshot(orderId);
    const nonce = await operatorNonce();
    failCommit(1);
    try {
      expectMarketsError(await resolve(orderId, { decision: "refund", reason: "x" }), 500, "INTERNAL_ERROR");
    } finally {
      store.beforeCommit = null;
    }
    expect(await snapshot(orderId)).toEqual(before);
    expect(await operatorNonce()).toBe(nonce);
    // The claim commits and the escrow is refunded on chain, then the record's transaction fails.
    const payerBefore = await balance(agent.address);
    failCommit(2);
    try {
      expectMarketsError(await resolve(orderId, { decision: "refund", reason: "x" }), 500, "INTERNAL_ERROR");
    } finally {
      store.beforeCommit = null;
    }
    expect((await snapshot(orderId)).payment!.status).toBe("refund_pending");
    expect(await escrowState(orderId)).toBe("refunded");
    const recorded = expectOk(await resolve(orderId, { decision: "refund", reason: "again" })).item;
    expect(recorded).toMatchObject({ order: { status: "cancelled" }, payment: { status: "refunded", details: { refund: { txHash: null } } } });
    expect(await operatorNonce()).toBe(nonce + 1);
    expect(await balance(agent.address)).toBe(payerBefore + AMOUNT_RAW);
  }, 90_000);

  it("the pairing of a disputed order can be revoked once the order is resolved (a not-required order: a recorded decision)", async () => {
    const other = new Wallet(payments.agents[1]!.privateKey);
    const pairing = await pairAgent(p, machine, other);
    const order = expectOk(await createOrder(p, machine, pairing.pairingToken), 201).item.id as string;
    expect(expectOk(await post(order, "/payment-intent", {}, pairing.pairingToken)).item.payment.status).toBe("not_required");
    expectOk(await post(order, "/execute", undefined, pairing.pairingToken));
    expectOk(await post(order, "/dispute", { reason: "no answer" }, pairing.pairingToken));
    const path = `/machines/${machine}/agent-pairings/${pairing.id}`;
    const refused = await api(p, "DELETE", path);
    expect({ status: refused.status, code: refused.json().error.code, ids: refused.json().error.details.orderIds }).toEqual({ status: 409, code: "OPEN_MARKET_ORDERS", ids: [order] });

    const resolved = expectOk(await resolve(order, { decision: "refund", reason: "nothing was paid" })).item;
    expect(resolved).toMatchObject({ order: { status: "cancelled", resolution: { decision: "refund", onChain: false } }, payment: { status: "not_required" } });
    expect((await api(p, "DELETE", path)).status).toBe(204);
  }, 90_000);

  it("a wallet transfer's dispute is a recorded decision: release keeps the transfer with the payee; refund cancels and leaves the payment frozen", async () => {
    const walletOrder = async () => {
      const id = expectOk(await createOrder(p, machine, token), 201).item.id as string;
      expectOk(await post(id, "/payment-intent", { rail: "wallet", payer: agent.address }));
      const txHash = (await minedReceipt(await (stablecoin.connect(new NonceManager(agent)) as Contract).transfer(payments.payee.address, AMOUNT_RAW))).hash;
      expectOk(await post(id, "/payment-proof", { mode: "rpc", txHash, from: agent.address }));
      expectOk(await post(id, "/execute"));
      expectOk(await post(id, "/dispute", { reason: "wrong pair" }));
      return id;
    };
    const nonce = await operatorNonce();
    const released = expectOk(await resolve(await walletOrder(), { decision: "release", reason: "correct" })).item;
    expect(released).toMatchObject({ order: { status: "confirmed", resolution: { onChain: false } }, payment: { status: "released", details: { resolution: { decision: "release" } } } });
    const refundedId = await walletOrder();
    const refunded = expectOk(await resolve(refundedId, { decision: "refund", reason: "wrong" })).item;
    expect(refunded).toMatchObject({ order: { status: "cancelled", resolution: { decision: "refund", onChain: false } }, payment: { status: "frozen", details: { resolution: { decision: "refund" } } } });
    expect(await operatorNonce()).toBe(nonce);
    expect((await kinds(refundedId)).map((e) => e.kind).at(-1)).toBe("market.order.dispute-resolved");
  }, 90_000);

  it("GraphQL: resolveMarketOrderDispute takes the operator's token; without it, OPERATOR_AUTH_REQUIRED and nothing changes", async () => {
    const orderId = await disputedEscrowOrder();
    const mutation = `mutation R($t: String, $o: String!, $d: String, $r: String) {
      resolveMarketOrderDispute(operatorToken: $t, orderId: $o, decision: $d, reason: $r) { order { status resolution } payment { status } } }`;
    const before = await snapshot(orderId);
    const anonymous = await graphql(p.graphql, mutation, { o: orderId, d: "refund", r: "x" });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("OPERATOR_AUTH_REQUIRED");
    const wrong = await graphql(p.graphql, mutation, { t: "nope", o: orderId, d: "refund", r: "x" });
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe("OPERATOR_AUTH_INVALID");
    const bad = await graphql(p.graphql, mutation, { t: DEV_OPERATOR_TOKEN, o: orderId, d: "both", r: "x" });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
    expect(await snapshot(orderId)).toEqual(before);
    const done = await graphql(p.graphql, mutation, { t: DEV_OPERATOR_TOKEN, o: orderId, d: "refund", r: "by GraphQL" });
    expect(done.body.data.resolveMarketOrderDispute).toMatchObject({ order: { status: "CANCELLED", resolution: { reason: "by GraphQL" } }, payment: { status: "REFUNDED" } });
  }, 90_000);

  it("cli market resolve: the operator releases a disputed order end to end; a wrong token exits 1 naming the code", async () => {
    const orderId = await disputedEscrowOrder();
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(p, ["market", "resolve", "--order", orderId, ...args, "--api", p.markets], env);
    const refused = await cli(["--decision", "release", "--reason", "ok"], { OPERATOR_TOKEN: "not-the-operator-token" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("OPERATOR_AUTH_INVALID");
    expect((await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } })).status).toBe("disputed");
    const usage = await cli(["--decision", "keep", "--reason", "ok"]);
    expect(usage.code).not.toBe(0);

    const payeeBefore = await balance(payments.payee.address);
    const run = await cli(["--decision", "release", "--reason", "delivered as quoted"]);
    expect(run.code, run.stderr).toBe(0);
    const line = JSON.parse(run.stdout.trim());
    expect(line).toMatchObject({ step: "resolve", orderId, status: "confirmed", paymentStatus: "released", resolution: { decision: "release", reason: "delivered as quoted" } });
    expect(line.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(payments.payee.address)).toBe(payeeBefore + AMOUNT_RAW);
  }, 90_000);
});
