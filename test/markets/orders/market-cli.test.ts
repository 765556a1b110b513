/**
 * `cli market` against a running platform: the demo agent of demo.json pairs by signing, and the journey runs
 * step by step (pair, search, order, pay, execute, confirm) and as `market demo`; each step's result is a JSON
 * line and the server's state matches it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { api, bindMachine, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

let p: MarketsPlatform;
let machineId: string;
let demo: any;
beforeAll(async () => {
  p = await startMarketsPlatform();
  machineId = (await bindMachine(p, p.machine("active", 0))).id;
  demo = JSON.parse(await readFile(path.join(p.dataDir, "demo.json"), "utf8"));
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const lines = (stdout: string) => stdout.trim().split("\n").map((line) => JSON.parse(line));

describe("cli market", () => {
  it("demo.json names the demo agent and no pairing secret", async () => {
    expect(demo.markets.agent.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const secret = (await readFile(path.join(p.dataDir, "markets-pairing-jwt.secret"), "utf8")).trim();
    expect(JSON.stringify(demo)).not.toContain(secret);
  });

  it("demo: pair, search, order, pay, execute, confirm in sequence with readable progress", async () => {
    const run = await runCli(p, ["market", "demo", "--machine", machineId, "--api", p.markets, "--pair", "BTC/USD"]);
    expect(run.code, run.stderr).toBe(0);
    const steps = lines(run.stdout);
    expect(steps.map((s) => s.step)).toEqual(["pair", "search", "order", "pay", "execute", "confirm"]);
    expect(steps[0].agentAddress).toBe(demo.markets.agent.address);
    expect(steps[3]).toMatchObject({ paymentStatus: "not_required", orderStatus: "ready" });
    expect(steps[4]).toMatchObject({ status: "delivered", httpStatus: 200, result: { status: 200, body: { pair: "BTC/USD" } } });
    expect(steps[5].status).toBe("confirmed");
    expect(run.stderr).toContain("7/7 confirm");
    expect((await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: steps[5].orderId } })).status).toBe("confirmed");
  });

  it("step by step with the token passed along", async () => {
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(p, ["market", ...args, "--api", p.markets], env);
    const paired = await cli(["pair", "--machine", machineId, "--per-tx-limit", "1", "--allowed-skills", "oracle.price-feed"]);
    expect(paired.code, paired.stderr).toBe(0);
    const { pairingToken, pairingId } = lines(paired.stdout)[0];
    const pairing = expectOk(await api(p, "GET", `/machines/${machineId}/agent-pairings`)).items.find((x: any) => x.id === pairingId);
    expect(pairing.delegationPolicy).toMatchObject({ perTransactionLimit: 1, allowedSkillKeys: ["oracle.price-feed"] });
    const found = lines((await cli(["search", "--machine", machineId])).stdout)[0];
    const ordered = await cli(["order", "--machine", machineId, "--search", found.searchId, "--quote", found.quoteId, "--input", '{"pair":"ETH/USD"}'], { MARKET_PAIRING_TOKEN: pairingToken });
    expect(ordered.code, ordered.stderr).toBe(0);
    const { orderId } = lines(ordered.stdout)[0];
    for (const step of ["pay", "execute", "confirm"]) {
      const run = await cli([step, "--order", orderId, "--token", pairingToken]);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(expectOk(await api(p, "GET", `/market/orders/${orderId}`)).item.status).toBe("confirmed");
    // A refused step exits 1 and says why.
    const again = await cli(["confirm", "--order", orderId, "--token", pairingToken]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("ORDER_CLOSED");
  });
});
