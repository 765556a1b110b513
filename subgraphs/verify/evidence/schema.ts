/**
 * Structural validation of a parsed evidence file: the INVALID_REQUEST layer.
 *
 * The line between the two error classes (docs/verify-evidence.md, "Error classes"): this module rejects what can be
 * seen from the JSON text alone without comparing it to anything - member sets, types and the lexical form of each
 * string (character set, prefix, length). Whatever needs a comparison or cryptography (fixed values, the challenge,
 * the chain, DER structures, curve points, signatures) is a check in check.ts and gives EVIDENCE_REJECTED.
 */

/** The nine challenge fields, as issued and stored. */
export interface ChipChallenge {
  chainId: string;
  didController: string;
  expiresAt: string;
  machineDid: string;
  machineId: string;
  nonce: string;
  profile: string;
  protocol: string;
  verifier: string;
}

export const CHALLENGE_FIELDS = [
  "chainId",
  "didController",
  "expiresAt",
  "machineDid",
  "machineId",
  "nonce",
  "profile",
  "protocol",
  "verifier",
] as const satisfies readonly (keyof ChipChallenge)[];

export interface EvidenceTranscript extends ChipChallenge {
  certificateFingerprintSha256: string;
}

export interface EvidenceFile {
  certificate: { fingerprintSha256: string; leafDerBase64url: string; publicKey: string };
  chipRef: string;
  controllerProof: { scheme: string; signature: string };
  evidenceSchema: string;
  profile: string;
  proof: { chipSignature: string };
  revocationStatus: string;
  transcript: EvidenceTranscript;
  trustBundle: string;
}

export type ShapeResult = { ok: true; evidence: EvidenceFile } | { ok: false; reason: string };

/** Largest leaf certificate the chip can hold (public notes: object 0xE0E0, at most 1300 bytes). */
export const MAX_LEAF_DER_BYTES = 1300;
/** Two DER INTEGERs of a P-256 signature never exceed 70 bytes; the format allows the vendor's 80. */
export const MAX_CHIP_SIGNATURE_BYTES = 80;

const HEX32 = /^0x[0-9a-f]{64}$/;
const CHIP_SIGNATURE_HEX = new RegExp(`^0x(?:[0-9a-f]{2}){1,${MAX_CHIP_SIGNATURE_BYTES}}$`);
const UINT256_MAX = (1n << 256n) - 1n;

/** Lexical rules; every value has already been checked to be a string. */
const lexical = {
  hash32: (v: string) => HEX32.test(v),
  nonce: (v: string) => HEX32.test(v),
  identifier: (v: string) => /^[!-~]{1,128}$/.test(v),
  machineId: (v: string) => /^[1-9][0-9]{0,77}$/.test(v) && BigInt(v) <= UINT256_MAX,
  chainId: (v: string) => /^[1-9][0-9]{0,77}$/.test(v),
  unixSeconds: (v: string) => /^(?:0|[1-9][0-9]{0,15})$/.test(v),
  address: (v: string) => /^0x[0-9a-fA-F]{40}$/.test(v),
  did: (v: string) => /^did:[a-z0-9]+:[!-~]{1,128}$/.test(v),
  uncompressedP256Point: (v: string) => /^0x04[0-9a-f]{128}$/.test(v),
  leafDer: (v: string) => isBase64urlOfLength(v, 1, MAX_LEAF_DER_BYTES),
  chipSignature: (v: string) => CHIP_SIGNATURE_HEX.test(v),
  controllerSignature: (v: string) => /^0x[0-9a-f]{130}$/.test(v),
} satisfies Record<string, (v: string) => boolean>;

type Rule = keyof typeof lexical;
type Shape = { [member: string]: Rule | Shape };

const TRANSCRIPT_SHAPE: Shape = {
  certificateFingerprintSha256: "hash32",
  chainId: "chainId",
  didController: "address",
  expiresAt: "unixSeconds",
  machineDid: "did",
  machineId: "machineId",
  nonce: "nonce",
  profile: "identifier",
  protocol: "identifier",
  verifier: "identifier",
};

const EVIDENCE_SHAPE: Shape = {
  certificate: { fingerprintSha256: "hash32", leafDerBase64url: "leafDer", publicKey: "uncompressedP256Point" },
  chipRef: "hash32",
  controllerProof: { scheme: "identifier", signature: "controllerSignature" },
  evidenceSchema: "identifier",
  profile: "identifier",
  proof: { chipSignature: "chipSignature" },
  revocationStatus: "identifier",
  transcript: TRANSCRIPT_SHAPE,
  trustBundle: "identifier",
};

/** Check member sets, types and lexical forms; the reason names the failing member path (internal use only). */
export function validateEvidenceShape(value: unknown): ShapeResult {
  const reason = shapeViolation(value, EVIDENCE_SHAPE, "evidence");
  return reason === null ? { ok: true, evidence: value as EvidenceFile } : { ok: false, reason };
}

/** The challenge as the kit receives it must obey the same lexical rules as the transcript copy of it. */
export function validateChallengeShape(value: unknown): { ok: true } | { ok: false; reason: string } {
  const { certificateFingerprintSha256: _, ...challengeShape } = TRANSCRIPT_SHAPE;
  const reason = shapeViolation(value, challengeShape, "challenge");
  return reason === null ? { ok: true } : { ok: false, reason };
}

function shapeViolation(value: unknown, shape: Shape, path: string): string | null {
  if (!isPlainObject(value)) return `${path}: not an object`;
  const expected = Object.keys(shape);
  const actual = Object.keys(value);
  for (const member of actual) if (!Object.hasOwn(shape, member)) return `${path}.${member}: unknown member`;
  for (const member of expected) if (!Object.hasOwn(value, member)) return `${path}.${member}: missing`;
  for (const member of expected) {
    const rule = shape[member];
    const child = value[member];
    const childPath = `${path}.${member}`;
    if (typeof rule === "object") {
      const nested = shapeViolation(child, rule, childPath);
      if (nested) return nested;
    } else if (typeof child !== "string") {
      return `${childPath}: not a string`;
    } else if (!lexical[rule](child)) {
      return `${childPath}: not a valid ${rule}`;
    }
  }
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isBase64urlOfLength(text: string, min: number, max: number): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return false;
  const bytes = Math.floor((text.length * 3) / 4);
  if (bytes < min || bytes > max) return false;
  // Canonical spelling: the unused low bits of the last character must be zero.
  return Buffer.from(text, "base64url").toString("base64url") === text;
}
