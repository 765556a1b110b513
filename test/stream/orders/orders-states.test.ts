/**
 * The stream order and delivery session state machines live in the database (triggers of migration
 * *_stream_marketplace): every pair (from, to) of statuses is tried with a plain UPDATE, and exactly the transitions
 * of subgraphs/markets/stream/orders/stream-order.states.ts succeed; rows must start `payment_pending` (orders) or `requested`
 * (delivery sessions). Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DELIVERY_SESSION_STATUSES,
  DELIVERY_SESSION_TRANSITIONS,
  STREAM_ORDER_STATUSES,
  STREAM_ORDER_TRANSITIONS,
  type DeliverySessionStatus,
  type StreamOrderStatus,
} from "../../../subgraphs/markets/stream/orders/stream-order.states.js";
import { databaseTargets, withTestDatabase } from "../../support/db.js";

/** A path of legal transitions from `start` to every reachable status (breadth first). */
function paths<S extends string>(start: S, table: Readonly<Record<S, readonly S[]>>): Map<S, S[]> {
  const found = new Map<S, S[]>([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const to of table[from]) {
      if (found.has(to)) continue;
      found.set(to, [...found.get(from)!, to]);
      queue.push(to);
    }
  }
  return found;
}

const ORDER_PATHS = paths<StreamOrderStatus>("payment_pending", STREAM_ORDER_TRANSITIONS);
const SESSION_PATHS = paths<DeliverySessionStatus>("requested", DELIVERY_SESSION_TRANSITIONS);

describe.each(databaseTargets())("stream state machines in the database (%s)", (target) => {
  const suite = withTestDatabase(target);
  const id = () => randomBytes(8).toString("hex");

  async function orderAt(status: StreamOrderStatus, first: string = "payment_pending"): Promise<string> {
    const orderId = `sord_${id()}`;
    const now = new Date();
    await suite.db.prisma.streamOrder.create({
      data: {
        id: orderId,
        listingId: "slst_x",
        machineId: "mach_x",
        buyerId: "buyer",
        buyerPublicKeyHex: "00".repeat(32),
        chunkIds: ["c1"],
        status: first,
        priceAmount: "1",
        priceCurrency: "USD",
        createdAt: now,
        updatedAt: now,
      },
    });
    for (const step of ORDER_PATHS.get(status)!.slice(1)) await suite.db.prisma.streamOrder.update({ where: { id: orderId }, data: { status: step } });
    return orderId;
  }

  async function sessionAt(status: DeliverySessionStatus, first: string = "requested"): Promise<string> {
    const sessionId = `sdel_${id()}`;
    const now = new Date();
    await suite.db.prisma.streamDeliverySession.create({
      data: { id: sessionId, machineId: "mach_x", orderId: `sord_${id()}`, mode: "platform", status: first, createdAt: now, updatedAt: now },
    });
    for (const step of SESSION_PATHS.get(status)!.slice(1)) await suite.db.prisma.streamDeliverySession.update({ where: { id: sessionId }, data: { status: step } });
    return sessionId;
  }

  it("every status is reachable", () => {
    expect([...ORDER_PATHS.keys()].sort()).toEqual([...STREAM_ORDER_STATUSES].sort());
    expect([...SESSION_PATHS.keys()].sort()).toEqual([...DELIVERY_SESSION_STATUSES].sort());
  });

  it("stream orders: exactly the table's transitions pass the database", async () => {
    const verdicts: string[] = [];
    const expected: string[] = [];
    for (const from of STREAM_ORDER_STATUSES) {
      for (const to of STREAM_ORDER_STATUSES) {
        if (from === to) continue;
        const orderId = await orderAt(from);
        const ok = await suite.db.prisma.streamOrder.update({ where: { id: orderId }, data: { status: to } }).then(
          () => true,
          () => false,
        );
        const row = await suite.db.prisma.streamOrder.findUniqueOrThrow({ where: { id: orderId } });
        verdicts.push(`${from}->${to}:${ok}:${row.status}`);
        expected.push(`${from}->${to}:${STREAM_ORDER_TRANSITIONS[from].includes(to)}:${STREAM_ORDER_TRANSITIONS[from].includes(to) ? to : from}`);
      }
    }
    expect(verdicts).toEqual(expected);
  }, 180_000);

  it("delivery sessions: exactly the table's transitions pass the database", async () => {
    const verdicts: string[] = [];
    const expected: string[] = [];
    for (const from of DELIVERY_SESSION_STATUSES) {
      for (const to of DELIVERY_SESSION_STATUSES) {
        if (from === to) continue;
        const sessionId = await sessionAt(from);
        const ok = await suite.db.prisma.streamDeliverySession.update({ where: { id: sessionId }, data: { status: to } }).then(
          () => true,
          () => false,
        );
        const row = await suite.db.prisma.streamDeliverySession.findUniqueOrThrow({ where: { id: sessionId } });
        verdicts.push(`${from}->${to}:${ok}:${row.status}`);
        expected.push(`${from}->${to}:${DELIVERY_SESSION_TRANSITIONS[from].includes(to)}:${DELIVERY_SESSION_TRANSITIONS[from].includes(to) ? to : from}`);
      }
    }
    expect(verdicts).toEqual(expected);
  }, 180_000);

  it("rows start in the initial status; unknown statuses are refused; a status update to itself is allowed", async () => {
    const before = [await suite.db.prisma.streamOrder.count(), await suite.db.prisma.streamDeliverySession.count()];
    for (const status of STREAM_ORDER_STATUSES.filter((s) => s !== "payment_pending")) {
      await expect(orderAt("payment_pending", status)).rejects.toThrow();
    }
    for (const status of DELIVERY_SESSION_STATUSES.filter((s) => s !== "requested")) {
      await expect(sessionAt("requested", status)).rejects.toThrow();
    }
    const orderId = await orderAt("paid");
    await expect(suite.db.prisma.streamOrder.update({ where: { id: orderId }, data: { status: "shipped" } })).rejects.toThrow();
    await suite.db.prisma.streamOrder.update({ where: { id: orderId }, data: { status: "paid" } });
    const sessionId = await sessionAt("preparing");
    await expect(suite.db.prisma.streamDeliverySession.update({ where: { id: sessionId }, data: { status: "lost" } })).rejects.toThrow();
    expect((await suite.db.prisma.streamOrder.findUniqueOrThrow({ where: { id: orderId } })).status).toBe("paid");
    expect((await suite.db.prisma.streamDeliverySession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("preparing");
    // The refused inserts left no row (the two counted rows are the ones this test made).
    expect([await suite.db.prisma.streamOrder.count(), await suite.db.prisma.streamDeliverySession.count()]).toEqual([before[0]! + 1, before[1]! + 1]);
  });
});
