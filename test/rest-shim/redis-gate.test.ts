/**
 * REDIS_TESTS_REQUIRED (test/support/redis.ts), which decides whether the Redis rate-limit suite runs: where no Redis
 * answers, the suite is skipped unless the variable is 1 (`.ci/run` exports it), in which case it runs and its first
 * hook fails naming the variable and the address. Only a server that answers PING with +PONG counts as a Redis.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { redisAnswers, redisGate } from "../support/redis.js";

/** A port nothing listens on: a listener opened and closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

/** A TCP server on loopback that answers every connection's first bytes with `reply` (a real socket, not Redis). */
async function answering(reply: string): Promise<string> {
  const server = net.createServer((socket) => {
    socket.once("data", () => socket.end(reply));
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

describe("REDIS_TESTS_REQUIRED", () => {
  it("no Redis and the variable unset: the Redis suite is skipped", async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    for (const env of [{}, { REDIS_TESTS_REQUIRED: "0" }, { REDIS_TESTS_REQUIRED: "true" }]) {
      expect(await redisGate(url, env)).toMatchObject({ url, reachable: false, required: false, run: false });
    }
  });

  it("no Redis and REDIS_TESTS_REQUIRED=1: the suite runs, and its first hook fails naming the variable and the address", async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const gate = await redisGate(url, { REDIS_TESTS_REQUIRED: "1" });
    expect(gate).toMatchObject({ reachable: false, required: true, run: true });
    expect(() => gate.assertReachable()).toThrow(`REDIS_TESTS_REQUIRED=1 but no Redis answers PING at ${url}`);
  });

  it("a Redis that answers PING: the suite runs and its first hook passes, required or not", async () => {
    const url = await answering("+PONG\r\n");
    for (const env of [{}, { REDIS_TESTS_REQUIRED: "1" }]) {
      const gate = await redisGate(url, env);
      expect(gate).toMatchObject({ reachable: true, run: true });
      expect(() => gate.assertReachable()).not.toThrow();
    }
  });

  it("a port that accepts connections but does not answer PING with +PONG is no Redis", async () => {
    expect(await redisAnswers(await answering("HTTP/1.1 400 Bad Request\r\n\r\n"))).toBe(false);
    expect(await redisAnswers(await answering("-ERR unknown command\r\n"))).toBe(false);
    const gate = await redisGate(await answering("-NOAUTH Authentication required.\r\n"), { REDIS_TESTS_REQUIRED: "1" });
    expect(gate).toMatchObject({ reachable: false, run: true });
    expect(() => gate.assertReachable()).toThrow("REDIS_TESTS_REQUIRED=1");
  });
});
