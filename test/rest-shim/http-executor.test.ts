/**
 * The `rest` role's executor against what a healthy gateway never does: an HTML error page from a proxy, JSON that
 * is no GraphQL answer, silence past the deadline, nothing listening; plus the exact request it sends (path, headers,
 * body), which only a recording server can show. Everything a real gateway answers is tested against the real one,
 * in process: test/gateway/http-executor.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutorUnavailableError } from "../../rest-shim/executor.js";
import { createHttpExecutor } from "../../rest-shim/http-executor.js";
import { OPERATIONS } from "../../rest-shim/operations.js";

interface Seen {
  url: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  remotePort: number;
}

type Reply = (res: http.ServerResponse) => void;

let server: http.Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

async function fakeGateway(reply: Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({
        url: req.url ?? "",
        method: req.method ?? "",
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()),
        remotePort: req.socket.remotePort ?? 0,
      });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const json = (status: number, value: unknown): Reply => (res) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

const forwarded = { clientIp: "203.0.113.7", authorization: "Bearer t0ken" };

async function failure(promise: Promise<unknown>): Promise<ExecutorUnavailableError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ExecutorUnavailableError);
  return error as ExecutorUnavailableError;
}

describe("createHttpExecutor", () => {
  it("posts the named operation to /graphql with Authorization and the client IP, over one kept-alive connection", async () => {
    const gateway = await fakeGateway(json(200, { data: { health: { status: "ok" } } }));
    const executor = createHttpExecutor(gateway.url);
    try {
      const variables = { machineId: "1" };
      expect(await executor.execute(OPERATIONS.verifyMachine, variables, forwarded)).toEqual({ data: { health: { status: "ok" } } });
      await executor.execute(OPERATIONS.verifyMachine, variables, { clientIp: "198.51.100.1" });
      const [first, second] = gateway.seen;
      expect(first).toMatchObject({
        url: "/graphql",
        method: "POST",
        body: { query: OPERATIONS.verifyMachine.document, operationName: "VerifyMachine", variables },
      });
      expect(first!.headers).toMatchObject({
        "content-type": "application/json",
        authorization: "Bearer t0ken",
        "x-client-ip": "203.0.113.7",
      });
      expect(second!.headers.authorization).toBeUndefined();
      expect(second!.headers["x-client-ip"]).toBe("198.51.100.1");
      expect(second!.remotePort).toBe(first!.remotePort);
    } finally {
      await executor.close?.();
    }
  });

  it("keeps an explicit endpoint path", async () => {
    const gateway = await fakeGateway(json(200, { data: {} }));
    const executor = createHttpExecutor(`${gateway.url}/custom/graphql`);
    await executor.execute(OPERATIONS.health, {}, forwarded);
    expect(gateway.seen[0]!.url).toBe("/custom/graphql");
    await executor.close?.();
  });

  it.each([
    ["an HTML error page", (res: http.ServerResponse) => res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>")],
    ["JSON that is not a GraphQL response", json(200, { hello: "world" })],
    ["a JSON array", json(200, [1])],
  ])("throws bad_response for %s", async (_name, reply) => {
    const gateway = await fakeGateway(reply);
    const executor = createHttpExecutor(gateway.url);
    expect((await failure(executor.execute(OPERATIONS.health, {}, forwarded))).reason).toBe("bad_response");
    await executor.close?.();
  });

  it("throws timeout when the deadline passes", async () => {
    const gateway = await fakeGateway(() => {});
    const executor = createHttpExecutor(gateway.url, { timeoutMs: 100 });
    // The stand-in never answers: without the deadline this would hang until the test's own timeout.
    expect((await failure(executor.execute(OPERATIONS.health, {}, forwarded))).reason).toBe("timeout");
    await executor.close?.();
  });

  it("throws connection when nothing listens", async () => {
    const executor = createHttpExecutor("http://127.0.0.1:1");
    expect((await failure(executor.execute(OPERATIONS.health, {}, forwarded))).reason).toBe("connection");
    await executor.close?.();
  });
});
