/**
 * The stream event envelope `peaqos-stream-envelope@v1`: one signed machine message. `payloadHash` is sha256 of the
 * canonical JSON of the payload; `payloadRef` is "inline" when the payload travels in the envelope and "hash-only"
 * when it does not; the Ed25519 signature covers the canonical JSON of the envelope without `signature`.
 */
import { ed25519Sign, ed25519Verify } from "./primitives.js";
import { canonicalBytes, fromHex, isHash, sha256Tag, toHex } from "./encoding.js";
import { StreamFormatError } from "./errors.js";

export const ENVELOPE_SCHEMA = "peaqos-stream-envelope@v1";

export interface EnvelopeFields {
  machineId: string;
  agentId: string;
  identityRef: string;
  topic: string;
  messageType: string;
  policyId: string;
  policyVersion: number;
  sequenceNumber: number;
  timestamps: { sourceTimestamp: string; agentReceivedAt: string; signedAt: string };
}

export interface StreamEnvelope extends EnvelopeFields {
  schemaVersion: typeof ENVELOPE_SCHEMA;
  payloadHash: string;
  payloadRef: "inline" | "hash-only";
  payload?: unknown;
  signature: { keyId: string; algorithm: "ed25519"; value: string };
}

export const payloadHash = (payload: unknown): string => sha256Tag(canonicalBytes(payload));

export function signEnvelope(
  fields: EnvelopeFields,
  payload: unknown,
  signer: { keyId: string; secretKey: Uint8Array },
  options: { inline?: boolean } = {},
): StreamEnvelope {
  const inline = options.inline ?? true;
  const unsigned = {
    ...fields,
    schemaVersion: ENVELOPE_SCHEMA as typeof ENVELOPE_SCHEMA,
    payloadHash: payloadHash(payload),
    payloadRef: inline ? ("inline" as const) : ("hash-only" as const),
    ...(inline ? { payload } : {}),
  };
  const value = toHex(ed25519Sign(canonicalBytes(unsigned), signer.secretKey));
  return { ...unsigned, signature: { keyId: signer.keyId, algorithm: "ed25519", value } };
}

const TEXT_FIELDS = ["machineId", "agentId", "identityRef", "topic", "messageType", "policyId"] as const;
const TIMESTAMPS = ["sourceTimestamp", "agentReceivedAt", "signedAt"] as const;

/** Shape, payload hash (when inlined) and signature against the public key registered for `signature.keyId`. */
export function verifyEnvelope(value: unknown, publicKeyFor: (keyId: string) => Uint8Array | undefined): StreamEnvelope {
  const fail = (why: string): never => { throw new StreamFormatError("ENVELOPE_MALFORMED", why); };
  const e = value as StreamEnvelope;
  if (typeof e !== "object" || e === null || Array.isArray(e)) return fail("an envelope is a JSON object");
  if (e.schemaVersion !== ENVELOPE_SCHEMA) fail(`schemaVersion is not ${ENVELOPE_SCHEMA}`);
  if (!TEXT_FIELDS.every((k) => typeof e[k] === "string" && e[k].length > 0 && e[k].length <= 512)) fail("a text member is missing");
  if (!Number.isSafeInteger(e.policyVersion) || !Number.isSafeInteger(e.sequenceNumber) || e.sequenceNumber < 0) fail("policyVersion or sequenceNumber is not an integer");
  if (typeof e.timestamps !== "object" || e.timestamps === null || !TIMESTAMPS.every((k) => typeof e.timestamps[k] === "string" && !Number.isNaN(Date.parse(e.timestamps[k])))) {
    fail("timestamps malformed");
  }
  if (!isHash(e.payloadHash) || (e.payloadRef !== "inline" && e.payloadRef !== "hash-only")) fail("payloadHash or payloadRef malformed");
  if ((e.payloadRef === "inline") !== ("payload" in e)) fail("payload present without payloadRef inline, or missing with it");
  const sig = e.signature;
  if (typeof sig !== "object" || sig === null || sig.algorithm !== "ed25519" || typeof sig.keyId !== "string" || !fromHex(sig.value, 64)) fail("signature malformed");
  if (e.payloadRef === "inline" && payloadHash(e.payload) !== e.payloadHash) {
    throw new StreamFormatError("ENVELOPE_PAYLOAD_HASH_MISMATCH", "the payload does not hash to payloadHash");
  }
  const publicKey = publicKeyFor(sig.keyId);
  const { signature: _sig, ...unsigned } = e;
  if (!publicKey) throw new StreamFormatError("SIGNER_UNKNOWN", `key ${sig.keyId} is not registered for ${e.machineId}`);
  if (!ed25519Verify(canonicalBytes(unsigned), fromHex(sig.value, 64)!, publicKey)) {
    throw new StreamFormatError("ENVELOPE_SIGNATURE_INVALID", `the signature does not verify with key ${sig.keyId}`);
  }
  return e;
}
