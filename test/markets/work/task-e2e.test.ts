/**
 * The markets task flow end to end over real sockets: a demo machine bound with a signed proof, the demo provider that
 * role `all` runs (its URL and token from demo.json) registered as the machine's runtime endpoint, and a task run
 * through discover, resolve and execute on the markets listener; the provider's status comes back; every state
 * change is in the audit log. PGlite, or PostgreSQL when DATABASE_URL is set.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, bindMachine, expectMarketsError, expectOk, PLATFORM_START_TIMEOUT_MS, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

describe("a task through the demo provider", () => {
  let p: MarketsPlatform;
  let machine: string;
  let provider: { url: string; providerKey: string; skillKey: string; operation: string; authType: string; authToken: string };

  beforeAll(async () => {
    p = await startMarketsPlatform();
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    provider = JSON.parse(await readFile(path.join(p.dataDir, "demo.json"), "utf8")).markets.provider;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  async function resolvedTask(pair: string) {
    const task = expectOk(await api(p, "POST", `/machines/${machine}/tasks`, { skillKey: provider.skillKey, input: { pair } }), 201).item;
    expectOk(await api(p, "POST", `/machines/${machine}/tasks/${task.id}/discover`));
    return expectOk(await api(p, "POST", `/machines/${machine}/tasks/${task.id}/resolve`, {}), 201).item;
  }

  it("demo.json names the provider role all started, and it answers", async () => {
    expect(provider).toMatchObject({ providerKey: "demo-oracle", skillKey: "oracle.price-feed", operation: "get-price", authType: "bearer" });
    expect((await fetch(`${provider.url}/health`)).status).toBe(200);
  });

  it("no runtime endpoint yet: RUNTIME_ENDPOINT_REQUIRED (409), task still resolved", async () => {
    const task = await resolvedTask("ETH/USD");
    expectMarketsError(await api(p, "POST", `/machines/${machine}/tasks/${task.id}/execute`), 409, "RUNTIME_ENDPOINT_REQUIRED");
    expect(expectOk(await api(p, "GET", `/machines/${machine}/tasks/${task.id}`)).item.status).toBe("resolved");
  });

  it("with the endpoint registered, execute calls the provider with the stored token and answers its 200", async () => {
    expectOk(
      await api(p, "PUT", `/machines/${machine}/runtime-endpoints/${provider.providerKey}`, {
        endpointBaseUrl: provider.url,
        authType: provider.authType,
        authToken: provider.authToken,
      }),
      201,
    );
    const task = await resolvedTask("BTC/USD");
    const executed = await api(p, "POST", `/machines/${machine}/tasks/${task.id}/execute`);
    const item = expectOk(executed).item;
    expect(item.task.status).toBe("executed");
    expect(item.run).toMatchObject({ status: "succeeded", httpStatus: 200, providerKey: "demo-oracle" });
    expect(item.outcome.result).toMatchObject({ status: 200, body: { pair: "BTC/USD", price: "64250.10", source: "demo-oracle" } });
    expect(item.handoff).toBeNull();
    const events = expectOk(await api(p, "GET", `/audit-events?machineId=${machine}&limit=500`)).items;
    const kinds = events.filter((e: any) => e.data.entityId === task.id).map((e: any) => e.kind);
    expect(kinds).toEqual(["task.executed", "task.resolved", "task.discovered", "task.created"]);
    const runs = expectOk(await api(p, "GET", `/runs?machineId=${machine}&taskId=${task.id}`)).items;
    expect(runs).toEqual([item.run]);
  });

  it("the provider's error status is the answer's status (404 unknown pair): failed run, task.execution-failed", async () => {
    const task = await resolvedTask("XYZ/ABC");
    const failed = await api(p, "POST", `/machines/${machine}/tasks/${task.id}/execute`);
    expect(failed.status).toBe(404);
    const item = failed.json().item;
    expect(item.task.status).toBe("failed");
    expect(item.run).toMatchObject({ status: "failed", httpStatus: 404, errorReason: "provider_status" });
    const kinds = expectOk(await api(p, "GET", `/audit-events?machineId=${machine}&kind=task.execution-failed`)).items.map((e: any) => e.data.entityId);
    expect(kinds).toContain(task.id);
  });
});
