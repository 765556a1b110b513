/**
 * Document 2's error tables, restated independently of the implementation, and how the shim uses them: the read
 * routes' detail strings, the monetization codes, the faucet's 20 codes and the reset's 3, the sync-position detail
 * built only from numbers, unreachable GraphQL per family, and the route table's per-IP limits and listeners.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutorUnavailableError, type OperationResult } from "../../rest-shim/executor.js";
import { FAUCET_ERRORS, FAUCET_RESET_ERRORS } from "../../rest-shim/errors/faucet.js";
import { MONETIZATION_ERRORS, RATINGS_ERRORS } from "../../rest-shim/errors/ratings.js";
import { ROUTES } from "../../rest-shim/routes.js";
import { FAUCET_CODES, RESET_CODES } from "../../subgraphs/ratings/faucet/faucet-errors.js";
import { RecordingExecutor, startShim, type RunningShim } from "./helpers.js";
import { call } from "../support/http.js";

const READ_CODES: Array<[code: string, status: number, detail: string]> = [
  ["INVALID_REQUEST", 400, "Invalid request"],
  ["EMPTY_DID", 400, "Empty DID"],
  ["INVALID_ADDRESS", 400, "Invalid Ethereum address format"],
  ["INVALID_MACHINE_DID", 400, "Invalid machine DID format"],
  ["INVALID_ALTCHAIN_ADDRESS", 400, "Invalid altchain address"],
  ["INVALID_PAGINATION", 400, "Invalid pagination"],
  ["MACHINE_NOT_FOUND", 404, "Machine not found"],
  ["MACHINE_NOT_REGISTERED", 404, "Machine not registered"],
  ["MACHINE_WALLET_NOT_FOUND", 404, "Machine wallet not found"],
  ["TOKEN_NOT_FOUND", 404, "Token not found"],
  ["ALTCHAIN_NOT_BOUND", 404, "Altchain address not bound"],
  ["ALTCHAIN_BINDING_REVOKED", 404, "Altchain binding revoked"],
  ["NOT_FOUND", 404, "Not Found"],
  ["METHOD_NOT_ALLOWED", 405, "Method Not Allowed"],
  ["RATE_LIMITED", 429, "Rate limit exceeded"],
  ["INTERNAL_ERROR", 500, "Internal Server Error"],
  ["SERVICE_NOT_INITIALISED", 503, "Service not initialised"],
  ["CHAIN_UNAVAILABLE", 503, "Chain unavailable"],
  ["ALTCHAIN_UNAVAILABLE", 503, "Altchain unavailable"],
  ["OPERATOR_INDEX_SYNCING", 503, "Operator index syncing"],
  ["SERVICE_UNAVAILABLE", 503, "Service Unavailable"],
];

const MONETIZATION_CODES: Array<[code: string, status: number]> = [
  ["INVALID_REQUEST", 400], ["INVALID_SIGNATURE", 400], ["UNAUTHORIZED_SIGNER", 403], ["MACHINE_NOT_FOUND", 404],
  ["NOT_FOUND", 404], ["MACHINE_DEACTIVATED", 409], ["MACHINE_NOT_ACTIVATED", 409], ["MACHINE_NOT_BONDED", 409],
  ["STALE_SIGNATURE", 409], ["REQUEST_TOO_LARGE", 413], ["INTERNAL_ERROR", 500], ["MACHINE_UNAVAILABLE", 503],
  ["SERVICE_UNAVAILABLE", 503],
];

const FAUCET_STATUSES: Record<string, number> = {
  INVALID_PAYLOAD: 400, INVALID_OWNER_ADDRESS: 400, INVALID_TARGET_WALLET: 400, UNSUPPORTED_CHAIN: 400,
  INVALID_2FA: 401, "2FA_NOT_CONFIGURED": 403, "2FA_NOT_ACTIVE": 403, "2FA_ALREADY_ACTIVE": 409,
  DUPLICATE_REQUEST: 409, REQUEST_ALREADY_PROCESSED: 409, "2FA_EXPIRED": 410, "2FA_LOCKED": 423, RATE_LIMITED: 429,
  CAP_EXCEEDED_OWNER: 429, CAP_EXCEEDED_WALLET: 429, QR_GENERATION_FAILED: 500, INTERNAL_ERROR: 500,
  TRANSFER_FAILED: 502, FAUCET_DEPLETED: 503, SERVICE_UNAVAILABLE: 503,
};

/** The owner-signed reset's own codes, as the signed monetization toggle numbers them. */
const RESET_STATUSES: Record<string, number> = { INVALID_SIGNATURE: 400, UNAUTHORIZED_SIGNER: 403, STALE_SIGNATURE: 409 };

