/**
 * TOTP enrolments (model FaucetTwoFactor). Every transition is one conditional statement, so it holds across
 * replicas: an enrolment never replaces an active one, a failed code increments the counter and locks at the limit
 * atomically, and a time step is accepted at most once (`last_used_step < step`).
 */
import { toStoreError, type Database, type Prisma } from "../../shared/db/index.js";

export interface EnrolmentRow {
  ownerAddress: string;
  secretCipher: Uint8Array;
  status: "pending" | "active";
  expiresAt: Date | null;
  failedAttempts: number;
  lockedUntil: Date | null;
  lastUsedStep: bigint | null;
}

type Client = Database["prisma"] | Prisma.TransactionClient;

export class TwoFactorRepository {
  constructor(private readonly db: Database) {}

  async find(owner: string): Promise<EnrolmentRow | null> {
    return this.store(async () => {
      const row = await this.db.prisma.faucetTwoFactor.findUnique({ where: { ownerAddress: owner } });
      return row && { ...row, status: row.status as EnrolmentRow["status"] };
    });
  }

  /** A new pending enrolment, replacing a pending one; false when the owner's 2FA is already active. */
  async enrol(owner: string, secretCipher: Uint8Array, now: Date, expiresAt: Date): Promise<boolean> {
    return this.store(async () => {
      const rows = await this.db.prisma.$queryRaw<Array<{ owner: string }>>`
        INSERT INTO faucet_two_factor (owner_address, secret_cipher, status, enrolled_at, expires_at, failed_attempts)
        VALUES (${owner}, ${Buffer.from(secretCipher)}, 'pending', ${now}, ${expiresAt}, 0)
        ON CONFLICT (owner_address) DO UPDATE
          SET secret_cipher = EXCLUDED.secret_cipher, enrolled_at = EXCLUDED.enrolled_at, expires_at = EXCLUDED.expires_at,
              failed_attempts = 0, locked_until = NULL, last_used_step = NULL
          WHERE faucet_two_factor.status = 'pending'
        RETURNING owner_address AS owner`;
      return rows.length === 1;
    });
  }

  /** Counts a rejected code; at `maxAttempts` consecutive failures the owner is locked until `lockUntil`. */
  async recordFailure(owner: string, maxAttempts: number, lockUntil: Date): Promise<void> {
    await this.store(() => this.db.prisma.$executeRaw`
      UPDATE faucet_two_factor
      SET failed_attempts = CASE WHEN failed_attempts + 1 >= ${maxAttempts} THEN 0 ELSE failed_attempts + 1 END,
          locked_until = CASE WHEN failed_attempts + 1 >= ${maxAttempts} THEN ${lockUntil} ELSE locked_until END
      WHERE owner_address = ${owner}`);
  }

  /**
   * Accepts a code's time step once: resets the failure count, records the step and, when `activate`, turns a
   * pending enrolment active. False when the step (or a later one) was already used, or the state changed meanwhile.
   */
  async acceptStep(client: Client, owner: string, step: number, expectedStatus: EnrolmentRow["status"], now: Date): Promise<boolean> {
    const count = await client.$executeRaw`
      UPDATE faucet_two_factor
      SET last_used_step = ${BigInt(step)}, failed_attempts = 0,
          status = 'active', expires_at = NULL,
          confirmed_at = CASE WHEN status = 'pending' THEN ${now} ELSE confirmed_at END
      WHERE owner_address = ${owner} AND status = ${expectedStatus}
        AND (last_used_step IS NULL OR last_used_step < ${BigInt(step)})`;
    return count === 1;
  }

  async confirm(owner: string, step: number, now: Date): Promise<boolean> {
    return this.store(() => this.acceptStep(this.db.prisma, owner, step, "pending", now));
  }

  private async store<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
