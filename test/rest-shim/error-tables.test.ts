/**
 * GraphQL errors -> status and envelope, per family, byte for byte. The GraphQL message is never copied (it is set
 * to a secret here and must not appear); unknown codes, errors without a code, validation failures of the fixed
 * operations and executor exceptions are 500s; an unreachable executor is the route's 503.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ExecutorUnavailableError, type OperationResult } from "../../rest-shim/executor.js";
import { MARKETS_ERRORS } from "../../rest-shim/errors/markets.js";
import { MONETIZATION_ERRORS, RATINGS_ERRORS, ratingsRateLimited } from "../../rest-shim/errors/ratings.js";
import { VERIFY_ERRORS } from "../../rest-shim/errors/verify.js";
import { READY, RecordingExecutor, happyExecutor, startShim, type RunningShim } from "./helpers.js";
import { testConfig } from "../support/config.js";
import { call, postHeaders } from "../support/http.js";
import { verifyBody } from "../support/verify.js";

const SECRET = "secret-nonce-0xdeadbeef token=abc stack: at foo (bar.ts:1)";

/** Document 1's table, restated independently of the implementation. */
const VERIFY_CODES: Array<[code: string, status: number, message: string]> = [
  ["INVALID_REQUEST", 400, "The request is not valid."],
  ["EVIDENCE_REJECTED", 400, "The evidence failed a check; start over with a new challenge."],
  ["INVALID_MACHINE_ID", 400, "The machine ID is not a canonical decimal string."],
  ["ONBOARDING_AUTH_REQUIRED", 401, "A valid onboarding token is required."],
  ["MACHINE_NOT_FOUND", 404, "No such machine."],
  ["CHALLENGE_NOT_FOUND", 404, "No challenge for this evidence."],
  ["VERIFY_ROUTE_NOT_FOUND", 404, "No such verify route."],
  ["METHOD_NOT_ALLOWED", 405, "Method not allowed on this route."],
  ["NOT_ACCEPTABLE", 406, "This route only answers application/json."],
  ["MACHINE_DEACTIVATED", 409, "The machine is administratively deactivated."],
  ["CHALLENGE_EXPIRED", 409, "The challenge expired before it was consumed."],
  ["NONCE_REPLAY", 409, "A different submission is already recorded for this challenge."],
  ["SUBMISSION_IN_PROGRESS", 409, "The same evidence is being checked; retry later."],
  ["REQUEST_TOO_LARGE", 413, "The request body is too large."],
  ["RATE_LIMITED", 429, "Too many requests; retry later."],
  ["INTERNAL_ERROR", 500, "Internal server error."],
  ["CHAIN_UNAVAILABLE", 503, "The chain could not be read; retry."],
  ["VERIFY_STORE_UNAVAILABLE", 503, "The verification store is unavailable; retry."],
  ["VERIFY_CLOCK_INVALID", 503, "The server clock is invalid."],
  ["VERIFY_READ_UNAVAILABLE", 503, "The verification record is unavailable."],
];
const INTERNAL = verifyBody("INTERNAL_ERROR", "Internal server error.");

/** The executor answers whatever the current test put here, for every operation. */
let next: OperationResult | Error = { data: null };
let shim: RunningShim;
beforeAll(async () => {
  const executor = new RecordingExecutor();
  for (const name of ["Health", "Readiness", "VerifyMachine", "CreateChipChallenge", "SubmitChipEvidence"]) {
    executor.answer(name, async () => {
      if (next instanceof Error) throw next;
      return next;
    });
  }
  shim = await startShim({ executor });
});
afterAll(() => shim.close());

const failWith = (extensions: Record<string, unknown> | undefined): OperationResult => ({
  data: null,
  errors: [{ message: SECRET, path: ["createChipChallenge"], extensions }],
});

const challenge = () =>
  call(`${shim.httpUrl}/v1/verify/chip/challenge`, { method: "POST", headers: postHeaders(), body: '{"machineId":"1"}' });
const evidence = () => call(`${shim.httpUrl}/v1/verify/chip/evidence`, { method: "POST", headers: postHeaders(), body: "{}" });
const read = () => call(`${shim.httpUrl}/v1/verify/machines/1`);

