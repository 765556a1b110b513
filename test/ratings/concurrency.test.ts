/**
 * Correctness across replicas comes from the database: two platform instances on one PostgreSQL database and one
 * chain. Monetization decisions sent to both at once never let an older decision replace a newer one; a faucet
 * request sent to both at once funds once; both instances syncing the 2.0 ownership index agree on one cursor.
 */
import { randomBytes } from "node:crypto";
import { getAddress, Wallet } from "ethers";
import { URI, type TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { DEV_FAUCET_KEY, DEV_TOTP_KEY } from "../../subgraphs/shared/config/ratings.js";
import { signMonetizationDecision } from "../../subgraphs/ratings/monetization/monetization.message.js";
import { startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { rpc } from "../support/chain.js";
import { manualClock } from "../support/clock.js";
import { POSTGRES_SKIP_MESSAGE, sql, usesPostgres } from "../support/db.js";
import { get, postJson, putJson } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

describe.skipIf(!usesPostgres)(`two instances on one PostgreSQL database (${usesPostgres ? "PostgreSQL" : POSTGRES_SKIP_MESSAGE})`, () => {
  let a: RatingsPlatform;
  let b: RatingsPlatform;
  /** Both instances' clock, standing still: signing times and TOTP steps are the servers' own. */
  const clock = manualClock();
  beforeAll(async () => {
    a = await startRatingsPlatform({ MCR2_INDEX_SYNC_MS: "0" }, { clock });
    const addresses = Object.fromEntries(CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]));
    b = await startRatingsPlatform({
      ...addresses,
      DATABASE_URL: a.databaseUrl!,
      CHAIN_RPC_URL: a.platform.chain!.rpcUrl,
      MCR2_INDEX_SYNC_MS: "0",
      // B is not in dev mode (external chain): it gets the same faucet and TOTP keys as A explicitly.
      FAUCET_PRIVATE_KEY: DEV_FAUCET_KEY,
      FAUCET_TOTP_KEY: DEV_TOTP_KEY,
    }, { clock });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("decisions sent to both instances at once: the newest always ends up applied", async () => {
    const owner = new Wallet(a.demo.ratings.fleetOwner.privateKey);
    for (let round = 0; round < 3; round++) {
      const base = Math.floor(clock.now() / 1000) - 200 + round * 30;
      const bodies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          signMonetizationDecision(owner, {
            namespace: "service",
            registry: a.demo.contracts.IdentityRegistry,
            chainId: 3338,
            machineId: "9",
            optedIn: i % 2 === 0,
            timestamp: base + i,
          }),
        ),
      );
      // Newest first, alternating instances: arrival order is the reverse of signing order.
      const answers = await Promise.all(
        bodies.reverse().map((body, i) => putJson(`${(i % 2 ? a : b).http}/machine/9/monetization`, JSON.stringify(body))),
      );
      for (const answer of answers) {
        expect([200, 409]).toContain(answer.status);
        if (answer.status === 409) expect(answer.json().detail.code).toBe("STALE_SIGNATURE");
      }
      const [row] = await sql<{ timestamp: string; opted_in: boolean }>(
        a.databaseUrl!,
        "SELECT timestamp, opted_in FROM monetization_decision WHERE deployment = 'v1' AND machine_id = '9'",
      );
      expect({ timestamp: Number(row!.timestamp), optedIn: row!.opted_in }).toEqual({ timestamp: base + 11, optedIn: false });
      expect((await get(`${b.http}/machine/9/monetization`)).json().updated_at).toBe(base + 11);
    }
  });

  it("the same faucet request at both instances at once: one transfer", async () => {
    const ownerAddress = getAddress(`0x${randomBytes(20).toString("hex")}`);
    const setup = await postJson(`${a.http}/2fa/setup`, { ownerAddress });
    const totp = URI.parse(setup.json().data.otpauthUri) as TOTP;
    expect((await postJson(`${b.http}/2fa/confirm`, { ownerAddress, twoFactorCode: totp.generate({ timestamp: clock.now() - 30_000 }) })).status).toBe(200);
    const target = getAddress(`0x${randomBytes(20).toString("hex")}`);
    const body = { ownerAddress, targetWalletAddress: target, chainId: "service", twoFactorCode: totp.generate({ timestamp: clock.now() }), requestId: "both-1" };
    const answers = await Promise.all([postJson(`${a.http}/faucet/fund`, body), postJson(`${b.http}/faucet/fund`, body)]);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((x) => x.status !== 200)) expect(answer.json().code).toBe("DUPLICATE_REQUEST");
    expect(BigInt((await rpc(a, "eth_getBalance", [target, "latest"])) as string)).toBe(100_000_000_000_000_000n);
    const [{ n }] = await sql<{ n: string }>(a.databaseUrl!, "SELECT count(*) AS n FROM faucet_request WHERE request_id = 'both-1'");
    expect(Number(n)).toBe(1);
  });

  it("both instances syncing the ownership index at once agree on one cursor and one row per token", async () => {
    const [left, right] = await Promise.all([
      a.platform.services.ratings!.ownershipIndex.sync(),
      b.platform.services.ratings!.ownershipIndex.sync(),
    ]);
    expect(left.syncedBlock).toBe(left.finalizedBlock);
    expect(right.syncedBlock).toBeGreaterThan(0);
    const [{ tokens, distinct }] = await sql<{ tokens: string; distinct: string }>(
      a.databaseUrl!,
      "SELECT count(*) AS tokens, count(DISTINCT token_id) AS distinct FROM ratings_ownership",
    );
    expect(Number(tokens)).toBe(Number(distinct));
    const owner = a.demo.ratings.fleetOwner.did;
    expect((await get(`${b.mcr2}/operator/${owner}/machines`)).json().pagination.total).toBe(1);
  });
});
