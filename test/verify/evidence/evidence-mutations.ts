/**
 * Deterministic mutation generator over a valid evidence file, for in-process and HTTP fuzz tests.
 *
 * Each mutant carries its class and the error class it must produce:
 * - INVALID_REQUEST: the bytes are not a canonical, well-shaped evidence file; the challenge must stay unconsumed.
 * - EVIDENCE_REJECTED: a canonical, well-shaped file whose checks fail; final for the challenge.
 * - EITHER: blind byte edits, which may land on either side of that line. Never accepted, though.
 * Structural and semantic mutants are re-serialised canonically, so they reach the layer they are meant to test
 * instead of failing early on the canonical-bytes rule.
 */
import canonicalize from "canonicalize";
import { fromHex, toBase64url, toHex } from "../../../subgraphs/verify/evidence/encoding.js";
import { certificateFingerprint, chipRef } from "../../../subgraphs/verify/evidence/format.js";
import { parseCertificate, p256PublicKey } from "../../../subgraphs/verify/evidence/trust.js";
import { FIXED_VALUE_PATHS, LEXICAL_BREAKS, Rng, SWAPPABLE, TRANSCRIPT_CHANGES, fixed32, indexesOf, integerPair, memberSlots, objectsIn, readIntegerPair, resolve, scalarSlots, serializeInOrder, splice, stringMask, type Json, type JsonObject } from "./evidence-mutation-parts.js";

export type ExpectedOutcome = "INVALID_REQUEST" | "EVIDENCE_REJECTED" | "EITHER";

export interface EvidenceMutant {
  /** Position in the generated list; with the seed it reproduces the mutant. */
  index: number;
  mutationClass: string;
  description: string;
  body: Uint8Array;
  expected: ExpectedOutcome;
}

export interface MutationOptions {
  count: number;
  seed: number;
  /** Certificates that must never be accepted in place of the real leaf (other chain, self-signed, CA, expired). */
  foreignLeaves?: { label: string; der: Uint8Array }[];
}

type Outcome = { description: string; body: Uint8Array | string; expected: ExpectedOutcome } | null;
type Mutation = (m: MutationInput) => Outcome;

interface MutationInput {
  text: string;
  bytes: Uint8Array;
  rng: Rng;
  /** A fresh deep copy of the evidence object for each call. */
  object: () => JsonObject;
  /** inString[i]: character i of `text` is inside a string literal. */
  inString: boolean[];
  foreignLeaves: { label: string; der: Uint8Array }[];
}

const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Generate `count` distinct-from-original mutants, cycling through every mutation class for even coverage. */
export function generateEvidenceMutants(validEvidence: string, options: MutationOptions): EvidenceMutant[] {
  const rng = new Rng(options.seed);
  const original = JSON.parse(validEvidence) as JsonObject;
  const input: MutationInput = {
    text: validEvidence,
    bytes: new TextEncoder().encode(validEvidence),
    rng,
    object: () => structuredClone(original),
    inString: stringMask(validEvidence),
    foreignLeaves: options.foreignLeaves ?? [],
  };
  const classes = Object.entries(MUTATIONS);
  const mutants: EvidenceMutant[] = [];
  for (let attempt = 0; mutants.length < options.count && attempt < options.count * 20; attempt++) {
    const [mutationClass, mutate] = classes[attempt % classes.length];
    const outcome = mutate(input);
    if (!outcome) continue;
    const body = typeof outcome.body === "string" ? new TextEncoder().encode(outcome.body) : outcome.body;
    if (Buffer.from(body).equals(Buffer.from(input.bytes))) continue; // a no-op edit is not a mutant
    mutants.push({ index: mutants.length, mutationClass, description: outcome.description, body, expected: outcome.expected });
  }
  return mutants;
}

// ---------------------------------------------------------------------------------------------------------------
// Mutation classes