describe("the tables", () => {
  it.each(READ_CODES)("read routes: %s is %i {\"detail\":\"%s\"}", (code, status, detail) => {
    const response = RATINGS_ERRORS.required(code);
    expect({ status: response.status, body: response.body.toString() }).toEqual({ status, body: JSON.stringify({ detail }) });
  });

  it.each(MONETIZATION_CODES)("monetization: %s is %i in the coded envelope", (code, status) => {
    const response = MONETIZATION_ERRORS.required(code);
    expect(response.status).toBe(status);
    expect(Object.keys(JSON.parse(response.body.toString()).detail)).toEqual(["code", "message"]);
    expect(JSON.parse(response.body.toString()).detail.code).toBe(code);
  });

  it("the documented faucet routes answer exactly 20 codes, the reset 3 more, each {\"code\",\"message\"} with its status", () => {
    expect([...FAUCET_CODES].sort()).toEqual(Object.keys(FAUCET_STATUSES).sort());
    expect(FAUCET_CODES).toHaveLength(20);
    expect([...RESET_CODES].sort()).toEqual(Object.keys(RESET_STATUSES).sort());
    expect([...FAUCET_ERRORS.codes].sort()).toEqual([...FAUCET_CODES].sort());
    expect([...FAUCET_RESET_ERRORS.codes].sort()).toEqual([...FAUCET_CODES, ...RESET_CODES].sort());
    const tables: Array<[typeof FAUCET_ERRORS, Record<string, number>]> = [
      [FAUCET_ERRORS, FAUCET_STATUSES],
      [FAUCET_RESET_ERRORS, { ...FAUCET_STATUSES, ...RESET_STATUSES }],
    ];
    for (const [table, statuses] of tables) {
      for (const [code, status] of Object.entries(statuses)) {
        const body = JSON.parse(table.required(code).body.toString());
        expect({ code, status: table.required(code).status, keys: Object.keys(body), body: body.code }).toEqual({
          code, status, keys: ["code", "message"], body: code,
        });
      }
    }
  });

  it("the operator index detail names the sync position, and only numbers ever reach it", () => {
    const detail = (extensions: Record<string, unknown>) =>
      RATINGS_ERRORS.forGraphQLError({ message: "x", extensions: { code: "OPERATOR_INDEX_SYNCING", ...extensions } }).body.toString();
    expect(detail({ indexedBlock: 12, finalizedBlock: 250 })).toBe('{"detail":"Operator index syncing: synced to block 12 of finalized block 250"}');
    expect(detail({ indexedBlock: "<script>", finalizedBlock: 250 })).toBe('{"detail":"Operator index syncing"}');
    expect(detail({})).toBe('{"detail":"Operator index syncing"}');
  });
});

describe("the shim's answers when GraphQL fails", () => {
  let next: OperationResult | Error = { data: null };
  let shim: RunningShim;
  beforeAll(async () => {
    const executor = new RecordingExecutor();
    for (const name of ["McrScorecard", "MachineMonetization", "SetupTwoFactor", "OperatorMachines"]) {
      executor.answer(name, async () => {
        if (next instanceof Error) throw next;
        return next;
      });
    }
    shim = await startShim({ executor });
  });
  afterAll(() => shim.close());

  const setup = () =>
    call(`${shim.httpUrl}/2fa/setup`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"ownerAddress":"0x1"}' });

  it("GraphQL unreachable: each family's 503", async () => {
    next = new ExecutorUnavailableError("connection");
    expect((await call(`${shim.httpUrl}/mcr/0x1`)).body).toBe('{"detail":"Service Unavailable"}');
    const monetization = await call(`${shim.httpUrl}/machine/1/monetization`);
    expect(monetization.status).toBe(503);
    expect(JSON.parse(monetization.body).detail.code).toBe("MACHINE_UNAVAILABLE");
    const faucet = await setup();
    expect({ status: faucet.status, code: JSON.parse(faucet.body).code }).toEqual({ status: 503, code: "SERVICE_UNAVAILABLE" });
  });

  it("an unknown code: each family's 500, without the GraphQL message", async () => {
    next = { data: null, errors: [{ message: "secret internals", extensions: { code: "NOPE" } }] };
    expect((await call(`${shim.httpUrl}/mcr/0x1`)).body).toBe('{"detail":"Internal Server Error"}');
    const faucet = await setup();
    expect(faucet.status).toBe(500);
    expect(faucet.body).toBe('{"code":"INTERNAL_ERROR","message":"Internal server error."}');
  });

  it("a 422 from the shim reaches no GraphQL", async () => {
    const calls = shim.executor.calls.length;
    expect((await call(`${shim.httpUrl}/operator/0x1/machines?limit=99`)).status).toBe(422);
    expect(shim.executor.calls.length).toBe(calls);
  });
});

describe("the route table", () => {
  const ratings = ROUTES.filter((route) => route.area.listener !== "markets" && !route.path.startsWith("/v1/verify/"));

  it("every document 2 route but the probes counts the 90/min per-IP limit", () => {
    for (const route of ratings) {
      const probe = route.path === "/health" || route.path === "/ready";
      expect({ route: `${route.method} ${route.path}`, limits: route.rateLimits }).toEqual({
        route: `${route.method} ${route.path}`,
        limits: probe ? [] : ["ratingsPerIp"],
      });
    }
  });

  it("the 2.0 listener serves the same routes minus the second-chain and faucet routes", () => {
    const on = (listener: string) => ratings.filter((r) => r.area.listener === listener).map((r) => `${r.method} ${r.path}`).sort();
    const v1Only = ["GET /altchain/mcr/:altchain_addr", "GET /altchain/operator/:altchain_addr/machines", "POST /2fa/confirm", "POST /2fa/reset", "POST /2fa/setup", "POST /faucet/fund"];
    expect(on("mcr2")).toEqual(on("http").filter((route) => !v1Only.includes(route)));
  });
});
