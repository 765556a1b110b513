import { readFileSync } from "node:fs";
import path from "node:path";
import { Wallet, toUtf8Bytes, toUtf8String } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { DEMO_SOLANA_GENESIS, DEV_ONBOARDING_TOKEN } from "../../subgraphs/shared/chain/demo.js";
import type { DemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { removeDir, startSeededChain, type SeededChain } from "./helpers.js";
import { waitUntil } from "../support/wait.js";
import { readyContracts } from "../support/ratings.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";

describe("embedded chain with the demo fixture", () => {
  let seeded: SeededChain;
  let fixture: DemoFixture;

  beforeAll(async () => {
    seeded = await startSeededChain();
    fixture = JSON.parse(readFileSync(path.join(seeded.config.dataDir, "demo.json"), "utf8")) as DemoFixture;
  });

  afterAll(async () => {
    await seeded?.close();
    if (seeded) removeDir(seeded.config.dataDir);
  });

  const machine = (id: number) => fixture.machines[id - 1];
  const provider = () => createProvider(seeded.chain.rpcUrl, { chainId: seeded.chain.chainId });

  it("writes demo.json with the documented shape", () => {
    expect(Object.keys(fixture).sort()).toEqual(
      ["chainId", "contracts", "machines", "onboardingToken", "payments", "ratings", "rpcUrl", "vendor"].sort(),
    );
    expect(fixture).toMatchObject({ chainId: 3338, rpcUrl: seeded.chain.rpcUrl, onboardingToken: DEV_ONBOARDING_TOKEN });
    expect(fixture.vendor.rootCertPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(fixture.vendor.intermediateCertPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(fixture.machines.map((m) => m.machineId)).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(fixture.machines.map((m) => m.state)).toEqual([
      "active",
      "active",
      "deactivated",
      "second-chain",
      "active",
      "active",
    ]);
    for (const m of fixture.machines) {
      expect(Object.keys(m).sort()).toEqual(
        [
          "chip", "controllerAddress", "controllerPrivateKey", "did", "legacyDid", "machineAddress", "machineId",
          "operatorAddress", "operatorDid", "operatorPrivateKey", "ownerAddress", "ownerPrivateKey", "state", "tokenId",
        ].sort(),
      );
      expect(m.did).toBe(`did:service:${m.machineId}`);
      expect(m.legacyDid).toBe(`did:service:${m.machineAddress}`);
      expect(m.operatorDid).toBe(`did:service:${m.operatorAddress}`);
      expect(new Wallet(m.ownerPrivateKey).address).toBe(m.ownerAddress);
      expect(new Wallet(m.controllerPrivateKey).address).toBe(m.controllerAddress);
      expect(new Wallet(m.operatorPrivateKey).address).toBe(m.operatorAddress);
      expect(m.chip.leafCertPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect(m.chip.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }
    expect(machine(1).controllerAddress).not.toBe(machine(1).ownerAddress);
    expect(machine(2).controllerAddress).toBe(machine(2).ownerAddress);
  });

  it("reads every demo state through ChainReader", async () => {
    const { reader } = seeded;
    expect(await reader.chainId()).toBe("3338");
    expect(await reader.getMachine(999n)).toBeNull();

    const one = await reader.getMachine(1n);
    expect(one).toMatchObject({
      machineId: 1n,
      machineAddress: machine(1).machineAddress,
      owner: machine(1).ownerAddress,
      controller: machine(1).controllerAddress,
      effectiveController: machine(1).controllerAddress,
      operator: machine(1).operatorAddress,
      deactivated: false,
      home: { kind: "evm", chainId: "3338" },
      tokenId: BigInt(machine(1).tokenId),
    });
    const two = await reader.getMachine(2n);
    expect(two).toMatchObject({ controller: null, effectiveController: machine(2).ownerAddress, deactivated: false });
    expect((await reader.getMachine(3n))?.deactivated).toBe(true);
    expect((await reader.getMachine(4n))?.home).toEqual({ kind: "solana", genesisHash: DEMO_SOLANA_GENESIS });

    const chip = await Promise.all([1n, 2n, 3n, 4n, 5n, 6n].map((id) => reader.chipStatus(id)));
    expect(chip).toEqual(["verified", "unverified", "unverified", "unverified", "expired", "revoked"]);
    const kyb = await Promise.all(fixture.machines.map((m) => reader.kybStatus(m.operatorAddress)));
    expect(kyb).toEqual(["verified", "unverified", "unverified", "unverified", "revoked", "expired"]);
  });

  it("answers the readiness probe with every contract callable", async () => {
    expect(await seeded.reader.probe()).toEqual({ rpc_connected: true, contracts: readyContracts(true) });
  });

  it("seeds the 1.0 identity, bonds, events and DID attributes with consistent IDs", async () => {
    const { reader } = seeded;
    for (const m of fixture.machines) {
      const [id] = await reader.callView("IdentityRegistry", "machineIdOf", [m.machineAddress]);
      expect(id).toBe(BigInt(m.machineId));
      expect((await reader.callView("IdentityStaking", "isStaked", [m.machineId]))[0]).toBe(true);
      const [tokenMachine] = await reader.callView("MachineNFT", "machineIdOf", [m.tokenId]);
      expect(tokenMachine).toBe(BigInt(m.machineId));
    }
    expect((await reader.callView("IdentityRegistry", "machineStatus", [3n]))[0]).toBe(4n); // Deactivated
    const [count] = await reader.callView("EventRegistry", "eventCount", [1n]);
    expect(count).toBe(5n);
    const [events] = await reader.callView("EventRegistry", "getEvents", [1n, 0n, 2n]);
    expect(events.length).toBe(2);
    expect(events[0].toObject()).toMatchObject({ eventType: 0n, currency: "USD", submitter: machine(1).operatorAddress });

    const [attribute] = await reader.callView("DidRegistry", "readAttribute", [
      machine(1).machineAddress,
      toUtf8Bytes("operator"),
    ]);
    expect(toUtf8String(attribute.value)).toBe(machine(1).operatorDid);
    const [visibility] = await reader.callView("DidRegistry", "readAttribute", [
      machine(1).machineAddress,
      toUtf8Bytes("data_visibility"),
    ]);
    expect(toUtf8String(visibility.value)).toBe("onchain");
  });

  it("lets only the NFT owner set and clear the controller; reads move with the next block", async () => {
    const rpc = provider();
    const m = machine(2);
    const { reader } = seeded;
    const stranger = new Wallet(machine(1).ownerPrivateKey, rpc);
    const asStranger = connectContract("MachineRegistry", fixture.contracts, stranger);
    await expect(asStranger.setController(2n, stranger.address)).rejects.toMatchObject({ code: "CALL_EXCEPTION" });
    await expect(asStranger.clearController(2n)).rejects.toMatchObject({ code: "CALL_EXCEPTION" });
    const asController = connectContract("MachineRegistry", fixture.contracts, new Wallet(machine(1).controllerPrivateKey, rpc));
    await expect(asController.setController(1n, stranger.address)).rejects.toMatchObject({ code: "CALL_EXCEPTION" });

    const before = await reader.getMachine(2n);
    // Same block: the cached answer (same object) is served.
    expect(await reader.getMachine(2n)).toBe(before);

    const asOwner = connectContract("MachineRegistry", fixture.contracts, new Wallet(m.ownerPrivateKey, rpc));
    const newController = Wallet.createRandom().address;
    const setReceipt = await minedReceipt(await asOwner.setController(2n, newController));
    await waitUntil(() => (reader.pinnedBlock ?? 0) >= setReceipt!.blockNumber);
    expect(await reader.getMachine(2n)).toMatchObject({ controller: newController, effectiveController: newController });

    const clearReceipt = await minedReceipt(await asOwner.clearController(2n));
    await waitUntil(() => (reader.pinnedBlock ?? 0) >= clearReceipt!.blockNumber);
    expect(await reader.getMachine(2n)).toMatchObject({ controller: null, effectiveController: m.ownerAddress });
    rpc.destroy();
  });

  it("gates events on the machine or its operator and validates them", async () => {
    const rpc = provider();
    const now = (await rpc.getBlock("latest"))!.timestamp;
    const zero = `0x${"00".repeat(32)}`;
    const submit = (key: string, overrides: Partial<{ type: number; currency: string; timestamp: number; trust: number }> = {}) =>
      connectContract("EventRegistry", fixture.contracts, new Wallet(key, rpc)).submitEvent(
        2n, overrides.type ?? 0, 100n, overrides.currency ?? "USD", overrides.timestamp ?? now, zero, overrides.trust ?? 0, 0n, zero, "0x",
      );
    const revertName = async (sent: Promise<unknown>) => {
      try {
        await sent;
        return "none";
      } catch (error) {
        const data = (error as { data?: string }).data ?? "";
        return connectContract("EventRegistry", fixture.contracts, rpc).interface.parseError(data)?.name;
      }
    };
    expect(await revertName(submit(machine(1).operatorPrivateKey))).toBe("NotMachineOrOperator");
    expect(await revertName(submit(machine(2).operatorPrivateKey, { currency: "usd" }))).toBe("InvalidCurrencyShape");
    expect(await revertName(submit(machine(2).operatorPrivateKey, { type: 1 }))).toBe("InvalidCurrencyShape");
    expect(await revertName(submit(machine(2).operatorPrivateKey, { trust: 3 }))).toBe("InvalidTrustLevel");
    expect(await revertName(submit(machine(2).operatorPrivateKey, { timestamp: now + 3600 }))).toBe("FutureTimestamp");
    const ok = await minedReceipt(await submit(machine(2).operatorPrivateKey, { type: 1, currency: "" }));
    expect(ok!.status).toBe(1);
    rpc.destroy();
  });
});