const MUTATIONS: Record<string, Mutation> = {
  // Blind byte edits.
  byteFlip: ({ bytes, rng }) => {
    const at = rng.int(bytes.length);
    const out = bytes.slice();
    out[at] ^= 1 + rng.int(255);
    return { description: `byte ${at} xor`, body: out, expected: "EITHER" };
  },
  byteInsert: ({ bytes, rng }) => {
    const at = rng.int(bytes.length + 1);
    const value = rng.pick([rng.int(256), 0x30 + rng.int(10), 0x61 + rng.int(6), 0x41 + rng.int(26)]);
    return { description: `insert 0x${value.toString(16)} at ${at}`, body: splice(bytes, at, 0, [value]), expected: "EITHER" };
  },
  byteDelete: ({ bytes, rng }) => {
    const at = rng.int(bytes.length);
    return { description: `delete byte ${at}`, body: splice(bytes, at, 1, []), expected: "EITHER" };
  },
  truncate: ({ bytes, rng }) => {
    const at = rng.int(bytes.length);
    return { description: `truncate at ${at}`, body: bytes.slice(0, at), expected: "INVALID_REQUEST" };
  },

  // Canonical-form violations.
  whitespace: ({ text, rng, inString }) => {
    const spots = indexesOf(text, /[,:{[]/g).filter((i) => !inString[i]);
    const at = rng.pick(spots) + 1;
    const ws = rng.pick([" ", "\n", "\t", "\r\n", "  "]);
    return { description: `whitespace at ${at}`, body: text.slice(0, at) + ws + text.slice(at), expected: "INVALID_REQUEST" };
  },
  prettyPrint: ({ object, rng }) => {
    const indent = rng.pick([1, 2, 4, "\t"]);
    return { description: `pretty ${JSON.stringify(indent)}`, body: JSON.stringify(object(), null, indent), expected: "INVALID_REQUEST" };
  },
  keyReorder: ({ object, rng }) => {
    const root = object();
    const holders = objectsIn(root);
    const target = rng.pick(holders);
    const keys = Object.keys(target);
    const shuffled = rng.shuffle(keys.slice());
    if (shuffled.every((k, i) => k === keys[i])) shuffled.reverse();
    const reordered = Object.fromEntries(shuffled.map((k) => [k, target[k]]));
    for (const k of keys) delete target[k];
    Object.assign(target, reordered);
    return { description: "member order", body: serializeInOrder(root), expected: "INVALID_REQUEST" };
  },
  needlessEscape: ({ text, rng, inString }) => {
    const spots = indexesOf(text, /[A-Za-z0-9/]/g).filter((i) => inString[i]);
    const at = rng.pick(spots);
    const ch = text[at];
    const hex = ch.charCodeAt(0).toString(16).padStart(4, "0");
    const escape = ch === "/" && rng.int(2) === 0 ? "\\/" : `\\u${rng.int(2) ? hex : hex.toUpperCase()}`;
    return { description: `escape '${ch}' at ${at}`, body: text.slice(0, at) + escape + text.slice(at + 1), expected: "INVALID_REQUEST" };
  },
  numberForm: ({ object, rng }) => {
    const root = object();
    const [holder, key] = rng.pick(scalarSlots(root));
    const form = rng.pick(["1", "0", "-0", "1.0", "1e0", "1E+0", "01", "0.10", "42", "3338", "1e400"]);
    holder[key] = 0; // placeholder, replaced textually so the number keeps its exact spelling
    const body = canonicalize(root)!.replace(`${JSON.stringify(key)}:0`, `${JSON.stringify(key)}:${form}`);
    return { description: `${key} as number ${form}`, body, expected: "INVALID_REQUEST" };
  },
  byteOrderMark: ({ bytes }) => ({ description: "BOM", body: new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]), expected: "INVALID_REQUEST" }),
  trailingNewline: ({ text, rng }) => {
    const tail = rng.pick(["\n", "\r\n", " ", "\t", "\n\n"]);
    return { description: `trailing ${JSON.stringify(tail)}`, body: text + tail, expected: "INVALID_REQUEST" };
  },
  leadingWhitespace: ({ text, rng }) => ({ description: "leading whitespace", body: rng.pick([" ", "\n", "\t"]) + text, expected: "INVALID_REQUEST" }),
  duplicateKey: ({ object, rng }) => {
    const root = object();
    const [holder, key] = rng.pick(memberSlots(root));
    const sameValue = rng.int(2) === 0;
    const duplicate = JSON.stringify(key) + ":" + canonicalize(sameValue ? holder[key] : "x")!;
    // Emit the holder with the member written twice; canonicalize cannot express that, so splice the text.
    const marker = "\u0000dup\u0000";
    holder[marker] = 0;
    const body = canonicalize(root)!.replace(`${JSON.stringify(marker)}:0`, duplicate);
    return { description: `duplicate ${key}${sameValue ? "" : " (other value)"}`, body, expected: "INVALID_REQUEST" };
  },
  invalidUtf8: ({ text, rng, inString }) => {
    const spots = indexesOf(text, /[A-Za-z0-9]/g).filter((i) => inString[i]);
    const at = Buffer.byteLength(text.slice(0, rng.pick(spots)));
    const bad = rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xe2, 0x82]]);
    const bytes = new TextEncoder().encode(text);
    return { description: `invalid UTF-8 at ${at}`, body: splice(bytes, at, 0, bad), expected: "INVALID_REQUEST" };
  },
  wrapped: ({ object, rng }) => {
    const root = object();
    const body = rng.pick([canonicalize([root])!, canonicalize({ evidence: root })!, JSON.stringify(canonicalize(root))]);
    return { description: "wrapped", body, expected: "INVALID_REQUEST" };
  },
  oversize: ({ object }) => {
    const root = object();
    root.zzPadding = "a".repeat(17_000);
    return { description: "over 16384 bytes", body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },

  // Structural violations, canonical bytes.
  memberRemoved: ({ object, rng }) => {
    const root = object();
    const [holder, key] = rng.pick(memberSlots(root));
    delete holder[key];
    return { description: `remove ${key}`, body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },
  memberAdded: ({ object, rng }) => {
    const root = object();
    const holder = rng.pick(objectsIn(root));
    const name = rng.pick(["extra", "signature", "nonce", "__proto__", "constructor", "Nonce", "chipref", "a"]);
    if (Object.hasOwn(holder, name)) return null;
    Object.defineProperty(holder, name, { value: rng.pick<Json>(["x", "", null, 1, {}]), enumerable: true, writable: true, configurable: true });
    return { description: `add ${name}`, body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },
  memberNull: ({ object, rng }) => {
    const root = object();
    const [holder, key] = rng.pick(memberSlots(root));
    holder[key] = null;
    return { description: `${key} null`, body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },
  typeChange: ({ object, rng }) => {
    const root = object();
    const [holder, key] = rng.pick(memberSlots(root));
    const current = holder[key];
    const replacement = rng.pick<Json>(
      typeof current === "string" ? [1, true, false, [current], { value: current }, []] : ["object", [], 0, true],
    );
    holder[key] = replacement;
    return { description: `${key} retyped`, body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },
  lexicalForm: ({ object, rng }) => {
    const root = object();
    const [path, breakIt] = rng.pick(LEXICAL_BREAKS);
    const [holder, key] = resolve(root, path);
    holder[key] = breakIt(holder[key] as string, rng);
    return { description: `${path} lexical`, body: canonicalize(root)!, expected: "INVALID_REQUEST" };
  },

  // Semantic violations: canonical and well shaped, a check must fail.
  fixedValue: ({ object, rng }) => {
    const root = object();
    const path = rng.pick(FIXED_VALUE_PATHS);
    const [holder, key] = resolve(root, path);
    const value = holder[key] as string;
    holder[key] = rng.pick([value.replace(/\/1$/, "/2"), value + "x", value.toUpperCase() === value ? "x" + value : value.toUpperCase(), "other"]);
    return { description: `${path} changed`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  transcriptValue: ({ object, rng }) => {
    const root = object();
    const t = root.transcript as JsonObject;
    const field = rng.pick(Object.keys(TRANSCRIPT_CHANGES));
    t[field] = TRANSCRIPT_CHANGES[field](t[field] as string, rng);
    return { description: `transcript.${field} changed`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  swappedValues: ({ object, rng }) => {
    const root = object();
    const [a, b] = rng.pick(SWAPPABLE);
    const [ha, ka] = resolve(root, a);
    const [hb, kb] = resolve(root, b);
    [ha[ka], hb[kb]] = [hb[kb], ha[ka]];
    return { description: `swap ${a} <-> ${b}`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  chipSignatureBitFlip: ({ object, rng }) => {
    const root = object();
    const proof = root.proof as JsonObject;
    const sig = fromHex(proof.chipSignature as string)!;
    const bit = rng.int(sig.length * 8);
    sig[bit >> 3] ^= 1 << (bit & 7);
    proof.chipSignature = toHex(sig);
    return { description: `chip signature bit ${bit}`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  chipSignatureReencoded: ({ object, rng }) => {
    const root = object();
    const proof = root.proof as JsonObject;
    const { r, s } = readIntegerPair(fromHex(proof.chipSignature as string)!);
    const variant = rng.pick(["high-s", "leading-zero", "raw", "sequence", "swapped"] as const);
    const encoded = {
      "high-s": () => integerPair(r, P256_N - s),
      "leading-zero": () => integerPair(r, s, true),
      raw: () => new Uint8Array([...fixed32(r), ...fixed32(s)]),
      sequence: () => {
        const pair = integerPair(r, s);
        return new Uint8Array([0x30, pair.length, ...pair]);
      },
      swapped: () => integerPair(s, r),
    }[variant]();
    proof.chipSignature = toHex(encoded);
    return { description: `chip signature ${variant}`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  controllerSignature: ({ object, rng }) => {
    const root = object();
    const proof = root.controllerProof as JsonObject;
    const sig = fromHex(proof.signature as string)!;
    const variant = rng.pick(["bit-flip", "v-0-1", "v-flip", "high-s", "zero-r", "v-29"] as const);
    if (variant === "bit-flip") {
      const bit = rng.int(sig.length * 8);
      sig[bit >> 3] ^= 1 << (bit & 7);
    } else if (variant === "v-0-1") sig[64] -= 27;
    else if (variant === "v-flip") sig[64] = sig[64] === 27 ? 28 : 27;
    else if (variant === "v-29") sig[64] = 29;
    else if (variant === "zero-r") sig.fill(0, 0, 32);
    else {
      // (r, n - s) with the other recovery bit recovers the same key: valid math, refused by the low-s rule.
      sig.set(fixed32(SECP256K1_N - BigInt(toHex(sig.subarray(32, 64)))), 32);
      sig[64] = sig[64] === 27 ? 28 : 27;
    }
    proof.signature = toHex(sig);
    return { description: `controller signature ${variant}`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
  foreignCertificate: ({ object, rng, foreignLeaves }) => {
    if (foreignLeaves.length === 0) return null;
    const root = object();
    const donor = rng.pick(foreignLeaves);
    const certificate = root.certificate as JsonObject;
    certificate.leafDerBase64url = toBase64url(donor.der);
    // Half the time make every derived value consistent with the donor, so only the chain or a signature can fail.
    const consistent = rng.int(2) === 0;
    if (consistent) {
      const fingerprint = certificateFingerprint(donor.der);
      certificate.fingerprintSha256 = fingerprint;
      (root.transcript as JsonObject).certificateFingerprintSha256 = fingerprint;
      const cert = parseCertificate(donor.der);
      const point = cert && p256PublicKey(cert);
      if (point) {
        certificate.publicKey = toHex(point);
        root.chipRef = chipRef((root.transcript as JsonObject).protocol as string, point);
      }
    }
    return { description: `leaf from ${donor.label}${consistent ? " (consistent)" : ""}`, body: canonicalize(root)!, expected: "EVIDENCE_REJECTED" };
  },
};

/** Every mutation class name, for coverage assertions. */
export const MUTATION_CLASSES = Object.keys(MUTATIONS);
