/**
 * Which machines a deployment knows, and the facts every document 2 route starts from.
 *
 * - 1.0 serves machines onboarded through the IdentityRegistry: known by wallet address (`did:<m>:0x…`) or ID.
 * - 2.0 serves machines of the MachineRegistry: known by (derived, uint256) ID (`did:<m>:<decimal>`).
 * The 1.0 server does not know a machine registered only in the MachineRegistry, and the other way round.
 */
import type { ContractName } from "../shared/config.js";
import { ChainUnavailableError } from "../shared/errors.js";
import { IdentityStatus, type RatingsChain } from "./chain/ratings-chain.js";
import { RatingsErrors } from "./errors.js";
import { parseAddressDid, parseDecimalDid, type Deployment, type MachineKey } from "./identity/did.js";

export interface RatedMachine {
  deployment: Deployment;
  machineId: bigint;
  /** The machine's own wallet (its DID account); null when none is linked. */
  wallet: string | null;
  /** The on-chain operator; null when unset. */
  operator: string | null;
  deactivated: boolean;
  /** 1.0: identity status Verified; 2.0: registered in the MachineRegistry. Bonding is checked separately. */
  activated: boolean;
}

/** The contracts each deployment cannot serve without ("Service not initialised" otherwise). */
export const REQUIRED_CONTRACTS: Record<Deployment, ContractName[]> = {
  v1: ["IdentityRegistry", "IdentityStaking", "EventRegistry", "MachineNFT", "DidRegistry"],
  v2: ["MachineRegistry", "IdentityStaking", "EventRegistry", "MachineNFT", "DidRegistry"],
};

/** Resolutions kept per block; bounded so a scan of DIDs cannot grow it. */
const MAX_RESOLUTIONS = 10_000;

export class MachineDirectory {
  private resolvedBlock: number | null = null;
  private readonly resolved = new Map<string, Promise<RatedMachine | null>>();

  constructor(
    readonly chain: RatingsChain,
    private readonly didMethod: string,
  ) {}

  /**
   * A machine's facts are a function of chain state at the pinned block, so a resolution is kept for that block (as
   * the verify subgraph keeps its records): a hot read route then skips the DID's checksum and four view lookups.
   * Failures are not kept.
   */
  private perBlock(key: string, resolve: () => Promise<RatedMachine | null>): Promise<RatedMachine | null> {
    const block = this.chain.pinnedBlock;
    if (block === null) return resolve();
    if (block !== this.resolvedBlock) {
      this.resolved.clear();
      this.resolvedBlock = block;
    }
    let pending = this.resolved.get(key);
    if (!pending) {
      pending = resolve();
      if (this.resolved.size >= MAX_RESOLUTIONS) this.resolved.clear();
      this.resolved.set(key, pending);
      const kept = pending;
      kept.catch(() => {
        if (this.resolved.get(key) === kept) this.resolved.delete(key);
      });
    }
    return pending;
  }

  /** Runs chain reads for a route: chain failures become CHAIN_UNAVAILABLE, missing addresses SERVICE_NOT_INITIALISED. */
  async read<T>(deployment: Deployment, step: () => Promise<T>): Promise<T> {
    if (!this.chain.configured(...REQUIRED_CONTRACTS[deployment])) throw RatingsErrors.serviceNotInitialised();
    try {
      return await step();
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw RatingsErrors.chainUnavailable();
      throw error;
    }
  }

  /** A read route's `{did}`: address forms on 1.0, decimal DIDs on 2.0. Unknown machines: MACHINE_NOT_FOUND. */
  async byDid(deployment: Deployment, did: string): Promise<RatedMachine> {
    return this.require(
      await this.perBlock(`${deployment}|did|${did}`, async () => {
        if (deployment === "v2") return this.byId("v2", parseDecimalDid(did, this.didMethod));
        const machineId = await this.chain.identityMachineIdOf(parseAddressDid(did, this.didMethod));
        return machineId === 0n ? null : this.byId("v1", machineId);
      }),
    );
  }

  /** A monetization `{key}` (already parsed). */
  async byKey(deployment: Deployment, key: MachineKey): Promise<RatedMachine | null> {
    if (key.kind === "machineId") return this.byId(deployment, key.machineId);
    const machineId = await this.chain.identityMachineIdOf(key.address);
    return machineId === 0n ? null : this.byId(deployment, machineId);
  }

  /** The machine with this ID in the deployment's registry, or null. */
  async byId(deployment: Deployment, machineId: bigint): Promise<RatedMachine | null> {
    if (deployment === "v2") {
      const machine = await this.chain.machine(machineId);
      if (!machine) return null;
      return {
        deployment,
        machineId,
        wallet: machine.machineAddress,
        operator: machine.operator,
        deactivated: machine.deactivated,
        activated: true,
      };
    }
    const status = await this.chain.identityStatus(machineId);
    if (status === IdentityStatus.None) return null;
    const [wallet, operator] = await Promise.all([this.chain.identityWalletOf(machineId), this.chain.identityOperatorOf(machineId)]);
    return {
      deployment,
      machineId,
      wallet,
      operator,
      deactivated: status === IdentityStatus.Deactivated,
      activated: status === IdentityStatus.Verified,
    };
  }

  private require(machine: RatedMachine | null): RatedMachine {
    if (!machine) throw RatingsErrors.machineNotFound();
    return machine;
  }
}
