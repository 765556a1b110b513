/**
 * EIP-3009 signed authorizations on the test stablecoin (or any token with the USDC 2.x domain): the EIP-712 domain
 * and types, signing (agents, the CLI, tests) and recovering the signer (x402 verification).
 */
import { getAddress, hexlify, randomBytes, Signature, verifyTypedData, type TypedDataDomain, type Wallet } from "ethers";

export interface TokenDomain {
  /** EIP-712 domain name and version of the token (x402 requirements carry them in `extra`). */
  name: string;
  version: string;
  chainId: number;
  /** The token contract. */
  verifyingContract: string;
}

export interface Authorization {
  from: string;
  to: string;
  /** Decimal strings, as x402 payloads carry them. */
  value: string;
  validAfter: string;
  validBefore: string;
  /** 32 random bytes, hex. */
  nonce: string;
}

export type AuthorizationKind = "TransferWithAuthorization" | "ReceiveWithAuthorization";

const FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
];

export function typesOf(kind: AuthorizationKind): Record<string, typeof FIELDS> {
  return { [kind]: FIELDS };
}

export function domainOf(token: TokenDomain): TypedDataDomain {
  return { name: token.name, version: token.version, chainId: token.chainId, verifyingContract: getAddress(token.verifyingContract) };
}

/** A fresh random nonce (x402 clients pick one per payment). */
export function randomNonce(): string {
  return hexlify(randomBytes(32));
}

export async function signAuthorization(
  wallet: Wallet,
  token: TokenDomain,
  authorization: Authorization,
  kind: AuthorizationKind = "TransferWithAuthorization",
): Promise<string> {
  return wallet.signTypedData(domainOf(token), typesOf(kind), authorization);
}

/**
 * The address that signed, or null for a malformed signature. Only canonical 65-byte signatures with low `s` and `v`
 * 27/28 count, as the token's own `ecrecover` check (TestStablecoin._recover) accepts no other form.
 */
export function recoverAuthorizer(
  token: TokenDomain,
  authorization: Authorization,
  signature: string,
  kind: AuthorizationKind = "TransferWithAuthorization",
): string | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  try {
    const parsed = Signature.from(signature);
    const v = Number.parseInt(signature.slice(130, 132), 16);
    if (v !== 27 && v !== 28) return null;
    if (BigInt(parsed.s) > 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n) return null;
    return verifyTypedData(domainOf(token), typesOf(kind), authorization, signature);
  } catch {
    return null;
  }
}
