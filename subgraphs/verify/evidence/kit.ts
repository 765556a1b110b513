/**
 * Integrator kit: turns a challenge, the chip's leaf certificate and two signatures into the canonical evidence file.
 *
 * The steps mirror the machine-side pipeline so a real secure element can sign its own prehash:
 *   prepare(challenge, leaf)            -> transcript, chipRef, 32-byte prehash
 *   chip signs prehash (no rehash)      -> normalizeChipSignature(prepared, raw64 | DER)
 *   controllerMessage(prepared, sig)    -> text the DID controller signs once with EIP-191 (personal_sign)
 *   finalize(prepared, sig, ctrlSig)    -> evidence file text (RFC 8785 canonical)
 * `buildEvidenceWithSigners` chains the steps around two callbacks; `buildEvidence` does it with local keys.
 * Every step throws `EvidenceKitError` on bad input, so a broken file is caught before it burns a challenge.
 */
import { createPrivateKey } from "node:crypto";
import canonicalize from "canonicalize";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { Wallet } from "ethers";
import { bigIntToBytes, bytesToBigInt, fromBase64url, fromHex, toBase64url, toHex } from "./encoding.js";
import {
  CONTROLLER_PROOF_SCHEME,
  REVOCATION_STATUS,
  addressOfPublicKey,
  certificateFingerprint,
  chipPrehash,
  chipRef,
  controllerMessage as formatControllerMessage,
  decodeChipSignature,
  decodeControllerSignature,
  eip191Digest,
  encodeChipSignature,
  evidenceSchemaFor,
  sameAddress,
  stripEcdsaSequence,
  trustBundleFor,
} from "./format.js";
import { MAX_EVIDENCE_BYTES } from "./parse.js";
import { MAX_LEAF_DER_BYTES, validateChallengeShape, type ChipChallenge, type EvidenceFile, type EvidenceTranscript } from "./schema.js";
import { parseCertificate, p256PublicKey } from "./trust.js";

export class EvidenceKitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvidenceKitError";
  }
}

export interface PreparedProof {
  challenge: ChipChallenge;
  leafDer: Uint8Array;
  /** 65-byte uncompressed P-256 point of the leaf. */
  publicKey: Uint8Array;
  chipRef: string;
  transcript: EvidenceTranscript;
  /** The 32 bytes the chip signs as they are. */
  prehash: Uint8Array;
}

/** Signs the 32-byte prehash without hashing again; returns r||s (64 bytes) or DER (SEQUENCE or bare INTEGERs). */
export type ChipSigner = (prehash: Uint8Array) => Promise<Uint8Array>;
/** Signs the message once as an EIP-191 personal message; returns `0x` + 65 bytes r||s||v (v 27/28). */
export type ControllerSigner = (message: string) => Promise<string>;

/** Step 1: bind the challenge to the leaf certificate (PEM text or DER bytes). */
export function prepare(challenge: ChipChallenge, leafCertificate: string | Uint8Array): PreparedProof {
  const shape = validateChallengeShape(challenge);
  if (!shape.ok) throw new EvidenceKitError(`challenge is malformed (${shape.reason})`);
  const leafDer = typeof leafCertificate === "string" ? pemToDer(leafCertificate, "CERTIFICATE") : leafCertificate;
  if (leafDer.length === 0 || leafDer.length > MAX_LEAF_DER_BYTES) {
    throw new EvidenceKitError(`leaf certificate must be 1..${MAX_LEAF_DER_BYTES} DER bytes`);
  }
  const cert = parseCertificate(leafDer);
  if (!cert) throw new EvidenceKitError("leaf certificate is not DER");
  const publicKey = p256PublicKey(cert);
  if (!publicKey) throw new EvidenceKitError("leaf certificate key is not EC P-256");

  const transcript: EvidenceTranscript = {
    chainId: challenge.chainId,
    didController: challenge.didController,
    expiresAt: challenge.expiresAt,
    machineDid: challenge.machineDid,
    machineId: challenge.machineId,
    nonce: challenge.nonce,
    profile: challenge.profile,
    protocol: challenge.protocol,
    verifier: challenge.verifier,
    certificateFingerprintSha256: certificateFingerprint(leafDer),
  };
  const ref = chipRef(challenge.protocol, publicKey);
  return { challenge: { ...challenge }, leafDer, publicKey, chipRef: ref, transcript, prehash: chipPrehash(transcript, ref) };
}

/**
 * Step 2: bring the chip's signature into the evidence form (two minimal DER INTEGERs) and check it against the
 * leaf key. Accepts raw r||s, a DER SEQUENCE, or the bare INTEGER pair; a 64-byte value that also parses as DER is
 * disambiguated by which reading verifies.
 */
