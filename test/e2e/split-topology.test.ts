/**
 * The split topology as separate OS processes from the same build: three `subgraph <name>` processes, a `gateway`
 * over them by URL and a `rest` listener over the gateway by URL, sharing one PostgreSQL database and one chain.
 * PGlite belongs to one process, so this runs only when DATABASE_URL names a PostgreSQL server.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { openPlatformChain, type PlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { createPostgresDatabase, type ScratchPostgresDatabase } from "../support/db.js";
import { freePort, startRole, type RoleProcess } from "../support/processes.js";
import { graphql } from "../support/platform.js";
import { waitUntil } from "../support/wait.js";

const WINDOW_MS = 10 ** 13;

describe.skipIf(!process.env.DATABASE_URL)("split topology: subgraphs, gateway and rest as separate processes", () => {
  let dataDir: string;
  let chain: PlatformChain;
  let database: ScratchPostgresDatabase;
  const roles: RoleProcess[] = [];
  const role: Record<string, RoleProcess> = {};
  let restUrl: string;
  let gatewayUrl: string;
  const subgraphUrls: Record<string, string> = {};
  const keyPrefix = `test:split:${randomUUID()}:`;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "split-topology-"));
    chain = await openPlatformChain(loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0" }));
    database = await createPostgresDatabase();
    const bundle = path.join(dataDir, "vendor-bundle.pem");
    await writeFile(bundle, `${chain.demo!.vendor.rootCertPem}\n${chain.demo!.vendor.intermediateCertPem}`);

    const shared: Record<string, string> = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      CHAIN_RPC_URL: chain.rpcUrl,
      ONBOARDING_TOKENS: "split-token",
      VENDOR_TRUST_BUNDLE: bundle,
      CHAIN_POLL_MS: "50",
      INTERNAL_TOKEN: "split-internal-token",
      // Counters shared by the rest and gateway processes, as replicas share them; a key space of this run's own.
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_KEY_PREFIX: keyPrefix,
      RATE_LIMIT_VERIFY_READ_PER_IP: "4",
      // Child processes take no injected clock: a window of 10^13 ms (the current one ends in 2286) means no window
      // boundary can fall inside a test's sequence of requests. Our keys are deleted in afterAll.
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    };
    for (const name of CONTRACT_NAMES) shared[addressEnvName(name)] = chain.addresses[name]!;

    const [verifyPort, ratingsPort, marketsPort, graphqlPort, httpPort, marketsRestPort] = await Promise.all(
      Array.from({ length: 6 }, freePort),
    );
    const subgraphPorts = { verify: verifyPort, ratings: ratingsPort, markets: marketsPort };
    for (const [name, port] of Object.entries(subgraphPorts)) subgraphUrls[name] = `http://127.0.0.1:${port}/graphql`;
    const started = await Promise.all(
      Object.entries(subgraphPorts).map(([name, port]) =>
        startRole(["subgraph", name], { ...shared, SUBGRAPH_PORT: String(port) }, 120_000),
      ),
    );
    roles.push(...started);
    Object.keys(subgraphPorts).forEach((name, i) => (role[name] = started[i]!));
    gatewayUrl = `http://127.0.0.1:${graphqlPort}/graphql`;
    roles.push(
      await startRole(["gateway"], {
        ...shared,
        GRAPHQL_PORT: String(graphqlPort),
        SUBGRAPH_VERIFY_URL: `http://127.0.0.1:${verifyPort}/graphql`,
        SUBGRAPH_RATINGS_URL: `http://127.0.0.1:${ratingsPort}/graphql`,
        SUBGRAPH_MARKETS_URL: `http://127.0.0.1:${marketsPort}/graphql`,
      }, 120_000),
    );
    role.gateway = roles.at(-1)!;
    roles.push(
      await startRole(["rest"], {
        ...shared,
        HTTP_PORT: String(httpPort),
        MARKETS_PORT: String(marketsRestPort),
        GATEWAY_URL: gatewayUrl,
      }, 120_000),
    );
    role.rest = roles.at(-1)!;
    restUrl = `http://127.0.0.1:${httpPort}`;
  }, 240_000);

  afterAll(async () => {
    for (const role of roles.reverse()) await role.stop();
    const redis = new Redis("redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } catch {
      // Redis is down: nothing of ours is left in it.
    } finally {
      redis.disconnect();
    }
    await database?.drop();
    await chain?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves the verification read route through rest -> gateway -> verify subgraph", async () => {
    const machine = chain.demo!.machines.find((m) => m.machineId === "1")!;
    const response = await fetch(`${restUrl}/v1/verify/machines/1`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({
      machineId: "1",
      didController: { kind: "evm", address: machine.controllerAddress },
      verification: { kyb: { status: "verified" }, chip: { status: "verified" } },
    });
  });

  it("carries the client's request ID from the rest process to the gateway process and on to the remote subgraph, each logging it", async () => {
    const requestId = `split-trace.${randomUUID()}`;
    const response = await fetch(`${restUrl}/v1/verify/machines/1`, { headers: { "x-request-id": requestId } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe(requestId);
    const loggedBy = (process: RoleProcess) =>
      process
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes(requestId))
        .map((line) => JSON.parse(line));
    // Each process writes its line when its own answer is sent: wait for all three.
    await waitUntil(() => [role.rest!, role.gateway!, role.verify!].every((process) => loggedBy(process).length > 0));
    expect(loggedBy(role.rest!)).toEqual([expect.objectContaining({ msg: "request", listener: "http", route: "/v1/verify/machines/:machineId", status: 200, requestId })]);
    expect(loggedBy(role.gateway!)).toEqual([expect.objectContaining({ msg: "request", listener: "graphql", method: "POST", status: 200, requestId })]);
    expect(loggedBy(role.verify!)).toEqual([expect.objectContaining({ msg: "request", listener: "subgraph", method: "POST", status: 200, requestId })]);
    // Only the subgraph the query needs was called.
    expect(loggedBy(role.ratings!)).toEqual([]);
  });

  it("maps subgraph error codes to the documented statuses across process boundaries", async () => {
    const invalid = await fetch(`${restUrl}/v1/verify/machines/01`);
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).detail.code).toBe("INVALID_MACHINE_ID");
    const secondChain = await fetch(`${restUrl}/v1/verify/machines/4`);
    expect(secondChain.status).toBe(503);
    expect((await secondChain.json()).detail.code).toBe("VERIFY_READ_UNAVAILABLE");
  });

  it("forwards the onboarding token through the gateway to the verify subgraph", async () => {
    const issue = (token: string) =>
      fetch(`${restUrl}/v1/verify/chip/challenge`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ machineId: "2" }),
      });
    expect((await issue("wrong-token")).status).toBe(401);
    const created = await issue("split-token");
    expect(created.status).toBe(201);
    expect((await created.json()).machineId).toBe("2");
  });

  it("reads one machine across the three subgraph processes in one gateway query", async () => {
    const { body } = await graphql(
      gatewayUrl,
      `{ machine(machineId: "1") { machineId verification { verification { kyb { status } } } monetization { status } marketsRegistration { status } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.machine).toEqual({
      machineId: "1",
      verification: { verification: { kyb: { status: "VERIFIED" } } },
      monetization: { status: "PENDING" },
      marketsRegistration: null,
    });
  });

  it("serves /health and /ready through the split topology", async () => {
    expect(await (await fetch(`${restUrl}/health`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${restUrl}/ready`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).status).toBe("ready");
  });

  /** A request from a given loopback address (each scenario has its own, so budgets do not mix). */
  function from(address: string, url: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method: init.body ? "POST" : "GET", localAddress: address, headers: init.headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      });
      req.on("error", reject);
      req.end(init.body);
    });
  }
  const gatewayRead = (address: string, headers: Record<string, string> = {}) =>
    from(address, gatewayUrl, {
      body: JSON.stringify({ query: `{ machineVerification(machineId: "1") { machineId } }` }),
      headers: { "content-type": "application/json", ...headers },
    });
  const restRead = (address: string) => from(address, `${restUrl}/v1/verify/machines/1`);

  it("a read the rest role forwards is counted once, for its client, not again at the gateway", async () => {
    // Counted twice (rest, then gateway) the fourth read would already be over the budget of four.
    expect([await restRead("127.0.1.1"), await restRead("127.0.1.1"), await restRead("127.0.1.1"), await restRead("127.0.1.1")]).toEqual([200, 200, 200, 200]);
    expect(await restRead("127.0.1.1")).toBe(429);
    // Counted for the rest role's own address, a second client would find the budget used up.
    expect(await restRead("127.0.1.2")).toBe(200);
  });

  it("both doors spend one budget across processes", async () => {
    expect(await restRead("127.0.1.3")).toBe(200);
    expect(await gatewayRead("127.0.1.3")).toBe(200);
    expect(await restRead("127.0.1.3")).toBe(200);
    expect(await gatewayRead("127.0.1.3")).toBe(200);
    expect(await gatewayRead("127.0.1.3")).toBe(429);
    expect(await restRead("127.0.1.3")).toBe(429);
  });

  it("an outside caller cannot pose as the rest role: a client IP header without the internal token is ignored", async () => {
    const spoofed = (i: number) => ({ "x-client-ip": `198.51.100.${i}`, "x-internal-token": "guessed" });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await gatewayRead("127.0.1.4", spoofed(i)));
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it("subgraph processes answer only the gateway", async () => {
    const response = await fetch(subgraphUrls.verify, {
      method: "POST",
      headers: { "content-type": "application/json", "x-client-ip": "198.51.100.1" },
      body: JSON.stringify({ query: "{ pendingChipEvidence { receiptId } }" }),
    });
    expect(response.status).toBe(401);
  });
});
