/**
 * EVM keys and addresses without ethers or an elliptic curve: what configuration loading needs (validating a key,
 * checking and checksumming an address). Loading ethers costs a few hundred milliseconds and secp256k1 tens; config
 * is loaded by every process and every CLI command, most of which never touch a chain. Same answers as ethers'
 * `new Wallet(key)` (accepted or not), `isAddress` and `getAddress` (test/chain/evm-address.test.ts compares them),
 * except that ICAP ("XE...") spellings are not addresses here.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** The order of secp256k1's group: a private key is 1 .. N-1. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const digitsOf = (hex: string) => (hex.startsWith("0x") ? hex.slice(2) : hex);

/** 64 hex digits (`0x` optional, as ethers takes them) naming a valid secp256k1 secret (1 .. n-1). */
export function isPrivateKey(key: string): boolean {
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) return false;
  const scalar = BigInt(`0x${digitsOf(key)}`);
  return scalar > 0n && scalar < N;
}

/** EIP-55: upper-case each hex letter whose nibble in keccak256(lower-case address) is 8 or more. */
function checksummed(lowerHex: string): string {
  const hash = bytesToHex(keccak_256(utf8ToBytes(lowerHex)));
  let out = "0x";
  for (let i = 0; i < 40; i++) out += Number.parseInt(hash[i]!, 16) >= 8 ? lowerHex[i]!.toUpperCase() : lowerHex[i]!;
  return out;
}

/** An address: 40 hex digits (`0x` optional), all one case or with a valid EIP-55 checksum. */
export function isEvmAddress(value: string): boolean {
  if (!/^(0x)?[0-9a-fA-F]{40}$/.test(value)) return false;
  const digits = digitsOf(value);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return true;
  return checksummed(digits.toLowerCase()) === `0x${digits}`;
}

/** The EIP-55 spelling of an address, with `0x`; throws when it is not one. */
export function checksumAddress(value: string): string {
  if (!isEvmAddress(value)) throw new Error("not an EVM address");
  return checksummed(digitsOf(value).toLowerCase());
}
