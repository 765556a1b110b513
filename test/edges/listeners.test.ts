/**
 * Every listener holds the same edges (subgraphs/shared/http/listener.ts): the two REST listeners, the GraphQL
 * listener (the gateway's) and a subgraph role's listener. A client dripping its headers or its body is cut off
 * within the configured time, an idle keep-alive connection is closed, connections over the cap are refused, and a
 * GraphQL body over the limit gets its 413 before the connection closes. Real sockets; the GraphQL listeners serve
 * the real ratings subgraph schema behind Apollo Server.
 */
import net from "node:net";
import { ApolloServer } from "@apollo/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenGraphQL, type RunningListener } from "../../gateway/graphql-listener.js";
import { errorAndSchemaOptions } from "../../gateway/gateway.js";
import type { SubgraphContext } from "../../subgraphs/shared/context.js";
import { buildRatingsSchema } from "../../subgraphs/ratings/schema.js";
import { startShim, type RunningShim } from "../rest-shim/helpers.js";
import { testConfig } from "../support/config.js";
import { ONBOARDING_TOKEN } from "../support/http.js";

const INTERNAL_TOKEN = "internal-test-token";
const config = testConfig({
  HTTP_HEADERS_TIMEOUT_MS: "400",
  HTTP_REQUEST_TIMEOUT_MS: "800",
  HTTP_IDLE_TIMEOUT_MS: "400",
  HTTP_MAX_CONNECTIONS: "4",
  GRAPHQL_MAX_BODY_BYTES: "65536",
  INTERNAL_TOKEN,
});
/** What a deadline may overrun on a loaded machine (Node checks deadlines on a timer); far below Node's defaults. */
const SLACK_MS = 1500;

interface Listener {
  name: string;
  port: number;
  /** A request line and headers this listener answers, without the final empty line. */
  head: string[];
  /** The head of a request with a JSON body (Content-Length is added), for the one route of the listener that reads one. */
  bodyHead: string[];
}

let shim: RunningShim;
const graphqlListeners: RunningListener[] = [];
const listeners: Listener[] = [];
const graphqlHead = (port: number, extra: string[] = []) => [
  "POST /graphql HTTP/1.1",
  `Host: 127.0.0.1:${port}`,
  "Content-Type: application/json",
  ...extra,
];

beforeAll(async () => {
  shim = await startShim({ config });
  listeners.push({
    name: "REST (HTTP_PORT)",
    port: shim.httpPort,
    head: ["GET /health HTTP/1.1", "Host: x"],
    bodyHead: ["POST /v1/verify/chip/challenge HTTP/1.1", "Host: x", `Authorization: Bearer ${ONBOARDING_TOKEN}`, "Content-Type: application/json"],
  });
  // Document 3 has no routes yet: every request is answered before its body, and the connection closes.
  const marketsHead = ["GET /api/v1/none HTTP/1.1", "Host: x"];
  listeners.push({ name: "REST (MARKETS_PORT)", port: shim.marketsPort, head: marketsHead, bodyHead: marketsHead });
  for (const audience of ["public", "internal"] as const) {
    const server = new ApolloServer<SubgraphContext>({ schema: await buildRatingsSchema(), ...errorAndSchemaOptions(config, () => {}) });
    await server.start();
    const listener = await listenGraphQL(server, { host: "127.0.0.1", port: 0, config, audience });
    graphqlListeners.push(listener);
    const port = Number(new URL(listener.url).port);
    const token = audience === "internal" ? [`x-internal-token: ${INTERNAL_TOKEN}`] : [];
    const head = graphqlHead(port, token);
    listeners.push({ name: audience === "public" ? "GraphQL (gateway)" : "GraphQL (subgraph role)", port, head, bodyHead: head });
  }
});
afterAll(async () => {
  await shim?.close();
  for (const listener of graphqlListeners) await listener.close();
});

interface Outcome {
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
  received: string;
}

