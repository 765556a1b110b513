/**
 * The faucet and two-factor routes of document 2 (`POST /2fa/setup`, `/2fa/confirm`, `/faucet/fund`): the Gas
 * Station's own envelope `{"code":"...","message":"..."}`. The 20 codes, with when each is answered, are in
 * docs/faucet.md; framework answers on these paths (404, 405, the 90/min 429) stay in the ratings envelope.
 * The owner-signed `POST /2fa/reset` answers from a table of its own: the same codes and the three of its signature.
 */
import { defineErrorTable, type ErrorTableSpec } from "./table.js";

const FAUCET_SPEC = {
  family: "faucet",
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  envelope: (code, message) => ({ code, message }),
  internalCode: "INTERNAL_ERROR",
  entries: {
    INVALID_PAYLOAD: { status: 400, message: "The request body is not valid." },
    INVALID_OWNER_ADDRESS: { status: 400, message: "ownerAddress is not a 0x-prefixed 20-byte address." },
    INVALID_TARGET_WALLET: { status: 400, message: "targetWalletAddress is not a 0x-prefixed 20-byte address." },
    UNSUPPORTED_CHAIN: { status: 400, message: "The faucet does not fund this chain." },
    INVALID_2FA: { status: 401, message: "The two-factor code was rejected." },
    "2FA_NOT_CONFIGURED": { status: 403, message: "Two-factor authentication is not set up for this owner." },
    "2FA_NOT_ACTIVE": { status: 403, message: "Two-factor authentication is set up but not confirmed." },
    "2FA_ALREADY_ACTIVE": { status: 409, message: "Two-factor authentication is already active for this owner." },
    DUPLICATE_REQUEST: { status: 409, message: "A request with this requestId is in progress." },
    REQUEST_ALREADY_PROCESSED: { status: 409, message: "A different request with this requestId was already processed." },
    "2FA_EXPIRED": { status: 410, message: "The enrolment expired before it was confirmed; run setup again." },
    "2FA_LOCKED": { status: 423, message: "Too many rejected codes; try again later." },
    RATE_LIMITED: { status: 429, message: "Too many funding requests from this address; retry later." },
    CAP_EXCEEDED_OWNER: { status: 429, message: "The owner's daily funding cap is reached." },
    CAP_EXCEEDED_WALLET: { status: 429, message: "The wallet's daily funding cap is reached." },
    QR_GENERATION_FAILED: { status: 500, message: "The QR code could not be generated; nothing was enrolled." },
    INTERNAL_ERROR: { status: 500, message: "Internal server error." },
    TRANSFER_FAILED: { status: 502, message: "The funding transaction failed on chain." },
    FAUCET_DEPLETED: { status: 503, message: "The faucet account cannot cover this funding." },
    SERVICE_UNAVAILABLE: { status: 503, message: "The faucet is unavailable; retry." },
  },
} satisfies ErrorTableSpec;

export const FAUCET_ERRORS = defineErrorTable(FAUCET_SPEC);

/** POST /2fa/reset: the faucet's codes, and the signature's as the signed monetization toggle numbers them. */
export const FAUCET_RESET_ERRORS = defineErrorTable({
  ...FAUCET_SPEC,
  entries: {
    ...FAUCET_SPEC.entries,
    INVALID_SIGNATURE: { status: 400, message: "The signature is not 0x and 130 hex characters, or does not recover to an address." },
    UNAUTHORIZED_SIGNER: { status: 403, message: "The signature is not the owner address's." },
    STALE_SIGNATURE: { status: 409, message: "issuedAt is outside the freshness window, or not later than the last reset." },
  },
});
