/**
 * The Redis the rate-limit suites use (127.0.0.1:6379, which `.ci/run` starts, or REDIS_TEST_URL). Where none answers, a Redis suite is
 * skipped with a warning; with REDIS_TESTS_REQUIRED=1 (exported by `.ci/run`) it runs and fails in its first hook
 * instead, so a CI run cannot pass while the Redis tests silently did not run.
 */
import net from "node:net";

/** The Redis of the Redis suites: REDIS_TEST_URL, default the one `.ci/run` starts. */
export const TEST_REDIS_URL = process.env.REDIS_TEST_URL ?? "redis://127.0.0.1:6379";

/** True when the server at `url` answers PING with +PONG within `timeoutMs` (a RESP inline command, no client). */
export function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    let received = "";
    const settle = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => settle(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n")) settle(received.startsWith("+PONG\r\n"));
    });
    socket.once("error", () => settle(false));
    socket.once("end", () => settle(false));
  });
}

export interface RedisGate {
  url: string;
  /** A Redis answered PING at `url`. */
  reachable: boolean;
  /** REDIS_TESTS_REQUIRED=1: an unreachable Redis is a failure, not a skip. */
  required: boolean;
  /** Whether the Redis suite runs: reachable, or required (then its first hook fails). */
  run: boolean;
  /** The suite's first hook: throws, naming the variable and the address, when the suite runs without a Redis. */
  assertReachable(): void;
}

/** Decides whether a Redis suite runs, is skipped (with a warning) or fails, from `env.REDIS_TESTS_REQUIRED`. */
export async function redisGate(url = TEST_REDIS_URL, env: Record<string, string | undefined> = process.env): Promise<RedisGate> {
  const reachable = await redisAnswers(url);
  const required = env.REDIS_TESTS_REQUIRED === "1";
  return {
    url,
    reachable,
    required,
    run: reachable || required,
    assertReachable() {
      if (!reachable) throw new Error(`REDIS_TESTS_REQUIRED=1 but no Redis answers PING at ${url} (.ci/run starts one)`);
    },
  };
}
