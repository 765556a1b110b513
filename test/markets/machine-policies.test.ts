/**
 * Policies apply (docs/markets-policies.md): each kind's `rules` are checked on create and update
 * (POLICY_RULES_INVALID), and the active policies of a machine refuse its task executions, market orders and stream
 * purchases with MACHINE_POLICY_DENIED, MACHINE_SPEND_LIMIT_EXCEEDED or MACHINE_DAILY_LIMIT_EXCEEDED, leaving every
 * row and the audit log as they were; a policy that allows lets them through, and disabling it lifts it. Scope: the
 * policy's machineIds (empty: every machine) or the machine's policyIds. Through the REST shim and GraphQL over real
 * sockets, on PGlite or PostgreSQL (DATABASE_URL).
 */
import { Wallet } from "ethers";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../../subgraphs/markets/stream/index.js";
import { graphql } from "../support/platform.js";
import { seedBoundMachine, sessionOf } from "../support/machine-sessions.js";
import { createListing } from "../stream/helpers.js";
import { createSeller, putCapabilities, TCP_CAPABILITY } from "../stream/purchases/purchases-helpers.js";
import {
  agentHeaders,
  api,
  bindMachine,
  createOrder,
  expectMarketsError,
  expectOk,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  priceFeedQuote,
  prismaOf,
  startMarketsPlatform,
  type MarketsPlatform,
} from "./helpers.js";

let p: MarketsPlatform;
let listingId: string;
let sellerMachine: string;
const publicKeyHex = toHex(nacl.box.keyPair().publicKey);

