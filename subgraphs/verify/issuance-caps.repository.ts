/**
 * Challenge issuance within the open-challenge caps, exact across instances sharing one database, without a global
 * lock.
 *
 * A challenge is open while its state is `issued` or `checking` and it has not expired. Each machine has a counter row
 * (`machine:<id>`) and the total cap is split over 16 shard rows (`total:<k>`, shard k may hold
 * floor(total / 16) + (k < total mod 16 ? 1 : 0)); every challenge records its shard. A counter is an UPPER BOUND of
 * the open challenges in its scope: issuance increments it, while consumption, rejection, expiry and cleanup lower the
 * true count without touching it.
 *
 * Fast path, one statement: increment the machine's counter if it is under the machine cap, then one random shard's
 * counter if it is under the shard cap, then insert the challenge if both did. Each increment is a conditional
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE open < cap`, which waits for a concurrent writer of the same row and
 * re-evaluates on the committed value, so instances serialise only on the same machine row or the same shard row.
 * Since counters never undercount, a challenge the fast path inserts never breaks a cap.
 *
 * Requests for one machine that arrive while its fast-path statement is in flight on this instance wait for it, then
 * go together as one statement (a batch): it raises both counters by the batch's size only if each stays within its
 * cap, and inserts all of the batch or none. A batch is never larger than the machine cap or its shard's cap, so the
 * counters stay upper bounds as for one challenge. Without batches, such requests queued on the machine's counter row
 * inside PostgreSQL, each waiting backend woken to re-check the row in turn: more database CPU than the rest of the
 * issuance (docs/performance.md). A batch the counters cannot take goes on request by request, as below.
 *
 * When the fast path inserted nothing, one transaction locks the machine row and recounts that machine exactly: at
 * its cap, the request is refused; otherwise the counter is set to the exact count and the fast path runs once more.
 * Only when that fails too does the slow path run: one transaction locks the machine row, recounts the machine (and
 * refuses at its cap), then locks every shard row (always in the same order), recounts every shard exactly and inserts
 * into a shard with room, or refuses when none has. Shard counters reach their caps only after about total / 16
 * issuances into them, so the all-shards path is rare unless the total is nearly used up. Every insert holds the
 * machine row and a shard row until it commits, so the recounts see every challenge that can count. A refusal is
 * therefore only ever decided on exact counts; the fast path never refuses.
 *
 * Lock order is machine row, then shard row(s), everywhere; PostgreSQL's deadlock detector is the backstop and a
 * transaction it aborts is retried. Changing VERIFY_OPEN_CHALLENGES_TOTAL below 16 leaves open challenges of an
 * earlier configuration in shards that now have no room; they stop counting against the total once they close.
 */
import { randomInt } from "node:crypto";
import { Prisma, type Database } from "../shared/db/index.js";

export const CAP_SHARDS = 16;

export interface IssuedChallenge {
  id: string;
  nonceHash: string;
  machineId: string;
  machineDid: string;
  didController: string;
  chainId: string;
  profile: string;
  protocol: string;
  verifier: string;
  issuedAt: Date;
  expiresAt: bigint;
}

export interface OpenChallengeCaps {
  perMachine: number;
  total: number;
}

/** How many open challenges shard `k` may hold. */
export function shardCap(total: number, k: number): number {
  return Math.floor(total / CAP_SHARDS) + (k < total % CAP_SHARDS ? 1 : 0);
}

const MAX_ATTEMPTS = 4;

/**
 * The fast path as one fixed text (parsed once per pooled connection as a named statement): $1 the machine's scope
 * and $2 its cap, $3 the shard's scope and $4 its cap, then the challenge's columns ($5 to $15) and its shard ($16).
 */
const FAST_PATH_SQL = `
      WITH m AS (
        INSERT INTO verify_issuance_counter (scope, open) VALUES ($1, 1)
        ON CONFLICT (scope) DO UPDATE SET open = verify_issuance_counter.open + 1
        WHERE verify_issuance_counter.open < $2
        RETURNING 1
      ), s AS (
        INSERT INTO verify_issuance_counter (scope, open) SELECT $3, 1 WHERE EXISTS (SELECT 1 FROM m)
        ON CONFLICT (scope) DO UPDATE SET open = verify_issuance_counter.open + 1
        WHERE verify_issuance_counter.open < $4
        RETURNING 1
      ), ins AS (
        INSERT INTO verify_challenge (id, nonce_hash, machine_id, machine_did, did_controller, chain_id, profile,
                                      protocol, verifier, issued_at, expires_at, state, updated_at, cap_shard)
        SELECT $5::uuid, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'issued', now(), $16
        WHERE EXISTS (SELECT 1 FROM s)
        RETURNING id
      )
      SELECT (SELECT count(*) FROM ins)::int AS inserted`;

