/**
 * The stream marketplace's error codes, seller part: messages fixed per code; statuses in
 * rest-shim/errors/markets.ts ("Stream marketplace (seller)"), documented in docs/markets-errors.md.
 *
 * A StreamFormatError of the formats library (subgraphs/markets/stream/errors.ts) keeps its own code
 * (MANIFEST_MALFORMED, CHUNK_ID_MISMATCH, SIGNATURE_INVALID, ...): `fromFormatError` turns it into a DomainError with
 * the fixed message of that code.
 */
import { DomainError } from "../../../shared/errors.js";
import { StreamFormatError, type StreamFormatErrorCode } from "../errors.js";

const error = (code: string, message: string) => () => new DomainError(code, message);

export const STREAM_FORMAT_MESSAGES: Record<StreamFormatErrorCode, string> = {
  MANIFEST_MALFORMED: "The chunk manifest is malformed.",
  CHUNK_ID_MISMATCH: "The chunkId does not match the manifest's content.",
  SIGNER_UNKNOWN: "The signing key is not registered for this machine.",
  SIGNATURE_INVALID: "The signature does not verify.",
  SIGNING_KEY_REVOKED: "The signing key was revoked before the chunk was registered.",
  CHAIN_BROKEN: "The chunk does not link to the previous chunk of the chain.",
  CIPHERTEXT_HASH_MISMATCH: "The ciphertext does not match the manifest's encryptedDataHash.",
  ACCESS_MALFORMED: "The buyer access is malformed.",
  ACCESS_CHUNK_MISMATCH: "The buyer access names another chunk.",
  ACCESS_WRONG_RECIPIENT: "The buyer access is for another recipient.",
  ACCESS_UNWRAP_FAILED: "The wrapped key cannot be opened.",
  KEY_COMMITMENT_MISMATCH: "The key does not match the manifest's keyCommitment.",
  DECRYPTION_FAILED: "The chunk cannot be decrypted.",
  PLAINTEXT_HASH_MISMATCH: "The plaintext does not match the manifest's plaintextHash.",
  ENVELOPE_MALFORMED: "The event envelope is malformed.",
  ENVELOPE_PAYLOAD_HASH_MISMATCH: "The envelope's payloadHash does not match its payload.",
  ENVELOPE_SIGNATURE_INVALID: "The envelope signature does not verify.",
};

export const StreamErrors = {
  deliveryTokenRequired: error("DELIVERY_TOKEN_REQUIRED", "A delivery token is required."),
  deliveryTokenInvalid: error("DELIVERY_TOKEN_INVALID", "The delivery token is invalid."),
  deliveryTokenExpired: error("DELIVERY_TOKEN_EXPIRED", "The delivery token expired."),
  deliveryTokenScope: error("DELIVERY_TOKEN_SCOPE", "The delivery token does not cover this chunk."),
  signingKeyExists: error("SIGNING_KEY_EXISTS", "A signing key with this keyId already exists for the machine."),
  chunkExists: error("CHUNK_EXISTS", "A different manifest with this chunkId is already registered."),
  chunkNotStored: error("CHUNK_NOT_STORED", "The chunk's ciphertext is not stored."),
  ciphertextSizeMismatch: error("CIPHERTEXT_SIZE_MISMATCH", "The ciphertext size does not match the manifest's encryptedSize."),
  eventSequenceConflict: error("EVENT_SEQUENCE_CONFLICT", "This sequence number was already received with another payload."),
  chainReceiptExists: error("CHAIN_RECEIPT_EXISTS", "The event already has another chain receipt."),
  rangeNotSatisfiable: error("RANGE_NOT_SATISFIABLE", "The requested range is not satisfiable."),
  policyInactive: error("STREAM_POLICY_INACTIVE", "The stream policy is not active."),
} as const;

export function fromFormatError(error: StreamFormatError): DomainError {
  return new DomainError(error.code, STREAM_FORMAT_MESSAGES[error.code]);
}

/** Runs a formats-library check, turning its StreamFormatError into the DomainError of the same code. */
export function formatCheck<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof StreamFormatError) throw fromFormatError(error);
    throw error;
  }
}