/** Connects, writes each part after its delay, and resolves when the server closes the connection. */
function untilClosed(port: number, parts: Array<[delayMs: number, data: string]>, giveUpMs = 20_000): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = Date.now();
    let received = "";
    const timers: NodeJS.Timeout[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${giveUpMs} ms; received: ${received}`));
    }, giveUpMs);
    socket.on("connect", () => {
      let at = 0;
      for (const [delay, data] of parts) {
        at += delay;
        timers.push(setTimeout(() => socket.writable && socket.write(data), at));
      }
    });
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(giveUp);
      timers.forEach(clearTimeout);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
  });
}

/** One header byte every 100 ms, for far longer than any deadline. */
const drip = (text: string): Array<[number, string]> => [...text.repeat(40)].map((c) => [100, c]);

describe.each([0, 1, 2, 3])("listener %#", (index) => {
  const listener = () => listeners[index]!;

  it("cuts off a client dripping its headers within HTTP_HEADERS_TIMEOUT_MS", async () => {
    const { name, port, head } = listener();
    const outcome = await untilClosed(port, [[0, `${head[0]}\r\n`], ...drip("X-Slow: a\r\n")]);
    expect(outcome.closedAfterMs, name).toBeLessThan(config.listeners.headersTimeoutMs + SLACK_MS);
    expect(outcome.received.startsWith("HTTP/1.1 408") || outcome.received === "", name).toBe(true);
  });

  it("cuts off a client dripping its body within HTTP_REQUEST_TIMEOUT_MS", async () => {
    const { name, port, bodyHead } = listener();
    const start = `${[...bodyHead, "Content-Length: 400"].join("\r\n")}\r\n\r\n`;
    const outcome = await untilClosed(port, [[0, start], ...drip(" ")]);
    expect(outcome.closedAfterMs, name).toBeLessThan(config.listeners.requestTimeoutMs + SLACK_MS);
    expect(outcome.received.includes("200 OK"), name).toBe(false);
  });

  it("closes an idle keep-alive connection after HTTP_IDLE_TIMEOUT_MS", async () => {
    const { name, port, head } = listener();
    const body = '{"query":"{ health { status } }"}';
    const request = head[0]!.startsWith("POST")
      ? `${[...head, `Content-Length: ${body.length}`].join("\r\n")}\r\n\r\n${body}`
      : `${head.join("\r\n")}\r\n\r\n`;
    const outcome = await untilClosed(port, [[0, request]]);
    expect(outcome.received, name).toMatch(/^HTTP\/1\.1 (200|404)/);
    expect(outcome.closedAfterMs, name).toBeGreaterThanOrEqual(config.listeners.idleTimeoutMs - 50);
    expect(outcome.closedAfterMs, name).toBeLessThan(config.listeners.idleTimeoutMs + SLACK_MS);
  });

  it("refuses connections over HTTP_MAX_CONNECTIONS and serves again once they close", async () => {
    const { name, port, head } = listener();
    const held = await Promise.all(
      Array.from({ length: config.listeners.maxConnections }, () => new Promise<net.Socket>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
        socket.on("error", () => {});
      })),
    );
    // Let the server accept them all before the one over the cap arrives.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const over = await untilClosed(port, [[0, `${head.join("\r\n")}\r\n\r\n`]], 5000);
    expect(over.received, name).toBe("");
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await untilClosed(port, [[0, `${head.join("\r\n")}\r\nConnection: close\r\n\r\n`]], 5000);
    expect(again.received, name).toMatch(/^HTTP\/1\.1 [2-5]\d\d/);
  });
});

describe("GraphQL bodies over GRAPHQL_MAX_BODY_BYTES", () => {
  const gateway = () => listeners[2]!;
  const oversized = JSON.stringify({ query: `{ health { status } }`, variables: { pad: "x".repeat(300 * 1024) } });

  it("a declared 300 KB body gets 413 with a GraphQL error naming the limit, then the connection closes", async () => {
    const { port } = gateway();
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: oversized,
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({
      errors: [{ message: "The request body is larger than 65536 bytes.", extensions: { code: "REQUEST_TOO_LARGE" } }],
    });
  });

  it("a chunked body passing the limit gets the same 413 before the connection closes", async () => {
    const { port, head } = gateway();
    const chunk = "x".repeat(16 * 1024);
    const parts: Array<[number, string]> = [[0, `${[...head, "Transfer-Encoding: chunked"].join("\r\n")}\r\n\r\n`]];
    for (let i = 0; i < 20; i++) parts.push([5, `${chunk.length.toString(16)}\r\n${chunk}\r\n`]);
    const outcome = await untilClosed(port, parts, 10_000);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 413/);
    expect(outcome.received).toContain('"code":"REQUEST_TOO_LARGE"');
  });
});

describe("the subgraph role's listener", () => {
  it("answers only the platform's gateway: without the internal token 401, with it the operation", async () => {
    const url = graphqlListeners[1]!.url;
    const ask = (headers: Record<string, string>) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: '{"query":"{ health { status } }"}' });
    const refused = await ask({ "x-client-ip": "203.0.113.9" });
    expect(refused.status).toBe(401);
    expect((await refused.json()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect((await ask({ "x-internal-token": "guessed" })).status).toBe(401);
    const served = await ask({ "x-internal-token": INTERNAL_TOKEN });
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual({ data: { health: { status: "ok" } } });
  });
});