/**
 * The fast path for a batch of one machine's challenges: $1 the machine's scope and $2 its cap, $3 the shard's scope
 * and $4 its cap, $5 the batch's size, $6 the shard, $7 the challenges as a JSON array of rows. A lone challenge, the
 * common case below saturation, keeps FAST_PATH_SQL: its columns as parameters, no JSON to build or to parse.
 */
const FAST_BATCH_SQL = `
      WITH m AS (
        INSERT INTO verify_issuance_counter (scope, open) VALUES ($1, $5::int)
        ON CONFLICT (scope) DO UPDATE SET open = verify_issuance_counter.open + $5::int
        WHERE verify_issuance_counter.open + $5::int <= $2::int
        RETURNING 1
      ), s AS (
        INSERT INTO verify_issuance_counter (scope, open) SELECT $3, $5::int WHERE EXISTS (SELECT 1 FROM m)
        ON CONFLICT (scope) DO UPDATE SET open = verify_issuance_counter.open + $5::int
        WHERE verify_issuance_counter.open + $5::int <= $4::int
        RETURNING 1
      ), ins AS (
        INSERT INTO verify_challenge (id, nonce_hash, machine_id, machine_did, did_controller, chain_id, profile,
                                      protocol, verifier, issued_at, expires_at, state, updated_at, cap_shard)
        SELECT x.id, x.nonce_hash, x.machine_id, x.machine_did, x.did_controller, x.chain_id, x.profile, x.protocol,
               x.verifier, x.issued_at, x.expires_at, 'issued', now(), $6::int
        FROM jsonb_to_recordset($7::jsonb) AS x(id uuid, nonce_hash text, machine_id text, machine_did text,
             did_controller text, chain_id text, profile text, protocol text, verifier text, issued_at timestamptz,
             expires_at bigint)
        WHERE EXISTS (SELECT 1 FROM s)
        RETURNING id
      )
      SELECT (SELECT count(*) FROM ins)::int AS inserted`;

/** Challenges per batch at most, whatever the caps allow (bounds one statement's size and one failure's reach). */
export const MAX_BATCH = 32;

