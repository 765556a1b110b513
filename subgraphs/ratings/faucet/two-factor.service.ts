/**
 * Two-factor enrolment for the faucet (POST /2fa/setup, /2fa/confirm, /2fa/reset) and the code check funding needs.
 *
 * setup:   owner -> new secret, sealed with FAUCET_TOTP_KEY, stored pending for FAUCET_2FA_SETUP_TTL_SECONDS; the
 *          answer carries the otpauth:// URI and a QR image (data URL). Anyone may enrol an address with no active
 *          enrolment; an active one, or an owner's reset awaiting confirmation, is never replaced this way.
 * reset:   the same, for whoever holds the owner address's key (an EIP-191 signature of the reset message, fresh and
 *          later than the last reset): replaces any enrolment, squatted or forgotten, and lifts every lock.
 * confirm: the first good code turns it active. Each code's time step is accepted once.
 *
 * Bad codes count per client bucket (an IPv4 address or an IPv6 /64): FAUCET_2FA_MAX_ATTEMPTS in a row lock that
 * bucket only, so a stranger's wrong codes do not lock the owner out of other clients. To bound guessing from many
 * buckets, FAUCET_2FA_MAX_ATTEMPTS_PER_OWNER bad codes from all of them since the last good one lock the owner
 * everywhere; the owner lifts that with a reset. Locks last FAUCET_2FA_LOCKOUT_SECONDS.
 */
import { verifyMessage } from "ethers";
import type { Clock } from "../../shared/clock.js";
import type { FaucetConfig } from "../../shared/config/ratings.js";
import { clientBucket } from "../../shared/net/client-bucket.js";
import { FaucetErrors, ResetErrors } from "./faucet-errors.js";
import { isQrFormat, qrDataUrl } from "./qr-code.js";
import { matchingStep, newTotpSecret, otpauthUri, TotpSecretBox } from "./totp.js";
import { buildTwoFactorResetMessage, parseIssuedAt, RESET_MAX_AGE_SECONDS, RESET_MAX_FUTURE_SECONDS } from "./two-factor-reset.message.js";
import type { EnrolmentRow, TwoFactorRepository } from "./two-factor.repository.js";

export const OWNER_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const TOTP_CODE = /^[0-9]{6}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

export interface Enrolment {
  ownerAddress: string;
  otpauthUri: string;
  qrImageUrl: string;
}

/** A code accepted for an active owner: the time step to consume together with the funding claim. */
export interface VerifiedCode {
  owner: string;
  /** The client bucket the code came from (its failures and lock). */
  bucket: string;
  step: number;
}

export interface ResetRequest {
  ownerAddress: string;
  issuedAt: string;
  signature: string;
  format: string;
}

