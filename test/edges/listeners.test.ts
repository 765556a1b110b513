/**
 * Every listener holds the same edges (subgraphs/shared/http/listener.ts): the two REST listeners, the GraphQL
 * listener (the gateway's) and a subgraph role's listener. A client dripping its headers or its body is cut off
 * within the configured time, an idle keep-alive connection is closed, connections over the cap are refused, and a
 * GraphQL body over the limit gets its 413 before the connection closes. Real sockets; the GraphQL listeners serve
 * the real ratings subgraph schema behind Apollo Server.
 */
import http from "node:http";
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
import { eventually } from "../support/wait.js";

const INTERNAL_TOKEN = "internal-test-token";
const config = testConfig({
  HTTP_HEADERS_TIMEOUT_MS: "400",
  HTTP_REQUEST_TIMEOUT_MS: "800",
  HTTP_IDLE_TIMEOUT_MS: "400",
  HTTP_MAX_CONNECTIONS: "4",
  GRAPHQL_MAX_BODY_BYTES: "65536",
  INTERNAL_TOKEN,
});
/**
 * No elapsed-time bounds (a loaded machine would break them). A deadline is proven by the connection closing by itself, and told apart from
 * Node's defaults by events: a drip is cut off before GIVE_UP_MS, which only catches a hang and is still far below
 * Node's default headers (60 s) and request (300 s) timeouts; an idle connection closes before one to a reference
 * server holding Node's default keep-alive timeout (5 s), opened at the same moment, so load delays both alike.
 */
const GIVE_UP_MS = 30_000;

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
/** A plain node:http server with Node's default keep-alive timeout (5 s): the idle test's reference. */
let referenceServer: http.Server;

/** A connection to the reference server that has had one answer and is now idle (set up before the listener's). */
function idleReference(): { socket: net.Socket; readonly closed: boolean } {
  const state = { socket: net.connect((referenceServer.address() as net.AddressInfo).port, "127.0.0.1"), closed: false };
  state.socket.on("error", () => {});
  state.socket.on("close", () => (state.closed = true));
  state.socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  return state;
}

beforeAll(async () => {
  referenceServer = http.createServer((_, res) => res.end("ok"));
  expect(referenceServer.keepAliveTimeout).toBe(5000);
  await new Promise<void>((resolve) => referenceServer.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  referenceServer?.closeAllConnections();
  await new Promise((resolve) => referenceServer?.close(resolve));
  await shim?.close();
  for (const listener of graphqlListeners) await listener.close();
});

interface Outcome {
  received: string;
}

/** Connects, writes each part after its delay, and resolves when the server closes the connection. */
function untilClosed(port: number, parts: Array<[delayMs: number, data: string]>, giveUpMs = GIVE_UP_MS): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
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
      resolve({ received });
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
    expect(outcome.received.startsWith("HTTP/1.1 408") || outcome.received === "", name).toBe(true);
  });

  it("cuts off a client dripping its body within HTTP_REQUEST_TIMEOUT_MS", async () => {
    const { name, port, bodyHead } = listener();
    const start = `${[...bodyHead, "Content-Length: 400"].join("\r\n")}\r\n\r\n`;
    const outcome = await untilClosed(port, [[0, start], ...drip(" ")]);
    expect(outcome.received.includes("200 OK"), name).toBe(false);
  });

  it("closes an idle keep-alive connection after HTTP_IDLE_TIMEOUT_MS", async () => {
    const { name, port, head } = listener();
    const body = '{"query":"{ health { status } }"}';
    const request = head[0]!.startsWith("POST")
      ? `${[...head, `Content-Length: ${body.length}`].join("\r\n")}\r\n\r\n${body}`
      : `${head.join("\r\n")}\r\n\r\n`;
    const reference = idleReference();
    const outcome = await untilClosed(port, [[0, request]]);
    const referenceOpen = !reference.closed;
    reference.socket.destroy();
    expect(outcome.received, name).toMatch(/^HTTP\/1\.1 (200|404)/);
    // The answer came and nothing more: the server closed the connection by itself, before Node's default would have.
    expect(outcome.received.match(/HTTP\/1\.1/g), name).toHaveLength(1);
    expect(referenceOpen, name).toBe(true);
  });

  it("refuses connections over HTTP_MAX_CONNECTIONS and serves again once they close", async () => {
    const { name, port, head } = listener();
    const held = await Promise.all(
      Array.from({ length: config.listeners.maxConnections }, () => new Promise<net.Socket>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
        socket.on("error", () => {});
      })),
    );
    // Every held socket completed its handshake before the next connects, and the server accepts from the kernel's
    // queue in that order: the held ones are accepted before the one over the cap.
    const over = await untilClosed(port, [[0, `${head.join("\r\n")}\r\n\r\n`]], 5000);
    expect(over.received, name).toBe("");
    for (const socket of held) socket.destroy();
    // The server notices the closes by itself: wait for the state, not for a time.
    const again = await eventually(async () => {
      const answer = await untilClosed(port, [[0, `${head.join("\r\n")}\r\nConnection: close\r\n\r\n`]], 5000);
      return answer.received === "" ? undefined : answer;
    });
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
    expect(await served.json()).toEqual({ data: { health: { status: "OK" } } });
  });
});
