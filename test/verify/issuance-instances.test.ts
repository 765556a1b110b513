/**
 * Challenge issuance at full speed from four platform instances on one PostgreSQL database and one chain: the
 * open-challenge caps (per machine and in total) hold exactly, with no global lock (issuance-caps.repository.ts).
 *
 * "Exactly" both ways: never more open challenges than a cap allows, and never a refusal while the caps leave room,
 * so each burst must open precisely the number the caps and the database's state before it allow. The caps are
 * chosen so both bind: 4 machines x 7 per machine = 28 > 23 in total, and 23 is not a multiple of the 16 shards of
 * the total (shards 0-6 may hold 2, shards 7-15 one).
 */
import http from "node:http";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressEnvName, CONTRACT_NAMES } from "../../subgraphs/shared/config.js";
import { ONBOARDING_TOKEN, type HttpAnswer } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS, POSTGRES_SKIP_MESSAGE, sql, usesPostgres } from "../support/platform.js";
import { expectVerifyError } from "../support/verify.js";
import { postChallenge, startVerifyPlatform, type VerifyPlatform } from "./helpers.js";

const PER_MACHINE_CAP = 7;
const TOTAL_CAP = 23;
const REQUESTS_PER_MACHINE_PER_INSTANCE = 12;
const ENV = {
  VERIFY_OPEN_CHALLENGES_PER_MACHINE: String(PER_MACHINE_CAP),
  VERIFY_OPEN_CHALLENGES_TOTAL: String(TOTAL_CAP),
  ONBOARDING_TOKENS: ONBOARDING_TOKEN,
};

