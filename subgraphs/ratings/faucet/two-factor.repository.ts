/**
 * TOTP enrolments (model FaucetTwoFactor) and their rejected codes per client bucket (FaucetTwoFactorFailure). Every
 * transition is one conditional statement, so it holds across replicas:
 *
 * - an anonymous enrolment never replaces an active one, nor an owner-signed pending one before it expires;
 * - an owner-signed reset replaces any enrolment, once per signature (`reset_issued_at` only grows);
 * - a rejected code counts for its client bucket and for the owner, each locking at its limit, atomically;
 * - a time step is accepted at most once (`last_used_step < step`).
 *
 * Replacing an enrolment drops its per-bucket failures in the same statement.
 */
import { toStoreError, type Database, type Prisma } from "../../shared/db/index.js";

export interface EnrolmentRow {
  ownerAddress: string;
  secretCipher: Uint8Array;
  status: "pending" | "active";
  expiresAt: Date | null;
  /** The owner-wide lock (the per-owner ceiling). */
  lockedUntil: Date | null;
  lastUsedStep: bigint | null;
  /** The lock of the asking client's bucket, if any. */
  bucketLockedUntil: Date | null;
}

export interface FailureLimits {
  /** Consecutive failures from one bucket that lock it. */
  perBucket: number;
  /** Failures from all buckets that lock the owner everywhere. */
  perOwner: number;
  lockUntil: Date;
}

type Client = Database["prisma"] | Prisma.TransactionClient;

export class TwoFactorRepository {
  constructor(private readonly db: Database) {}

  /** The owner's enrolment, with the lock of `bucket`. */
  async find(owner: string, bucket: string): Promise<EnrolmentRow | null> {
    return this.store(async () => {
      const row = await this.db.prisma.faucetTwoFactor.findUnique({
        where: { ownerAddress: owner },
        include: { failures: { where: { clientBucket: bucket } } },
      });
      if (!row) return null;
      return {
        ownerAddress: row.ownerAddress,
        secretCipher: row.secretCipher,
        status: row.status as EnrolmentRow["status"],
        expiresAt: row.expiresAt,
        lockedUntil: row.lockedUntil,
        lastUsedStep: row.lastUsedStep,
        bucketLockedUntil: row.failures[0]?.lockedUntil ?? null,
      };
    });
  }

  /**
   * A new pending enrolment (POST /2fa/setup), replacing a pending one unless that one is owner-signed and not yet
   * expired; false when nothing was replaced (active, or an owner's reset awaiting confirmation).
   */
  async enrol(owner: string, secretCipher: Uint8Array, now: Date, expiresAt: Date): Promise<boolean> {
    return this.store(async () => {
      const rows = await this.db.prisma.$queryRaw<Array<{ owner: string }>>`
        WITH enrolled AS (
          INSERT INTO faucet_two_factor (owner_address, secret_cipher, status, enrolled_at, expires_at, failed_attempts)
          VALUES (${owner}, ${Buffer.from(secretCipher)}, 'pending', ${now}, ${expiresAt}, 0)
          ON CONFLICT (owner_address) DO UPDATE
            SET secret_cipher = EXCLUDED.secret_cipher, enrolled_at = EXCLUDED.enrolled_at, expires_at = EXCLUDED.expires_at,
                failed_attempts = 0, locked_until = NULL, last_used_step = NULL, owner_signed = false
            WHERE faucet_two_factor.status = 'pending'
              AND (NOT faucet_two_factor.owner_signed OR faucet_two_factor.expires_at <= ${now})
          RETURNING owner_address
        ), cleared AS (
          DELETE FROM faucet_two_factor_failure WHERE owner_address IN (SELECT owner_address FROM enrolled)
        )
        SELECT owner_address AS owner FROM enrolled`;
      return rows.length === 1;
    });
  }

