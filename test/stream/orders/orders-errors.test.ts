/**
 * The stream order flow's codes (subgraphs/markets/stream/orders/stream-order.errors.ts) in the markets error table
 * (rest-shim/errors/markets.ts) with the status and message documented in docs/markets-errors.md
 * ("Stream marketplace", order flow).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MARKETS_ERRORS } from "../../../rest-shim/errors/markets.js";
import { StreamOrderErrors } from "../../../subgraphs/markets/stream/orders/stream-order.errors.js";

const doc = readFileSync(path.join(import.meta.dirname, "../../../docs/markets-errors.md"), "utf8");
const section = doc.slice(doc.search(/^### Order flow\b/m));
const rows = new Map([...section.matchAll(/^\| (\d{3}) \| ([A-Z_]+) \| ([^|]+) \|/gm)].map(([, status, code, message]) => [code!, { status: Number(status), message: message!.trim() }]));
const table = doc.slice(doc.indexOf("## The table"));
const anywhere = new Map([...table.matchAll(/^\| (\d{3}) \| ([A-Z_]+) \| ([^|]+) \|/gm)].map(([, status, code]) => [code!, Number(status)]));

describe("stream order error codes", () => {
  it.each(Object.entries(StreamOrderErrors))("%s: in the table, documented, same message", (_name, make) => {
    const error = make();
    const response = MARKETS_ERRORS.response(error.code);
    expect(response, error.code).not.toBe(MARKETS_ERRORS.internal);
    const documented = rows.get(error.code) ?? (anywhere.has(error.code) ? { status: anywhere.get(error.code)!, message: null } : undefined);
    expect(documented, error.code).toBeDefined();
    expect(response.status).toBe(documented!.status);
    const body = JSON.parse(response.body.toString("utf8"));
    expect(body).toEqual({ error: { code: error.code, message: body.error.message } });
    if (documented!.message !== null) expect([body.error.message, error.message]).toEqual([documented!.message, documented!.message]);
  });

  it("the section lists only codes the order flow throws", () => {
    const thrown = new Set(Object.values(StreamOrderErrors).map((make) => make().code));
    expect([...rows.keys()].filter((code) => !thrown.has(code))).toEqual([]);
    expect(rows.size).toBe(16);
  });
});
