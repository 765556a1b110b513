/**
 * The address form of a machine DID, `did:<method>:0x<40 hex>` (the 1.0 form: a machine known by its own EVM
 * address), shared by the ratings read routes and the markets identityRef. The hex digits may be in any case:
 * addresses compare case-insensitively, and every answer spells them EIP-55.
 */
import { checksumAddress } from "./chain/evm-address.js";

/** `0x` and exactly 40 hex digits, in any case (no checksum demanded, as the public notes' DID syntax). */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 spelling of `0x` + 40 hex digits in any case, or null for any other text. */
export function addressOf(text: string): string | null {
  return ADDRESS.test(text) ? checksumAddress(text.toLowerCase()) : null;
}

/** The EIP-55 address a `did:<method>:0x<40 hex>` names, or null for any other text (another method, a decimal). */
export function addressOfDid(text: string, didMethod: string): string | null {
  const prefix = `did:${didMethod}:`;
  return text.startsWith(prefix) ? addressOf(text.slice(prefix.length)) : null;
}
