/**
 * EVM addresses and keys without ethers: what configuration loading needs (validating a key, deriving the demo
 * payee's address, checking and checksumming an address). Loading ethers costs a few hundred milliseconds; config is
 * loaded by every process and every CLI command, most of which never touch a chain. Same results as ethers'
 * `new Wallet(key).address`, `isAddress` and `getAddress` (test/chain/evm-address.test.ts compares them), except that
 * ICAP ("XE...") spellings are not addresses here.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";

const digitsOf = (hex: string) => (hex.startsWith("0x") ? hex.slice(2) : hex);

/** 64 hex digits (`0x` optional, as ethers takes them) naming a valid secp256k1 secret (1 .. n-1). */
export function isPrivateKey(key: string): boolean {
  return /^(0x)?[0-9a-fA-F]{64}$/.test(key) && secp256k1.utils.isValidSecretKey(hexToBytes(digitsOf(key)));
}

/** The checksummed address of a private key; throws on an invalid key. */
export function addressOfKey(key: string): string {
  if (!isPrivateKey(key)) throw new Error("not a 32-byte hex private key");
  const publicKey = secp256k1.getPublicKey(hexToBytes(digitsOf(key)), false);
  return checksummed(bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12)));
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

/** Deterministic demo key for a label (`owner-1`, `payee-demo-oracle`, ...): keccak256("demo|<label>"). */
export function demoKey(label: string): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(`demo|${label}`)))}`;
}
