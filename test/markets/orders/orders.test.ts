/**
 * Market orders and their payments (public notes 2.7) over the real shim, gateway and database: create from a quote
 * (QUOTE_EXPIRED, rail copied from the service), read, list; the not-required payment intent (idempotent; other
 * rails VALIDATION_ERROR); execute through the demo provider (task + route + run); confirm, dispute (reason
 * required), cancel, ORDER_CLOSED; the delegation policy's lists and per-transaction limit; market.* audit events.
 * Every refusal leaves the order and payment rows unchanged.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../support/clock.js";
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
  priceFeedQuote,
  prismaOf,
  startMarketsPlatform,
  type MarketsPlatform,
} from "../helpers.js";

const START = Date.parse("2026-11-24T10:00:00.000Z");

describe("market orders", () => {
  let p: MarketsPlatform;
  let machine: string;
  let token: string;
  let pairingId: string;
  const clock = manualClock(START);

  beforeAll(async () => {
    p = await startMarketsPlatform({}, { clock });
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    const provider = JSON.parse(await readFile(path.join(p.dataDir, "demo.json"), "utf8")).markets.provider;
    expectOk(
      await api(p, "PUT", `/machines/${machine}/runtime-endpoints/${provider.providerKey}`, {
        endpointBaseUrl: provider.url,
        authType: provider.authType,
        authToken: provider.authToken,
      }),
      201,
    );
    const pairing = await pairAgent(p, machine, Wallet.createRandom());
    token = pairing.pairingToken;
    pairingId = pairing.id;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const post = (orderId: string, action: string, body?: unknown, t = token) => api(p, "POST", `/market/orders/${orderId}/${action}`, body, agentHeaders(t));
  const rows = async (orderId: string) => ({
    order: await prismaOf(p).marketOrder.findUnique({ where: { id: orderId } }),
    payment: await prismaOf(p).marketPayment.findUnique({ where: { orderId } }),
  });
  const kindsOf = async (orderId: string) =>
    expectOk(await api(p, "GET", `/audit-events?machineId=${machine}&limit=500`))
      .items.filter((e: any) => e.data.orderId === orderId && e.kind.startsWith("market."))
      .map((e: any) => e.kind)
      .reverse();
  async function readyOrder(input: Record<string, unknown> = { pair: "BTC/USD" }) {
    const order = expectOk(await createOrder(p, machine, token, input), 201).item;
    expectOk(await post(order.id, "payment-intent", {}));
    return order;
  }

  it("create: status created, the service's rail copied, snapshot and spend; read and list", async () => {
    const { searchId, quoteId, quote } = await priceFeedQuote(p, machine);
    const created = await api(p, "POST", "/market/orders", { machineId: machine, searchId, quoteId, input: { pair: "ETH/USD" } }, agentHeaders(token));
    const order = expectOk(created, 201).item;
    expect(order).toMatchObject({
      machineId: machine,
      agentPairingId: pairingId,
      searchId,
      quoteId,
      serviceId: quote.serviceId,
      skillKey: "oracle.price-feed",
      providerKey: "demo-oracle",
      operation: "get-price",
      executionMode: "native",
      status: "created",
      input: { pair: "ETH/USD" },
      payment: { defaultRail: "not-required", required: false },
      spend: { amount: "0.01", currency: "USD" },
      taskId: null,
      runId: null,
    });
    expect(order.serviceSnapshot.id).toBe(quote.serviceId);
    expect(expectOk(await api(p, "GET", `/market/orders/${order.id}`)).item).toEqual(order);
    const listed = expectOk(await api(p, "GET", `/market/orders?machineId=${machine}`)).items;
    expect(listed.map((o: any) => o.id)).toContain(order.id);
    expect(await kindsOf(order.id)).toEqual(["market.order.created"]);
  });

  it("an expired quote: QUOTE_EXPIRED (409); a quote of another machine's search or unknown: NOT_FOUND; no order", async () => {
    const { searchId, quoteId, quote } = await priceFeedQuote(p, machine);
    const before = await prismaOf(p).marketOrder.count();
    clock.set(Date.parse(quote.expiresAt));
    try {
      expectMarketsError(await api(p, "POST", "/market/orders", { machineId: machine, searchId, quoteId }, agentHeaders(token)), 409, "QUOTE_EXPIRED");
    } finally {
      clock.set(START);
    }
    expectMarketsError(await api(p, "POST", "/market/orders", { machineId: machine, searchId, quoteId: "quote_unknown" }, agentHeaders(token)), 404, "NOT_FOUND");
    const other = (await bindMachine(p, p.machine("active", 1))).id;
    const foreign = await priceFeedQuote(p, other);
    expectMarketsError(
      await api(p, "POST", "/market/orders", { machineId: machine, searchId: foreign.searchId, quoteId: foreign.quoteId }, agentHeaders(token)),
      404,
      "NOT_FOUND",
    );
    expectMarketsError(await api(p, "POST", "/market/orders", { machineId: machine, searchId }, agentHeaders(token)), 400, "VALIDATION_ERROR");
    expect(await prismaOf(p).marketOrder.count()).toBe(before);
  });

  it("payment intent on the not-required rail: payment not_required, order ready; idempotent", async () => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const first = expectOk(await post(order.id, "payment-intent", {})).item;
    expect(first).toMatchObject({ orderStatus: "ready", payment: { orderId: order.id, rail: "not-required", status: "not_required", required: false } });
    const again = expectOk(await post(order.id, "payment-intent", { rail: "not-required" })).item;
    expect(again).toEqual(first);
    expect(expectOk(await api(p, "GET", `/market/orders/${order.id}/payment`)).item).toEqual(first.payment);
    expect(expectOk(await api(p, "GET", `/market/orders/${order.id}`)).item.status).toBe("ready");
    expect(await kindsOf(order.id)).toEqual(["market.order.created", "market.payment.intent-created"]);
  });

  it.each([
    ["an unknown rail", "bitcoin"],
    ["a rail the service does not list", "vault-stripe"],
  ])("payment intent with %s: VALIDATION_ERROR, nothing changes", async (_name, rail) => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const before = await rows(order.id);
    expectMarketsError(await post(order.id, "payment-intent", { rail }), 400, "VALIDATION_ERROR");
    expect(await rows(order.id)).toEqual(before);
    expect(before.payment).toBeNull();
  });

  it("no payment yet: GET payment NOT_FOUND; execute before ready: ORDER_STATE_INVALID", async () => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    expectMarketsError(await api(p, "GET", `/market/orders/${order.id}/payment`), 404, "NOT_FOUND");
    const before = await rows(order.id);
    expectMarketsError(await post(order.id, "execute"), 409, "ORDER_STATE_INVALID");
    expectMarketsError(await post(order.id, "confirm"), 409, "ORDER_STATE_INVALID");
    expect(await rows(order.id)).toEqual(before);
  });

  it("execute runs the demo provider: delivered with task, route, run and outcome; confirm closes it (ORDER_CLOSED after)", async () => {
    const order = await readyOrder({ pair: "BTC/USD" });
    const executed = expectOk(await post(order.id, "execute")).item;
    expect(executed.order).toMatchObject({ status: "delivered", taskId: executed.task.id, runId: executed.run.id, outcomeId: executed.outcome.id });
    expect(executed.run).toMatchObject({ status: "succeeded", httpStatus: 200, providerKey: "demo-oracle" });
    expect(executed.outcome.result).toMatchObject({ status: 200, body: { pair: "BTC/USD", source: "demo-oracle" } });
    expect(executed.task).toMatchObject({ status: "executed", skillKey: "oracle.price-feed", input: { pair: "BTC/USD" } });
    const confirmed = expectOk(await post(order.id, "confirm")).item;
    expect(confirmed.status).toBe("confirmed");
    const before = await rows(order.id);
    for (const action of ["confirm", "execute", "cancel", "payment-intent"]) expectMarketsError(await post(order.id, action, action === "payment-intent" ? {} : undefined), 409, "ORDER_CLOSED");
    expectMarketsError(await post(order.id, "dispute", { reason: "late" }), 409, "ORDER_CLOSED");
    expect(await rows(order.id)).toEqual(before);
    expect(await kindsOf(order.id)).toEqual(["market.order.created", "market.payment.intent-created", "market.order.executed", "market.order.confirmed"]);
  });

  it("the provider's error: order failed (finished, ORDER_CLOSED), status propagated", async () => {
    const order = await readyOrder({ pair: "XYZ/ABC" });
    const failed = await post(order.id, "execute");
    expect(failed.status).toBe(404);
    expect(failed.json().item.order.status).toBe("failed");
    expectMarketsError(await post(order.id, "execute"), 409, "ORDER_CLOSED");
  });

  it("dispute needs a reason (VALIDATION_ERROR, unchanged); with one the order is disputed", async () => {
    const order = await readyOrder();
    expectOk(await post(order.id, "execute"));
    const before = await rows(order.id);
    expectMarketsError(await post(order.id, "dispute", {}), 400, "VALIDATION_ERROR");
    expectMarketsError(await post(order.id, "dispute", { reason: "   " }), 400, "VALIDATION_ERROR");
    expect(await rows(order.id)).toEqual(before);
    const disputed = expectOk(await post(order.id, "dispute", { reason: "the price was stale" })).item;
    expect(disputed).toMatchObject({ status: "disputed", errorMessage: "the price was stale" });
    expect((await kindsOf(order.id)).at(-1)).toBe("market.order.disputed");
  });

  it("another pairing's token on this order: AGENT_PAIRING_REQUIRED, unchanged", async () => {
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    const other = await pairAgent(p, machine, Wallet.createRandom());
    const before = await rows(order.id);
    expectMarketsError(await post(order.id, "payment-intent", {}, other.pairingToken), 409, "AGENT_PAIRING_REQUIRED");
    expectMarketsError(await post(order.id, "cancel", undefined, other.pairingToken), 409, "AGENT_PAIRING_REQUIRED");
    expect(await rows(order.id)).toEqual(before);
  });

  it("unknown order: NOT_FOUND on reads and writes", async () => {
    expectMarketsError(await api(p, "GET", "/market/orders/ord_aaaaaaaaaaaaaaaa"), 404, "NOT_FOUND");
    expectMarketsError(await post("ord_aaaaaaaaaaaaaaaa", "execute"), 404, "NOT_FOUND");
  });

  it("a failure after the audit write (before commit) leaves neither the change nor its event, for each order write", async () => {
    const store = marketsServices(p).store;
    const audit = () => prismaOf(p).marketAuditEvent.count({ where: { kind: { startsWith: "market." } } });
    const injected = async (send: () => Promise<Awaited<ReturnType<typeof api>>>, snapshot: () => Promise<unknown>) => {
      const before = { rows: await snapshot(), events: await audit() };
      store.beforeCommit = () => {
        throw new Error("injected after the audit write");
      };
      try {
        expectMarketsError(await send(), 500, "INTERNAL_ERROR");
      } finally {
        store.beforeCommit = null;
      }
      expect({ rows: await snapshot(), events: await audit() }).toEqual(before);
    };
    await injected(() => createOrder(p, machine, token), () => prismaOf(p).marketOrder.count());
    const order = expectOk(await createOrder(p, machine, token), 201).item;
    await injected(() => post(order.id, "payment-intent", {}), () => rows(order.id));
    expectOk(await post(order.id, "payment-intent", {}));
    expectOk(await post(order.id, "execute"));
    await injected(() => post(order.id, "dispute", { reason: "wrong" }), () => rows(order.id));
    await injected(() => post(order.id, "confirm"), () => rows(order.id));
    expectOk(await post(order.id, "confirm"));
  });

  it("no live runtime endpoint: RUNTIME_ENDPOINT_REQUIRED, the order stays ready and nothing is written", async () => {
    const other = (await bindMachine(p, p.machine("active", 2))).id;
    const pairing = await pairAgent(p, other, Wallet.createRandom());
    const order = expectOk(await createOrder(p, other, pairing.pairingToken), 201).item;
    expectOk(await post(order.id, "payment-intent", {}, pairing.pairingToken));
    const before = { rows: await rows(order.id), tasks: await prismaOf(p).marketsTask.count({ where: { machineId: other } }), events: await prismaOf(p).marketAuditEvent.count() };
    expectMarketsError(await post(order.id, "execute", undefined, pairing.pairingToken), 409, "RUNTIME_ENDPOINT_REQUIRED");
    expect((await rows(order.id)).order!.status).toBe("ready");
    // The refusal comes before the claim: no task, no route, no event, the order as it was.
    const after = { rows: await rows(order.id), tasks: await prismaOf(p).marketsTask.count({ where: { machineId: other } }), events: await prismaOf(p).marketAuditEvent.count() };
    expect(after).toEqual(before);
  });

  describe("delegation policy", () => {
    async function refusedWith(policy: Record<string, unknown>, status: number, code: string) {
      const pairing = await pairAgent(p, machine, Wallet.createRandom(), policy);
      const before = await prismaOf(p).marketOrder.count();
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), status, code);
      expect(await prismaOf(p).marketOrder.count()).toBe(before);
    }
    it("a denied skill or service, or an allow list without it: AGENT_POLICY_DENIED (403)", async () => {
      await refusedWith({ deniedSkillKeys: ["oracle.price-feed"] }, 403, "AGENT_POLICY_DENIED");
      await refusedWith({ deniedServiceIds: ["svc_oracle_price_feed"] }, 403, "AGENT_POLICY_DENIED");
      await refusedWith({ allowedSkillKeys: ["storage.object"] }, 403, "AGENT_POLICY_DENIED");
      await refusedWith({ allowedServiceIds: ["svc_storage_object"] }, 403, "AGENT_POLICY_DENIED");
      await refusedWith({ perTransactionLimit: 1, currency: "EUR" }, 403, "AGENT_POLICY_DENIED");
    });
    it("over the per-transaction limit: AGENT_SPEND_LIMIT_EXCEEDED (403); at it: created", async () => {
      await refusedWith({ perTransactionLimit: 0.009 }, 403, "AGENT_SPEND_LIMIT_EXCEEDED");
      const pairing = await pairAgent(p, machine, Wallet.createRandom(), { perTransactionLimit: 0.01, allowedSkillKeys: ["oracle.price-feed"] });
      expectOk(await createOrder(p, machine, pairing.pairingToken), 201);
    });
    it("the daily limit counts the day's orders: the third of 0.01 against 0.02 is AGENT_DAILY_LIMIT_EXCEEDED; cancelling frees room", async () => {
      const pairing = await pairAgent(p, machine, Wallet.createRandom(), { dailySpendLimit: 0.02 });
      const first = expectOk(await createOrder(p, machine, pairing.pairingToken), 201).item;
      expectOk(await createOrder(p, machine, pairing.pairingToken), 201);
      const before = await prismaOf(p).marketOrder.count();
      expectMarketsError(await createOrder(p, machine, pairing.pairingToken), 403, "AGENT_DAILY_LIMIT_EXCEEDED");
      expect(await prismaOf(p).marketOrder.count()).toBe(before);
      expectOk(await post(first.id, "cancel", undefined, pairing.pairingToken));
      expectOk(await createOrder(p, machine, pairing.pairingToken), 201);
    });
  });

  describe("state machines under concurrent calls", () => {
    it("ten parallel confirms: one confirms, nine ORDER_CLOSED; one audit event", async () => {
      const order = await readyOrder();
      expectOk(await post(order.id, "execute"));
      const answers = await Promise.all(Array.from({ length: 10 }, () => post(order.id, "confirm")));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expectMarketsError(a, 409, "ORDER_CLOSED");
      expect((await kindsOf(order.id)).filter((k: string) => k === "market.order.confirmed")).toHaveLength(1);
    });

    it("parallel intents make one payment; parallel executes run the provider once", async () => {
      const order = expectOk(await createOrder(p, machine, token), 201).item;
      const intents = await Promise.all(Array.from({ length: 8 }, () => post(order.id, "payment-intent", {})));
      expect(intents.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(new Set(intents.map((a) => a.json().item.payment.id)).size).toBe(1);
      const executes = await Promise.all(Array.from({ length: 6 }, () => post(order.id, "execute")));
      expect(executes.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of executes.filter((x) => x.status !== 200)) expectMarketsError(a, 409, "ORDER_STATE_INVALID");
      const kinds = await kindsOf(order.id);
      expect(kinds.filter((k: string) => k === "market.payment.intent-created")).toHaveLength(1);
      expect(kinds.filter((k: string) => k === "market.order.executed")).toHaveLength(1);
      expect(await prismaOf(p).marketsRun.count({ where: { taskId: executes.find((a) => a.status === 200)!.json().item.task.id } })).toBe(1);
    });
  });
});
