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

  function reader(requestTimeoutMs = 300): ChainReader {
    return new ChainReader({
      rpcUrl,
      addresses: { MachineRegistry: ADDRESS, IdentityRegistry: ADDRESS, AttestationRegistry: ADDRESS },
      chainId: 3338,
      requestTimeoutMs,
      pollIntervalMs: 10_000,
    });
  }

  /** Tracks whether a promise has settled, without a clock. */
  function track<T>(promise: Promise<T>) {
    const state = { settled: false, promise };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  }

  // No elapsed-time bound (a loaded machine stretches any): the deadline is shown against another reader on the same
  // silent node whose deadline is 200 times longer. The short one fails while the long one is still waiting, so the
  // failure comes from the configured deadline, not from the node or the connection.
  it("fails a read with ChainUnavailableError at its configured deadline, not later", async () => {
    const chain = reader(300);
    const patient = reader(60_000);
    try {
      const slow = track(patient.getMachine(1n));
      await expect(chain.getMachine(1n)).rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(chain.chipStatus(1n)).rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(chain.chainId()).rejects.toBeInstanceOf(ChainUnavailableError);
      expect(slow.settled).toBe(false);
      slow.promise.catch(() => undefined);
    } finally {
      chain.close();
      patient.close();
    }
  });

  it("reports not ready, with every check false, at the deadline", async () => {
    const chain = reader(300);
    const patient = reader(60_000);
    const slow = track(patient.chainId());
    const probe = await chain.probe();
    expect(slow.settled).toBe(false);
    slow.promise.catch(() => undefined);
    patient.close();
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
