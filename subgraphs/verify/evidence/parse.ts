/**
 * From request bytes to a typed evidence file: the whole INVALID_REQUEST layer in one call. A failure here never
 * consumes the challenge.
 */
import { InvalidJsonError, parseCanonicalJson } from "../../shared/json/strict.js";
import { sha256, toHex } from "./encoding.js";
import { validateEvidenceShape, type EvidenceFile } from "./schema.js";

/** Spec limit for the evidence body. */
export const MAX_EVIDENCE_BYTES = 16_384;

export type EvidenceParseResult =
  | { ok: true; evidence: EvidenceFile; /** `0x` + SHA-256 of the bytes. */ evidenceHash: string }
  | { ok: false; reason: string };

export function parseEvidenceFile(body: Uint8Array): EvidenceParseResult {
  if (body.length > MAX_EVIDENCE_BYTES) return { ok: false, reason: "body: over 16384 bytes" };
  let value: unknown;
  try {
    value = parseCanonicalJson(body);
  } catch (error) {
    if (error instanceof InvalidJsonError) return { ok: false, reason: `json: ${error.message}` };
    throw error;
  }
  const shape = validateEvidenceShape(value);
  if (!shape.ok) return shape;
  return { ok: true, evidence: shape.evidence, evidenceHash: toHex(sha256(body)) };
}