  /**
   * The owner-signed reset (POST /2fa/reset): a new owner-signed pending enrolment replacing whatever there was, with
   * every lock lifted; false when `issuedAt` is not later than the last accepted reset's.
   */
  async reset(owner: string, secretCipher: Uint8Array, issuedAt: Date, now: Date, expiresAt: Date): Promise<boolean> {
    return this.store(async () => {
      const rows = await this.db.prisma.$queryRaw<Array<{ owner: string }>>`
        WITH enrolled AS (
          INSERT INTO faucet_two_factor
            (owner_address, secret_cipher, status, enrolled_at, expires_at, failed_attempts, owner_signed, reset_issued_at)
          VALUES (${owner}, ${Buffer.from(secretCipher)}, 'pending', ${now}, ${expiresAt}, 0, true, ${issuedAt})
          ON CONFLICT (owner_address) DO UPDATE
            SET secret_cipher = EXCLUDED.secret_cipher, status = 'pending', enrolled_at = EXCLUDED.enrolled_at,
                expires_at = EXCLUDED.expires_at, confirmed_at = NULL, failed_attempts = 0, locked_until = NULL,
                last_used_step = NULL, owner_signed = true, reset_issued_at = EXCLUDED.reset_issued_at
            WHERE faucet_two_factor.reset_issued_at IS NULL OR faucet_two_factor.reset_issued_at < EXCLUDED.reset_issued_at
          RETURNING owner_address
        ), cleared AS (
          DELETE FROM faucet_two_factor_failure WHERE owner_address IN (SELECT owner_address FROM enrolled)
        )
        SELECT owner_address AS owner FROM enrolled`;
      return rows.length === 1;
    });
  }

  /**
   * Counts a rejected code for the owner's `bucket` and for the owner: `perBucket` in a row lock the bucket,
   * `perOwner` since the last good code lock the owner everywhere, each until `lockUntil` (its counter restarts).
   */
  async recordFailure(owner: string, bucket: string, limits: FailureLimits): Promise<void> {
    const { perBucket, perOwner, lockUntil } = limits;
    await this.store(() => this.db.prisma.$executeRaw`
      WITH counted AS (
        INSERT INTO faucet_two_factor_failure (owner_address, client_bucket, failed_attempts, locked_until)
        SELECT owner_address, ${bucket},
               CASE WHEN 1 >= ${perBucket} THEN 0 ELSE 1 END,
               CASE WHEN 1 >= ${perBucket} THEN ${lockUntil}::timestamptz ELSE NULL END
        FROM faucet_two_factor WHERE owner_address = ${owner}
        ON CONFLICT (owner_address, client_bucket) DO UPDATE
          SET failed_attempts = CASE WHEN faucet_two_factor_failure.failed_attempts + 1 >= ${perBucket} THEN 0
                                     ELSE faucet_two_factor_failure.failed_attempts + 1 END,
              locked_until = CASE WHEN faucet_two_factor_failure.failed_attempts + 1 >= ${perBucket} THEN ${lockUntil}::timestamptz
                                  ELSE faucet_two_factor_failure.locked_until END
      )
      UPDATE faucet_two_factor
      SET failed_attempts = CASE WHEN failed_attempts + 1 >= ${perOwner} THEN 0 ELSE failed_attempts + 1 END,
          locked_until = CASE WHEN failed_attempts + 1 >= ${perOwner} THEN ${lockUntil}::timestamptz ELSE locked_until END
      WHERE owner_address = ${owner}`);
  }

  /**
   * Accepts a code's time step once: resets the owner's failure count and the bucket's, records the step and, when
   * the enrolment is pending, turns it active. False when the step (or a later one) was already used, or the state
   * changed meanwhile.
   */
  async acceptStep(
    client: Client,
    owner: string,
    bucket: string,
    step: number,
    expectedStatus: EnrolmentRow["status"],
    now: Date,
  ): Promise<boolean> {
    const rows = await client.$queryRaw<Array<{ owner: string }>>`
      WITH accepted AS (
        UPDATE faucet_two_factor
        SET last_used_step = ${BigInt(step)}, failed_attempts = 0,
            status = 'active', expires_at = NULL,
            confirmed_at = CASE WHEN status = 'pending' THEN ${now} ELSE confirmed_at END
        WHERE owner_address = ${owner} AND status = ${expectedStatus}
          AND (last_used_step IS NULL OR last_used_step < ${BigInt(step)})
        RETURNING owner_address
      ), cleared AS (
        DELETE FROM faucet_two_factor_failure
        WHERE owner_address IN (SELECT owner_address FROM accepted) AND client_bucket = ${bucket}
      )
      SELECT owner_address AS owner FROM accepted`;
    return rows.length === 1;
  }

  async confirm(owner: string, bucket: string, step: number, now: Date): Promise<boolean> {
    return this.store(() => this.acceptStep(this.db.prisma, owner, bucket, step, "pending", now));
  }

  private async store<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
