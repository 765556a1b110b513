import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Wallet } from "ethers";
import { afterAll, describe, expect, it } from "vitest";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { readDeployment } from "../../subgraphs/shared/chain/deploy.js";
import { readDemoFixture } from "../../subgraphs/shared/chain/demo-fixture.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { removeDir, startSeededChain, tempDataDir } from "./helpers.js";
import { minedReceipt } from "../../subgraphs/shared/chain/deploy.js";

describe("dev chain persistence", () => {
  const dataDir = tempDataDir();
  afterAll(() => removeDir(dataDir));

  it("keeps contracts and state across a stop and start from the same data directory", async () => {
    const first = await startSeededChain(dataDir);
    const fixture = readDemoFixture(dataDir)!;
    expect(first.logs.some((line) => line.includes("deployed 10 contracts"))).toBe(true);

    // A change made after seeding must survive the restart.
    const rpc = createProvider(first.chain.rpcUrl, { chainId: first.chain.chainId });
    const owner = new Wallet(fixture.machines[1].ownerPrivateKey, rpc);
    const newController = Wallet.createRandom().address;
    await minedReceipt(await connectContract("MachineRegistry", fixture.contracts, owner).setController(2n, newController));
    rpc.destroy();
    await first.close();

    const second = await startSeededChain(dataDir);
    try {
      expect(second.logs.some((line) => line.includes("deployed") || line.includes("seeding"))).toBe(false);
      expect(second.chain.addresses).toEqual(fixture.contracts);
      expect(readDeployment(dataDir)?.contracts).toEqual(fixture.contracts);
      expect((await second.reader.getMachine(2n))?.controller).toBe(newController);
      expect(await second.reader.chipStatus(1n)).toBe("verified");
      // demo.json is kept, with the new node URL.
      expect(readDemoFixture(dataDir)).toEqual({ ...fixture, rpcUrl: second.chain.rpcUrl });
    } finally {
      await second.close();
    }
  });

  it("redeploys and reseeds, with a log line, when the chain state was lost", async () => {
    const before = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    rmSync(path.join(dataDir, "chain", "anvil-state.json"));
    const restarted = await startSeededChain(dataDir);
    try {
      expect(restarted.logs.some((line) => line.includes("chain state lost"))).toBe(true);
      expect(restarted.logs.some((line) => line.includes("seeding the demo fixture"))).toBe(true);
      // Same deployer, same nonces on a fresh chain: the addresses (and the deterministic keys) come back unchanged.
      expect(restarted.chain.addresses).toEqual(before.contracts);
      expect((await restarted.reader.getMachine(2n))?.controller).toBeNull();
      expect(readDemoFixture(dataDir)?.machines).toEqual(before.machines);
    } finally {
      await restarted.close();
    }
  });
});
