/**
 * The second-chain lookup (1.0 deployment) with @solana/kit's RPC client against a local node that speaks
 * `getAccountInfo` (the embedded binding node, behind a switch this suite controls): bound, not bound, revoked,
 * foreign accounts, bad keys, a node that is down or slow (503), the one finalized read per lookup, and the 60-second
 * cache of settled outcomes (with an injected clock).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getBase58Decoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AltchainService } from "../../subgraphs/ratings/altchain/altchain.service.js";
import { BindingClient } from "../../subgraphs/ratings/altchain/binding-client.js";
import { startBindingNode, type BindingNode } from "../../subgraphs/ratings/altchain/dev-node.js";
import { DEFAULT_BINDING_PROGRAM } from "../../subgraphs/shared/config/ratings.js";
import { expectDetail, rated, startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { get } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

type Mode = "normal" | "slow" | "foreign-owner";

/**
 * In front of the real node: forwards, holds a request unanswered (slow: only the client's deadline can end it; the
 * held requests go on when the mode changes back, so no sleep decides the order), or rewrites the account's owner.
 */
class NodeSwitch {
  private current: Mode = "normal";
  private held: Array<() => void> = [];
  get mode(): Mode {
    return this.current;
  }
  set mode(mode: Mode) {
    this.current = mode;
    if (mode !== "slow") for (const release of this.held.splice(0)) release();
  }
  readonly requests: Array<{ method: string; params: unknown[] }> = [];
  private server = http.createServer((req, res) => this.handle(req, res));
  port = 0;
  target = "";

  async listen(port = 0): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The node goes away: its port refuses connections. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const request = JSON.parse(body);
      this.requests.push({ method: request.method, params: request.params });
      if (this.mode === "slow") await new Promise<void>((resolve) => this.held.push(resolve));
      const answer = await fetch(this.target, { method: "POST", headers: { "content-type": "application/json" }, body });
      let text = await answer.text();
      if (this.mode === "foreign-owner") text = text.replace(DEFAULT_BINDING_PROGRAM, "11111111111111111111111111111111");
      if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end(text);
    });
  }
}

const node = new NodeSwitch();
let real: BindingNode;
let p: RatingsPlatform;

beforeAll(async () => {
  await node.listen();
  p = await startRatingsPlatform({
    ALTCHAIN_RPC_URL: `http://127.0.0.1:${node.port}`,
    ALTCHAIN_TIMEOUT_MS: "500",
    ALTCHAIN_CACHE_TTL: "0",
  });
  real = await startBindingNode({ host: "127.0.0.1", port: 0, programId: DEFAULT_BINDING_PROGRAM, bindings: p.demo.ratings.altchainBindings });
  node.target = real.url;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await node.stop().catch(() => {});
  await real?.close();
});

const binding = (label: string) => p.demo.ratings.altchainBindings.find((b) => b.label === label)!;
const lookup = (key: string) => get(`${p.http}/altchain/mcr/${key}`);

describe("GET /altchain/mcr/{altchain_addr}", () => {
  it("a bound key: the bound machine's /mcr payload plus the two binding fields; one read at finalized commitment", async () => {
    const key = binding("bound-machine").altchainKey;
    const machine = rated(p, 7);
    const before = node.requests.length;
    const answer = await lookup(key);
    expect(answer.status).toBe(200);
    const direct = (await get(`${p.http}/mcr/did:service:${machine.machineAddress}`)).text;
    expect(answer.text).toBe(`${direct.slice(0, -1)},"altchain_address":"${key}","evm_address":"${machine.machineAddress}"}`);
    const reads = node.requests.slice(before);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.method).toBe("getAccountInfo");
    // @solana/kit leaves `commitment: "finalized"` out of the request: it is the JSON-RPC default.
    const config = reads[0]!.params[1] as { commitment?: string; encoding: string };
    expect({ commitment: config.commitment ?? "finalized", encoding: config.encoding }).toEqual({ commitment: "finalized", encoding: "base64" });
  });

  it("a key nothing is bound to: 404 Altchain address not bound", async () => {
    expectDetail(await lookup(p.demo.ratings.unboundAltchainKey), 404, "Altchain address not bound");
  });

  it("a revoked binding: 404 Altchain binding revoked", async () => {
    expectDetail(await lookup(binding("revoked").altchainKey), 404, "Altchain binding revoked");
  });

  it("an account the binding program does not own is no binding", async () => {
    node.mode = "foreign-owner";
    try {
      expectDetail(await lookup(binding("bound-machine").altchainKey), 404, "Altchain address not bound");
    } finally {
      node.mode = "normal";
    }
  });

  it.each([
    ["too short", "abc"],
    ["not base58 (0, O, I, l)", "0OIl1111111111111111111111111111111111111111"],
    ["31 bytes", getBase58Decoder().decode(new Uint8Array(31).fill(7))],
    ["33 bytes", getBase58Decoder().decode(new Uint8Array(33).fill(7))],
    ["an EVM address", "0xd4211B9d720a7ec8342c8723AAd1C49f9988e401"],
  ])("%s: 400 Invalid altchain address", async (_label, key) => {
    expectDetail(await lookup(key), 400, "Invalid altchain address");
  });

  it("a slow node (past ALTCHAIN_TIMEOUT_MS): 503 Altchain unavailable", async () => {
    node.mode = "slow";
    try {
      expectDetail(await lookup(binding("bound-machine").altchainKey), 503, "Altchain unavailable");
    } finally {
      node.mode = "normal";
    }
  });

  it("a node that is down: 503 Altchain unavailable; back up, the lookup works again", async () => {
    const port = node.port;
    await node.stop();
    expectDetail(await lookup(binding("bound-machine").altchainKey), 503, "Altchain unavailable");
    await node.listen(port);
    expect((await lookup(binding("bound-machine").altchainKey)).status).toBe(200);
  });
});