export function normalizeChipSignature(prepared: PreparedProof, signature: Uint8Array): Uint8Array {
  const readings: { r: bigint; s: bigint }[] = [];
  if (signature.length === 64) {
    readings.push({ r: bytesToBigInt(signature.subarray(0, 32)), s: bytesToBigInt(signature.subarray(32)) });
  }
  const der = decodeChipSignature(stripEcdsaSequence(signature) ?? signature);
  if (der) readings.push(der);
  for (const scalars of readings) {
    const compact = new Uint8Array([...bigIntToBytes(scalars.r, 32), ...bigIntToBytes(scalars.s, 32)]);
    const verifies =
      scalars.r > 0n &&
      scalars.s > 0n &&
      p256.verify(compact, prepared.prehash, prepared.publicKey, { prehash: false, lowS: false });
    if (verifies) return encodeChipSignature(scalars);
  }
  throw new EvidenceKitError("chip signature does not verify under the leaf key over the prehash");
}

/** Step 3: the text the DID controller signs. `chipSignature` is the output of `normalizeChipSignature`. */
export function controllerMessage(prepared: PreparedProof, chipSignature: Uint8Array): string {
  return formatControllerMessage({
    transcript: prepared.transcript,
    chipRef: prepared.chipRef,
    prehash: prepared.prehash,
    chipSignature,
  });
}

/** Step 4: assemble the canonical evidence file. Checks the controller signature against the challenge first. */
export function finalize(prepared: PreparedProof, chipSignature: Uint8Array, controllerSignature: string): string {
  const sigBytes = fromHex(controllerSignature.toLowerCase());
  const parts = sigBytes && decodeControllerSignature(sigBytes);
  if (!sigBytes || !parts) throw new EvidenceKitError("controller signature must be 65 bytes r||s||v, v 27/28, low s");
  const digest = eip191Digest(controllerMessage(prepared, chipSignature));
  const signer = new secp256k1.Signature(parts.r, parts.s).addRecoveryBit(parts.recovery).recoverPublicKey(digest);
  if (!sameAddress(addressOfPublicKey(signer.toBytes(false)), prepared.challenge.didController)) {
    throw new EvidenceKitError("controller signature is not from the challenge's DID controller");
  }
  const evidence: EvidenceFile = {
    certificate: {
      fingerprintSha256: prepared.transcript.certificateFingerprintSha256,
      leafDerBase64url: toBase64url(prepared.leafDer),
      publicKey: toHex(prepared.publicKey),
    },
    chipRef: prepared.chipRef,
    controllerProof: { scheme: CONTROLLER_PROOF_SCHEME, signature: toHex(sigBytes) },
    evidenceSchema: evidenceSchemaFor(prepared.challenge.verifier),
    profile: prepared.challenge.profile,
    proof: { chipSignature: toHex(chipSignature) },
    revocationStatus: REVOCATION_STATUS,
    transcript: prepared.transcript,
    trustBundle: trustBundleFor(prepared.challenge.profile),
  };
  const text = canonicalize(evidence)!;
  if (Buffer.byteLength(text) > MAX_EVIDENCE_BYTES) throw new EvidenceKitError("evidence file exceeds 16384 bytes");
  return text;
}

/** All four steps around a chip signer and a controller signer (e.g. a secure element and a wallet). */
export async function buildEvidenceWithSigners(input: {
  challenge: ChipChallenge;
  leafCertificate: string | Uint8Array;
  signChip: ChipSigner;
  signController: ControllerSigner;
}): Promise<string> {
  const prepared = prepare(input.challenge, input.leafCertificate);
  const chipSignature = normalizeChipSignature(prepared, await input.signChip(prepared.prehash));
  const controllerSignature = await input.signController(controllerMessage(prepared, chipSignature));
  return finalize(prepared, chipSignature, controllerSignature);
}

/** All four steps with local keys: the chip's PKCS#8 PEM (P-256) and the controller's `0x` secp256k1 key. */
export function buildEvidence(input: {
  challenge: ChipChallenge;
  leafCertPem: string;
  chipPrivateKeyPem: string;
  controllerPrivateKey: string;
}): string {
  const prepared = prepare(input.challenge, input.leafCertPem);
  const chipSignature = normalizeChipSignature(prepared, signPrehash(input.chipPrivateKeyPem, prepared.prehash));
  const wallet = new Wallet(input.controllerPrivateKey);
  const controllerSignature = wallet.signMessageSync(controllerMessage(prepared, chipSignature));
  return finalize(prepared, chipSignature, controllerSignature);
}

/** ECDSA P-256 over the prehash as the digest (RFC 6979 nonces, so the output is reproducible). Returns r||s. */
export function signPrehash(chipPrivateKeyPem: string, prehash: Uint8Array): Uint8Array {
  const jwk = createPrivateKey(chipPrivateKeyPem).export({ format: "jwk" });
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d) throw new EvidenceKitError("chip key must be EC P-256");
  const secret = fromBase64url(jwk.d);
  if (!secret) throw new EvidenceKitError("chip key is unreadable");
  return p256.sign(prehash, secret, { prehash: false, lowS: false });
}

function pemToDer(pem: string, label: string): Uint8Array {
  const match = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`).exec(pem);
  if (!match) throw new EvidenceKitError(`no ${label} PEM block`);
  return new Uint8Array(Buffer.from(match[1].replace(/\s+/g, ""), "base64"));
}
