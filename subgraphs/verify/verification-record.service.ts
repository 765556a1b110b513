/**
 * Builds the verification record of document 1's read route from the chain: home chain, effective DID controller,
 * operator, and one attestation status per topic. Nothing here is stored and no database row is read: the record is
 * a function of the machine ID, the service namespace and chain state at the pinned block, which is what lets the
 * REST shim reuse its serialised answer while that block stays pinned (the read route's `reuseWhile`). A record that
 * came to depend on anything else (a database row, the caller) would have to drop that declaration.
 */
import type { ChainReads } from "../shared/chain/types.js";
import { ChainUnavailableError, DomainError } from "../shared/errors.js";
import { parseMachineId } from "../shared/machine-id.js";
import type { ServiceNamespace } from "../shared/config.js";
import { MachineVerificationRecord, VerificationStatus } from "./machine.type.js";

export const READ_ERRORS = {
  invalidMachineId: () => new DomainError("INVALID_MACHINE_ID", "machineId is not a canonical decimal machine ID."),
  notFound: () => new DomainError("MACHINE_NOT_FOUND", "No machine with this ID in the service."),
  unavailable: () =>
    new DomainError("VERIFY_READ_UNAVAILABLE", "The verification record cannot be served now."),
};

/** Records of the current block; a new block starts an empty cache. Bounded so a scan of IDs cannot grow it. */
const MAX_CACHED_RECORDS = 10_000;

export class VerificationRecordService {
  private cachedBlock: object | null = null;
  private readonly cached = new Map<string, Promise<MachineVerificationRecord>>();

  constructor(
    private readonly chain: ChainReads,
    private readonly namespace: ServiceNamespace,
  ) {}

  /**
   * The record is a function of chain state at the pinned block, so it is kept for that block (failures are not
   * kept), keyed by the reader's head version: a chain that returns to an earlier block number is a new state. The
   * chain reader caches each call per block too; this saves assembling the same record again.
   */
  record(machineIdText: string): Promise<MachineVerificationRecord> {
    const block = this.chain.headVersion;
    if (block === null) return this.build(machineIdText);
    if (block !== this.cachedBlock) {
      this.cached.clear();
      this.cachedBlock = block;
    }
    let record = this.cached.get(machineIdText);
    if (!record) {
      record = this.build(machineIdText);
      if (this.cached.size >= MAX_CACHED_RECORDS) this.cached.clear();
      this.cached.set(machineIdText, record);
      const kept = record;
      kept.catch(() => {
        if (this.cached.get(machineIdText) === kept) this.cached.delete(machineIdText);
      });
    }
    return record;
  }

  /**
   * True when any subgraph knows the ID: the machine registry (verify's records, the 2.0 ratings deployment, and the
   * markets bindings, which are made only for machines of the machine registry) or the identity registry (the 1.0
   * ratings deployment), in any status. This is what lets `Query.machine` hand the other subgraphs an entity
   * reference for a machine verify itself has no record of.
   */
  async known(machineIdText: string): Promise<boolean> {
    const machineId = parseMachineId(machineIdText);
    if (machineId === null) throw READ_ERRORS.invalidMachineId();
    try {
      if ((await this.chain.getMachine(machineId)) !== null) return true;
      return await this.chain.identityMachineExists(machineId);
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw READ_ERRORS.unavailable();
      throw error;
    }
  }

  /** The record, or null when the machine registry has no such ID (a machine only another subgraph knows). */
  async recordOrNull(machineIdText: string): Promise<MachineVerificationRecord | null> {
    try {
      return await this.record(machineIdText);
    } catch (error) {
      if (error instanceof DomainError && error.code === "MACHINE_NOT_FOUND") return null;
      throw error;
    }
  }

  private async build(machineIdText: string): Promise<MachineVerificationRecord> {
    const machineId = parseMachineId(machineIdText);
    if (machineId === null) throw READ_ERRORS.invalidMachineId();
    try {
      const [machine, primaryChainId] = await Promise.all([this.chain.getMachine(machineId), this.chain.chainId()]);
      if (!machine) throw READ_ERRORS.notFound();
      // Only machines homed on the primary chain are served; a second-chain machine is permanently unavailable here.
      if (machine.home.kind !== "evm" || machine.home.chainId !== primaryChainId) throw READ_ERRORS.unavailable();
      const [kyb, chip] = await Promise.all([
        this.chain.kybStatus(machine.operator),
        this.chain.chipStatus(machineId),
      ]);
      return {
        machineId: machineIdText,
        machineDid: `did:${this.namespace.didMethod}:${machineIdText}`,
        homeChain: { kind: "evm", chainId: machine.home.chainId },
        didController: { kind: "evm", address: machine.effectiveController },
        operator: { kind: "evm", address: machine.operator },
        verification: {
          kyb: { status: kyb.toUpperCase() as VerificationStatus },
          chip: { status: chip.toUpperCase() as VerificationStatus },
        },
      };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof ChainUnavailableError) throw READ_ERRORS.unavailable();
      throw error;
    }
  }
}
