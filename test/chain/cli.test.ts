import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { readDemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { removeDir, startSeededChain, type SeededChain } from "./helpers.js";
import { runCliWith, type CliRun } from "../support/cli.js";
import { waitUntil } from "../support/wait.js";

describe("operator CLI against the embedded chain", () => {
  let seeded: SeededChain;
  let fixture: DemoFixture;

  beforeAll(async () => {
    seeded = await startSeededChain();
    fixture = readDemoFixture(seeded.config.dataDir)!;
  });

  afterAll(async () => {
    await seeded?.close();
    if (seeded) removeDir(seeded.config.dataDir);
  });

  /** The CLI on the seeded chain's data directory (its demo fixture names the RPC URL and the keys). */
  function cli(...args: string[]): Promise<CliRun> {
    return runCliWith(args, { DATA_DIR: seeded.config.dataDir, CHAIN_RPC_URL: "", OPERATOR_PRIVATE_KEY: "" });
  }

  /** The reader serves the block it has pinned; wait until its watcher sees the CLI's transaction. */
  async function untilMined(condition: () => Promise<boolean>) {
    await waitUntil(condition);
  }

  it("prints help at every level and rejects bad usage with exit code 2", async () => {
    const [top, group, sub, unknown, missing] = await Promise.all([
      cli("--help"),
      cli("attest", "--help"),
      cli("controller", "set", "--help"),
      cli("frobnicate"),
      cli("attest", "chip"),
    ]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/controller[\s\S]*deactivate[\s\S]*attest[\s\S]*revoke[\s\S]*event[\s\S]*demo/);
    expect(group.stdout).toMatch(/chip[\s\S]*kyb/);
    expect(sub.stdout).toContain("--machine <id> --address");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing --machine");
  });

  it("prints the demo fixture as one JSON line", async () => {
    const run = await cli("demo");
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith("\n")).toBe(true);
    expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual(fixture);
  });

  it("sets and clears a controller as the owner; a non-owner key fails with exit code 1", async () => {
    const controller = Wallet.createRandom().address;
    const denied = await cli("controller", "set", "--machine", "2", "--address", controller, "--key", fixture.machines[0].ownerPrivateKey);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("NotMachineOwner");

    const set = await cli("controller", "set", "--machine", "2", "--address", controller);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ machineId: "2", controller });
    expect(set.stderr).toContain("mined in block");
    await untilMined(async () => (await seeded.reader.getMachine(2n))?.effectiveController === controller);

    const clear = await cli("controller", "clear", "--machine", "2");
    expect(clear.code, clear.stderr).toBe(0);
    await untilMined(async () => (await seeded.reader.getMachine(2n))?.controller === null);
  });

  it("attests a chip and a KYB, then revokes, and the statuses follow", async () => {
    const operator = fixture.machines[1].operatorAddress;
    // One after the other: both sign with the attester key, and two processes sending from one key race for the
    // same nonce.
    const chip = await cli("attest", "chip", "--machine", "2", "--ttl", "3600");
    const kyb = await cli("attest", "kyb", "--operator", operator, "--expires", "1");
    expect(chip.code, chip.stderr).toBe(0);
    expect(kyb.code, kyb.stderr).toBe(0);
    const chipResult = JSON.parse(chip.stdout) as { uid: string };
    expect(chipResult.uid).toMatch(/^0x[0-9a-f]{64}$/);
    await untilMined(async () => (await seeded.reader.chipStatus(2n)) === "verified");
    await untilMined(async () => (await seeded.reader.kybStatus(operator)) === "expired");

    const revoke = await cli("revoke", "--uid", chipResult.uid);
    expect(revoke.code, revoke.stderr).toBe(0);
    await untilMined(async () => (await seeded.reader.chipStatus(2n)) === "revoked");
  });

  it("submits an event as the demo operator and deactivates a machine as admin", async () => {
    const countBefore = (await seeded.reader.callView("EventRegistry", "eventCount", [2n]))[0] as bigint;
    const [event, badCurrency, deactivate] = await Promise.all([
      cli("event", "submit", "--machine", "2", "--type", "revenue", "--value", "2500", "--currency", "EUR"),
      cli("event", "submit", "--machine", "2", "--type", "revenue", "--value", "1", "--currency", "eur"),
      cli("deactivate", "--machine", "6"),
    ]);
    expect(event.code, event.stderr).toBe(0);
    expect(JSON.parse(event.stdout)).toMatchObject({ machineId: "2" });
    expect(badCurrency.code).toBe(1);
    expect(badCurrency.stderr).toContain("InvalidCurrencyShape");
    expect(deactivate.code, deactivate.stderr).toBe(0);
    await untilMined(async () => (await seeded.reader.getMachine(6n))?.deactivated === true);
    await untilMined(
      async () => ((await seeded.reader.callView("EventRegistry", "eventCount", [2n]))[0] as bigint) === countBefore + 1n,
    );
  });
});
