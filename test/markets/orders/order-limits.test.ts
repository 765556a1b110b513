/**
 * The daily spend limit holds under parallel orders (Authentication 5): 50 orders of 0.01 fired at
 * once against a dailySpendLimit of 0.10 create exactly 10; the other 40 answer AGENT_DAILY_LIMIT_EXCEEDED and write
 * nothing. The sum is taken in the database under the pairing's row lock, so with PostgreSQL (DATABASE_URL set) a
 * second instance (its own connection pool and services on the same database) takes half of the orders and the
 * limit still holds across both. On PGlite the 50 go through the REST shim of one instance.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../../subgraphs/shared/db/index.js";
import { MarketsStore } from "../../../subgraphs/markets/common/store.js";
import { PairingService } from "../../../subgraphs/markets/orders/pairing.service.js";
import { OrderService } from "../../../subgraphs/markets/orders/order.service.js";
import { machineCheckOn } from "../../../subgraphs/markets/common/support.js";
import { systemClock } from "../../../subgraphs/shared/clock.js";
import { DomainError } from "../../../subgraphs/shared/errors.js";
import {
  agentHeaders,
  api,
  bindMachine,
  expectMarketsError,
  marketsServices,
  pairAgent,
  PLATFORM_START_TIMEOUT_MS,
  priceFeedQuote,
  prismaOf,
  startMarketsPlatform,
  usesPostgres,
  type MarketsPlatform,
} from "../helpers.js";

describe("the daily limit under 50 parallel orders", () => {
  let p: MarketsPlatform;
  let machine: string;
  let second: { db: Database; orders: OrderService } | null = null;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    machine = (await bindMachine(p, p.machine("active", 0))).id;
    if (usesPostgres) {
      const db = await openDatabase({
        dataDir: p.dataDir,
        databaseUrl: p.databaseUrl,
        transactionMaxWaitMs: p.config.transactionMaxWaitMs,
        transactionTimeoutMs: p.config.transactionTimeoutMs,
        connectTimeoutMs: p.config.connectTimeoutMs,
      });
      const s = marketsServices(p);
      const store = new MarketsStore(db, () => {}, s.store.guard);
      const pairings = new PairingService(store, s.pairings.tokens, s.pairings.settings, systemClock);
      second = { db, orders: new OrderService(store, pairings, s.catalogue, machineCheckOn(store), systemClock) };
    }
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await second?.db.close();
    await p?.close();
  });

  it(`exactly 10 of 50 are created${usesPostgres ? " across two instances on one PostgreSQL" : " (PGlite)"}; the rest AGENT_DAILY_LIMIT_EXCEEDED`, async () => {
    const pairing = await pairAgent(p, machine, Wallet.createRandom(), { dailySpendLimit: 0.1, currency: "USD" });
    const quotes = await Promise.all(Array.from({ length: 50 }, () => priceFeedQuote(p, machine)));
    const outcomes = await Promise.all(
      quotes.map(async ({ searchId, quoteId }, i): Promise<{ status: number; code?: string }> => {
        const body = { machineId: machine, searchId, quoteId };
        if (second && i % 2 === 1) {
          try {
            await second.orders.create(pairing.pairingToken, body);
            return { status: 201 };
          } catch (error) {
            if (error instanceof DomainError) return { status: 403, code: error.code };
            if (error instanceof Error) return { status: 500, code: error.message };
            throw error;
          }
        }
        const answer = await api(p, "POST", "/market/orders", body, agentHeaders(pairing.pairingToken));
        if (answer.status !== 201) expectMarketsError(answer, 403, "AGENT_DAILY_LIMIT_EXCEEDED");
        return { status: answer.status, code: answer.status === 201 ? undefined : answer.json().error.code };
      }),
    );
    expect(outcomes.filter((o) => o.status === 201)).toHaveLength(10);
    expect([...new Set(outcomes.filter((o) => o.status !== 201).map((o) => o.code))]).toEqual(["AGENT_DAILY_LIMIT_EXCEEDED"]);
    const rows = await prismaOf(p).marketOrder.findMany({ where: { agentPairingId: pairing.id } });
    expect(rows).toHaveLength(10);
    expect(rows.reduce((sum, r) => sum + Math.round(Number(r.spendAmount) * 100), 0)).toBe(10);
  });
});
