/**
 * Error codes of the on-chain payment rails (docs/markets-payments.md); statuses live in rest-shim/errors/markets.ts
 * and docs/markets-errors.md. The five payment-proof codes and their statuses are the public notes' (2.7).
 */
import { DomainError } from "../../../shared/errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const PaymentErrors = {
  validation: error("VALIDATION_ERROR", "The request is not valid."),
  rpcRequired: error("PAYMENT_RPC_REQUIRED", "An RPC payment check needs a configured RPC for this chain."),
  rpcError: error("PAYMENT_RPC_ERROR", "The payment RPC could not be read."),
  notMined: error("PAYMENT_NOT_MINED", "The payment transaction is not mined yet."),
  txFailed: error("PAYMENT_TX_FAILED", "The payment transaction failed."),
  transferNotFound: error("PAYMENT_TRANSFER_NOT_FOUND", "The transaction has no matching transfer."),
  proofModeDisabled: error("PAYMENT_PROOF_MODE_DISABLED", "This payment proof mode is not enabled on this server."),
  payerMismatch: error("PAYMENT_PAYER_MISMATCH", "The payer is not the address bound to this payment."),
  railUnavailable: error("PAYMENT_RAIL_UNAVAILABLE", "This payment rail is not configured on this server."),
  escrowNotLocked: error("PAYMENT_ESCROW_NOT_LOCKED", "The escrow of this order is not locked."),
  escrowMismatch: error("PAYMENT_ESCROW_MISMATCH", "The escrow of this order holds a different payment."),
  txAlreadyUsed: error("PAYMENT_TX_ALREADY_USED", "This transaction already paid another payment."),
  authorizationInvalid: error("PAYMENT_AUTHORIZATION_INVALID", "The payment authorization is invalid."),
  authorizationExpired: error("PAYMENT_AUTHORIZATION_EXPIRED", "The payment authorization is outside its validity window."),
  authorizationUsed: error("PAYMENT_AUTHORIZATION_USED", "The payment authorization was already used."),
  insufficientFunds: error("PAYMENT_INSUFFICIENT_FUNDS", "The payer's balance does not cover the payment."),
} as const;
