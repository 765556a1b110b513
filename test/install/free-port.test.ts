/**
 * The ports test files hand to child processes: below the kernel's ephemeral range (where an outgoing connection's
 * source port or another process's `listen(0)` could take a port between the probe and the child's bind), never the
 * same twice in a process, and free when handed out.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, freePortIn, PORT_RANGE } from "../support/processes.js";

describe("freePort", () => {
  it("hands out distinct, bindable ports below the ephemeral range", async () => {
    const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    expect(PORT_RANGE[1]).toBeLessThanOrEqual(ephemeralLow);
    const ports = await Promise.all(Array.from({ length: 200 }, freePort));
    expect(new Set(ports).size).toBe(200);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(PORT_RANGE[0]);
      expect(port).toBeLessThan(ephemeralLow);
    }
    for (const port of ports.slice(0, 20)) {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("skips ports another listener holds and ports it has handed out", async () => {
    const { low, held } = await holdThreeOfFour();
    try {
      expect(await freePortIn(low, low + 4)).toBe(low + 3);
      await expect(freePortIn(low, low + 4)).rejects.toThrow(/no free port/);
    } finally {
      await Promise.all(held.map(close));
    }
  });
});

function listen(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Four consecutive free ports in the range, the first three then held by listeners of this test. */
async function holdThreeOfFour(): Promise<{ low: number; held: net.Server[] }> {
  for (let low = PORT_RANGE[0] + 5_000; low + 4 <= PORT_RANGE[1]; low += 4) {
    const servers = await Promise.all([low, low + 1, low + 2, low + 3].map(listen));
    const bound = servers.filter((server): server is net.Server => server !== undefined);
    if (bound.length === 4) {
      await close(bound[3]!);
      return { low, held: bound.slice(0, 3) };
    }
    await Promise.all(bound.map(close));
  }
  throw new Error("no four consecutive free ports");
}
