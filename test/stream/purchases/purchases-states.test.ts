/**
 * The purchase lifecycle against the database (docs/stream-marketplace.md "States"): for every (from, to) pair of
 * purchase statuses, the stream_purchase trigger accepts exactly the documented steps, and `transitionPurchase`
 * (the one function the services move a purchase with) agrees: a refused step is PURCHASE_STATE_INVALID and leaves
 * the row and the audit log unchanged; an accepted one writes its stream.purchase.* audit event.
 */
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../subgraphs/shared/errors.js";
import { PURCHASE_STATUSES, PURCHASE_TRANSITIONS, transitionPurchase, type PurchaseStatus } from "../../../subgraphs/markets/stream/purchases/purchase.repository.js";
import { withTestDatabase } from "../../support/db.js";
import { newId } from "../../../subgraphs/markets/common/support.js";

const PATH: Record<PurchaseStatus, PurchaseStatus[]> = {
  delivery_reserving: [],
  payment_pending: ["payment_pending"],
  paid: ["payment_pending", "paid"],
  delivering: ["payment_pending", "paid", "delivering"],
  delivered: ["payment_pending", "paid", "delivering", "delivered"],
  completed: ["payment_pending", "paid", "delivering", "delivered", "completed"],
  failed: ["failed"],
  cancelled: ["cancelled"],
  expired: ["payment_pending", "expired"],
};

const DOCUMENTED = [
  "delivery_reserving>payment_pending", "delivery_reserving>failed", "delivery_reserving>cancelled",
  "payment_pending>paid", "payment_pending>cancelled", "payment_pending>expired",
  "paid>delivering", "delivering>delivered", "delivering>failed", "delivered>completed",
];

describe("purchase lifecycle: every (from, to) pair", () => {
  const suite = withTestDatabase("pglite");

  async function purchaseIn(status: PurchaseStatus) {
    const prisma = suite.db.prisma;
    const now = new Date();
    const id = newId("spur");
    await prisma.streamPurchase.create({
      data: { id, listingId: "slst_x", machineId: "mach_000000000000000000000000", buyerId: "did:x", buyerPublicKeyHex: "11".repeat(32), buyerCapabilities: [], chunkIds: ["c"], status: "delivery_reserving", amount: "1", currency: "USD", createdAt: now, updatedAt: now },
    });
    for (const step of PATH[status]) await prisma.streamPurchase.update({ where: { id }, data: { status: step } });
    return prisma.streamPurchase.findUniqueOrThrow({ where: { id } });
  }

  it("the documented table is the service's table", () => {
    const table = PURCHASE_STATUSES.flatMap((from) => PURCHASE_TRANSITIONS[from].map((to) => `${from}>${to}`));
    expect(table.sort()).toEqual([...DOCUMENTED].sort());
  });

  it("a purchase starts delivery_reserving only", async () => {
    for (const status of PURCHASE_STATUSES.filter((s) => s !== "delivery_reserving")) {
      const now = new Date();
      await expect(
        suite.db.prisma.streamPurchase.create({
          data: { id: `spur_start${status.slice(0, 11).replace(/_/g, "z").padEnd(11, "z")}`, listingId: "l", machineId: "m", buyerId: "b", buyerPublicKeyHex: "k", buyerCapabilities: [], chunkIds: [], status, amount: "1", currency: "USD", createdAt: now, updatedAt: now },
        }),
      ).rejects.toThrow(/must start delivery_reserving/);
    }
  });

  for (const from of PURCHASE_STATUSES) {
    it(`from ${from}: the trigger and transitionPurchase accept exactly the documented steps`, async () => {
      for (const to of PURCHASE_STATUSES) {
        const allowed = from === to || DOCUMENTED.includes(`${from}>${to}`);
        const row = await purchaseIn(from);
        const update = suite.db.prisma.streamPurchase.update({ where: { id: row.id }, data: { status: to } });
        if (allowed) await expect(update).resolves.toMatchObject({ status: to });
        else await expect(update).rejects.toThrow(/illegal purchase transition/);

        if (from === to) continue;
        const fresh = await purchaseIn(from);
        const audits = () => suite.db.prisma.marketAuditEvent.count({ where: { kind: { startsWith: "stream.purchase." } } });
        const before = { row: fresh, audits: await audits() };
        const attempt = suite.db.prisma.$transaction((tx) => transitionPurchase(tx, fresh, to, { type: "system", id: "test" }, new Date()));
        if (DOCUMENTED.includes(`${from}>${to}`)) {
          await expect(attempt).resolves.toMatchObject({ status: to });
          expect(await audits()).toBe(before.audits + 1);
        } else {
          const error = await attempt.catch((e: unknown) => e);
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe("PURCHASE_STATE_INVALID");
          expect(await suite.db.prisma.streamPurchase.findUnique({ where: { id: fresh.id } })).toEqual(before.row);
          expect(await audits()).toBe(before.audits);
        }
      }
    });
  }
});
