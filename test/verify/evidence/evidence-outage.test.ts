/**
 * A database outage on the evidence and challenge routes (document 1), on PGlite and PostgreSQL alike: both POST
 * routes and GraphQL answer 503 VERIFY_STORE_UNAVAILABLE while the store is gone, and the outage consumes nothing.
 * When the store is back (PostgreSQL accepting connections again; PGlite's files opened again by a platform restarted
 * on the same data directory), the challenge read back from the store is still issued with no submission and no
 * evidence row, and the same file is accepted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBMIT_EVIDENCE, freshEvidence, graphqlCode, postChallenge, postEvidence, startVerifyPlatform, type VerifyPlatform } from "../helpers.js";
import { manualClock } from "../../support/clock.js";
import { sql, usesPostgres } from "../../support/db.js";
import { BEARER } from "../../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../../support/platform.js";
import { challengeRow, evidenceRowsFor, expectNoEcho, expectReceipt, expectVerifyError } from "../../support/verify.js";
import { eventually } from "../../support/wait.js";

describe("503 VERIFY_STORE_UNAVAILABLE when the database itself is down (dedicated platform)", () => {
  // The platform's clock stands still, so the challenge cannot expire during the outage or the restart below.
  const clock = manualClock();
  let dataDir: string;
  let q: VerifyPlatform;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "verify-outage-"));
    q = await startVerifyPlatform({ DATA_DIR: dataDir }, { clock });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await q?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function storeDown(): Promise<void> {
    if (usesPostgres) {
      // PostgreSQL: the database refuses new connections and every open one is terminated.
      const name = new URL(q.databaseUrl!).pathname.slice(1);
      await sql(process.env.DATABASE_URL!, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await sql(process.env.DATABASE_URL!, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    } else {
      // PGlite lives in the platform's process: closing it is the outage.
      await q.platform.database!.close();
    }
  }

  /** PostgreSQL accepts connections again; PGlite's files are opened again by a platform restarted on its data dir. */
  async function storeBack(): Promise<void> {
    if (usesPostgres) {
      const name = new URL(q.databaseUrl!).pathname.slice(1);
      await sql(process.env.DATABASE_URL!, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await eventually(async () => ((await q.platform.database!.ping()) ? true : undefined));
    } else {
      await q.close();
      q = await startVerifyPlatform({ DATA_DIR: dataDir }, { clock });
    }
  }

  it("both POST routes answer 503 VERIFY_STORE_UNAVAILABLE, with no Retry-After, and the outage consumes nothing", async () => {
    const { evidence, challenge } = await freshEvidence(q);
    await storeDown();
    expectVerifyError(await postChallenge(q, JSON.stringify({ machineId: challenge.machineId })), 503, "VERIFY_STORE_UNAVAILABLE");
    const answer = await postEvidence(q, evidence);
    expectVerifyError(answer, 503, "VERIFY_STORE_UNAVAILABLE");
    expectNoEcho(answer, challenge.nonce);
    expect((await graphqlCode(q, SUBMIT_EVIDENCE, { evidence }, BEARER)).code).toBe("VERIFY_STORE_UNAVAILABLE");
    await storeBack();
    // Read back from the store on either database: still issued, no submission, no evidence row.
    expect(await challengeRow(q, challenge.nonce)).toMatchObject({ state: "issued", receiptId: null, submissionHash: null, checkingUntil: null });
    expect(await evidenceRowsFor(q, challenge.nonce)).toEqual([]);
    // A client's view agrees: the same file is accepted, once.
    expectReceipt(await postEvidence(q, evidence));
    expect(await challengeRow(q, challenge.nonce)).toMatchObject({ state: "consumed" });
  });
});
