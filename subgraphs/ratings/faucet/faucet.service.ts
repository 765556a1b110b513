/**
 * POST /faucet/fund (docs/faucet.md): fund a wallet with gas from the faucet account, behind the owner's TOTP code.
 *
 *   payload checks -> idempotency (requestId) -> faucet configured -> 2FA (configured, owner and client bucket not
 *   locked, active, code good) -> wallet already holds FAUCET_MIN_BALANCE_WEI: `skipped` -> per-IP (per client
 *   bucket) / per-owner / per-wallet limits and the claim (one transaction) -> faucet balance -> transfer ->
 *   `success` with the transaction hash.
 *
 * A retry with the same requestId and the same owner, wallet and chain answers the first outcome again (no second
 * transfer, no code needed); with other parameters REQUEST_ALREADY_PROCESSED; while the first is in flight
 * DUPLICATE_REQUEST.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../../shared/clock.js";
import type { FaucetConfig } from "../../shared/config/ratings.js";
import { ChainUnavailableError, DomainError, StoreUnavailableError } from "../../shared/errors.js";
import { FaucetErrors } from "./faucet-errors.js";
import type { FaucetRepository, FaucetRequestRow } from "./faucet.repository.js";
import { FundingStatus, type Funding, type FundWalletInput } from "./faucet.type.js";
import type { FaucetWallet } from "./faucet-wallet.js";
import { OWNER_ADDRESS, TOTP_CODE, type TwoFactorService } from "./two-factor.service.js";

const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class FaucetService {
  constructor(
    private readonly repository: FaucetRepository,
    private readonly twoFactor: TwoFactorService,
    /** Null when no faucet key is configured (production without FAUCET_PRIVATE_KEY). */
    private readonly wallet: FaucetWallet | null,
    private readonly config: FaucetConfig,
    private readonly chainId: string,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  fund(input: FundWalletInput, clientIp: string): Promise<Funding> {
    return this.guard(async () => {
      const request = this.validate(input);
      const previous = await this.repository.find(request.requestId);
      if (previous) return this.replay(previous, request);
      if (!this.wallet) throw FaucetErrors.serviceUnavailable();
      const code = await this.twoFactor.verify(request.ownerAddress, input.twoFactorCode, clientIp);
      const skipped = (await this.wallet.balanceOf(request.targetWallet)) >= this.config.minBalanceWei;
      const claim = await this.repository.claim(
        // The per-IP count is kept per client bucket (an IPv4 address or an IPv6 /64), like every per-IP limit.
        { ...request, clientIp: code.bucket, status: skipped ? "skipped" : "pending" },
        code,
        this.config,
        new Date(this.clock.now()),
      );
      if (claim === "step_used") return this.twoFactor.rejectCode(code);
      if (claim !== "claimed") throw claimRefusal(claim);
      if (skipped) return { status: FundingStatus.SKIPPED, requestId: request.requestId, txHash: null, fundedAmount: null };
      return this.transfer(this.wallet, request.requestId, request.targetWallet);
    });
  }

  private validate(input: FundWalletInput) {
    for (const value of [input.ownerAddress, input.targetWalletAddress, input.chainId, input.twoFactorCode]) {
      if (typeof value !== "string") throw FaucetErrors.invalidPayload();
    }
    if (!OWNER_ADDRESS.test(input.ownerAddress) || !TOTP_CODE.test(input.twoFactorCode)) throw FaucetErrors.invalidPayload();
    if (input.requestId !== undefined && input.requestId !== null && !REQUEST_ID.test(input.requestId)) {
      throw FaucetErrors.invalidPayload();
    }
    if (!OWNER_ADDRESS.test(input.targetWalletAddress)) throw FaucetErrors.invalidTargetWallet();
    if (input.chainId !== this.config.chainName && input.chainId !== this.chainId) throw FaucetErrors.unsupportedChain();
    return {
      requestId: input.requestId ?? randomUUID(),
      ownerAddress: input.ownerAddress.toLowerCase(),
      targetWallet: input.targetWalletAddress.toLowerCase(),
      chainId: input.chainId,
    };
  }

  private replay(previous: FaucetRequestRow, request: ReturnType<FaucetService["validate"]>): Funding {
    const same =
      previous.ownerAddress === request.ownerAddress &&
      previous.targetWallet === request.targetWallet &&
      previous.chainId === request.chainId;
    if (!same) throw FaucetErrors.alreadyProcessed();
    if (previous.status === "pending") throw FaucetErrors.duplicateRequest();
    if (previous.status === "failed") throw FaucetErrors.transferFailed();
    return {
      status: previous.status === "skipped" ? FundingStatus.SKIPPED : FundingStatus.SUCCESS,
      requestId: previous.requestId,
      txHash: previous.txHash,
      fundedAmount: previous.fundedAmount,
    };
  }

  /**
   * Failures before anything was sent (faucet balance, the node) release the claim, so the same requestId can be
   * retried; a transaction that was sent but did not succeed is final (TRANSFER_FAILED, its hash recorded).
   */
  private async transfer(wallet: FaucetWallet, requestId: string, target: string): Promise<Funding> {
    const amount = this.config.fundAmountWei;
    let result;
    try {
      if ((await wallet.balanceOf(wallet.address)) < (await wallet.costOf(amount))) {
        await this.repository.release(requestId);
        throw FaucetErrors.faucetDepleted();
      }
      result = await wallet.transfer(target, amount, (send) => this.repository.withSendLock(send));
    } catch (error) {
      if (error instanceof ChainUnavailableError) await this.repository.release(requestId);
      throw error;
    }
    if (!result.ok) {
      await this.repository.finish(requestId, { status: "failed", failureCode: "TRANSFER_FAILED", txHash: result.txHash });
      throw FaucetErrors.transferFailed();
    }
    await this.repository.finish(requestId, { status: "funded", txHash: result.txHash, fundedAmount: amount.toString() });
    return { status: FundingStatus.SUCCESS, requestId, txHash: result.txHash, fundedAmount: amount.toString() };
  }

  private async guard<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof StoreUnavailableError || error instanceof ChainUnavailableError) {
        this.log(error);
        throw FaucetErrors.serviceUnavailable();
      }
      throw error;
    }
  }
}

function claimRefusal(outcome: string): DomainError {
  switch (outcome) {
    case "duplicate":
      return FaucetErrors.duplicateRequest();
    case "rate_limited":
      return FaucetErrors.rateLimited();
    case "cap_owner":
      return FaucetErrors.capExceededOwner();
    default:
      return FaucetErrors.capExceededWallet();
  }
}
