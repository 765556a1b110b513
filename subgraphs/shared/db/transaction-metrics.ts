/**
 * `db_transaction_duration_seconds`: every `$transaction` (interactive or batch) of a client, timed from the call to
 * its commit or rollback. The client's own method is wrapped on the instance, so repositories stay unchanged.
 */
import { dbTransactionDuration, secondsSince } from "../observability/metrics.js";
import type { PrismaClient } from "./generated/client.js";

export function timeTransactions(prisma: PrismaClient, database: "pglite" | "postgres"): PrismaClient {
  const transaction = prisma.$transaction.bind(prisma) as (...args: unknown[]) => Promise<unknown>;
  const timed = async (...args: unknown[]) => {
    const started = process.hrtime.bigint();
    let outcome = "rollback";
    try {
      const result = await transaction(...args);
      outcome = "commit";
      return result;
    } finally {
      dbTransactionDuration.observe({ database, outcome }, secondsSince(started));
    }
  };
  Object.defineProperty(prisma, "$transaction", { value: timed, configurable: true, writable: true });
  return prisma;
}
