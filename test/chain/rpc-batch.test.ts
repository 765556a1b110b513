/**
 * sendBatch against a local HTTP server: answers matched by ID whatever their order; a non-2xx status, an error
 * answer, a missing answer, a body that is not JSON, an answer cut off mid-body and a node slower than the deadline
 * all reject the batch. parseRpcAnswer (the answer parsed with its long hex strings cut out) gives what JSON.parse
 * gives, value or error, for any text, and JSON.parse never sees the long hex strings.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LONG_HEX, parseRpcAnswer } from "../../subgraphs/shared/chain/rpc-answer.js";
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

  it("matches long answers by ID, each hex string whole", async () => {
    const results = [`0x${"ab".repeat(LONG_HEX)}`, `0x${"cd".repeat(3 * LONG_HEX)}`];
    handler = answer([{ jsonrpc: "2.0", id: 1, result: results[1] }, { jsonrpc: "2.0", id: 0, result: results[0] }]);
    expect(await sendBatch(url, calls, 5000)).toEqual(results);
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

describe("parseRpcAnswer", () => {
  const long = (digits = "0123456789abcdef", times = LONG_HEX / 8) => `0x${digits.repeat(times)}`;
  const valid: Array<[string, string]> = [
    ["long results", JSON.stringify([{ jsonrpc: "2.0", id: 0, result: long() }, { jsonrpc: "2.0", id: 1, result: long("ff") }])],
    ["short and long results, upper-case digits", JSON.stringify([{ id: 0, result: "0x01" }, { id: 1, result: long("ABCDEF") }, { id: 2, result: "0x" }])],
    ["whitespace and another member order", `[ {"result" : "${long()}" , "id":0 ,"jsonrpc":"2.0"} ,\n {"id":1,"result":"${long()}"} ]`],
    ["long hex inside nested objects (logs)", JSON.stringify([{ id: 0, result: [{ data: long(), topics: ["0x01", long("9")] }] }])],
    ["an escaped quote before hex inside a message", JSON.stringify([{ id: 0, error: { message: `reverted: "${long()}" and more` } }, { id: 1, result: long() }])],
    ["a message that ends in an escaped quote and hex", JSON.stringify([{ id: 0, error: { message: `reverted: "${long()}` } }, { id: 1, result: long() }])],
    ["non-ASCII text beside long hex", JSON.stringify([{ id: 0, error: { message: "été ☃ 𝄞" } }, { id: 1, result: long() }, { id: 2, note: "ü" }])],
    ["long 0x text that is not hex", JSON.stringify([{ id: 0, result: `${long()}g` }, { id: 1, result: `${long()} é` }, { id: 2, result: `${long()}\n` }])],
    ["a NUL escape elsewhere in the answer", JSON.stringify([{ id: 0, error: { message: "a\u0000b" } }, { id: 1, result: long() }, { id: 2, result: "\u00000" }])],
    ["a string that looks like a placeholder", JSON.stringify([{ id: 0, result: long() }, { id: 1, result: "\u00001" }])],
    ["a short answer", JSON.stringify([{ id: 0, result: "0x1234" }])],
  ];

  it.each(valid)("gives what JSON.parse gives: %s", (_, text) => {
    expect(parseRpcAnswer(Buffer.from(text))).toEqual(JSON.parse(text));
  });

  it.each([
    ["a quote that closes a string, then hex", `["abc"${long()}"]`],
    ["an answer cut off after a long hex string", `[{"id":0,"result":"${long()}"},{"id":1,"re`],
    ["a long hex string never closed", `[{"id":0,"result":"${long()}`],
    ["a member without its colon", `[{"id":0,"result" "${long()}"}]`],
    ["two hex strings with no comma between", `["${long()}""${long()}"]`],
  ])("throws where JSON.parse throws: %s", (_, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseRpcAnswer(Buffer.from(text))).toThrow(SyntaxError);
  });

  it("parses only the text around the long hex strings", () => {
    const text = JSON.stringify(Array.from({ length: 10 }, (_, id) => ({ jsonrpc: "2.0", id, result: long("0123456789abcdef", 8 * LONG_HEX) })));
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(parseRpcAnswer(Buffer.from(text))).toEqual(JSON.parse(text));
      const [mine] = parse.mock.calls;
      expect(mine![0].length).toBeLessThan(1_000);
    } finally {
      parse.mockRestore();
    }
  });
});
