/**
 * sendBatch against a local HTTP server: answers matched by ID whatever their order; a non-2xx status, an error
 * answer, a missing answer, a body that is not JSON, an answer cut off mid-body and a node slower than the deadline
 * all reject the batch.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendBatch } from "../../subgraphs/shared/chain/rpc-batch.js";

type Handler = (calls: Array<{ id: number }>, response: http.ServerResponse) => void;
let handler: Handler = () => {};
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handler(JSON.parse(Buffer.concat(chunks).toString()), response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const calls = [{ method: "eth_call", params: [] }, { method: "eth_call", params: [] }];
const answer = (body: unknown, status = 200) => (_: unknown, response: http.ServerResponse) => response.writeHead(status).end(JSON.stringify(body));

describe("sendBatch", () => {
  it("matches answers by ID", async () => {
    handler = answer([{ jsonrpc: "2.0", id: 1, result: "0x02" }, { jsonrpc: "2.0", id: 0, result: "0x01" }]);
    const agent = new http.Agent({ keepAlive: true });
    expect(await sendBatch(url, calls, 5000, agent)).toEqual(["0x01", "0x02"]);
    agent.destroy();
  });

  it.each([
    ["a non-2xx status", answer([], 500), /HTTP 500/],
    ["an error answer", answer([{ id: 0, result: "0x" }, { id: 1, error: { message: "execution reverted" } }]), /execution reverted/],
    ["a missing answer", answer([{ id: 0, result: "0x" }]), /incomplete/],
    ["a body that is not JSON", (_: unknown, response: http.ServerResponse) => response.end("<html>"), /JSON/],
    ["an answer cut off mid-body", (_: unknown, response: http.ServerResponse) => {
      response.writeHead(200, { "content-length": "1000" });
      response.write('[{"id":0,');
      setTimeout(() => response.destroy(), 20);
    }, /./],
    ["a node slower than the deadline", () => {}, /abort|timeout/i],
  ] as Array<[string, Handler, RegExp]>)("rejects %s", async (_, respond, message) => {
    handler = respond;
    await expect(sendBatch(url, calls, 300)).rejects.toThrow(message);
  });
});
