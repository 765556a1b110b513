/**
 * The HTTP rules of POST /v1/verify/chip/challenge and /v1/verify/chip/evidence, in their documented order:
 * route and method, onboarding token, headers (Content-Encoding, Content-Type, Accept), declared size, then the
 * body (counted while read, UTF-8, and for the challenge a closed one-member object). Every rejection is shown to
 * never reach GraphQL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHALLENGE, startShim, type RunningShim } from "./helpers.js";
import { OTHER_ONBOARDING_TOKEN, ONBOARDING_TOKEN, call, postHeaders, rawRequest } from "../support/http.js";
import { expectVerifyError, verifyBody } from "../support/verify.js";

const AUTH_REQUIRED = verifyBody("ONBOARDING_AUTH_REQUIRED", "A valid onboarding token is required.");
const INVALID_REQUEST = verifyBody("INVALID_REQUEST", "The request is not valid.");
const NOT_ACCEPTABLE = verifyBody("NOT_ACCEPTABLE", "This route only answers application/json.");
const TOO_LARGE = verifyBody("REQUEST_TOO_LARGE", "The request body is too large.");

let shim: RunningShim;
let challengeUrl: string;
let evidenceUrl: string;
beforeAll(async () => {
  shim = await startShim();
  challengeUrl = `${shim.httpUrl}/v1/verify/chip/challenge`;
  evidenceUrl = `${shim.httpUrl}/v1/verify/chip/evidence`;
});
afterAll(() => shim.close());
beforeEach(() => {
  shim.executor.calls.length = 0;
});

const postChallenge = (body: string | Buffer, headers = postHeaders()) =>
  call(challengeUrl, { method: "POST", headers, body: typeof body === "string" ? body : new Uint8Array(body) });


describe("success", () => {
  it("the challenge route passes machineId, the Authorization header and the client IP; answers 201", async () => {
    const response = await postChallenge('{"machineId":"1"}');
    expect(response.status).toBe(201);
    expect(response.body).toBe(JSON.stringify(CHALLENGE));
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(shim.executor.calls).toEqual([
      {
        operation: "CreateChipChallenge",
        variables: { machineId: "1" },
        request: { clientIp: "127.0.0.1", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), authorization: `Bearer ${ONBOARDING_TOKEN}` },
      },
    ]);
  });

  it("the machine-ID format is the subgraph's rule: a non-canonical string still reaches GraphQL", async () => {
    await postChallenge('{"machineId":"01"}');
    expect(shim.executor.calls[0]!.variables).toEqual({ machineId: "01" });
  });

  it("the evidence route passes the exact body text and answers 202", async () => {
    const evidence = '{"certificate":{"a":"\\u00e9"},"chipRef":"x\u00e9"}';
    const response = await call(evidenceUrl, { method: "POST", headers: postHeaders(), body: evidence });
    expect(response.status).toBe(202);
    expect(response.body).toBe('{"receiptId":"3f1c2f52-4a57-4a4c-9a52-2a7f4b9c9e01","status":"accepted"}');
    expect(shim.executor.calls[0]!.variables).toEqual({ evidence });
  });

  it("every configured token is accepted", async () => {
    expect((await postChallenge('{"machineId":"1"}', postHeaders({ authorization: `Bearer ${OTHER_ONBOARDING_TOKEN}` }))).status).toBe(201);
  });
});

describe("onboarding token (401 ONBOARDING_AUTH_REQUIRED)", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["another scheme", `Basic ${ONBOARDING_TOKEN}`],
    ["another spelling of the scheme", `bearer ${ONBOARDING_TOKEN}`],
    ["no token", "Bearer"],
    ["two spaces", `Bearer  ${ONBOARDING_TOKEN}`],
    ["trailing garbage", `Bearer ${ONBOARDING_TOKEN} x`],
    ["unknown token", "Bearer not-a-configured-token"],
    ["a prefix of a token", `Bearer ${ONBOARDING_TOKEN.slice(0, -1)}`],
  ])("%s", async (_name, authorization) => {
    const response = await postChallenge('{"machineId":"1"}', postHeaders({ authorization }));
    expectVerifyError(response, 401, "ONBOARDING_AUTH_REQUIRED", "A valid onboarding token is required.");
    expect(response.body).not.toContain("not-a-configured-token");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it("two Authorization headers, even both valid, are refused", async () => {
    const response = await rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      "Host: t",
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      `authorization: Bearer ${ONBOARDING_TOKEN}`,
      "Content-Type: application/json",
      "Content-Length: 17",
    ], ['{"machineId":"1"}']);
    expect(response.status).toBe(401);
    expect(response.body).toBe(AUTH_REQUIRED);
    expect(shim.executor.calls).toHaveLength(0);
  });

  it("is decided before the body is read: a body announced and never sent still gets 401 at once", async () => {
    const response = await rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/evidence HTTP/1.1",
      "Host: t",
      "Content-Type: application/json",
      "Content-Length: 10000",
    ]);
    expect(response.status).toBe(401);
    expect(response.body).toBe(AUTH_REQUIRED);
    // The body never comes: that there is an answer at all shows it was decided without reading the body.
    expect(response.headers.connection).toBe("close");
  });

  it("comes before the header rules", async () => {
    const response = await postChallenge("x", postHeaders({ authorization: undefined, "content-type": "text/plain", accept: "text/html" }));
    expect(response.status).toBe(401);
  });
});

describe("headers (400 INVALID_REQUEST, 406 NOT_ACCEPTABLE)", () => {
  it.each(["gzip", "identity"])("Content-Encoding: %s is refused", async (encoding) => {
    const response = await postChallenge('{"machineId":"1"}', postHeaders({ "content-encoding": encoding }));
    expectVerifyError(response, 400, "INVALID_REQUEST", "The request is not valid.");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it.each([
    ["missing", undefined],
    ["text/plain", "text/plain"],
    ["another charset", "application/json; charset=latin1"],
    ["another parameter", "application/json; foo=bar"],
    ["a JSON suffix type", "application/problem+json"],
    ["two parameters", "application/json; charset=utf-8; charset=utf-8"],
  ])("Content-Type %s is refused", async (_name, contentType) => {
    const headers = postHeaders({ "content-type": contentType });
    const response = await postChallenge(Buffer.from('{"machineId":"1"}'), headers);
    expectVerifyError(response, 400, "INVALID_REQUEST", "The request is not valid.");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it.each(["application/json", "application/json; charset=utf-8", 'Application/JSON;Charset="UTF-8"', "application/json ; charset=UTF-8"])(
    "Content-Type %s is accepted",
    async (contentType) => {
      expect((await postChallenge('{"machineId":"1"}', postHeaders({ "content-type": contentType }))).status).toBe(201);
    },
  );

  it("two Content-Type headers are refused", async () => {
    const response = await rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      "Host: t",
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      "Content-Type: application/json",
      "Content-Type: application/json",
      "Content-Length: 17",
    ], ['{"machineId":"1"}']);
    expect(response.status).toBe(400);
    expect(response.body).toBe(INVALID_REQUEST);
  });

  it.each(["text/html", "application/json;q=0", "application/json;q=0, */*", "application/xml, text/*", "application/json;q=abc"])(
    "Accept: %s answers 406",
    async (accept) => {
      const response = await postChallenge('{"machineId":"1"}', postHeaders({ accept }));
      expectVerifyError(response, 406, "NOT_ACCEPTABLE", "This route only answers application/json.");
      expect(shim.executor.calls).toHaveLength(0);
    },
  );

  it.each([undefined, "*/*", "application/*", "text/html, application/json;q=0.1", "application/json; charset=utf-8"])(
    "Accept: %s is accepted",
    async (accept) => {
      expect((await postChallenge('{"machineId":"1"}', postHeaders({ accept }))).status).toBe(201);
    },
  );

  it("Content-Type is checked before Accept", async () => {
    const response = await postChallenge('{"machineId":"1"}', postHeaders({ "content-type": "text/plain", accept: "text/html" }));
    expect(response.status).toBe(400);
  });
});

describe("size (413 REQUEST_TOO_LARGE)", () => {
  it("a declared length over 1024 bytes on the challenge route is refused without reading", async () => {
    const response = await rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      "Host: t",
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      "Content-Type: application/json",
      "Content-Length: 1025",
    ]);
    expect(response.status).toBe(413);
    expect(response.body).toBe(TOO_LARGE);
    // Only the head was sent: the 413 was decided from Content-Length without waiting for the 1025 bytes.
    expect(response.headers.connection).toBe("close");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it("exactly 1024 bytes are read and parsed", async () => {
    const body = `{"machineId":"1"}${" ".repeat(1024 - 17)}`;
    expect(Buffer.byteLength(body)).toBe(1024);
    expect((await postChallenge(body)).status).toBe(201);
  });

  it("the evidence route's limit is 16,384 bytes", async () => {
    const atLimit = await call(evidenceUrl, { method: "POST", headers: postHeaders(), body: "x".repeat(16_384) });
    expect(atLimit.status).toBe(202);
    const over = await call(evidenceUrl, { method: "POST", headers: postHeaders(), body: "x".repeat(16_385) });
    expectVerifyError(over, 413, "REQUEST_TOO_LARGE", "The request body is too large.");
    expect(shim.executor.calls).toHaveLength(1);
  });

  it("a declared over-size comes after the header rules", async () => {
    const response = await postChallenge("x".repeat(2000), postHeaders({ accept: "text/html" }));
    expect(response.status).toBe(406);
  });

  /** A challenge POST with a chunked body: no Content-Length, so the size is only known while reading. */
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  const postChunked = (parts: string[]) =>
    rawRequest(shim.httpPort, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      "Host: t",
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      "Content-Type: application/json",
      "Transfer-Encoding: chunked",
    ], parts);

  it("a chunked body is counted while read and refused once it passes the limit", async () => {
    const response = await postChunked([chunk('{"machineId":"1"'), chunk(" ".repeat(1000)), chunk(" ".repeat(100))]);
    expect(response.status).toBe(413);
    expect(response.body).toBe(TOO_LARGE);
    expect(response.headers.connection).toBe("close");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it("a small chunked body is accepted", async () => {
    const response = await postChunked([chunk('{"machine'), chunk('Id":"1"}'), "0\r\n\r\n"]);
    expect(response.status).toBe(201);
    expect(shim.executor.calls[0]!.variables).toEqual({ machineId: "1" });
  });
});

