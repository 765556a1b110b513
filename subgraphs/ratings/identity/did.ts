/**
 * Path identifiers of document 2, per deployment (docs/ratings-api.md, "Identifiers").
 *
 * 1.0 read routes take `did:<method>:0x<40 hex>` or a raw `0x` address; 2.0 read routes take `did:<method>:<decimal>`
 * (address forms get 400 "Invalid machine DID format"). Operators are accounts on both: an address DID. Monetization
 * keys are a DID of the deployment's form or a canonical decimal machine ID; a raw address is 400 INVALID_REQUEST.
 */
import { addressOf } from "../../shared/address-did.js";
import { RatingsErrors } from "../errors.js";

export type Deployment = "v1" | "v2";

/** Canonical decimal below 2^256: no sign, no leading zeros (0 itself is canonical). */
const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const UINT256_LIMIT = 1n << 256n;

function stripDidPrefix(text: string, didMethod: string): string {
  const prefix = `did:${didMethod}:`;
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/** A canonical decimal below 2^256, or null. */
export function canonicalDecimal(text: string): bigint | null {
  if (!DECIMAL.test(text)) return null;
  const value = BigInt(text);
  return value < UINT256_LIMIT ? value : null;
}

/** An account DID or raw address (1.0 machine DIDs, operator DIDs on both deployments), checksummed. */
export function parseAddressDid(text: string, didMethod: string): string {
  const bare = stripDidPrefix(text, didMethod);
  if (bare === "") throw RatingsErrors.emptyDid();
  const address = addressOf(bare);
  if (address === null) throw RatingsErrors.invalidAddress();
  return address;
}

/** A 2.0 machine DID `did:<method>:<decimal>`. */
export function parseDecimalDid(text: string, didMethod: string): bigint {
  const prefix = `did:${didMethod}:`;
  if (text === prefix) throw RatingsErrors.emptyDid();
  const id = text.startsWith(prefix) ? canonicalDecimal(text.slice(prefix.length)) : null;
  if (id === null) throw RatingsErrors.invalidMachineDid();
  return id;
}

export type MachineKey = { kind: "machineId"; machineId: bigint } | { kind: "address"; address: string };

/** The `{key}` of the monetization routes. */
export function parseMonetizationKey(text: string, deployment: Deployment, didMethod: string): MachineKey {
  const decimal = canonicalDecimal(text);
  if (decimal !== null) return { kind: "machineId", machineId: decimal };
  const prefix = `did:${didMethod}:`;
  if (!text.startsWith(prefix)) throw RatingsErrors.invalidRequest();
  const bare = text.slice(prefix.length);
  if (deployment === "v2") {
    const id = canonicalDecimal(bare);
    if (id === null) throw RatingsErrors.invalidRequest();
    return { kind: "machineId", machineId: id };
  }
  const address = addressOf(bare);
  if (address === null) throw RatingsErrors.invalidRequest();
  return { kind: "address", address };
}

export const addressDid = (address: string, didMethod: string) => `did:${didMethod}:${address}`;
export const decimalDid = (machineId: bigint | string, didMethod: string) => `did:${didMethod}:${machineId.toString()}`;
