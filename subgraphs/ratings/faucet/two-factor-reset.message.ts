/**
 * The owner-signed two-factor reset message (docs/faucet.md), for the server and for clients: four LF-separated
 * lines, no trailing newline, signed with EIP-191 `personal_sign` by the owner address's key.
 *
 *   <FAUCET_TOTP_ISSUER> 2FA reset
 *   address: <owner address, lowercase 0x hex>
 *   chainId: <decimal chain ID>
 *   issuedAt: <the body's issuedAt, byte for byte: YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DDTHH:MM:SS.sssZ, UTC>
 *
 * The first line names the service (the authenticator issuer) and the action, so the signature is good for nothing
 * else the key signs; the chain ID binds it to one deployment. `issuedAt` must lie in the freshness window and be
 * later than the owner's last accepted reset, so a signature resets at most once.
 */
import type { Signer } from "ethers";

export const TWO_FACTOR_RESET_TEMPLATE = ["{issuer} 2FA reset", "address: {address}", "chainId: {chainId}", "issuedAt: {issuedAt}"].join("\n");

/** How far `issuedAt` may lie in the past and in the future of the server clock. */
export const RESET_MAX_AGE_SECONDS = 300;
export const RESET_MAX_FUTURE_SECONDS = 30;

const ISSUED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;

export interface TwoFactorResetFields {
  /** FAUCET_TOTP_ISSUER, e.g. `service faucet`. */
  issuer: string;
  ownerAddress: string;
  chainId: string | number | bigint;
  /** ISO 8601 UTC, seconds or milliseconds, `Z`. */
  issuedAt: string;
}

/** Milliseconds since the epoch of a well-formed `issuedAt` (a real calendar time), else null. */
export function parseIssuedAt(issuedAt: string): number | null {
  if (!ISSUED_AT.test(issuedAt)) return null;
  const ms = Date.parse(issuedAt);
  if (!Number.isFinite(ms)) return null;
  // Date.parse rolls 2025-02-30 over into March: only a time that prints back the same is a real one.
  const canonical = new Date(ms).toISOString();
  return canonical === issuedAt || canonical === issuedAt.replace("Z", ".000Z") ? ms : null;
}

export function buildTwoFactorResetMessage(fields: TwoFactorResetFields): string {
  const values: Record<string, string> = {
    issuer: fields.issuer,
    address: fields.ownerAddress.toLowerCase(),
    chainId: BigInt(fields.chainId).toString(),
    issuedAt: fields.issuedAt,
  };
  return TWO_FACTOR_RESET_TEMPLATE.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
}

/** The POST /2fa/reset body, signed by `signer` (the owner address's key). */
export async function signTwoFactorReset(
  signer: Signer,
  fields: TwoFactorResetFields,
): Promise<{ ownerAddress: string; issuedAt: string; signature: string }> {
  const signature = await signer.signMessage(buildTwoFactorResetMessage(fields));
  return { ownerAddress: fields.ownerAddress, issuedAt: fields.issuedAt, signature };
}