/** A request waiting for its machine's statement in flight, to go in the next batch. */
interface Waiting {
  c: IssuedChallenge;
  caps: OpenChallengeCaps;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

/** The shards that may hold any challenge under a total cap, worked out once per cap (the configuration's one). */
const shardsByTotal = new Map<number, readonly number[]>();
function shardsWithRoom(total: number): readonly number[] {
  let shards = shardsByTotal.get(total);
  if (shards === undefined) {
    shards = Array.from({ length: CAP_SHARDS }, (_, k) => k).filter((k) => shardCap(total, k) > 0);
    if (shardsByTotal.size >= 16) shardsByTotal.clear();
    shardsByTotal.set(total, shards);
  }
  return shards;
}

export class IssuanceCapsRepository {
  /** Per machine with a fast-path statement in flight on this instance: the requests waiting for it, in order. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(private readonly db: Database) {}

  /** True when the challenge was stored; false when a cap refused it (decided on exact counts). */
  async insertWithinCaps(c: IssuedChallenge, caps: OpenChallengeCaps, nowSeconds: bigint): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await (attempt === 1 ? this.joinFastPath(c, caps) : this.fastPath(c, caps))) return true;
        // Usually only the machine's counter is stale (its challenges closed or expired): recount that machine alone,
        // which refuses exactly when it is at its cap, and try the fast path again before taking every shard row.
        if ((await this.recountMachine(c.machineId, nowSeconds)) >= caps.perMachine) return false;
        if (await this.fastPath(c, caps)) return true;
        return await this.slowPath(c, caps, nowSeconds);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isDeadlockOrConflict(error)) throw error;
      }
    }
  }

  /**
   * The fast path, batched per machine: alone when no statement of the machine is in flight here, else in the batch
   * sent when that statement ends.
   */
  private joinFastPath(c: IssuedChallenge, caps: OpenChallengeCaps): Promise<boolean> {
    const queue = this.waiting.get(c.machineId);
    if (queue) return new Promise((resolve, reject) => queue.push({ c, caps, resolve, reject }));
    this.waiting.set(c.machineId, []);
    const own = this.fastPath(c, caps);
    const drain = () => void this.drain(c.machineId);
    own.then(drain, drain);
    return own;
  }

  /** Sends the machine's waiting requests as batches, one statement at a time, until none is left. */
  private async drain(machineId: string): Promise<void> {
    const queue = this.waiting.get(machineId)!;
    while (queue.length > 0) {
      const { caps } = queue[0]!;
      const shards = shardsWithRoom(caps.total);
      const shard = shards.length > 0 ? shards[randomInt(shards.length)]! : 0;
      const size = Math.max(1, Math.min(MAX_BATCH, caps.perMachine, shardCap(caps.total, shard)));
      let count = 0;
      while (count < Math.min(size, queue.length) && sameCaps(queue[count]!.caps, caps)) count++;
      const batch = queue.splice(0, count);
      try {
        const inserted = batch.length === 1 ? await this.fastPath(batch[0]!.c, caps) : await this.fastBatch(batch.map((x) => x.c), caps, shard);
        for (const x of batch) x.resolve(inserted);
      } catch (error) {
        for (const x of batch) x.reject(error);
      }
    }
    this.waiting.delete(machineId);
  }

  /**
   * One statement for several challenges of one machine: all inserted (true) or none (false). `drain` sizes every
   * batch within both caps.
   */
  private async fastBatch(challenges: IssuedChallenge[], caps: OpenChallengeCaps, shard: number): Promise<boolean> {
    const rows = challenges.map((c) => ({
      id: c.id, nonce_hash: c.nonceHash, machine_id: c.machineId, machine_did: c.machineDid, did_controller: c.didController,
      chain_id: c.chainId, profile: c.profile, protocol: c.protocol, verifier: c.verifier, issued_at: c.issuedAt.toISOString(),
      expires_at: c.expiresAt.toString(),
    }));
    const [row] = await this.db.statement<{ inserted: number }>(FAST_BATCH_SQL, [
      machineScope(challenges[0]!.machineId), caps.perMachine, shardScope(shard), shardCap(caps.total, shard),
      challenges.length, shard, JSON.stringify(rows),
    ]);
    return Number(row?.inserted) === challenges.length;
  }

  private async fastPath(c: IssuedChallenge, caps: OpenChallengeCaps): Promise<boolean> {
    if (caps.perMachine < 1) return false;
    const shards = shardsWithRoom(caps.total);
    if (shards.length === 0) return false;
    const shard = shards[randomInt(shards.length)]!;
    // One statement, its own transaction, on the pool (Database.statement): the hot path skips Prisma's pipeline.
    const [row] = await this.db.statement<{ inserted: number }>(FAST_PATH_SQL, [
      machineScope(c.machineId), caps.perMachine, shardScope(shard), shardCap(caps.total, shard),
      c.id, c.nonceHash, c.machineId, c.machineDid, c.didController, c.chainId, c.profile, c.protocol, c.verifier,
      c.issuedAt, c.expiresAt, shard,
    ]);
    // When the machine row was incremented but the shard was full, the machine counter overcounts by one: safe (it
    // stays an upper bound), and the slow path that follows recounts it.
    return Number(row?.inserted) === 1;
  }

  /** Sets the machine's counter to its exact open count, under the machine row's lock; returns the count. */
  private recountMachine(machineId: string, nowSeconds: bigint): Promise<number> {
    return this.db.prisma.$transaction(async (tx) => {
      const scope = machineScope(machineId);
      await tx.$executeRaw`
        INSERT INTO verify_issuance_counter (scope, open) VALUES (${scope}, 0) ON CONFLICT (scope) DO NOTHING`;
      await tx.$queryRaw`SELECT open FROM verify_issuance_counter WHERE scope = ${scope} FOR UPDATE`;
      const [{ n }] = await tx.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM verify_challenge
        WHERE machine_id = ${machineId} AND state IN ('issued', 'checking') AND expires_at > ${nowSeconds}`;
      await tx.$executeRaw`UPDATE verify_issuance_counter SET open = ${n} WHERE scope = ${scope}`;
      return Number(n);
    });
  }

  private slowPath(c: IssuedChallenge, caps: OpenChallengeCaps, nowSeconds: bigint): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const scope = machineScope(c.machineId);
      await tx.$executeRaw`
        INSERT INTO verify_issuance_counter (scope, open) VALUES (${scope}, 0) ON CONFLICT (scope) DO NOTHING`;
      await tx.$queryRaw`SELECT open FROM verify_issuance_counter WHERE scope = ${scope} FOR UPDATE`;
      const [{ n: machineOpen }] = await tx.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM verify_challenge
        WHERE machine_id = ${c.machineId} AND state IN ('issued', 'checking') AND expires_at > ${nowSeconds}`;
      if (machineOpen >= caps.perMachine) {
        await tx.$executeRaw`UPDATE verify_issuance_counter SET open = ${machineOpen} WHERE scope = ${scope}`;
        return false;
      }

      const all = Array.from({ length: CAP_SHARDS }, (_, k) => shardScope(k));
      await tx.$executeRaw`
        INSERT INTO verify_issuance_counter (scope, open)
        VALUES ${Prisma.join(all.map((x) => Prisma.sql`(${x}, 0)`))} ON CONFLICT (scope) DO NOTHING`;
      await tx.$queryRaw`
        SELECT scope FROM verify_issuance_counter WHERE scope IN (${Prisma.join(all)}) ORDER BY scope FOR UPDATE`;
      const counts = await tx.$queryRaw<Array<{ shard: number; n: number }>>`
        SELECT cap_shard AS shard, count(*)::int AS n FROM verify_challenge
        WHERE state IN ('issued', 'checking') AND expires_at > ${nowSeconds} GROUP BY cap_shard`;
      const open = new Map(counts.map((x) => [Number(x.shard), Number(x.n)]));
      const exact = all.map((_, k) => open.get(k) ?? 0);
      const free = exact.map((n, k) => (n < shardCap(caps.total, k) ? k : -1)).filter((k) => k >= 0);
      const settle = (pairs: Array<[string, number]>) => tx.$executeRaw`
        UPDATE verify_issuance_counter SET open = x.n
        FROM (VALUES ${Prisma.join(pairs.map(([scope, n]) => Prisma.sql`(${scope}, ${n}::int)`))}) AS x(scope, n)
        WHERE verify_issuance_counter.scope = x.scope`;
      if (free.length === 0) {
        await settle(all.map((x, k) => [x, exact[k]!]));
        return false;
      }
      const shard = free[randomInt(free.length)]!;
      exact[shard]! += 1;
      await settle([...all.map((x, k): [string, number] => [x, exact[k]!]), [scope, machineOpen + 1]]);
      await tx.$executeRaw(insertChallengeSql(c, shard));
      return true;
    });
  }
}