describe.skipIf(!usesPostgres)(`four instances issuing on one PostgreSQL (${usesPostgres ? "PostgreSQL" : POSTGRES_SKIP_MESSAGE})`, () => {
  const instances: VerifyPlatform[] = [];
  const bundle = path.join(os.tmpdir(), `vendor-bundle-issuance-${process.pid}.pem`);
  let machineIds: string[];
  let databaseUrl: string;

  beforeAll(async () => {
    const a = await startVerifyPlatform(ENV);
    instances.push(a);
    databaseUrl = a.databaseUrl!;
    machineIds = [0, 1, 2, 3].map((i) => a.machine("active", i).machineId);
    // The other three share A's chain (external RPC, A's contracts, A's vendor CA as trust bundle) and database.
    await writeFile(bundle, `${a.demo.vendor.rootCertPem}\n${a.demo.vendor.intermediateCertPem}\n`);
    const addresses = Object.fromEntries(CONTRACT_NAMES.map((name) => [addressEnvName(name), a.platform.chain!.addresses[name]!]));
    for (let i = 0; i < 3; i++) {
      instances.push(
        await startVerifyPlatform({
          ...ENV,
          ...addresses,
          DATABASE_URL: databaseUrl,
          CHAIN_RPC_URL: a.platform.chain!.rpcUrl,
          VENDOR_TRUST_BUNDLE: bundle,
        }),
      );
    }
  }, PLATFORM_START_TIMEOUT_MS * 2);

  afterAll(async () => {
    // The first instance owns the scratch database: close it last.
    for (const p of [...instances].reverse()) await p.close();
    await rm(bundle, { force: true });
  });

  /**
   * Every instance asks for every machine, all requests in flight at once. Each burst has its own keep-alive agents:
   * reusing a socket that sat idle between bursts raced the server's idle close (ECONNRESET in a loaded run).
   */
  async function burst(machines: string[] = machineIds): Promise<{ opened: Map<string, number>; answers: HttpAnswer[] }> {
    const agents = instances.map(() => new http.Agent({ keepAlive: true, maxSockets: 16 }));
    try {
      return await burstWith(agents, machines);
    } finally {
      for (const agent of agents) agent.destroy();
    }
  }

  async function burstWith(agents: http.Agent[], machines: string[]): Promise<{ opened: Map<string, number>; answers: HttpAnswer[] }> {
    const requests: Promise<[string, HttpAnswer]>[] = [];
    for (let n = 0; n < REQUESTS_PER_MACHINE_PER_INSTANCE; n++) {
      instances.forEach((p, i) => {
        for (const machineId of machines) {
          requests.push(
            postChallenge(p, JSON.stringify({ machineId }), { agent: agents[i] }).then((answer) => [machineId, answer]),
          );
        }
      });
    }
    const results = await Promise.all(requests);
    const opened = new Map(machineIds.map((id) => [id, 0]));
    const nonces = new Set<string>();
    for (const [machineId, answer] of results) {
      if (answer.status === 201) {
        opened.set(machineId, opened.get(machineId)! + 1);
        nonces.add(answer.json().nonce);
      } else {
        expectVerifyError(answer, 429, "RATE_LIMITED");
      }
    }
    const created = [...opened.values()].reduce((a, b) => a + b, 0);
    expect(nonces.size).toBe(created);
    return { opened, answers: results.map(([, answer]) => answer) };
  }

  /** Open challenges per machine, as the database holds them (same definition as the caps). */
  async function openPerMachine(): Promise<Map<string, number>> {
    const rows = await sql<{ machine_id: string; n: string }>(
      databaseUrl,
      `SELECT machine_id, count(*) AS n FROM verify_challenge
       WHERE state IN ('issued', 'checking') AND expires_at > extract(epoch from now()) GROUP BY machine_id`,
    );
    return new Map(machineIds.map((id) => [id, Number(rows.find((r) => r.machine_id === id)?.n ?? 0)]));
  }

  /** What a burst must open exactly: each machine up to its room, all together up to the room in total. */
  function allowed(open: Map<string, number>): number {
    const total = [...open.values()].reduce((a, b) => a + b, 0);
    const perMachineRoom = machineIds.reduce(
      (sum, id) => sum + Math.min(PER_MACHINE_CAP - open.get(id)!, REQUESTS_PER_MACHINE_PER_INSTANCE * instances.length),
      0,
    );
    return Math.min(TOTAL_CAP - total, perMachineRoom);
  }

  it("a burst from four instances opens exactly the total cap, no machine over its own", async () => {
    expect(allowed(await openPerMachine())).toBe(TOTAL_CAP);
    const { opened, answers } = await burst();
    expect(answers).toHaveLength(4 * 4 * REQUESTS_PER_MACHINE_PER_INSTANCE);
    expect([...opened.values()].reduce((a, b) => a + b, 0)).toBe(TOTAL_CAP);
    for (const n of opened.values()) expect(n).toBeLessThanOrEqual(PER_MACHINE_CAP);
    expect(await openPerMachine()).toEqual(opened);
    // A second burst finds both caps exhausted: not one more.
    const again = await burst();
    expect([...again.opened.values()].every((n) => n === 0)).toBe(true);
  });

  it("after challenges close and expire, a burst refills exactly the room they left", async () => {
    const before = await openPerMachine();
    const [first, second] = [...machineIds].sort((x, y) => before.get(y)! - before.get(x)!);
    // The fullest machine's challenges are rejected, the next one's expire: both stop being open without any write
    // to the counters, so issuance must notice through its exact recount.
    await sql(databaseUrl, "UPDATE verify_challenge SET state = 'rejected' WHERE machine_id = $1 AND state = 'issued'", [first]);
    await sql(
      databaseUrl,
      "UPDATE verify_challenge SET expires_at = extract(epoch from now())::bigint - 1 WHERE machine_id = $1 AND state = 'issued'",
      [second],
    );
    const freed = await openPerMachine();
    expect(freed.get(first)).toBe(0);
    expect(freed.get(second)).toBe(0);
    const expected = allowed(freed);
    expect(expected).toBeGreaterThan(0);

    const { opened } = await burst();
    expect([...opened.values()].reduce((a, b) => a + b, 0)).toBe(expected);
    const after = await openPerMachine();
    for (const id of machineIds) {
      expect(after.get(id)).toBe(freed.get(id)! + opened.get(id)!);
      expect(after.get(id)).toBeLessThanOrEqual(PER_MACHINE_CAP);
    }
    expect([...after.values()].reduce((a, b) => a + b, 0)).toBe([...freed.values()].reduce((a, b) => a + b, 0) + expected);
  });

  it("with room in the total, each machine stops at exactly its own cap", async () => {
    await sql(databaseUrl, "UPDATE verify_challenge SET state = 'rejected' WHERE state IN ('issued', 'checking')");
    const three = machineIds.slice(0, 3); // 3 x 7 = 21 < 23: only the per-machine cap binds
    const { opened } = await burst(three);
    for (const id of three) expect(opened.get(id)).toBe(PER_MACHINE_CAP);
    expect(opened.get(machineIds[3]!)).toBe(0);
    const after = await openPerMachine();
    expect(after).toEqual(opened);
  });
});