describe("verify family", () => {
  it("the table has exactly document 1's codes", () => {
    for (const [code, status, message] of VERIFY_CODES) {
      const response = VERIFY_ERRORS.response(code);
      expect(response.status).toBe(status);
      expect(response.body.toString()).toBe(verifyBody(code, message));
    }
  });

  it.each(VERIFY_CODES)("%s from GraphQL answers %i with the fixed message", async (code, status, message) => {
    next = failWith({ code });
    for (const route of [challenge, evidence, read]) {
      const response = await route();
      expect(response.status).toBe(status);
      expect(response.body).toBe(verifyBody(code, message));
      expect(response.body).not.toContain("secret");
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });

  it.each([
    ["an unknown code", { code: "SOMETHING_NEW" }],
    ["no code", undefined],
    ["a non-string code", { code: 42 }],
    ["a validation failure of the fixed operation", { code: "GRAPHQL_VALIDATION_FAILED" }],
    ["a variable coercion failure", { code: "BAD_USER_INPUT" }],
    ["another family's code", { code: "STALE_SIGNATURE" }],
  ])("%s answers 500 INTERNAL_ERROR", async (_name, extensions) => {
    next = failWith(extensions);
    const response = await challenge();
    expect(response.status).toBe(500);
    expect(response.body).toBe(INTERNAL);
  });

  it("the first error decides, even next to partial data", async () => {
    next = {
      data: { createChipChallenge: null },
      errors: [
        { message: SECRET, extensions: { code: "MACHINE_NOT_FOUND" } },
        { message: SECRET, extensions: { code: "CHAIN_UNAVAILABLE" } },
      ],
    };
    expect((await challenge()).status).toBe(404);
  });

  it("no data and no errors, or a missing root field, answer 500", async () => {
    next = { data: null };
    expect((await challenge()).body).toBe(INTERNAL);
    next = { data: {} };
    expect((await challenge()).body).toBe(INTERNAL);
  });

  it("an executor exception answers 500 without its message", async () => {
    next = new Error(SECRET);
    const response = await evidence();
    expect(response.status).toBe(500);
    expect(response.body).toBe(INTERNAL);
  });

  it("an unreachable executor answers 503 VERIFY_STORE_UNAVAILABLE on the POST routes", async () => {
    next = new ExecutorUnavailableError("timeout");
    for (const route of [challenge, evidence]) {
      const response = await route();
      expect(response.status).toBe(503);
      expect(response.body).toBe(verifyBody("VERIFY_STORE_UNAVAILABLE", "The verification store is unavailable; retry."));
    }
  });

  it.each([
    [5, "5"],
    [2.2, "3"],
    [0, "1"],
    [-3, "1"],
    [500, "120"],
    ["7", "1"],
    [undefined, "1"],
  ])("SUBMISSION_IN_PROGRESS with retryAfter %s sends Retry-After: %s", async (retryAfter, header) => {
    next = failWith({ code: "SUBMISSION_IN_PROGRESS", retryAfter });
    const response = await evidence();
    expect(response.status).toBe(409);
    expect(response.headers.get("retry-after")).toBe(header);
  });

  it("other codes send no Retry-After, even when GraphQL offers one", async () => {
    next = failWith({ code: "CHAIN_UNAVAILABLE", retryAfter: 5 });
    expect((await evidence()).headers.get("retry-after")).toBeNull();
  });
});

describe("ratings family", () => {
  it("a GraphQL code on a probe answers {\"detail\":\"<text>\"}", async () => {
    next = { data: null, errors: [{ message: SECRET, extensions: { code: "CHAIN_UNAVAILABLE" } }] };
    const response = await call(`${shim.httpUrl}/ready`);
    expect(response.status).toBe(503);
    expect(response.body).toBe('{"detail":"Chain unavailable"}');
    expect(response.headers.get("content-type")).toBe("application/json");
  });

  it("unknown codes answer 500 {\"detail\":\"Internal Server Error\"}; unreachable GraphQL 503", async () => {
    next = { data: null, errors: [{ message: SECRET, extensions: { code: "NOPE" } }] };
    expect((await call(`${shim.httpUrl}/health`)).body).toBe('{"detail":"Internal Server Error"}');
    next = new ExecutorUnavailableError("connection");
    const response = await call(`${shim.httpUrl}/ready`);
    expect(response.status).toBe(503);
    expect(response.body).toBe('{"detail":"Service Unavailable"}');
  });

  it("liveness stays 200 while GraphQL is unreachable: /health checks no connectivity", async () => {
    next = new ExecutorUnavailableError("connection");
    const response = await call(`${shim.httpUrl}/health`);
    expect(response.status).toBe(200);
    expect(response.body).toBe('{"status":"ok"}');
  });

  it("a readiness status other than ready or not_ready is a server bug (500)", async () => {
    next = { data: { readiness: { ...READY, status: "maybe" } } };
    expect((await call(`${shim.httpUrl}/ready`)).status).toBe(500);
  });

  it("the 429 text names the limit the way slowapi does", () => {
    expect(ratingsRateLimited(90, 60_000).body.toString()).toBe('{"detail":"Rate limit exceeded: 90 per 1 minute"}');
    expect(ratingsRateLimited(5, 1_000).body.toString()).toBe('{"detail":"Rate limit exceeded: 5 per 1 second"}');
    expect(ratingsRateLimited(10, 7_200_000).body.toString()).toBe('{"detail":"Rate limit exceeded: 10 per 2 hour"}');
    expect(ratingsRateLimited(10, 1_500).body.toString()).toBe('{"detail":"Rate limit exceeded: 10 per 1500 millisecond"}');
    expect(ratingsRateLimited(90, 60_000).status).toBe(429);
  });

  it("read routes and monetization routes have their own envelopes", () => {
    expect(RATINGS_ERRORS.response("INVALID_REQUEST").body.toString()).toBe('{"detail":"Invalid request"}');
    expect(MONETIZATION_ERRORS.response("STALE_SIGNATURE").body.toString()).toBe(
      '{"detail":{"code":"STALE_SIGNATURE","message":"The signed timestamp is stale or outside the freshness window."}}',
    );
    expect(MONETIZATION_ERRORS.response("UNKNOWN").body.toString()).toBe(
      '{"detail":{"code":"INTERNAL_ERROR","message":"Internal server error."}}',
    );
  });
});

describe("markets family", () => {
  it("answers {\"error\":{\"code\",\"message\"}} with the spec's 409s", () => {
    const pairing = MARKETS_ERRORS.response("AGENT_PAIRING_REQUIRED");
    expect(pairing.status).toBe(409);
    expect(pairing.body.toString()).toBe('{"error":{"code":"AGENT_PAIRING_REQUIRED","message":"An active agent pairing is required."}}');
    expect(MARKETS_ERRORS.response("OPEN_MARKET_ORDERS").status).toBe(409);
    expect(MARKETS_ERRORS.response("UNKNOWN")).toBe(MARKETS_ERRORS.internal);
    expect(MARKETS_ERRORS.internal.status).toBe(500);
  });
});

describe("error report", () => {
  it("a 5xx is reported once, by code, without the GraphQL message; 4xx are not reported", async () => {
    const executor = happyExecutor()
      .answer("VerifyMachine", { data: null, errors: [{ message: SECRET, extensions: { code: "SOMETHING_NEW" } }] })
      .answer("CreateChipChallenge", { data: null, errors: [{ message: SECRET, extensions: { code: "MACHINE_NOT_FOUND" } }] });
    const local = await startShim({ executor, config: testConfig({ LOG_LEVEL: "error" }) });
    const report = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await call(`${local.httpUrl}/v1/verify/machines/1`);
      await call(`${local.httpUrl}/v1/verify/chip/challenge`, { method: "POST", headers: postHeaders(), body: '{"machineId":"1"}' });
      expect(report).toHaveBeenCalledTimes(1);
      expect(report.mock.calls[0]).toEqual(["rest-shim: verify answered 5xx upstream:SOMETHING_NEW"]);
    } finally {
      report.mockRestore();
      await local.close();
    }
  });
});
