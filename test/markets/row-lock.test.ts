/**
 * The locked reads of orders and pairings (subgraphs/markets/common/row-lock.repository.ts) read and lock a row in
 * one raw statement and rename its columns to the model's fields. They must give exactly what Prisma's model read
 * gives: every field, under its name, with the same value types (Decimal, Date, JSON, bytes). A column added to
 * either table without the same snake_case mapping would fail here.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockRowById } from "../../subgraphs/markets/common/row-lock.repository.js";
import type { MarketsTx } from "../../subgraphs/markets/common/audit.repository.js";
import {
  createOrder,
  expectOk,
  PLATFORM_START_TIMEOUT_MS,
  prismaOf,
  providerMachineWithAgent,
  startMarketsPlatform,
  usesPostgres,
  type MarketsPlatform,
} from "./helpers.js";

describe(`locked reads of orders and pairings equal the model reads (${usesPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let p: MarketsPlatform;
  let orderId: string;
  let pairingId: string;

  beforeAll(async () => {
    p = await startMarketsPlatform();
    const agent = new Wallet(p.demo.payments!.agents[0].privateKey);
    const { machine, token } = await providerMachineWithAgent(p, agent);
    orderId = expectOk(await createOrder(p, machine, token), 201).item.id as string;
    pairingId = (await prismaOf(p).marketOrder.findUniqueOrThrow({ where: { id: orderId } })).agentPairingId;
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("an order: the same fields and values as findUnique", async () => {
    const prisma = prismaOf(p);
    const [locked, model] = await prisma.$transaction(async (tx) => [
      await lockRowById(tx as unknown as MarketsTx, "market_order", orderId),
      await tx.marketOrder.findUnique({ where: { id: orderId } }),
    ]);
    expect(model).not.toBeNull();
    expect(Object.keys(locked!).sort()).toEqual(Object.keys(model!).sort());
    expect(locked).toStrictEqual(model);
  });

  it("a pairing (with its token hash bytes): the same fields and values as findUnique", async () => {
    const prisma = prismaOf(p);
    const [locked, model] = await prisma.$transaction(async (tx) => [
      await lockRowById(tx as unknown as MarketsTx, "market_agent_pairing", pairingId),
      await tx.marketAgentPairing.findUnique({ where: { id: pairingId } }),
    ]);
    expect(model?.tokenHash).toBeTruthy();
    expect(Object.keys(locked!).sort()).toEqual(Object.keys(model!).sort());
    expect(locked).toStrictEqual(model);
  });

  it("an unknown ID reads null", async () => {
    const locked = await prismaOf(p).$transaction((tx) => lockRowById(tx as unknown as MarketsTx, "market_order", "ord_aaaaaaaaaaaaaaaa"));
    expect(locked).toBeNull();
  });
});
