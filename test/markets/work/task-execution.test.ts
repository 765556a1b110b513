/**
 * Tasks, native execution: the executor calls a real provider process over HTTP (the demo provider, and
 * raw servers for timeouts) at the machine's runtime endpoint, with its stored credentials, through the platform's
 * outbound guard, with a deadline; the provider's status is propagated; refusals are failed runs. Against the real
 * database (PGlite, and PostgreSQL when DATABASE_URL is set). The REST path of execute is in tasks.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { AddressPolicy } from "../../../subgraphs/shared/net/address-policy.js";
import { OutboundClient } from "../../../subgraphs/shared/net/outbound.js";
import type { SubgraphRuntime } from "../../../subgraphs/shared/runtime.js";
import { DEMO_PROVIDER_TOKEN, startDemoProvider, type DemoProvider } from "../../../subgraphs/markets/work/demo.provider.js";
import type { ExecutionEndpoint } from "../../../subgraphs/markets/work/task.executor.js";
import { buildWorkServices, type WorkServices } from "../../../subgraphs/markets/work/index.js";
import { databaseTargets, withTestDatabase } from "../../support/db.js";
import { seedMarketMachine, seededStore } from "../../support/markets.js";

describe.each(databaseTargets())("native execution on %s", (target) => {
  const testDb = withTestDatabase(target);
  let provider: DemoProvider;
  let silent: http.Server;
  let silentUrl: string;
  let services: WorkServices;
  const endpoints = new Map<string, ExecutionEndpoint>();

  beforeAll(async () => {
    provider = await startDemoProvider({ host: "127.0.0.1", port: 0, now: () => Date.parse("2026-11-23T12:00:00Z") });
    silent = http.createServer(() => {}); // accepts and never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const config = loadConfig({ MARKETS_PROVIDER_TIMEOUT_MS: "300" });
    const runtime = {
      config,
      db: testDb.db,
      outbound: new OutboundClient(new AddressPolicy(), { allowedOrigins: [provider.url, silentUrl] }),
      log: () => {},
    } as unknown as SubgraphRuntime;
    services = await buildWorkServices(runtime, { now: () => Date.now() }, {
      store: seededStore(runtime.db),
      endpoints: async (machineId, providerKey) => endpoints.get(`${machineId}/${providerKey}`) ?? null,
    });
  });
  afterAll(async () => {
    await provider?.close();
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
  });

  async function resolvedPriceTask(machineId: string, pair = "ETH/USD") {
    const task = await services.tasks.create(machineId, { skillKey: "oracle.price-feed", input: { pair } });
    await services.tasks.discover(machineId, task.id);
    return services.tasks.resolve(machineId, task.id, null);
  }

  const kinds = async (taskId: string) =>
    (await testDb.db.prisma.marketAuditEvent.findMany({ orderBy: { id: "asc" } })).filter((e) => (e.data as any).entityId === taskId).map((e) => e.kind);

  it("calls the provider with the stored bearer token and answers its 200 with the result (task.executed)", async () => {
    const { id: machine } = await seedMarketMachine(testDb.db);
    endpoints.set(`${machine}/demo-oracle`, { endpointBaseUrl: provider.url, authType: "bearer", authToken: DEMO_PROVIDER_TOKEN });
    const task = await resolvedPriceTask(machine);
    expect(task.route?.executionMode).toBe("native");
    const before = provider.requests();
    const execution = await services.executor.execute(machine, task.id);
    expect(provider.requests()).toBe(before + 1);
    expect(execution.httpStatus).toBe(200);
    expect(execution.task.status).toBe("executed");
    expect(execution.run).toMatchObject({ status: "succeeded", httpStatus: 200, errorReason: null, providerKey: "demo-oracle" });
    expect(execution.outcome.result).toEqual({
      status: 200,
      body: { pair: "ETH/USD", price: "3120.55", currency: "USD", asOf: "2026-11-23T12:00:00.000Z", source: "demo-oracle" },
    });
    expect(await kinds(task.id)).toEqual(["task.created", "task.discovered", "task.resolved", "task.executed"]);
    await expect(services.executor.execute(machine, task.id)).rejects.toMatchObject({ code: "TASK_STATE_INVALID" });
  });

  it("propagates the provider's error status (401 with a wrong token, 404 unknown pair) as a failed run, and a failed task runs again", async () => {
    const { id: machine } = await seedMarketMachine(testDb.db);
    endpoints.set(`${machine}/demo-oracle`, { endpointBaseUrl: provider.url, authType: "bearer", authToken: "wrong" });
    const task = await resolvedPriceTask(machine);
    const denied = await services.executor.execute(machine, task.id);
    expect(denied.httpStatus).toBe(401);
    expect(denied.task.status).toBe("failed");
    expect(denied.run).toMatchObject({ status: "failed", httpStatus: 401, errorReason: "provider_status" });
    endpoints.set(`${machine}/demo-oracle`, { endpointBaseUrl: provider.url, authType: "bearer", authToken: DEMO_PROVIDER_TOKEN });
    const retried = await services.executor.execute(machine, task.id);
    expect(retried.httpStatus).toBe(200);
    expect(await kinds(task.id)).toEqual(["task.created", "task.discovered", "task.resolved", "task.execution-failed", "task.executed"]);
    const unknown = await resolvedPriceTask(machine, "DOGE/XYZ");
    expect((await services.executor.execute(machine, unknown.id)).httpStatus).toBe(404);
    const runs = await services.tasks.runs({ machineId: machine, taskId: task.id }, {});
    expect(runs.items.map((r) => r.status)).toEqual(["succeeded", "failed"]);
  });

  it("a provider that does not answer in time is a failed run answered 504 (reason timeout)", async () => {
    const { id: machine } = await seedMarketMachine(testDb.db);
    endpoints.set(`${machine}/demo-oracle`, { endpointBaseUrl: silentUrl, authType: "none", authToken: null });
    const task = await resolvedPriceTask(machine);
    const execution = await services.executor.execute(machine, task.id);
    expect(execution.httpStatus).toBe(504);
    expect(execution.run).toMatchObject({ status: "failed", httpStatus: null, errorReason: "timeout" });
    expect(execution.task.status).toBe("failed");
  });

  it("the outbound guard refuses an endpoint in a blocked range: failed run, 502, reason blocked_loopback, nothing sent", async () => {
    const { id: machine } = await seedMarketMachine(testDb.db);
    const port = new URL(provider.url).port;
    endpoints.set(`${machine}/demo-oracle`, { endpointBaseUrl: `http://127.0.0.2:${port}`, authType: "bearer", authToken: DEMO_PROVIDER_TOKEN });
    const task = await resolvedPriceTask(machine);
    const before = provider.requests();
    const execution = await services.executor.execute(machine, task.id);
    expect(execution.httpStatus).toBe(502);
    expect(execution.run.errorReason).toBe("blocked_loopback");
    expect(provider.requests()).toBe(before);
  });

  it("no live runtime endpoint for the provider: RUNTIME_ENDPOINT_REQUIRED and the task stays resolved", async () => {
    const { id: machine } = await seedMarketMachine(testDb.db);
    const task = await resolvedPriceTask(machine);
    await expect(services.executor.execute(machine, task.id)).rejects.toMatchObject({ code: "RUNTIME_ENDPOINT_REQUIRED" });
    expect((await services.tasks.get(machine, task.id)).status).toBe("resolved");
    expect(await testDb.db.prisma.marketsRun.count({ where: { taskId: task.id } })).toBe(0);
  });
});