describe("body (400 INVALID_REQUEST)", () => {
  it.each([
    ["empty", ""],
    ["not JSON", "machineId=1"],
    ["a number value", '{"machineId":1}'],
    ["a null value", '{"machineId":null}'],
    ["an extra member", '{"machineId":"1","x":"y"}'],
    ["a duplicate key", '{"machineId":"1","machineId":"2"}'],
    ["an escaped duplicate key", '{"machineId":"1","\\u006dachineId":"2"}'],
    ["another member", '{"machineID":"1"}'],
    ["an array", '["1"]'],
    ["a string", '"1"'],
    ["an empty object", "{}"],
    ["a BOM", '\ufeff{"machineId":"1"}'],
    ["a __proto__ member", '{"__proto__":{"machineId":"1"}}'],
    ["trailing data", '{"machineId":"1"}x'],
  ])("challenge: %s", async (_name, body) => {
    const response = await postChallenge(body);
    expectVerifyError(response, 400, "INVALID_REQUEST", "The request is not valid.");
    expect(shim.executor.calls).toHaveLength(0);
  });

  it.each([
    ["challenge", () => challengeUrl],
    ["evidence", () => evidenceUrl],
  ])("%s: bytes that are not UTF-8 are refused", async (_name, url) => {
    const body = Buffer.concat([Buffer.from('{"machineId":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const response = await call(url(), { method: "POST", headers: postHeaders(), body });
    expectVerifyError(response, 400, "INVALID_REQUEST", "The request is not valid.");
    expect(shim.executor.calls).toHaveLength(0);
  });
});
