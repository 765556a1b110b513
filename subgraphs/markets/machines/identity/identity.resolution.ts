/**
 * Machine identities of the markets API: which on-chain machine an `identityRef` names, who controls it now, the
 * challenge message a controller signs, and EIP-191 recovery of that signature (docs/markets-identity.md).
 *
 * identityRef forms: `did:<namespace>:<decimal machine ID>`, `<namespace>:machine:<decimal machine ID>`, or the
 * machine's own address `did:<namespace>:0x<40 hex>` (any case), which names the machine the identity registry maps
 * that address to. Every form of one machine is one identity: its decimal machine ID. The controller set of an
 * identity is the machine's effective DID controller on the primary chain (the registry's controller, else the NFT
 * owner); a deactivated or unknown machine has none, so it does not resolve.
 */
import type { IdentityVerdicts } from "../../common/machine.guard.js";
import { getAddress, Signature, verifyMessage } from "ethers";
import type { ChainReads } from "../../../shared/chain/types.js";
import { ChainUnavailableError } from "../../../shared/errors.js";
import { addressOfDid } from "../../../shared/address-did.js";
import { MarketsErrors } from "../../common/errors.js";

const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const UINT256_LIMIT = 1n << 256n;
/** secp256k1 group order / 2: signatures with a larger `s` are malleated twins and are refused. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** What an identityRef names: a decimal on-chain machine ID, or a machine's own address (EIP-55), read on chain. */
export type IdentityRefTarget = { kind: "machineId"; machineId: string } | { kind: "address"; address: string };

/** What an identityRef names, or null when it is none of the three forms. */
export function parseIdentityRef(identityRef: string, namespace: string): IdentityRefTarget | null {
  if (identityRef.length > 200) return null;
  const address = addressOfDid(identityRef, namespace);
  if (address !== null) return { kind: "address", address };
  for (const prefix of [`did:${namespace}:`, `${namespace}:machine:`]) {
    if (!identityRef.startsWith(prefix)) continue;
    const id = identityRef.slice(prefix.length);
    if (!DECIMAL.test(id) || BigInt(id) >= UINT256_LIMIT || id === "0") return null;
    return { kind: "machineId", machineId: id };
  }
  return null;
}

export type Resolution = { resolves: true; controllers: string[]; chainId: string } | { resolves: false };

/** Resolutions kept per block (as the verify read route keeps its records); bounded so a scan cannot grow it. */
const MAX_CACHED = 10_000;

export class IdentityResolver implements IdentityVerdicts {
  private cachedBlock: number | null = null;
  private readonly cached = new Map<string, Promise<Resolution>>();

  constructor(private readonly chain: ChainReads) {}

  /**
   * The identity's controllers at the chain's pinned block, kept for that block: re-verifying on every read costs a
   * map lookup until the next block. Throws SERVICE_IDENTITY_UNAVAILABLE when the chain cannot say.
   */
  atPinnedBlock(onChainMachineId: string): Promise<Resolution> {
    const block = this.chain.pinnedBlock;
    if (block === null) return this.resolve(onChainMachineId);
    if (block !== this.cachedBlock) {
      this.cached.clear();
      this.cachedBlock = block;
    }
    let pending = this.cached.get(onChainMachineId);
    if (!pending) {
      pending = this.resolve(onChainMachineId);
      if (this.cached.size >= MAX_CACHED) this.cached.clear();
      this.cached.set(onChainMachineId, pending);
      const kept = pending;
      kept.catch(() => {
        if (this.cached.get(onChainMachineId) === kept) this.cached.delete(onChainMachineId);
      });
    }
    return pending;
  }

  /** Global rule 1's verdict (common/machine.guard.ts): does `signer` control the identity at the pinned block? */
  async controls(onChainMachineId: string, signerAddress: string): Promise<boolean> {
    const resolution = await this.atPinnedBlock(onChainMachineId);
    return resolution.resolves && resolution.controllers.includes(signerAddress);
  }

  /** Global rule 1's verdict for a record without a proof (verification off): does the identity resolve? */
  async resolves(onChainMachineId: string): Promise<boolean> {
    return (await this.atPinnedBlock(onChainMachineId)).resolves;
  }

  /** At the node's current head: a controller change mined a moment ago must already count for a write. */
  async atHead(onChainMachineId: string): Promise<Resolution> {
    try {
      await this.chain.syncHead();
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw MarketsErrors.identityUnavailable();
      throw error;
    }
    return this.resolve(onChainMachineId);
  }

  /**
   * The decimal machine ID an address names at the node's current head: the identity registry's entry for it, unless
   * the machine registry records another address for that ID (then the address is not that machine's). Null when it
   * names no machine. Throws SERVICE_IDENTITY_UNAVAILABLE when the chain cannot say.
   */
  async machineIdOfAddress(address: string): Promise<string | null> {
    try {
      await this.chain.syncHead();
      const machineId = await this.chain.machineIdOfAddress(address);
      if (machineId === null) return null;
      const machine = await this.chain.getMachine(machineId);
      if (machine && machine.machineAddress.toLowerCase() !== address.toLowerCase()) return null;
      return machineId.toString();
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw MarketsErrors.identityUnavailable();
      throw error;
    }
  }

  private async resolve(onChainMachineId: string): Promise<Resolution> {
    try {
      const [machine, chainId] = await Promise.all([this.chain.getMachine(BigInt(onChainMachineId)), this.chain.chainId()]);
      if (!machine || machine.deactivated) return { resolves: false };
      // The controller of a machine homed on another chain cannot be read here.
      if (machine.home.kind !== "evm" || machine.home.chainId !== chainId) throw MarketsErrors.identityUnavailable();
      return { resolves: true, controllers: [getAddress(machine.effectiveController)], chainId };
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw MarketsErrors.identityUnavailable();
      throw error;
    }
  }
}

export interface ChallengeMessageFields {
  namespace: string;
  identityRef: string;
  onChainMachineId: string;
  controllers: string[];
  chainId: string;
  challengeId: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** The SIWE-like text a controller signs verbatim (template in docs/markets-identity.md). */
export function challengeMessage(f: ChallengeMessageFields): string {
  return [
    `${f.namespace} machine markets asks a controller of this machine identity to bind it to a market machine record.`,
    "",
    `Identity: ${f.identityRef}`,
    `Machine ID: ${f.onChainMachineId}`,
    `Controllers: ${f.controllers.join(", ")}`,
    `Chain ID: ${f.chainId}`,
    `Challenge ID: ${f.challengeId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt.toISOString()}`,
    `Expiration Time: ${f.expiresAt.toISOString()}`,
  ].join("\n");
}

/**
 * The EIP-55 address that signed `message` (EIP-191 personal_sign), or null for anything that is not a 65-byte
 * `r || s || v` signature with v 27/28 and low s.
 */
export function recoverSigner(message: string, signature: string): string | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  const v = parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) return null;
  if (BigInt(`0x${signature.slice(66, 130)}`) > HALF_ORDER) return null;
  try {
    Signature.from(signature);
    return getAddress(verifyMessage(message, signature));
  } catch {
    return null;
  }
}
