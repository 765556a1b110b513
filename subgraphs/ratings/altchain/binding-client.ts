/**
 * Resolves a second-chain key through the binding registry: one `getAccountInfo` of its reverse-lookup account at
 * finalized commitment, with @solana/kit's RPC client and account decoding. No account: `not_bound`; an account the
 * program does not own or that does not decode is treated as no binding at all (`not_bound`), never trusted.
 */
import {
  address,
  assertAccountDecoded,
  createSolanaRpc,
  decodeAccount,
  fetchEncodedAccount,
  type Address,
} from "@solana/kit";
import { getAddress, hexlify } from "ethers";
import { BINDING_DISCRIMINATOR, BINDING_STATUS, bindingAccountCodec, bindingAddressOf } from "./binding-account.js";

export type BindingOutcome =
  | { kind: "bound"; evmAddress: string }
  | { kind: "not_bound" }
  | { kind: "binding_revoked"; evmAddress: string };

/** The second chain's node did not answer usefully in time. */
export class AltchainUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("second chain unavailable", { cause });
    this.name = "AltchainUnavailableError";
  }
}

export class BindingClient {
  private readonly rpc: ReturnType<typeof createSolanaRpc>;
  private readonly programId: Address;

  constructor(rpcUrl: string, programId: string, private readonly timeoutMs: number) {
    this.rpc = createSolanaRpc(rpcUrl);
    this.programId = address(programId);
  }

  async resolve(altchainKey: Address): Promise<BindingOutcome> {
    const bindingAddress = await bindingAddressOf(this.programId, altchainKey);
    let account;
    try {
      account = await fetchEncodedAccount(this.rpc, bindingAddress, {
        commitment: "finalized",
        abortSignal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new AltchainUnavailableError(error);
    }
    if (!account.exists || account.programAddress !== this.programId) return { kind: "not_bound" };
    let data;
    try {
      const decoded = decodeAccount(account, bindingAccountCodec);
      assertAccountDecoded(decoded);
      data = decoded.data;
    } catch {
      return { kind: "not_bound" };
    }
    if (!Buffer.from(data.discriminator).equals(BINDING_DISCRIMINATOR) || data.altchainKey !== altchainKey) {
      return { kind: "not_bound" };
    }
    const evmAddress = getAddress(hexlify(Uint8Array.from(data.evmAddress)));
    if (data.status === BINDING_STATUS.bound) return { kind: "bound", evmAddress };
    if (data.status === BINDING_STATUS.revoked) return { kind: "binding_revoked", evmAddress };
    return { kind: "not_bound" };
  }
}
