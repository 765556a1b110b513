/**
 * The parts evidence-mutations.ts builds its mutants from: the tables of members each mutation class edits (lexical
 * breaks, fixed values, transcript changes, swappable pairs), a seeded random source, and the byte, text, JSON and DER
 * helpers the classes share.
 */
import { toHex } from "../../../subgraphs/verify/evidence/encoding.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ---------------------------------------------------------------------------------------------------------------
// Field tables

export const LEXICAL_BREAKS: [string, (value: string, rng: Rng) => string][] = [
  ...["transcript.nonce", "chipRef", "certificate.fingerprintSha256", "transcript.certificateFingerprintSha256"].map(
    (path): [string, (v: string, rng: Rng) => string] => [
      path,
      (v, rng) => rng.pick([v.toUpperCase().replace("0X", "0x"), v.slice(2), v + "00", v.slice(0, -2), `0X${v.slice(2)}`, ""]),
    ],
  ),
  ["certificate.publicKey", (v, rng) => rng.pick([v.replace(/^0x04/, "0x02").slice(0, 68), v.toUpperCase().replace("0X", "0x"), v.slice(0, -2)])],
  [
    "certificate.leafDerBase64url",
    // Padding, a foreign character, an impossible length, empty, and a canonical spelling of more than 1300 bytes.
    (v, rng) => rng.pick([v + "=", v.replace(/-|_/, "+"), v + "!", "", "A".repeat(1400) + v.slice(v.length % 4)]),
  ],
  ["proof.chipSignature", (v, rng) => rng.pick([v.slice(2), v + "0", v.toUpperCase().replace("0X", "0x"), "0x", "0x" + "00".repeat(81)])],
  ["controllerProof.signature", (v, rng) => rng.pick([v.slice(0, -2), v + "1b", v.slice(2), v.toUpperCase().replace("0X", "0x")])],
  ["transcript.machineId", (v, rng) => rng.pick(["0" + v, "-" + v, v + " ", "0", "", "1".padEnd(80, "0")])],
  ["transcript.chainId", (v, rng) => rng.pick(["0" + v, "0x" + Number(v).toString(16), v + ".0", ""])],
  ["transcript.expiresAt", (v, rng) => rng.pick(["0" + v, v + ".5", "-1", `${v}000000000000`, ""])],
  ["transcript.didController", (v, rng) => rng.pick([v.slice(2), v.slice(0, -1), v + "0", `0X${v.slice(2)}`])],
  ["transcript.machineDid", (v, rng) => rng.pick([v.replace("did:", "DID:"), v + " ", v + "\n", "did::1", ""])],
  ["evidenceSchema", (v, rng) => rng.pick([v + " ", "", " " + v, v + "\u00e9"])],
  ["controllerProof.scheme", (v, rng) => rng.pick([v + "\n", "", "eip191 secp256k1"])],
];

export const FIXED_VALUE_PATHS = [
  "evidenceSchema",
  "profile",
  "trustBundle",
  "revocationStatus",
  "controllerProof.scheme",
  "transcript.profile",
  "transcript.protocol",
  "transcript.verifier",
];

export const TRANSCRIPT_CHANGES: Record<string, (value: string, rng: Rng) => string> = {
  nonce: (v, rng) => flipHexDigit(v, rng),
  certificateFingerprintSha256: (v, rng) => flipHexDigit(v, rng),
  machineId: (v) => (BigInt(v) + 1n).toString(),
  chainId: (v) => (v === "1" ? "10" : "1"),
  expiresAt: (v, rng) => String(Number(v) + rng.pick([1, -1, 300, 3600])),
  didController: (v, rng) => rng.pick([v.toLowerCase() === v ? v.toUpperCase().replace("0X", "0x") : v.toLowerCase(), flipHexDigit(v.toLowerCase(), rng)]),
  machineDid: (v) => v.replace(/:(\d+)$/, (_, id: string) => `:${BigInt(id) + 1n}`),
};

/** Pairs of members with the same lexical form, so a swap passes the shape layer and must be caught by a check. */
export const SWAPPABLE: [string, string][] = [
  ["chipRef", "certificate.fingerprintSha256"],
  ["chipRef", "transcript.nonce"],
  ["transcript.nonce", "transcript.certificateFingerprintSha256"],
  ["transcript.machineId", "transcript.chainId"],
  ["evidenceSchema", "profile"],
  ["profile", "trustBundle"],
  ["transcript.protocol", "transcript.verifier"],
];

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** mulberry32: small, fast, and the same sequence on every platform. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

export function splice(bytes: Uint8Array, at: number, remove: number, insert: number[]): Uint8Array {
  return new Uint8Array([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at + remove)]);
}

export function indexesOf(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => m.index!);
}

/** Which characters of canonical JSON text lie inside string literals (evidence strings hold no `\"`). */
export function stringMask(text: string): boolean[] {
  const mask: boolean[] = [];
  let inside = false;
  for (const ch of text) {
    if (ch === '"') inside = !inside;
    mask.push(inside && ch !== '"');
  }
  return mask;
}

export function objectsIn(root: JsonObject): JsonObject[] {
  const out = [root];
  for (const value of Object.values(root)) {
    if (value && typeof value === "object" && !Array.isArray(value)) out.push(...objectsIn(value));
  }
  return out;
}

/** Every (holder, key) pair at every level. */
export function memberSlots(root: JsonObject): [JsonObject, string][] {
  return objectsIn(root).flatMap((holder) => Object.keys(holder).map((key): [JsonObject, string] => [holder, key]));
}

export function scalarSlots(root: JsonObject): [JsonObject, string][] {
  return memberSlots(root).filter(([holder, key]) => typeof holder[key] === "string");
}

export function resolve(root: JsonObject, path: string): [JsonObject, string] {
  const parts = path.split(".");
  let holder = root;
  for (const part of parts.slice(0, -1)) holder = holder[part] as JsonObject;
  return [holder, parts[parts.length - 1]];
}

/** JSON without whitespace in the objects' own insertion order (i.e. not canonical when that order is not sorted). */
export function serializeInOrder(value: Json): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(serializeInOrder).join(",")}]`;
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${serializeInOrder(v)}`).join(",")}}`;
}

export function flipHexDigit(hex: string, rng: Rng): string {
  const at = 2 + rng.int(hex.length - 2);
  const digit = parseInt(hex[at], 16);
  return hex.slice(0, at) + ((digit + 1 + rng.int(15)) % 16).toString(16) + hex.slice(at + 1);
}

export function fixed32(value: bigint): Uint8Array {
  return new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));
}

export function derInteger(value: bigint, extraZero = false): number[] {
  let body = [...Buffer.from(value.toString(16).padStart(Math.ceil(value.toString(16).length / 2) * 2, "0"), "hex")];
  if (body[0] >= 0x80 || extraZero) body = [0, ...body];
  return [0x02, body.length, ...body];
}

export function integerPair(r: bigint, s: bigint, extraZeroOnR = false): Uint8Array {
  return new Uint8Array([...derInteger(r, extraZeroOnR), ...derInteger(s)]);
}

export function readIntegerPair(bytes: Uint8Array): { r: bigint; s: bigint } {
  const rLength = bytes[1];
  const r = BigInt(toHex(bytes.subarray(2, 2 + rLength)));
  const s = BigInt(toHex(bytes.subarray(4 + rLength)));
  return { r, s };
}
