/**
 * Quotes of a search stay valid for MARKETS_QUOTE_TTL_SECONDS, then answer QUOTE_EXPIRED (what market orders check),
 * with an injected clock; the stored search is read back. PGlite, and PostgreSQL when DATABASE_URL is set.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../subgraphs/shared/config.js";
import { OutboundClient } from "../../../subgraphs/shared/net/outbound.js";
import type { SubgraphRuntime } from "../../../subgraphs/shared/runtime.js";
import { buildWorkServices, type WorkServices } from "../../../subgraphs/markets/work/index.js";
import { databaseTargets, withTestDatabase } from "../../support/db.js";
import { seedMarketMachine, seededStore } from "../../support/markets.js";

describe.each(databaseTargets())("quote TTL on %s", (target) => {
  const testDb = withTestDatabase(target);
  let now = Date.parse("2026-11-23T12:00:00Z");
  let services: WorkServices;
  let machine: string;

  beforeAll(async () => {
    const runtime = { config: loadConfig({ MARKETS_QUOTE_TTL_SECONDS: "30" }), db: testDb.db, outbound: new OutboundClient(), log: () => {} } as unknown as SubgraphRuntime;
    services = await buildWorkServices(runtime, { now: () => now }, { store: seededStore(testDb.db), endpoints: async () => null });
    machine = (await seedMarketMachine(testDb.db)).id;
  });

  it("a quote is good until its expiresAt, then QUOTE_EXPIRED; unknown quotes are NOT_FOUND", async () => {
    const search = await services.catalogue.search({ machineId: machine, skillKey: "oracle.price-feed" });
    expect(search.expiresAt).toBe("2026-11-23T12:00:30.000Z");
    const quote = search.quotes[0]!;
    expect(quote.expiresAt).toBe(search.expiresAt);
    now += 29_999;
    expect(await services.catalogue.quote(search.searchId, quote.id)).toMatchObject({ id: quote.id, serviceId: "svc_oracle_price_feed" });
    now += 1;
    await expect(services.catalogue.quote(search.searchId, quote.id)).rejects.toMatchObject({ code: "QUOTE_EXPIRED" });
    await expect(services.catalogue.quote(search.searchId, "quote_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(services.catalogue.quote("search_nope", quote.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
