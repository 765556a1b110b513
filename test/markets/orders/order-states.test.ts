/**
 * The order and payment state machines live in the database (triggers of migrations
 * 20261124005841_market_pairings_orders_payments and 20261126151500_market_payment_claims): every pair (from, to)
 * of statuses is tried with a plain UPDATE, and exactly the transitions of subgraphs/markets/orders/order.states.ts
 * succeed; rows must start `created` (orders) or `intent_created` / `not_required` (payments). Runs on PGlite and,
 * with DATABASE_URL, on PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PAYMENT_INITIAL,
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  type OrderStatus,
  type PaymentStatus,
} from "../../../subgraphs/markets/orders/order.states.js";
import { databaseTargets, withTestDatabase } from "../../support/db.js";

/** A path of legal transitions from `start` to every reachable status (breadth first). */
function paths<S extends string>(starts: readonly S[], table: Readonly<Record<S, readonly S[]>>): Map<S, S[]> {
  const found = new Map<S, S[]>(starts.map((s) => [s, [s]]));
  const queue = [...starts];
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

const ORDER_PATHS = paths<OrderStatus>(["created"], ORDER_TRANSITIONS);
const PAYMENT_PATHS = paths<PaymentStatus>(PAYMENT_INITIAL, PAYMENT_TRANSITIONS);

describe.each(databaseTargets())("state machines in the database (%s)", (target) => {
  const suite = withTestDatabase(target);
  const id = () => randomBytes(8).toString("hex");

  async function orderAt(status: OrderStatus): Promise<string> {
    const orderId = `ord_${id()}`;
    const now = new Date();
    await suite.db.prisma.marketOrder.create({
      data: {
        id: orderId,
        machineId: "mach_x",
        agentPairingId: "pair_x",
        serviceId: "svc",
        skillKey: "k",
        providerKey: "p",
        serviceType: "t",
        operation: "o",
        executionMode: "native",
        integrationStatus: "live",
        status: "created",
        input: {},
        payment: {},
        serviceSnapshot: {},
        spendAmount: "0",
        createdAt: now,
        updatedAt: now,
      },
    });
    for (const step of ORDER_PATHS.get(status)!.slice(1)) await suite.db.prisma.marketOrder.update({ where: { id: orderId }, data: { status: step } });
    return orderId;
  }

  async function paymentAt(status: PaymentStatus): Promise<string> {
    const path = PAYMENT_PATHS.get(status)!;
    const paymentId = `pay_${id()}`;
    const now = new Date();
    await suite.db.prisma.marketPayment.create({
      data: { id: paymentId, orderId: `ord_${id()}`, machineId: "mach_x", rail: "not-required", status: path[0]!, required: false, details: {}, createdAt: now, updatedAt: now },
    });
    for (const step of path.slice(1)) await suite.db.prisma.marketPayment.update({ where: { id: paymentId }, data: { status: step } });
    return paymentId;
  }

  it("every status is reachable", () => {
    expect([...ORDER_PATHS.keys()].sort()).toEqual([...ORDER_STATUSES].sort());
    expect([...PAYMENT_PATHS.keys()].sort()).toEqual([...PAYMENT_STATUSES].sort());
  });

  it("orders: exactly the table's transitions pass the database", async () => {
    const verdicts: string[] = [];
    const expected: string[] = [];
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        if (from === to) continue;
        const orderId = await orderAt(from);
        const ok = await suite.db.prisma.marketOrder.update({ where: { id: orderId }, data: { status: to } }).then(
          () => true,
          () => false,
        );
        verdicts.push(`${from}->${to}:${ok}`);
        expected.push(`${from}->${to}:${ORDER_TRANSITIONS[from].includes(to)}`);
      }
    }
    expect(verdicts).toEqual(expected);
  });

  it("payments: exactly the table's transitions pass the database", async () => {
    const verdicts: string[] = [];
    const expected: string[] = [];
    for (const from of PAYMENT_STATUSES) {
      for (const to of PAYMENT_STATUSES) {
        if (from === to) continue;
        const paymentId = await paymentAt(from);
        const ok = await suite.db.prisma.marketPayment.update({ where: { id: paymentId }, data: { status: to } }).then(
          () => true,
          () => false,
        );
        verdicts.push(`${from}->${to}:${ok}`);
        expected.push(`${from}->${to}:${PAYMENT_TRANSITIONS[from].includes(to)}`);
      }
    }
    expect(verdicts).toEqual(expected);
  });

  it("rows start in an initial status; unknown statuses are refused", async () => {
    const created = await orderAt("created");
    await expect(suite.db.prisma.marketOrder.update({ where: { id: created }, data: { status: "shipped" } })).rejects.toThrow();
    await expect(
      suite.db.prisma.marketPayment.create({
        data: { id: `pay_${id()}`, orderId: `ord_${id()}`, machineId: "m", rail: "x402", status: "held", required: true, details: {}, createdAt: new Date(), updatedAt: new Date() },
      }),
    ).rejects.toThrow();
    const row = await suite.db.prisma.marketOrder.findUniqueOrThrow({ where: { id: created } });
    expect(row.status).toBe("created");
  });
});
