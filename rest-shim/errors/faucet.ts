/**
 * The faucet and two-factor routes of document 2 (`POST /2fa/setup`, `/2fa/confirm`, `/faucet/fund`): the Gas
 * Station's own envelope `{"code":"...","message":"..."}`. The 20 codes, with when each is answered, are in
 * docs/faucet.md; framework answers on these paths (404, 405, the 90/min 429) stay in the ratings envelope.
 */
import { defineErrorTable } from "./table.js";

export const FAUCET_ERRORS = defineErrorTable({
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
});
