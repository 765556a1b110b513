/**
 * The second chain's binding registry account (docs/ratings-api.md, "Second-chain lookup"): one reverse-lookup
 * account per bound key, at the program-derived address of seeds `["reverse", <32-byte key>]`, decoded with
 * @solana/kit's codecs.
 *
 *   discriminator  8 bytes   sha256("account:AltchainBinding")[0..8]
 *   status         u8        1 bound, 2 revoked
 *   altchain_key   32 bytes  the bound second-chain public key
 *   evm_address    20 bytes  the bound EVM identity
 *   bound_at       i64       Unix seconds
 *   revoked_at     i64       Unix seconds, 0 while bound
 */
import { createHash } from "node:crypto";
import {
  fixCodecSize,
  getAddressCodec,
  getAddressEncoder,
  getBytesCodec,
  getI64Codec,
  getProgramDerivedAddress,
  getStructCodec,
  getU8Codec,
  type Address,
} from "@solana/kit";

export const BINDING_DISCRIMINATOR = createHash("sha256").update("account:AltchainBinding").digest().subarray(0, 8);
export const BINDING_STATUS = { bound: 1, revoked: 2 } as const;

export interface BindingAccount {
  discriminator: Uint8Array;
  status: number;
  altchainKey: Address;
  evmAddress: Uint8Array;
  boundAt: bigint;
  revokedAt: bigint;
}

export const bindingAccountCodec = getStructCodec([
  ["discriminator", fixCodecSize(getBytesCodec(), 8)],
  ["status", getU8Codec()],
  ["altchainKey", getAddressCodec()],
  ["evmAddress", fixCodecSize(getBytesCodec(), 20)],
  ["boundAt", getI64Codec()],
  ["revokedAt", getI64Codec()],
]);

/** Where the binding of `altchainKey` lives. */
export async function bindingAddressOf(programId: Address, altchainKey: Address): Promise<Address> {
  const [address] = await getProgramDerivedAddress({
    programAddress: programId,
    seeds: ["reverse", getAddressEncoder().encode(altchainKey)],
  });
  return address;
}
