/**
 * Every way a stream artefact can fail a check, each with its own code, so a buyer (or the CLI) can say exactly what
 * was wrong: docs/stream-formats.md "Verification" lists them in the order the checks run.
 */
export const STREAM_FORMAT_ERROR_CODES = [
  "MANIFEST_MALFORMED",
  "CHUNK_ID_MISMATCH",
  "SIGNER_UNKNOWN",
  "SIGNATURE_INVALID",
  "SIGNING_KEY_REVOKED",
  "CHAIN_BROKEN",
  "CIPHERTEXT_HASH_MISMATCH",
  "ACCESS_MALFORMED",
  "ACCESS_CHUNK_MISMATCH",
  "ACCESS_WRONG_RECIPIENT",
  "ACCESS_UNWRAP_FAILED",
  "KEY_COMMITMENT_MISMATCH",
  "DECRYPTION_FAILED",
  "PLAINTEXT_HASH_MISMATCH",
  "ENVELOPE_MALFORMED",
  "ENVELOPE_PAYLOAD_HASH_MISMATCH",
  "ENVELOPE_SIGNATURE_INVALID",
] as const;

export type StreamFormatErrorCode = (typeof STREAM_FORMAT_ERROR_CODES)[number];

export class StreamFormatError extends Error {
  override readonly name = "StreamFormatError";
  constructor(
    readonly code: StreamFormatErrorCode,
    message: string,
    /** Position of the offending chunk in the list checked, when there is one. */
    readonly chunkIndex?: number,
  ) {
    super(`${code}: ${message}`);
  }
}
