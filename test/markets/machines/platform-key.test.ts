/**
 * The platform key on the real platform (MARKETS_API_KEYS set; rest-shim/server.ts): a markets request without a
 * valid `x-api-key` is 401 AUTH_REQUIRED and writes nothing, the right key reaches the route and its database write,
 * and the documents 1 and 2 listener needs no key. test/rest-shim/platform-key.test.ts covers the check's order and
 * every malformed key; every other markets suite runs without the setting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectMarketsError, prismaOf, startMarketsPlatform, PLATFORM_START_TIMEOUT_MS, type MarketsPlatform } from "../helpers.js";
import { get } from "../../support/http.js";

const KEY = "markets-platform-key-0123456789abcdef";
let p: MarketsPlatform;

beforeAll(async () => {
  p = await startMarketsPlatform({ MARKETS_API_KEYS: KEY });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

describe("MARKETS_API_KEYS on the markets listener", () => {
  it("without a key, or with a wrong one, a write is 401 AUTH_REQUIRED and stores nothing", async () => {
    const before = await prismaOf(p).marketsPolicy.count();
    expectMarketsError(await api(p, "POST", "/policies", { name: "keyless" }), 401, "AUTH_REQUIRED");
    expectMarketsError(await api(p, "POST", "/policies", { name: "wrong key" }, { "x-api-key": `${KEY}-not` }), 401, "AUTH_REQUIRED");
    expect(await prismaOf(p).marketsPolicy.count()).toBe(before);
  });

  it("with the key, the write reaches the database and the read finds it", async () => {
    const created = await api(p, "POST", "/policies", { name: "with the key" }, { "x-api-key": KEY });
    expect(created.status, created.text).toBe(201);
    const id = created.json().item.id as string;
    expect(await prismaOf(p).marketsPolicy.findUnique({ where: { id } })).not.toBeNull();
    const read = await api(p, "GET", `/policies/${id}`, undefined, { "x-api-key": KEY });
    expect({ status: read.status, name: read.json().item.name }).toEqual({ status: 200, name: "with the key" });
    expectMarketsError(await api(p, "GET", `/policies/${id}`), 401, "AUTH_REQUIRED");
  });

  it("the documents 1 and 2 listener needs no key", async () => {
    const answer = await get(`${p.http}/health`);
    expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '{"status":"ok"}' });
  });
});