function sameCaps(a: OpenChallengeCaps, b: OpenChallengeCaps): boolean {
  return a.perMachine === b.perMachine && a.total === b.total;
}

function machineScope(machineId: string): string {
  return `machine:${machineId}`;
}

function shardScope(k: number): string {
  return `total:${String(k).padStart(2, "0")}`;
}

/** The INSERT of one challenge row, as `INSERT ... SELECT` so callers can add a WHERE. */
function insertChallengeSql(c: IssuedChallenge, shard: number) {
  return Prisma.sql`
    INSERT INTO verify_challenge (id, nonce_hash, machine_id, machine_did, did_controller, chain_id, profile, protocol,
                                  verifier, issued_at, expires_at, state, updated_at, cap_shard)
    SELECT ${c.id}::uuid, ${c.nonceHash}, ${c.machineId}, ${c.machineDid}, ${c.didController}, ${c.chainId},
           ${c.profile}, ${c.protocol}, ${c.verifier}, ${c.issuedAt}, ${c.expiresAt}, 'issued', now(), ${shard}`;
}

function isDeadlockOrConflict(error: unknown): boolean {
  const e = error as { code?: string; message?: string; meta?: { code?: string } } | null;
  return (
    e?.code === "P2034" ||
    e?.meta?.code === "40P01" ||
    e?.meta?.code === "40001" ||
    /deadlock detected|could not serialize/i.test(e?.message ?? "")
  );
}