describe("GET /altchain/operator/{altchain_addr}/machines", () => {
  it("the bound operator's listing plus the binding fields, with offset and limit", async () => {
    const key = binding("bound-operator").altchainKey;
    const answer = await get(`${p.http}/altchain/operator/${key}/machines?offset=2&limit=2`);
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(Object.keys(body)).toEqual(["operator_did", "machines", "pagination", "altchain_address", "evm_address"]);
    expect(body.machines.map((m: { machine_id: number }) => m.machine_id)).toEqual([9, 10]);
    expect(body).toMatchObject({ pagination: { offset: 2, limit: 2, total: 10 }, altchain_address: key, evm_address: p.demo.ratings.fleetOperator.address });
  });

  it("FastAPI's 422 for bad pagination, before any second-chain read", async () => {
    const before = node.requests.length;
    const answer = await get(`${p.http}/altchain/operator/${binding("bound-operator").altchainKey}/machines?limit=0`);
    expect(answer.status).toBe(422);
    expect(answer.json().detail[0]).toMatchObject({ type: "greater_than_equal", loc: ["query", "limit"] });
    expect(node.requests.length).toBe(before);
  });

  it("a bound key of an account without machines: an empty listing", async () => {
    const body = (await get(`${p.http}/altchain/operator/${binding("bound-machine").altchainKey}/machines`)).json();
    expect(body).toMatchObject({ machines: [], pagination: { offset: 0, limit: 20, total: 0 } });
  });
});

describe("the 60-second cache of settled outcomes", () => {
  let nowMs = Date.UTC(2026, 10, 1);
  const clock = { now: () => nowMs };
  const service = () =>
    new AltchainService(new BindingClient(`http://127.0.0.1:${node.port}`, DEFAULT_BINDING_PROGRAM, 500), 60, clock, null as never, null as never, "service");

  it("bound and not_bound are kept 60 s; a node failure is not kept", async () => {
    const cached = service();
    const bound = binding("bound-machine").altchainKey;
    const reads = () => node.requests.length;
    const start = reads();
    expect(await cached.boundEvmAddress(bound)).toBe(rated(p, 7).machineAddress);
    await expect(cached.boundEvmAddress(p.demo.ratings.unboundAltchainKey)).rejects.toMatchObject({ code: "ALTCHAIN_NOT_BOUND" });
    expect(reads()).toBe(start + 2);

    node.mode = "slow";
    nowMs += 59_000;
    expect(await cached.boundEvmAddress(bound)).toBe(rated(p, 7).machineAddress);
    await expect(cached.boundEvmAddress(p.demo.ratings.unboundAltchainKey)).rejects.toMatchObject({ code: "ALTCHAIN_NOT_BOUND" });
    expect(reads()).toBe(start + 2);

    nowMs += 2_000;
    await expect(cached.boundEvmAddress(bound)).rejects.toMatchObject({ code: "ALTCHAIN_UNAVAILABLE" });
    node.mode = "normal";
    expect(await cached.boundEvmAddress(bound)).toBe(rated(p, 7).machineAddress);
  });
});
