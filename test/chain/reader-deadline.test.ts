import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainUnavailableError } from "../../subgraphs/shared/errors.js";
import { ChainReader } from "../../subgraphs/shared/chain/reader.js";

const ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

describe("ChainReader request deadline", () => {
  let server: net.Server;
  const sockets = new Set<net.Socket>();
  let rpcUrl: string;

  beforeAll(async () => {
    // Accepts connections and never answers: the worst kind of unavailable node.
    server = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    rpcUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  function reader(): ChainReader {
    return new ChainReader({
      rpcUrl,
      addresses: { MachineRegistry: ADDRESS, IdentityRegistry: ADDRESS, AttestationRegistry: ADDRESS },
      chainId: 3338,
      requestTimeoutMs: 300,
      pollIntervalMs: 10_000,
    });
  }

  it("fails a read with ChainUnavailableError within the deadline", async () => {
    const chain = reader();
    const started = Date.now();
    await expect(chain.getMachine(1n)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(chain.chipStatus(1n)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(chain.chainId()).rejects.toBeInstanceOf(ChainUnavailableError);
    expect(Date.now() - started).toBeLessThan(3 * 300 + 500);
    chain.close();
  });

  it("reports not ready, with every check false, within the deadline", async () => {
    const chain = reader();
    const started = Date.now();
    const probe = await chain.probe();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(probe.rpc_connected).toBe(false);
    // AdminFlags has no address configured: its probe is skipped and reads true (document 2).
    expect(probe.contracts).toEqual({
      identity_registry: false,
      identity_staking: false,
      event_registry: false,
      machine_nft: false,
      did_registry: false,
      admin_flags: true,
    });
    chain.close();
  });

  it("reads all-false when the registries are not configured", async () => {
    const chain = new ChainReader({ rpcUrl, addresses: {}, requestTimeoutMs: 300, pollIntervalMs: 10_000 });
    const probe = await chain.probe();
    expect(probe.rpc_connected).toBe(false);
    expect(Object.values(probe.contracts).every((ok) => ok === false)).toBe(true);
    chain.close();
  });
});