beforeAll(async () => {
  p = await startMarketsPlatform();
  const seller = await createSeller(p, 0);
  sellerMachine = seller.machineId;
  listingId = (await createListing(p, seller, 2, { price: { amount: "0.02", currency: "USD" } })).listing.id;
  expectOk(await putCapabilities(p, seller, { capabilities: [TCP_CAPABILITY] }), 201);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const createPolicy = async (body: Record<string, unknown>) => expectOk(await api(p, "POST", "/policies", { name: "p", ...body }), 201).item;
const disable = async (id: string) => expectOk(await api(p, "PATCH", `/policies/${id}`, { status: "disabled" }));

/** A fresh active machine (or demo machine `demo`, bound through the REST routes) with a paired agent (no limits). */
async function buyer(demo?: number) {
  const id: string = demo === undefined ? (await seedBoundMachine(p)).id : (await bindMachine(p, p.machine("active", demo))).id;
  const pairing = await pairAgent(p, id, Wallet.createRandom());
  return { machine: id, token: pairing.pairingToken as string };
}

const order = (b: { machine: string; token: string }) => createOrder(p, b.machine, b.token);
const purchase = (b: { token: string }) =>
  api(p, "POST", "/purchases", {
    resource: { type: "stream.listing", listingId },
    buyer: { publicKey: { type: "x25519", publicKeyHex }, deliveryCapabilities: [{ transportId: "tcp", version: "1" }] },
  }, agentHeaders(b.token));

/** A resolved task for the external-handoff service compute.marketplace (no provider call needed). */
async function handoffTask(machine: string): Promise<string> {
  const task = expectOk(await api(p, "POST", `/machines/${machine}/tasks`, { skillKey: "compute.marketplace", operation: "rent", input: {} }), 201).item;
  expectOk(await api(p, "POST", `/machines/${machine}/tasks/${task.id}/discover`));
  expectOk(await api(p, "POST", `/machines/${machine}/tasks/${task.id}/resolve`, {}), 201);
  return task.id;
}
const execute = (machine: string, taskId: string) => api(p, "POST", `/machines/${machine}/tasks/${taskId}/execute`);

const gqlOrder = async (b: { machine: string; token: string }) => {
  const { searchId, quoteId } = await priceFeedQuote(p, b.machine);
  return graphql(p.graphql, "mutation($t: String, $i: CreateMarketOrderInput!) { createMarketOrder(pairingToken: $t, input: $i) { id status } }", {
    t: b.token,
    i: { machineId: b.machine, searchId, quoteId },
  });
};
const gqlExecute = (machine: string, taskId: string) =>
  graphql(p.graphql, "mutation($m: String!, $t: String!, $s: String) { executeTask(machineId: $m, taskId: $t, machineSession: $s) { httpStatus } }", {
    m: machine,
    t: taskId,
    s: sessionOf(machine),
  });

/** Everything a refusal must leave alone. */
async function snapshot() {
  const prisma = prismaOf(p);
  const [orders, purchases, runs, tasks, audits] = await Promise.all([
    prisma.marketOrder.count(),
    prisma.streamPurchase.count(),
    prisma.marketsRun.count(),
    prisma.marketsTask.findMany({ select: { id: true, status: true, updatedAt: true }, orderBy: { id: "asc" } }),
    prisma.marketAuditEvent.count(),
  ]);
  return { orders, purchases, runs, tasks, audits };
}

describe("rules per kind", () => {
  it("bad rules for a kind are POLICY_RULES_INVALID on create and update (REST and GraphQL); nothing is written", async () => {
    const kept = await createPolicy({ kind: "spend", rules: { dailyLimit: 5, currency: "USD" } });
    const count = await prismaOf(p).marketsPolicy.count();
    const bad: Array<[string, unknown]> = [
      ["access", { allowedSkillKeys: "oracle.price-feed" }],
      ["access", { allowedSkills: ["oracle.price-feed"] }],
      ["access", { deniedProviderKeys: ["bad key"] }],
      ["routing", { executionModes: ["teleport"] }],
      ["routing", { regions: [1] }],
      ["compliance", { maturities: ["alpha"] }],
      ["compliance", { allowHumanEnablement: "no" }],
      ["spend", {}],
      ["spend", { dailyLimit: -1 }],
      ["spend", { perTransactionLimit: 0.0000001 }],
      ["spend", { dailyLimit: 1, currency: "usd" }],
    ];
    for (const [kind, rules] of bad) {
      expectMarketsError(await api(p, "POST", "/policies", { name: "bad", kind, rules }), 400, "POLICY_RULES_INVALID");
      const gql = await graphql(p.graphql, "mutation($i: MarketPolicyInput!) { createMarketPolicy(input: $i) { id } }", { i: { name: "bad", kind, rules } });
      expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(rules)).toBe("POLICY_RULES_INVALID");
    }
    // A kind change is checked against the stored rules; rules against the stored kind.
    expectMarketsError(await api(p, "PATCH", `/policies/${kept.id}`, { kind: "access" }), 400, "POLICY_RULES_INVALID");
    expectMarketsError(await api(p, "PATCH", `/policies/${kept.id}`, { rules: { regions: ["eu"] } }), 400, "POLICY_RULES_INVALID");
    expect(expectOk(await api(p, "GET", `/policies/${kept.id}`)).item).toEqual(kept);
    expect(await prismaOf(p).marketsPolicy.count()).toBe(count);
    // Custom rules are any object; a good PATCH of kind and rules together passes.
    await createPolicy({ kind: "custom", rules: { anything: { nested: [1, 2] } } });
    const changed = expectOk(await api(p, "PATCH", `/policies/${kept.id}`, { kind: "routing", rules: { regions: ["eu"] }, status: "disabled" })).item;
    expect(changed).toMatchObject({ kind: "routing", rules: { regions: ["eu"] }, status: "disabled" });
  });
});

describe("policies refuse and allow", () => {
  it("access: skills, providers and services the machine may use; another machine is not touched; disabling lifts it", async () => {
    const a = await buyer();
    const other = await buyer();
    const taskId = await handoffTask(a.machine);
    const policy = await createPolicy({
      kind: "access",
      machineIds: [a.machine],
      rules: { deniedSkillKeys: ["oracle.price-feed", "compute.marketplace"], deniedProviderKeys: [`stream-${sellerMachine}`] },
    });
    const before = await snapshot();
    expectMarketsError(await order(a), 403, "MACHINE_POLICY_DENIED");
    expectMarketsError(await purchase(a), 403, "MACHINE_POLICY_DENIED");
    expectMarketsError(await execute(a.machine, taskId), 403, "MACHINE_POLICY_DENIED");
    expect((await gqlOrder(a)).body.errors?.[0]?.extensions?.code).toBe("MACHINE_POLICY_DENIED");
    expect((await gqlExecute(a.machine, taskId)).body.errors?.[0]?.extensions?.code).toBe("MACHINE_POLICY_DENIED");
    expect(await snapshot()).toEqual(before);
    expectOk(await order(other), 201);
    // Disabled through GraphQL: everything goes through.
    const off = await graphql(p.graphql, 'mutation($id: String!) { updateMarketPolicy(policyId: $id, input: { status: "disabled" }) { status } }', { id: policy.id });
    expect(off.body.data.updateMarketPolicy.status).toBe("DISABLED");
    expectOk(await order(a), 201);
    expectOk(await purchase(a), 201);
    expect(expectOk(await execute(a.machine, taskId), 202).item.task.status).toBe("handoff");
  });

  it("access allow lists: a policy that names the service allows it; the machine's policyIds attach a policy scoped elsewhere", async () => {
    const a = await buyer(1);
    const allowing = await createPolicy({ kind: "access", machineIds: [a.machine], rules: { allowedSkillKeys: ["oracle.price-feed", "stream-data-listing"] } });
    expectOk(await order(a), 201);
    expectOk(await purchase(a), 201);
    const taskId = await handoffTask(a.machine);
    expectMarketsError(await execute(a.machine, taskId), 403, "MACHINE_POLICY_DENIED");
    await disable(allowing.id);
    const elsewhere = await createPolicy({ kind: "access", machineIds: ["mach_000000000000000000000000"], rules: { deniedServiceIds: ["svc_oracle_price_feed"] } });
    expectOk(await order(a), 201);
    expectOk(await api(p, "PATCH", `/machines/${a.machine}`, { policyIds: [elsewhere.id] }));
    expectMarketsError(await order(a), 403, "MACHINE_POLICY_DENIED");
    await disable(elsewhere.id);
    expectOk(await order(a), 201);
  });

  it("routing: execution modes and regions", async () => {
    const a = await buyer();
    const taskId = await handoffTask(a.machine);
    const nativeOnly = await createPolicy({ kind: "routing", machineIds: [a.machine], rules: { executionModes: ["native"] } });
    const before = await snapshot();
    expectMarketsError(await execute(a.machine, taskId), 403, "MACHINE_POLICY_DENIED");
    expectMarketsError(await purchase(a), 403, "MACHINE_POLICY_DENIED");
    expect(await snapshot()).toEqual(before);
    expectOk(await order(a), 201);
    await disable(nativeOnly.id);
    const euOnly = await createPolicy({ kind: "routing", machineIds: [a.machine], rules: { regions: ["eu"] } });
    expectMarketsError(await order(a), 403, "MACHINE_POLICY_DENIED");
    await disable(euOnly.id);
    await createPolicy({ kind: "routing", machineIds: [a.machine], rules: { regions: ["global", "eu"], executionModes: ["native", "external-handoff"] } });
    expectOk(await purchase(a), 201);
    expectOk(await execute(a.machine, taskId), 202);
  });

  it("compliance: maturities, access modes and human enablement", async () => {
    const a = await buyer();
    const taskId = await handoffTask(a.machine);
    const noHumans = await createPolicy({ kind: "compliance", machineIds: [a.machine], rules: { allowHumanEnablement: false } });
    const before = await snapshot();
    expectMarketsError(await execute(a.machine, taskId), 403, "MACHINE_POLICY_DENIED");
    expect(await snapshot()).toEqual(before);
    expectOk(await order(a), 201);
    expectOk(await purchase(a), 201);
    await disable(noHumans.id);
    const referenceOnly = await createPolicy({ kind: "compliance", machineIds: [a.machine], rules: { maturities: ["reference"], accessModes: ["credentialed"] } });
    expectMarketsError(await purchase(a), 403, "MACHINE_POLICY_DENIED");
    expectOk(await order(a), 201);
    await disable(referenceOnly.id);
    expectOk(await purchase(a), 201);
    expectOk(await execute(a.machine, taskId), 202);
  });

  it("access on an order's execution: refused before the provider is called, the order ready again; disabling lifts it", async () => {
    const a = await buyer();
    const provider = p.demo.markets!.provider;
    expectOk(await api(p, "PUT", `/machines/${a.machine}/runtime-endpoints/${provider.providerKey}`, { endpointBaseUrl: provider.url, authType: provider.authType, authToken: provider.authToken }), 201);
    const created = expectOk(await order(a), 201).item;
    const post = (action: string, body?: unknown) => api(p, "POST", `/market/orders/${created.id}/${action}`, body, agentHeaders(a.token));
    expectOk(await post("payment-intent", {}));
    const policy = await createPolicy({ kind: "access", machineIds: [a.machine], rules: { deniedProviderKeys: [provider.providerKey] } });
    const runs = await prismaOf(p).marketsRun.count();
    expectMarketsError(await post("execute"), 403, "MACHINE_POLICY_DENIED");
    expect((await prismaOf(p).marketOrder.findUnique({ where: { id: created.id } }))!.status).toBe("ready");
    expect(await prismaOf(p).marketsRun.count()).toBe(runs);
    await disable(policy.id);
    expect(expectOk(await post("execute")).item.order.status).toBe("delivered");
  });

  it("custom policies and disabled ones are never applied", async () => {
    const a = await buyer();
    await createPolicy({ kind: "custom", machineIds: [a.machine], rules: { deniedSkillKeys: ["oracle.price-feed"] } });
    await createPolicy({ kind: "access", status: "disabled", machineIds: [a.machine], rules: { deniedSkillKeys: ["oracle.price-feed"] } });
    expectOk(await order(a), 201);
  });

  it("spend: the machine's cap across its pairings, orders and purchases; per-transaction limit and currency", async () => {
    const a = await buyer();
    const second = { machine: a.machine, token: (await pairAgent(p, a.machine, Wallet.createRandom())).pairingToken as string };
    const cap = await createPolicy({ kind: "spend", machineIds: [a.machine], rules: { dailyLimit: 0.04, currency: "USD" } });
    expectOk(await order(a), 201); // 0.01
    expectOk(await purchase(second), 201); // 0.03 (a purchase of 0.02)
    expectOk(await order(second), 201); // 0.04
    const before = await snapshot();
    expectMarketsError(await order(a), 403, "MACHINE_DAILY_LIMIT_EXCEEDED");
    expectMarketsError(await purchase(second), 403, "MACHINE_DAILY_LIMIT_EXCEEDED");
    expect((await gqlOrder(second)).body.errors?.[0]?.extensions?.code).toBe("MACHINE_DAILY_LIMIT_EXCEEDED");
    expect(await snapshot()).toEqual(before);
    await disable(cap.id);
    const perTx = await createPolicy({ kind: "spend", machineIds: [a.machine], rules: { perTransactionLimit: 0.01 } });
    expectMarketsError(await purchase(a), 403, "MACHINE_SPEND_LIMIT_EXCEEDED");
    expectOk(await order(a), 201);
    await disable(perTx.id);
    const euro = await createPolicy({ kind: "spend", machineIds: [a.machine], rules: { dailyLimit: 100, currency: "EUR" } });
    const beforeEuro = await snapshot();
    expectMarketsError(await order(a), 403, "MACHINE_POLICY_DENIED");
    expect(await snapshot()).toEqual(beforeEuro);
    await disable(euro.id);
    expectOk(await purchase(a), 201);
  });

  it("spend: parallel orders of two pairings of one machine cannot overrun the cap", async () => {
    const a = await buyer();
    const second = { machine: a.machine, token: (await pairAgent(p, a.machine, Wallet.createRandom())).pairingToken as string };
    await createPolicy({ kind: "spend", machineIds: [a.machine], rules: { dailyLimit: 0.05, currency: "USD" } });
    const quotes = await Promise.all(Array.from({ length: 20 }, () => priceFeedQuote(p, a.machine)));
    const answers = await Promise.all(
      quotes.map(({ searchId, quoteId }, i) =>
        api(p, "POST", "/market/orders", { machineId: a.machine, searchId, quoteId }, agentHeaders(i % 2 === 0 ? a.token : second.token)),
      ),
    );
    expect(answers.filter((x) => x.status === 201)).toHaveLength(5);
    for (const answer of answers.filter((x) => x.status !== 201)) expectMarketsError(answer, 403, "MACHINE_DAILY_LIMIT_EXCEEDED");
    expect(await prismaOf(p).marketOrder.count({ where: { machineId: a.machine } })).toBe(5);
  });
});
