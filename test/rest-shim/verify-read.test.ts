/**
 * GET /v1/verify/machines/{machineId}: the parameter reaches GraphQL exactly as sent, the query string is ignored,
 * credentials are not forwarded, the body is capped at 4096 bytes, and Accept is honoured.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExecutorUnavailableError } from "../../rest-shim/executor.js";
import { RECORD, happyExecutor, startShim, type RunningShim } from "./helpers.js";
import { ONBOARDING_TOKEN, call, rawRequest } from "../support/http.js";
import { verifyBody } from "../support/verify.js";

let shim: RunningShim;
beforeAll(async () => {
  shim = await startShim();
});
afterAll(() => shim.close());
beforeEach(() => {
  shim.executor.calls.length = 0;
});

const machineIdSent = () => shim.executor.calls[0]!.variables.machineId;

describe("the machine ID parameter", () => {
  it.each(["1", "%31", "+1", "%20", "0x01", "did:service:1", "1%2F2", "115792089237316195423570985008687907853269984665640564039457584007913129639935"])(
    "%s is passed verbatim (not percent-decoded)",
    async (id) => {
      await rawRequest(shim.httpPort, [`GET /v1/verify/machines/${id} HTTP/1.1`, "Host: t"]);
      expect(machineIdSent()).toBe(id);
    },
  );

  it("the query string is ignored", async () => {
    const response = await call(`${shim.httpUrl}/v1/verify/machines/1?cache=bust&x`);
    expect(response.status).toBe(200);
    expect(machineIdSent()).toBe("1");
  });

  it("credentials are not forwarded: the read route takes none", async () => {
    await call(`${shim.httpUrl}/v1/verify/machines/1`, { headers: { authorization: `Bearer ${ONBOARDING_TOKEN}` } });
    expect(shim.executor.calls[0]!.request).toEqual({ clientIp: "127.0.0.1", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), authorization: undefined });
  });

  it("the subgraph's INVALID_MACHINE_ID is answered 400", async () => {
    const local = await startShim({
      executor: happyExecutor().answer("VerifyMachine", {
        data: null,
        errors: [{ message: "bad id %20", extensions: { code: "INVALID_MACHINE_ID" } }],
      }),
    });
    try {
      const response = await call(`${local.httpUrl}/v1/verify/machines/%20`);
      expect(response.status).toBe(400);
      expect(response.body).toBe(verifyBody("INVALID_MACHINE_ID", "The machine ID is not a canonical decimal string."));
    } finally {
      await local.close();
    }
  });
});

describe("Accept", () => {
  it("406 NOT_ACCEPTABLE applies to the read route too", async () => {
    const response = await call(`${shim.httpUrl}/v1/verify/machines/1`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(406);
    expect(response.body).toBe(verifyBody("NOT_ACCEPTABLE", "This route only answers application/json."));
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(shim.executor.calls).toHaveLength(0);
  });
});

describe("the 4096-byte body cap", () => {
  const withOperatorAddress = (address: string) => ({ ...RECORD, operator: { kind: "evm", address } });
  const sizeOf = (record: unknown) => Buffer.byteLength(JSON.stringify(record));

  it("a record of exactly 4096 bytes is served; one byte more is 503 VERIFY_READ_UNAVAILABLE", async () => {
    const base = sizeOf(withOperatorAddress(""));
    const exact = withOperatorAddress("a".repeat(4096 - base));
    const over = withOperatorAddress("a".repeat(4097 - base));
    expect(sizeOf(exact)).toBe(4096);
    const local = await startShim({
      executor: happyExecutor().answer("VerifyMachine", (c) => ({
        data: { machineVerification: c.variables.machineId === "1" ? exact : over },
      })),
    });
    try {
      const served = await call(`${local.httpUrl}/v1/verify/machines/1`);
      expect(served.status).toBe(200);
      expect(Buffer.byteLength(served.body)).toBe(4096);
      const refused = await call(`${local.httpUrl}/v1/verify/machines/2`);
      expect(refused.status).toBe(503);
      expect(refused.body).toBe(verifyBody("VERIFY_READ_UNAVAILABLE", "The verification record is unavailable."));
    } finally {
      await local.close();
    }
  });
});

describe("GraphQL unreachable", () => {
  it("answers 503 VERIFY_READ_UNAVAILABLE", async () => {
    const local = await startShim({
      executor: happyExecutor().answer("VerifyMachine", new ExecutorUnavailableError("connection")),
    });
    try {
      const response = await call(`${local.httpUrl}/v1/verify/machines/1`);
      expect(response.status).toBe(503);
      expect(response.body).toBe(verifyBody("VERIFY_READ_UNAVAILABLE", "The verification record is unavailable."));
    } finally {
      await local.close();
    }
  });
});
