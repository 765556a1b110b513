/**
 * Two-factor enrolment for the faucet (POST /2fa/setup, /2fa/confirm) and the code check funding needs.
 *
 * setup:   owner -> new secret, sealed with FAUCET_TOTP_KEY, stored pending for FAUCET_2FA_SETUP_TTL_SECONDS; the
 *          answer carries the otpauth:// URI and a QR image (data URL). An active enrolment is never replaced.
 * confirm: the first good code turns it active. Bad codes count; FAUCET_2FA_MAX_ATTEMPTS in a row lock the owner for
 *          FAUCET_2FA_LOCKOUT_SECONDS. Each code's time step is accepted once.
 */
import QRCode from "qrcode";
import type { Clock } from "../../shared/clock.js";
import type { FaucetConfig } from "../../shared/config/ratings.js";
import { FaucetErrors } from "./faucet-errors.js";
import { matchingStep, newTotpSecret, otpauthUri, TotpSecretBox } from "./totp.js";
import type { EnrolmentRow, TwoFactorRepository } from "./two-factor.repository.js";

export const OWNER_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const TOTP_CODE = /^[0-9]{6}$/;
export const QR_FORMATS = ["png", "svg"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

export interface Enrolment {
  ownerAddress: string;
  otpauthUri: string;
  qrImageUrl: string;
}

/** A code accepted for an active owner: the time step to consume together with the funding claim. */
export interface VerifiedCode {
  owner: string;
  step: number;
}

export class TwoFactorService {
  private readonly box: TotpSecretBox | null;

  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly config: FaucetConfig,
    private readonly clock: Clock,
  ) {
    this.box = config.totpKey ? new TotpSecretBox(config.totpKey) : null;
  }

  async setup(ownerAddress: string, format: string): Promise<Enrolment> {
    if (!OWNER_ADDRESS.test(ownerAddress)) throw FaucetErrors.invalidOwnerAddress();
    if (!(QR_FORMATS as readonly string[]).includes(format)) throw FaucetErrors.invalidPayload();
    const box = this.requireBox();
    const owner = ownerAddress.toLowerCase();
    const secret = newTotpSecret();
    const uri = otpauthUri(secret, this.config.issuer, ownerAddress);
    // The QR code first: if it cannot be made, nothing is stored.
    const qrImageUrl = await qrDataUrl(uri, format as QrFormat);
    const now = this.clock.now();
    const stored = await this.repository.enrol(owner, box.seal(secret, owner), new Date(now), new Date(now + this.config.setupTtlSeconds * 1000));
    if (!stored) throw FaucetErrors.alreadyActive();
    return { ownerAddress, otpauthUri: uri, qrImageUrl };
  }

  async confirm(ownerAddress: string, code: string): Promise<void> {
    if (!OWNER_ADDRESS.test(ownerAddress) || !TOTP_CODE.test(code)) throw FaucetErrors.invalidPayload();
    const owner = ownerAddress.toLowerCase();
    const enrolment = await this.usable(owner);
    if (enrolment.status === "active") throw FaucetErrors.alreadyActive();
    if (enrolment.expiresAt !== null && enrolment.expiresAt.getTime() <= this.clock.now()) throw FaucetErrors.expired();
    const step = await this.step(enrolment, code);
    if (!(await this.repository.confirm(owner, step, new Date(this.clock.now())))) throw FaucetErrors.invalid2fa();
  }

  /**
   * For funding: the owner's active enrolment matches this code. Whether its step is still unused is decided by the
   * funding claim, in the same transaction that records the request (so a retry of an in-flight request is told
   * DUPLICATE_REQUEST, not INVALID_2FA); a claim that finds the step used calls `rejectCode`.
   */
  async verify(ownerAddress: string, code: string): Promise<VerifiedCode> {
    const owner = ownerAddress.toLowerCase();
    const enrolment = await this.usable(owner);
    if (enrolment.status !== "active") throw FaucetErrors.notActive();
    return { owner, step: await this.step(enrolment, code, false) };
  }

  /** Counts a code the claim found already used, and answers INVALID_2FA. */
  async rejectCode(owner: string): Promise<never> {
    await this.recordFailure(owner);
    throw FaucetErrors.invalid2fa();
  }

  private requireBox(): TotpSecretBox {
    if (!this.box) throw FaucetErrors.serviceUnavailable();
    return this.box;
  }

  /** The owner's enrolment, if it exists and is not locked out. */
  private async usable(owner: string): Promise<EnrolmentRow> {
    this.requireBox();
    const enrolment = await this.repository.find(owner);
    if (!enrolment) throw FaucetErrors.notConfigured();
    if (enrolment.lockedUntil !== null && enrolment.lockedUntil.getTime() > this.clock.now()) throw FaucetErrors.locked();
    return enrolment;
  }

  /**
   * The code's time step, or INVALID_2FA after counting the failure. `rejectUsed`: a step at or before the last one
   * accepted fails here already (the database enforces it again when the step is consumed).
   */
  private async step(enrolment: EnrolmentRow, code: string, rejectUsed = true): Promise<number> {
    const secret = this.requireBox().open(enrolment.secretCipher, enrolment.ownerAddress);
    const step = matchingStep(secret, code, this.clock.now());
    const used = step !== null && enrolment.lastUsedStep !== null && BigInt(step) <= enrolment.lastUsedStep;
    if (step === null || (rejectUsed && used)) return this.rejectCode(enrolment.ownerAddress);
    return step;
  }

  private recordFailure(owner: string): Promise<void> {
    const lockUntil = new Date(this.clock.now() + this.config.lockoutSeconds * 1000);
    return this.repository.recordFailure(owner, this.config.maxAttempts, lockUntil);
  }
}

async function qrDataUrl(uri: string, format: QrFormat): Promise<string> {
  try {
    if (format === "svg") {
      const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M" });
      return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
    }
    return await QRCode.toDataURL(uri, { type: "image/png", errorCorrectionLevel: "M" });
  } catch {
    throw FaucetErrors.qrGenerationFailed();
  }
}