export class TwoFactorService {
  private readonly box: TotpSecretBox | null;

  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly config: FaucetConfig,
    private readonly clock: Clock,
    /** The chain ID the reset message names (read from the RPC at startup). */
    private readonly chainId: string,
  ) {
    this.box = config.totpKey ? new TotpSecretBox(config.totpKey) : null;
  }

  async setup(ownerAddress: string, format: string): Promise<Enrolment> {
    if (!OWNER_ADDRESS.test(ownerAddress)) throw FaucetErrors.invalidOwnerAddress();
    if (!isQrFormat(format)) throw FaucetErrors.invalidPayload();
    const owner = ownerAddress.toLowerCase();
    const { enrolment, sealed } = await this.newEnrolment(ownerAddress, format);
    const now = this.clock.now();
    if (!(await this.repository.enrol(owner, sealed, new Date(now), this.expiry(now)))) throw FaucetErrors.alreadyActive();
    return enrolment;
  }

  /** Order: owner, format and issuedAt, signature shape, key configured, freshness, signer, QR code, newer than the last. */
  async reset(request: ResetRequest): Promise<Enrolment> {
    const { ownerAddress, issuedAt, signature, format } = request;
    if (!OWNER_ADDRESS.test(ownerAddress)) throw FaucetErrors.invalidOwnerAddress();
    const issuedAtMs = parseIssuedAt(issuedAt);
    if (!isQrFormat(format) || issuedAtMs === null) throw FaucetErrors.invalidPayload();
    if (!SIGNATURE.test(signature)) throw ResetErrors.invalidSignature();
    this.requireBox();
    const now = this.clock.now();
    if (issuedAtMs < now - RESET_MAX_AGE_SECONDS * 1000 || issuedAtMs > now + RESET_MAX_FUTURE_SECONDS * 1000) {
      throw ResetErrors.staleSignature();
    }
    const message = buildTwoFactorResetMessage({ issuer: this.config.issuer, ownerAddress, chainId: this.chainId, issuedAt });
    let signer: string;
    try {
      signer = verifyMessage(message, signature);
    } catch {
      throw ResetErrors.invalidSignature();
    }
    const owner = ownerAddress.toLowerCase();
    if (signer.toLowerCase() !== owner) throw ResetErrors.unauthorizedSigner();
    const { enrolment, sealed } = await this.newEnrolment(ownerAddress, format);
    if (!(await this.repository.reset(owner, sealed, new Date(issuedAtMs), new Date(now), this.expiry(now)))) {
      throw ResetErrors.staleSignature();
    }
    return enrolment;
  }

  async confirm(ownerAddress: string, code: string, clientIp: string): Promise<void> {
    if (!OWNER_ADDRESS.test(ownerAddress) || !TOTP_CODE.test(code)) throw FaucetErrors.invalidPayload();
    const owner = ownerAddress.toLowerCase();
    const bucket = clientBucket(clientIp);
    const enrolment = await this.usable(owner, bucket);
    if (enrolment.status === "active") throw FaucetErrors.alreadyActive();
    if (enrolment.expiresAt !== null && enrolment.expiresAt.getTime() <= this.clock.now()) throw FaucetErrors.expired();
    const step = await this.step(enrolment, bucket, code);
    if (!(await this.repository.confirm(owner, bucket, step, new Date(this.clock.now())))) throw FaucetErrors.invalid2fa();
  }

  /**
   * For funding: the owner's active enrolment matches this code. Whether its step is still unused is decided by the
   * funding claim, in the same transaction that records the request (so a retry of an in-flight request is told
   * DUPLICATE_REQUEST, not INVALID_2FA); a claim that finds the step used calls `rejectCode`.
   */
  async verify(ownerAddress: string, code: string, clientIp: string): Promise<VerifiedCode> {
    const owner = ownerAddress.toLowerCase();
    const bucket = clientBucket(clientIp);
    const enrolment = await this.usable(owner, bucket);
    if (enrolment.status !== "active") throw FaucetErrors.notActive();
    return { owner, bucket, step: await this.step(enrolment, bucket, code, false) };
  }

  /** Counts a code the claim found already used, and answers INVALID_2FA. */
  async rejectCode(code: Pick<VerifiedCode, "owner" | "bucket">): Promise<never> {
    const lockUntil = new Date(this.clock.now() + this.config.lockoutSeconds * 1000);
    const limits = { perBucket: this.config.maxAttempts, perOwner: this.config.maxAttemptsPerOwner, lockUntil };
    await this.repository.recordFailure(code.owner, code.bucket, limits);
    throw FaucetErrors.invalid2fa();
  }

  private requireBox(): TotpSecretBox {
    if (!this.box) throw FaucetErrors.serviceUnavailable();
    return this.box;
  }

  private expiry(now: number): Date {
    return new Date(now + this.config.setupTtlSeconds * 1000);
  }

  /** A fresh secret, sealed for the owner, and the answer carrying it. The QR code first: if it fails, nothing is stored. */
  private async newEnrolment(ownerAddress: string, format: "png" | "svg"): Promise<{ enrolment: Enrolment; sealed: Uint8Array }> {
    const box = this.requireBox();
    const secret = newTotpSecret();
    const uri = otpauthUri(secret, this.config.issuer, ownerAddress);
    const qrImageUrl = await qrDataUrl(uri, format);
    return { enrolment: { ownerAddress, otpauthUri: uri, qrImageUrl }, sealed: box.seal(secret, ownerAddress.toLowerCase()) };
  }

  /** The owner's enrolment, if it exists and neither the owner nor the client's bucket is locked out. */
  private async usable(owner: string, bucket: string): Promise<EnrolmentRow> {
    this.requireBox();
    const enrolment = await this.repository.find(owner, bucket);
    if (!enrolment) throw FaucetErrors.notConfigured();
    const now = this.clock.now();
    for (const lock of [enrolment.lockedUntil, enrolment.bucketLockedUntil]) {
      if (lock !== null && lock.getTime() > now) throw FaucetErrors.locked();
    }
    return enrolment;
  }

  /**
   * The code's time step, or INVALID_2FA after counting the failure. `rejectUsed`: a step at or before the last one
   * accepted fails here already (the database enforces it again when the step is consumed).
   */
  private async step(enrolment: EnrolmentRow, bucket: string, code: string, rejectUsed = true): Promise<number> {
    const secret = this.requireBox().open(enrolment.secretCipher, enrolment.ownerAddress);
    const step = matchingStep(secret, code, this.clock.now());
    const used = step !== null && enrolment.lastUsedStep !== null && BigInt(step) <= enrolment.lastUsedStep;
    if (step === null || (rejectUsed && used)) return this.rejectCode({ owner: enrolment.ownerAddress, bucket });
    return step;
  }
}
