/**
 * Document 3's error table (rest-shim/errors/markets.ts) against its documentation (docs/markets-errors.md), the
 * spec's code list and the subgraph's codes: every code has exactly the documented status and a byte-exact envelope.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MARKETS_ERRORS } from "../../rest-shim/errors/markets.js";
import { MarketsErrors } from "../../subgraphs/markets/common/errors.js";
import { PaymentErrors } from "../../subgraphs/markets/orders/payments/payment.errors.js";
import { StreamErrors, STREAM_FORMAT_MESSAGES } from "../../subgraphs/markets/stream/seller/seller.errors.js";

const doc = readFileSync(path.join(import.meta.dirname, "../../docs/markets-errors.md"), "utf8");
const tableSection = doc.slice(doc.indexOf("## The table"));
/** `| 409 | MACHINE_NOT_ACTIVE | message | class |` rows of the documented table. */
const documented = [...tableSection.matchAll(/^\| (\d{3}) \| ([A-Z_]+(?: \/ _[A-Z]+)*) \| ([^|]+) \|/gm)].flatMap(([, status, codes, message]) => {
  const [first, ...suffixes] = codes!.split(" / ");
  const stem = first!.replace(/_[A-Z]+$/, "");
  return [first!, ...suffixes.map((suffix) => `${stem}${suffix}`)].map((code) => ({ status: Number(status), code, message: message!.trim() }));
});

/** Codes of the spec's Errors section (document 3) for machines, agents, pairings and tasks: each must be documented. */
const SPEC_CODES = [
  "MACHINE_NOT_ACTIVE", "MACHINE_NOT_ACTIVATED", "VALIDATION_ERROR", "NOT_FOUND", "AGENT_PAIRING_INACTIVE", "AGENT_AUTH_REQUIRED",
  "AGENT_AUTH_INVALID", "AGENT_AUTH_EXPIRED", "AGENT_POLICY_DENIED", "AGENT_SPEND_LIMIT_EXCEEDED", "AGENT_DAILY_LIMIT_EXCEEDED",
  "AGENT_PAIRING_REQUIRED", "OPEN_MARKET_ORDERS", "AGENT_PAIRING_PROOF_REQUIRED", "AGENT_PAIRING_PROOF_INVALID",
  "AGENT_PAIRING_PROOF_EXPIRED", "AGENT_PAIRING_UNAVAILABLE", "MACHINE_IDENTITY_PROOF_REQUIRED", "MACHINE_IDENTITY_PROOF_INVALID",
  "MACHINE_IDENTITY_PROOF_EXPIRED", "MACHINE_IDENTITY_EXISTS", "MACHINE_IDENTITY_IMMUTABLE", "SERVICE_IDENTITY_UNAVAILABLE", "ROUTE_REQUIRED",
];

describe("the markets error table", () => {
  it("documents every code", () => {
    expect(documented.length).toBeGreaterThan(30);
    for (const code of SPEC_CODES) expect(documented.map((row) => row.code), code).toContain(code);
  });

  it.each(documented.map((row) => [row.code, row] as const))("%s: documented status, byte-exact envelope", (code, row) => {
    const response = MARKETS_ERRORS.required(code);
    expect(response.status).toBe(row.status);
    expect(response.body.toString("utf8")).toBe(JSON.stringify({ error: { code, message: JSON.parse(response.body.toString("utf8")).error.message } }));
    expect(response.headers).toEqual({ "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    if (!row.message.startsWith("(")) expect(JSON.parse(response.body.toString("utf8")).error.message).toBe(row.message);
  });

  it("stream format codes the seller routes raise keep their library message and a 400 entry", () => {
    for (const code of ["MANIFEST_MALFORMED", "CHUNK_ID_MISMATCH", "SIGNER_UNKNOWN", "SIGNATURE_INVALID", "CHAIN_BROKEN", "CIPHERTEXT_HASH_MISMATCH",
      "ACCESS_MALFORMED", "ENVELOPE_MALFORMED", "ENVELOPE_PAYLOAD_HASH_MISMATCH", "ENVELOPE_SIGNATURE_INVALID"] as const) {
      const body = JSON.parse(MARKETS_ERRORS.required(code).body.toString("utf8"));
      expect([MARKETS_ERRORS.required(code).status, body.error.message]).toEqual([400, STREAM_FORMAT_MESSAGES[code]]);
    }
  });

  it("keeps the statuses the spec and the notes give", () => {
    const status = (code: string) => MARKETS_ERRORS.required(code).status;
    expect([status("AGENT_PAIRING_REQUIRED"), status("OPEN_MARKET_ORDERS")]).toEqual([409, 409]);
    expect([status("PAYMENT_TRANSFER_NOT_FOUND"), status("PAYMENT_TX_FAILED"), status("PAYMENT_NOT_MINED"), status("PAYMENT_RPC_ERROR")]).toEqual([400, 402, 409, 502]);
    expect(status("SERVICE_IDENTITY_UNAVAILABLE")).toBe(503);
    expect(status("PAYMENT_RPC_REQUIRED")).toBe(400);
  });

  it("has an entry for every code the subgraph throws", () => {
    for (const make of [...Object.values(MarketsErrors), ...Object.values(PaymentErrors), ...Object.values(StreamErrors)]) {
      const code = make().code;
      expect(MARKETS_ERRORS.response(code), code).not.toBe(MARKETS_ERRORS.internal);
      expect(documented.map((row) => row.code)).toContain(code);
    }
  });
});
