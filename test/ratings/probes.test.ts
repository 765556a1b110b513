/**
 * GET /health and GET /ready (document 2) through the REST shim and the gateway, against the real chain.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressEnvName, CONTRACT_NAMES, loadConfig, type ContractName } from "../../subgraphs/shared/config.js";
import { openPlatformChain, type PlatformChain } from "../../subgraphs/shared/chain/embedded.js";
import { graphql, startTestPlatform, type TestPlatform } from "../support/platform.js";
import { freePort } from "../support/processes.js";
import { readyReport } from "../support/ratings.js";

const ALL_READY = readyReport(true);
const NOTHING_READY = readyReport(false);

async function read(url: string) {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

async function probe(p: TestPlatform, route: "/health" | "/ready") {
  const response = await fetch(`${p.http}${route}`);
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

describe("probes on the embedded platform", () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform();
  });
  afterAll(() => p?.close());

  it("/health answers 200 {\"status\":\"ok\"}", async () => {
    expect(await probe(p, "/health")).toEqual({ status: 200, contentType: "application/json", text: '{"status":"ok"}' });
  });

  it("/ready answers 200 with every check true, in the documented member order", async () => {
    const ready = await probe(p, "/ready");
    expect(ready.status).toBe(200);
    expect(ready.text).toBe(JSON.stringify(ALL_READY));
  });

  it("GraphQL offers the same reports", async () => {
    const { body } = await graphql(p.graphql, "{ health { status } readiness { status rpcConnected contracts { adminFlags } } }");
    expect(body.data).toEqual({
      health: { status: "OK" },
      readiness: { status: "READY", rpcConnected: true, contracts: { adminFlags: true } },
    });
  });
});

describe("readiness against an external chain", () => {
  let dataDir: string;
  let chain: PlatformChain;
  const started: TestPlatform[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "probes-chain-"));
    chain = await openPlatformChain(loadConfig({ DATA_DIR: dataDir, ANVIL_PORT: "0", SEED_DEMO: "0" }));
  });
  afterAll(async () => {
    for (const p of started) await p.close();
    await chain?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function platformWith(
    rpcUrl: string,
    omit: ContractName[],
    replace: Partial<Record<ContractName, string>> = {},
  ): Promise<TestPlatform> {
    const env: Record<string, string> = { CHAIN_RPC_URL: rpcUrl, CHAIN_TIMEOUT_MS: "1000" };
    for (const name of CONTRACT_NAMES) {
      if (!omit.includes(name)) env[addressEnvName(name)] = replace[name] ?? chain.addresses[name]!;
    }
    const p = await startTestPlatform(env);
    started.push(p);
    return p;
  }

  it("an unset admin-flags address reports admin_flags true and does not block readiness", async () => {
    const p = await platformWith(chain.rpcUrl, ["AdminFlags"]);
    const ready = await probe(p, "/ready");
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual(ALL_READY);
  });

  it("started without the identity registry address: 503 with every field false", async () => {
    const p = await platformWith(chain.rpcUrl, ["IdentityRegistry"]);
    const ready = await probe(p, "/ready");
    expect(ready.status).toBe(503);
    expect(ready.text).toBe(JSON.stringify(NOTHING_READY));
    // Liveness checks no connectivity.
    expect((await probe(p, "/health")).status).toBe(200);
    // The 1.0 read routes cannot be served; the 2.0 deployment (machine registry) still can.
    expect(await read(`${p.http}/mcr/0x${"11".repeat(20)}`)).toEqual({ status: 503, text: '{"detail":"Service not initialised"}' });
    expect(await read(`${p.http}/machine/1/monetization`)).toMatchObject({ status: 503, text: expect.stringContaining('"code":"SERVICE_UNAVAILABLE"') });
    expect((await read(`${p.mcr2}/mcr/did:service:1`)).status).toBe(404);
  });

  it("an unreachable RPC node: 503 not_ready with rpc_connected false; /health still 200", async () => {
    const deadPort = await freePort();
    const p = await platformWith(`http://127.0.0.1:${deadPort}`, []);
    const ready = await probe(p, "/ready");
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.text);
    expect(body.status).toBe("not_ready");
    expect(body.rpc_connected).toBe(false);
    expect((await probe(p, "/health")).text).toBe('{"status":"ok"}');
    expect(await read(`${p.http}/mcr/0x${"11".repeat(20)}`)).toEqual({ status: 503, text: '{"detail":"Chain unavailable"}' });
    expect(await read(`${p.http}/machines/1`)).toEqual({ status: 503, text: '{"detail":"Chain unavailable"}' });
    expect(await read(`${p.http}/machine/1/monetization`)).toMatchObject({ status: 503, text: expect.stringContaining('"code":"MACHINE_UNAVAILABLE"') });
  });

  it("a contract address with no code: that check is false and readiness is 503", async () => {
    const broken = await platformWith(chain.rpcUrl, [], { EventRegistry: "0x000000000000000000000000000000000000dEaD" });
    const ready = await probe(broken, "/ready");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({
      ...ALL_READY,
      status: "not_ready",
      contracts: { ...ALL_READY.contracts, event_registry: false },
    });
  });
});
