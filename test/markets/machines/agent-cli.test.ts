/**
 * The operator CLI's `agent run` against a running platform: it enrols, sends heartbeats that renew the endpoint's
 * lease, and stops with exit 1 once the agent is revoked.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { api, bindMachine, expectOk, PLATFORM_START_TIMEOUT_MS, prismaOf, startMarketsPlatform, type MarketsPlatform } from "../helpers.js";

let p: MarketsPlatform;
let machineId: string;
beforeAll(async () => {
  p = await startMarketsPlatform();
  machineId = (await bindMachine(p, p.machine("active", 0))).id;
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("cli identity sign", () => {
  it("signs a challenge with the demo controller key: the proof binds the machine", async () => {
    const machine = p.machine("active", 1);
    const challenge = expectOk(await api(p, "POST", "/machine-identity/challenges", { identityRef: machine.did }), 201);
    const file = path.join(p.dataDir, "challenge.json");
    await writeFile(file, JSON.stringify(challenge));
    const run = await runCli(p, ["identity", "sign", "--challenge", file]);
    expect(run.code, run.stderr).toBe(0);
    const proof = JSON.parse(run.stdout);
    expect(proof.challengeId).toBe(challenge.item.challengeId);
    const created = expectOk(await api(p, "POST", "/machines", { displayName: "via cli", identityRef: machine.did, identityProof: proof }), 201).item;
    expect(created.identityProof.signerAddress).toBe(machine.controllerAddress);
  });
});

describe("cli identity session", () => {
  it("opens a session with the demo controller key; a stranger's key is refused and nothing is enrolled", async () => {
    const run = await runCli(p, ["identity", "session", "--api", p.markets, "--machine", machineId]);
    expect(run.code, run.stderr).toBe(0);
    const session = JSON.parse(run.stdout);
    expect(session).toMatchObject({ machineId, controllerAddress: p.machine("active", 0).controllerAddress });
    const agents = await prismaOf(p).marketMachineAgent.count();
    const enrolled = await api(p, "POST", `/machines/${machineId}/agents/enrollment`, { allowedProviderKeys: ["x"] }, { authorization: `Bearer ${session.sessionToken}` });
    expect(enrolled.status).toBe(201);
    const stranger = "0x" + "11".repeat(32);
    const refused = await runCli(p, ["identity", "session", "--api", p.markets, "--machine", machineId, "--key", stranger]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("MACHINE_IDENTITY_PROOF_INVALID");
    const anonymous = await runCli(p, ["agent", "run", "--api", p.markets, "--machine", machineId, "--key", stranger, "--count", "1", "--interval", "0"]);
    expect(anonymous.code).toBe(1);
    expect(await prismaOf(p).marketMachineAgent.count()).toBe(agents + 1);
  });
});

describe("cli agent run", () => {
  it("enrols, then each heartbeat renews the lease of the reported endpoint", async () => {
    const run = await runCli(p, ["agent", "run", "--api", p.markets, "--machine", machineId, "--provider", "qvac", "--endpoint", "http://127.0.0.1:11434", "--lease", "45", "--interval", "0", "--count", "2"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((line) => line.event)).toEqual(["enrolled", "heartbeat", "heartbeat"]);
    expect(lines[0].agentToken).toMatch(/^mat_/);
    expect(lines[1]).toMatchObject({ agentId: lines[0].agentId, status: "active" });
    expect(Date.parse(lines[2].leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(lines[1].leaseExpiresAt));
    const endpoint = expectOk(await api(p, "GET", `/machines/${machineId}/runtime-endpoints/qvac`)).item;
    expect(endpoint).toMatchObject({ source: "agent", endpointBaseUrl: "http://127.0.0.1:11434", leaseExpiresAt: lines[2].leaseExpiresAt });

    // The same agent by token; once revoked the CLI stops with exit 1.
    expectOk(await api(p, "POST", `/machines/${machineId}/agents/${lines[0].agentId}/revoke`));
    const before = await prismaOf(p).marketRuntimeEndpoint.findMany();
    const refused = await runCli(p, ["agent", "run", "--api", p.markets, "--interval", "0"], { MACHINE_AGENT_TOKEN: lines[0].agentToken });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("AGENT_PAIRING_INACTIVE");
    expect(await prismaOf(p).marketRuntimeEndpoint.findMany()).toEqual(before);
  });

  it("usage error (exit 2) without --machine or a token", async () => {
    const run = await runCli(p, ["agent", "run", "--api", p.markets]);
    expect(run.code).toBe(2);
  });
});
