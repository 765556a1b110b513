/**
 * The faucet and two-factor error codes (docs/faucet.md has when each is answered and its status; the REST table is
 * rest-shim/errors/faucet.ts). The three routes of document 2 answer the 20 codes of `FaucetErrors` (with the shim's
 * INTERNAL_ERROR); the owner-signed reset, a route of ours, adds the three signature codes of `ResetErrors`, named and
 * numbered as the signed monetization toggle's. Messages are fixed and name no address or code.
 */
import { DomainError } from "../../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const FaucetErrors = {
  invalidPayload: error("INVALID_PAYLOAD", "The request body is not valid."),
  invalidOwnerAddress: error("INVALID_OWNER_ADDRESS", "ownerAddress is not a 0x-prefixed 20-byte address."),
  qrGenerationFailed: error("QR_GENERATION_FAILED", "The QR code could not be generated; nothing was enrolled."),
  invalid2fa: error("INVALID_2FA", "The two-factor code was rejected."),
  notConfigured: error("2FA_NOT_CONFIGURED", "Two-factor authentication is not set up for this owner."),
  notActive: error("2FA_NOT_ACTIVE", "Two-factor authentication is set up but not confirmed."),
  locked: error("2FA_LOCKED", "Too many rejected codes; try again later."),
  expired: error("2FA_EXPIRED", "The enrolment expired before it was confirmed; run setup again."),
  alreadyActive: error("2FA_ALREADY_ACTIVE", "Two-factor authentication is already active for this owner."),
  duplicateRequest: error("DUPLICATE_REQUEST", "A request with this requestId is in progress."),
  alreadyProcessed: error("REQUEST_ALREADY_PROCESSED", "A different request with this requestId was already processed."),
  rateLimited: error("RATE_LIMITED", "Too many funding requests from this address; retry later."),
  capExceededOwner: error("CAP_EXCEEDED_OWNER", "The owner's daily funding cap is reached."),
  capExceededWallet: error("CAP_EXCEEDED_WALLET", "The wallet's daily funding cap is reached."),
  invalidTargetWallet: error("INVALID_TARGET_WALLET", "targetWalletAddress is not a 0x-prefixed 20-byte address."),
  unsupportedChain: error("UNSUPPORTED_CHAIN", "The faucet does not fund this chain."),
  faucetDepleted: error("FAUCET_DEPLETED", "The faucet account cannot cover this funding."),
  transferFailed: error("TRANSFER_FAILED", "The funding transaction failed on chain."),
  serviceUnavailable: error("SERVICE_UNAVAILABLE", "The faucet is unavailable; retry."),
} as const;

/** POST /2fa/reset only: the owner's signature. */
export const ResetErrors = {
  invalidSignature: error("INVALID_SIGNATURE", "The signature is not 0x and 130 hex characters, or does not recover to an address."),
  unauthorizedSigner: error("UNAUTHORIZED_SIGNER", "The signature is not the owner address's."),
  staleSignature: error("STALE_SIGNATURE", "issuedAt is outside the freshness window, or not later than the last reset."),
} as const;

/** Every code the three documented routes can answer (INTERNAL_ERROR comes from the shim for anything unexpected). */
export const FAUCET_CODES = [...Object.values(FaucetErrors).map((make) => make().code), "INTERNAL_ERROR"] as const;

/** The codes only POST /2fa/reset adds. */
export const RESET_CODES = Object.values(ResetErrors).map((make) => make().code);
