/**
 * Funding requests (model FaucetRequest), keyed by their idempotency key.
 *
 * The claim is one transaction: an advisory lock serialises claims across replicas; then the requestId (taken:
 * duplicate), the 2FA code's time step (consumed, two-factor.repository.ts), the per-IP (per client bucket: an IPv4
 * address or an IPv6 /64), per-owner and per-wallet counts, and the request row (its primary key makes a requestId
 * single-use). Any refusal rolls all of it back.
 */
import { isUniqueViolation, toStoreError, type Database } from "../../shared/db/index.js";
import type { TwoFactorRepository } from "./two-factor.repository.js";

export type RequestStatus = "pending" | "funded" | "skipped" | "failed";

export interface FaucetRequestRow {
  requestId: string;
  ownerAddress: string;
  targetWallet: string;
  chainId: string;
  status: RequestStatus;
  txHash: string | null;
  fundedAmount: string | null;
  failureCode: string | null;
}

export interface NewRequest {
  requestId: string;
  ownerAddress: string;
  targetWallet: string;
  chainId: string;
  /** The client bucket: an IPv4 address or an IPv6 /64. */
  clientIp: string;
  status: "pending" | "skipped";
}

export interface Caps {
  perIpPerHour: number;
  perOwnerPerDay: number;
  perWalletPerDay: number;
}

export type ClaimOutcome = "claimed" | "duplicate" | "step_used" | "rate_limited" | "cap_owner" | "cap_wallet";

/** pg_advisory_xact_lock key of faucet claims ("fauc"). */
const CLAIM_LOCK = 0x66617563;
/** pg_advisory_xact_lock key held while the faucet account picks a nonce and sends ("send"). */
export const SEND_LOCK = 0x73656e64;

export class FaucetRepository {
  constructor(
    private readonly db: Database,
    private readonly twoFactor: TwoFactorRepository,
  ) {}

  async find(requestId: string): Promise<FaucetRequestRow | null> {
    try {
      const row = await this.db.prisma.faucetRequest.findUnique({ where: { requestId } });
      return row && { ...row, status: row.status as RequestStatus };
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** `code`: the owner's verified code, its client bucket and time step (consumed here, once). */
  async claim(request: NewRequest, code: { bucket: string; step: number }, caps: Caps, now: Date): Promise<ClaimOutcome> {
    const hourAgo = new Date(now.getTime() - 3_600_000);
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    try {
      return await this.db.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`;
        if (await tx.faucetRequest.findUnique({ where: { requestId: request.requestId }, select: { requestId: true } })) {
          return "duplicate";
        }
        // The code first (authentication before limits); a refusal below rolls its consumption back.
        if (!(await this.twoFactor.acceptStep(tx, request.ownerAddress, code.bucket, code.step, "active", now))) throw new StepUsed();
        const [counts] = await tx.$queryRaw<Array<{ ip: bigint; owner: bigint; wallet: bigint }>>`
          SELECT
            (SELECT count(*) FROM faucet_request WHERE client_ip = ${request.clientIp} AND created_at > ${hourAgo}) AS ip,
            (SELECT count(*) FROM faucet_request WHERE owner_address = ${request.ownerAddress}
               AND status IN ('pending', 'funded') AND created_at >= ${dayStart}) AS owner,
            (SELECT count(*) FROM faucet_request WHERE target_wallet = ${request.targetWallet}
               AND status IN ('pending', 'funded') AND created_at >= ${dayStart}) AS wallet`;
        if (Number(counts!.ip) >= caps.perIpPerHour) throw new ClaimRefused("rate_limited");
        if (request.status === "pending") {
          if (Number(counts!.owner) >= caps.perOwnerPerDay) throw new ClaimRefused("cap_owner");
          if (Number(counts!.wallet) >= caps.perWalletPerDay) throw new ClaimRefused("cap_wallet");
        }
        await tx.faucetRequest.create({ data: { ...request, createdAt: now, updatedAt: now } });
        return "claimed";
      });
    } catch (error) {
      if (error instanceof StepUsed) return "step_used";
      if (error instanceof ClaimRefused) return error.outcome;
      if (isUniqueViolation(error)) return "duplicate";
      throw toStoreError(error);
    }
  }

  async finish(
    requestId: string,
    outcome: { status: "funded" | "failed"; txHash: string | null; fundedAmount?: string; failureCode?: string },
  ): Promise<void> {
    try {
      await this.db.prisma.faucetRequest.update({
        where: { requestId },
        data: { ...outcome, updatedAt: new Date() },
      });
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Gives a pending claim back (nothing was sent), so its requestId can be used again. */
  async release(requestId: string): Promise<void> {
    try {
      await this.db.prisma.faucetRequest.deleteMany({ where: { requestId, status: "pending" } });
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Runs `send` holding the faucet account's send lock, so replicas never pick the same nonce. */
  async withSendLock<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await this.db.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEND_LOCK})`;
          return send();
        },
        { timeout: 15_000 },
      );
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/** The code's time step was consumed already: roll the claim back. */
class StepUsed extends Error {}

/** A limit refuses the claim after the code's step was consumed in the transaction: roll both back. */
class ClaimRefused extends Error {
  constructor(readonly outcome: ClaimOutcome) {
    super(outcome);
  }
}
