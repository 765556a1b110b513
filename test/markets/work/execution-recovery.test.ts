/**
 * Executions past their deadline (docs/markets-orders.md, docs/markets-work.md "Execution deadline"), over the real
 * REST routes and GraphQL against a real provider socket that holds its answer (a stalled execution), with an injected
 * clock and MARKETS_EXECUTION_DEADLINE_SECONDS=60: an escrowed market order executing past its deadline is recovered
 * `failed` once (by the job, or lazily by the next call), its task failed with a `deadline_exceeded` run, its payment
 * refunded on chain once (a refund whose first send failed is completed by a later sweep, sent once; one that landed
 * unseen is recorded from the chain, not sent again); the provider is
 * called once, and its late answer records nothing. A standalone task past
 * its deadline is recovered by its next execute, which runs nothing. PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Contract, NonceManager, Wallet, type JsonRpcProvider } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInterface } from "../../../subgraphs/shared/chain/artifacts.js";
import { minedReceipt } from "../../../subgraphs/shared/chain/deploy.js";
import { createProvider } from "../../../subgraphs/shared/chain/rpc.js";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { escrowOrderKey } from "../../../subgraphs/markets/orders/payments/escrow.js";
import { REFUND_RETRY_AFTER_MS } from "../../../subgraphs/markets/orders/order.recovery.js";
import { manualClock } from "../../support/clock.js";
import { graphql } from "../../support/platform.js";
import { waitUntil } from "../../support/wait.js";
import {
  agentHeaders,
  api,
  bindMachine,
  createOrder,
  expectMarketsError,
  expectOk,
  marketsServices,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  startMarketsPlatform,
  type HttpAnswer,
  type MarketsPlatform,
} from "../helpers.js";

const DEADLINE_MS = 60_000;
const AMOUNT_RAW = 10_000n; // the demo price feed's 0.01 USD

/** A provider that counts its calls and answers each only when the test releases it. */
async function holdingProvider() {
  let calls = 0;
  const held: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    calls += 1;
    request.resume();
    held.push(() => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ pair: "ETH/USD", price: "3120.55" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    waiting: () => held.length,
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("executions past their deadline are recovered once, the provider called once", () => {
  const clock = manualClock();
  let p: MarketsPlatform;
  let provider: Awaited<ReturnType<typeof holdingProvider>>;
  let machine: string;
  let token: string;
  let agent: Wallet;
  let rpc: JsonRpcProvider;
  let escrow: Contract;

  beforeAll(async () => {
    provider = await holdingProvider();
    p = await startMarketsPlatform({ MARKETS_EXECUTION_DEADLINE_SECONDS: "60", OUTBOUND_ALLOW_CIDRS: "127.0.0.1" }, { clock });
    const payments = p.demo.payments!;
    rpc = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    agent = new Wallet(payments.agents[0].privateKey, rpc);
    escrow = new Contract(payments.escrow.address, contractInterface("PaymentEscrow"), rpc);
    const stablecoin = new Contract(payments.stablecoin.address, contractInterface("TestStablecoin"), new NonceManager(agent));
    await minedReceipt(await stablecoin.approve!(payments.escrow.address, AMOUNT_RAW * 10n));
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    const demo = p.demo.markets!.provider;
    expectOk(await api(p, "PUT", `/machines/${machine}/runtime-endpoints/${demo.providerKey}`, { endpointBaseUrl: provider.url, authType: "bearer", authToken: "held-token" }), 201);
    token = (await pairAgent(p, machine, agent)).pairingToken;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    rpc?.destroy();
    await p?.close();
    await provider?.close();
  });

  const post = (orderId: string, suffix: string, body?: unknown) => api(p, "POST", `/market/orders/${orderId}${suffix}`, body, agentHeaders(token));
  const kinds = async (key: string, id: string) =>
    (await prismaOf(p).marketAuditEvent.findMany({ orderBy: { id: "asc" } })).filter((e: any) => e.data?.[key] === id).map((e) => e.kind);
  const escrowState = async (orderId: string) => ["none", "locked", "released", "refunded"][Number((await escrow.getEscrow!(escrowOrderKey(orderId))).state)];

  /** An escrowed order whose execute is in flight, held at the provider: the order ID and the pending answer. */
  async function stalledOrder(): Promise<{ orderId: string; answer: Promise<HttpAnswer> }> {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectOk(await post(order.id, "/payment-intent", { rail: "onchain-escrow" }));
    expect(expectOk(await post(order.id, "/payment/escrow-lock", { payer: agent.address })).item.orderStatus).toBe("ready");
    const before = provider.calls();
    const answer = post(order.id, "/execute");
    await waitUntil(() => provider.calls() === before + 1);
    return { orderId: order.id, answer };
  }

  it("setting: 600 s by default, and never shorter than the provider timeout + 30 s", () => {
    expect(loadConfig({}).marketsWork.executionDeadlineSeconds).toBe(600);
    expect(() => loadConfig({ MARKETS_EXECUTION_DEADLINE_SECONDS: "39", MARKETS_PROVIDER_TIMEOUT_MS: "10000" })).toThrow(/MARKETS_EXECUTION_DEADLINE_SECONDS/);
  });

  it("the job recovers an escrowed order past its deadline: failed, task failed, refunded on chain once; the late answer records nothing", async () => {
    const { orderId, answer } = await stalledOrder();
    const calls = provider.calls();
    const row = await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } });
    expect(row.status).toBe("executing");
    expect(row.executingDeadline!.getTime()).toBe(clock.now() + DEADLINE_MS);

    clock.advance(DEADLINE_MS - 1);
    expect((await marketsServices(p).lifecycle.run()).ordersRecovered).toBe(0);
    expect(expectOk(await api(p, "GET", `/market/orders/${orderId}`)).item.status).toBe("executing");
    clock.advance(1);
    // Two sweeps and a read at once: one recovery.
    const [a, b] = await Promise.all([marketsServices(p).lifecycle.run(), marketsServices(p).lifecycle.run(), api(p, "GET", `/market/orders/${orderId}`)]);
    expect(a.ordersRecovered + b.ordersRecovered).toBeLessThanOrEqual(1);
    expect([a.tasksRecovered, b.tasksRecovered]).toEqual([0, 0]);

    const order = expectOk(await api(p, "GET", `/market/orders/${orderId}`)).item;
    expect({ status: order.status, error: order.errorMessage }).toEqual({ status: "failed", error: expect.stringMatching(/^execution deadline passed/) });
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } });
    expect(payment.status).toBe("refunded");
    expect(await escrowState(orderId)).toBe("refunded");
    expect(await kinds("orderId", orderId)).toEqual([
      "market.order.created",
      "market.payment.intent-created",
      "market.payment.escrow-held",
      "task.created",
      "task.resolved",
      "market.order.recovered",
      "market.payment.refunded",
    ]);
    const task = expectOk(await api(p, "GET", `/machines/${machine}/tasks/${row.taskId}`)).item;
    expect(task.status).toBe("failed");
    const runs = await prismaOf(p).marketsRun.findMany({ where: { taskId: row.taskId! } });
    expect(runs.map((r) => [r.status, r.errorReason])).toEqual([["failed", "deadline_exceeded"]]);

    // The stalled call comes back: it records nothing over the recovery, and nothing calls the provider again.
    provider.release();
    expectMarketsError(await answer, 409, "TASK_STATE_INVALID");
    expectMarketsError(await post(orderId, "/execute"), 409, "ORDER_CLOSED");
    expect(provider.calls()).toBe(calls);
    expect(await prismaOf(p).marketsRun.count({ where: { taskId: row.taskId! } })).toBe(1);
    expect((await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } })).status).toBe("failed");
    expect((await kinds("orderId", orderId)).filter((k) => k === "market.order.recovered" || k === "market.payment.refunded")).toHaveLength(2);
    expect(await marketsServices(p).lifecycle.run()).toEqual({ streamOrdersExpired: 0, purchasesExpired: 0, ordersRecovered: 0, refundsCompleted: 0, tasksRecovered: 0 });
  });

  it("lazily: the next call on the order (a GraphQL read) recovers it and refunds it without the job", async () => {
    const { orderId, answer } = await stalledOrder();
    const calls = provider.calls();
    // While executing, the order answers its claim's deadline (REST and GraphQL); once recovered, null.
    const stored = (await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } })).executingDeadline!.toISOString();
    expect(expectOk(await api(p, "GET", `/market/orders/${orderId}`)).item).toMatchObject({ status: "executing", executingDeadline: stored });
    const query = `query($id: String!) { marketOrder(orderId: $id) { id status executingDeadline } }`;
    expect((await graphql(p.graphql, query, { id: orderId })).body.data.marketOrder).toMatchObject({ status: "EXECUTING", executingDeadline: stored });
    clock.advance(DEADLINE_MS);
    const read = await graphql(p.graphql, query, { id: orderId });
    expect(read.body.data.marketOrder).toMatchObject({ status: "FAILED", executingDeadline: null });
    expect(await escrowState(orderId)).toBe("refunded");
    // Refunded by the recovery already: the agent's refund call is refused and changes nothing.
    const events = await kinds("orderId", orderId);
    expectMarketsError(await post(orderId, "/payment/refund"), 409, "ORDER_STATE_INVALID");
    expect(await kinds("orderId", orderId)).toEqual(events);
    expect((await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } })).status).toBe("refunded");
    expect((await kinds("orderId", orderId)).filter((k) => k === "market.order.recovered")).toHaveLength(1);
    provider.release();
    expectMarketsError(await answer, 409, "TASK_STATE_INVALID");
    expect(provider.calls()).toBe(calls);
  });

  it("lazily: an agent write on the order (confirm) recovers it first, then answers on the failed order; one recovery", async () => {
    const { orderId, answer } = await stalledOrder();
    const calls = provider.calls();
    clock.advance(DEADLINE_MS);
    // Two writes at once: the locked read of each finds the order due or already failed; exactly one recovery.
    const [confirm, cancel] = await Promise.all([post(orderId, "/confirm"), post(orderId, "/cancel")]);
    expectMarketsError(confirm, 409, "ORDER_CLOSED");
    expectMarketsError(cancel, 409, "ORDER_CLOSED");
    const order = await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } });
    expect({ status: order.status, error: order.errorMessage }).toEqual({ status: "failed", error: expect.stringMatching(/^execution deadline passed/) });
    expect((await kinds("orderId", orderId)).filter((k) => k === "market.order.recovered")).toHaveLength(1);
    expect((await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } })).status).toBe("refunded");
    provider.release();
    expectMarketsError(await answer, 409, "TASK_STATE_INVALID");
    expect(provider.calls()).toBe(calls);
  });

  /**
   * A stalled escrowed order past its deadline, recovered by the job while the escrow operator cannot pay gas (the node
   * refuses the recovery's refund transaction): the order ID, the execute's pending answer, the operator.
   */
  async function recoveredWithoutRefund(): Promise<{ orderId: string; answer: Promise<HttpAnswer>; operator: string }> {
    const { orderId, answer } = await stalledOrder();
    const operator = p.demo.payments!.escrow.operatorAddress;
    const balance = await rpc.getBalance(operator);
    await rpc.send("anvil_setBalance", [operator, "0x0"]);
    clock.advance(DEADLINE_MS);
    try {
      const first = await marketsServices(p).lifecycle.run();
      expect([first.ordersRecovered, first.refundsCompleted]).toEqual([1, 0]);
    } finally {
      await rpc.send("anvil_setBalance", [operator, `0x${balance.toString(16)}`]);
    }
    return { orderId, answer, operator };
  }

  it("a recovery whose refund send fails leaves the claim; a later sweep reads the chain and sends it once, then records it", async () => {
    const { orderId, answer, operator } = await recoveredWithoutRefund();
    expect((await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } })).status).toBe("refund_pending");
    expect(await escrowState(orderId)).toBe("locked");
    expect((await kinds("orderId", orderId)).slice(-1)).toEqual(["market.order.recovered"]);
    const nonce = await rpc.getTransactionCount(operator, "latest");

    // Not before the retry delay: the recovery's own send could still be in flight.
    clock.advance(REFUND_RETRY_AFTER_MS - 1);
    expect((await marketsServices(p).lifecycle.run()).refundsCompleted).toBe(0);
    expect(await escrowState(orderId)).toBe("locked");
    clock.advance(1);
    const [a, b] = await Promise.all([marketsServices(p).lifecycle.run(), marketsServices(p).lifecycle.run()]);
    expect(a.refundsCompleted + b.refundsCompleted).toBe(1);
    expect(await escrowState(orderId)).toBe("refunded");
    expect(await rpc.getTransactionCount(operator, "latest")).toBe(nonce + 1);
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } });
    expect(payment.status).toBe("refunded");
    expect((payment.details as any).refund.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const events = await kinds("orderId", orderId);
    expect(events.filter((k) => k === "market.order.recovered" || k === "market.payment.refunded")).toEqual(["market.order.recovered", "market.payment.refunded"]);

    // Nothing is left: later sweeps send nothing and record nothing.
    clock.advance(REFUND_RETRY_AFTER_MS);
    expect((await marketsServices(p).lifecycle.run()).refundsCompleted).toBe(0);
    expect(await rpc.getTransactionCount(operator, "latest")).toBe(nonce + 1);
    expect(await kinds("orderId", orderId)).toEqual(events);
    provider.release();
    expectMarketsError(await answer, 409, "TASK_STATE_INVALID");
  });

  it("a refund that landed before it was recorded (its answer lost) is recorded from the chain by the sweep, not sent again", async () => {
    const { orderId, answer, operator } = await recoveredWithoutRefund();
    expect((await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } })).status).toBe("refund_pending");

    // The refund lands on chain without the platform seeing it: sent by a second operator the escrow's admin allows.
    const iface = contractInterface("PaymentEscrow");
    const sendAs = async (from: string, data: string) => {
      await rpc.send("anvil_impersonateAccount", [from]);
      await rpc.send("anvil_setBalance", [from, "0x56bc75e2d63100000"]);
      const hash = await rpc.send("eth_sendTransaction", [{ from, to: p.demo.payments!.escrow.address, data }]);
      let receipt: { status: string } | null = null;
      await waitUntil(async () => (receipt = await rpc.send("eth_getTransactionReceipt", [hash])) !== null);
      expect(receipt!.status).toBe("0x1");
      await rpc.send("anvil_stopImpersonatingAccount", [from]);
    };
    const other = Wallet.createRandom().address;
    await sendAs(await escrow.admin!(), iface.encodeFunctionData("setOperator", [other, true]));
    await sendAs(other, iface.encodeFunctionData("refund", [escrowOrderKey(orderId)]));
    expect(await escrowState(orderId)).toBe("refunded");
    const nonce = await rpc.getTransactionCount(operator, "latest");

    clock.advance(REFUND_RETRY_AFTER_MS);
    expect((await marketsServices(p).lifecycle.run()).refundsCompleted).toBe(1);
    // Read from the chain and recorded: the platform's operator sent nothing, and the hash it never saw is not made up.
    expect(await rpc.getTransactionCount(operator, "latest")).toBe(nonce);
    const payment = await prismaOf(p).marketPayment.findUniqueOrThrow({ where: { orderId } });
    expect([payment.status, (payment.details as any).refund]).toEqual(["refunded", { txHash: null }]);
    const refunded = (await prismaOf(p).marketAuditEvent.findMany({ where: { kind: "market.payment.refunded" as never } })).filter((e: any) => e.data.orderId === orderId);
    expect(refunded.map((e: any) => [e.data.recovered, e.data.txHash, e.data.after.status])).toEqual([[true, null, "refunded"]]);
    provider.release();
    expectMarketsError(await answer, 409, "TASK_STATE_INVALID");
  });

  it("a standalone task past its deadline: its next execute recovers it and runs nothing; the late answer records nothing", async () => {
    const call = (method: string, path: string, body?: unknown) => api(p, method, `/machines/${machine}/tasks${path}`, body);
    const task = expectOk(await call("POST", "", { skillKey: "oracle.price-feed", input: { pair: "ETH/USD" } }), 201).item;
    expectOk(await call("POST", `/${task.id}/discover`));
    expect(expectOk(await call("POST", `/${task.id}/resolve`, {}), 201).item.route.executionMode).toBe("native");
    const before = provider.calls();
    const first = call("POST", `/${task.id}/execute`);
    await waitUntil(() => provider.calls() === before + 1);
    clock.advance(DEADLINE_MS);

    expectMarketsError(await call("POST", `/${task.id}/execute`), 409, "TASK_STATE_INVALID");
    expect(provider.calls()).toBe(before + 1);
    const recovered = expectOk(await call("GET", `/${task.id}`)).item;
    expect(recovered.status).toBe("failed");
    const taskKinds = await kinds("entityId", task.id);
    expect(taskKinds).toEqual(["task.created", "task.discovered", "task.resolved", "task.execution-failed"]);
    const [event] = (await prismaOf(p).marketAuditEvent.findMany({ where: { kind: "task.execution-failed" } })).filter((e: any) => e.data.entityId === task.id);
    expect({ actor: [event!.actorType, event!.actorId], reason: (event!.data as any).reason }).toEqual({ actor: ["system", "lifecycle"], reason: "deadline_exceeded" });

    provider.release();
    expectMarketsError(await first, 409, "TASK_STATE_INVALID");
    expect((await prismaOf(p).marketsRun.findMany({ where: { taskId: task.id } })).map((r) => r.errorReason)).toEqual(["deadline_exceeded"]);
    expect(await kinds("entityId", task.id)).toEqual(taskKinds);
    expect(await marketsServices(p).lifecycle.run()).toEqual({ streamOrdersExpired: 0, purchasesExpired: 0, ordersRecovered: 0, refundsCompleted: 0, tasksRecovered: 0 });
  });
});
