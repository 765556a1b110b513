/**
 * What the services read from the chain. Implemented by `ChainReader` (reader.ts) over ethers v6.
 * Every method throws `ChainUnavailableError` when the node cannot answer within the request deadline.
 */

/** Where a machine is homed. `evm` machines on the primary chain carry its chain ID; `solana` ones a genesis hash. */
export type HomeChain = { kind: "evm"; chainId: string } | { kind: "solana"; genesisHash: string };

export interface MachineOnChain {
  machineId: bigint;
  /** The machine's own EVM address (its 1.0 `did:<service>:0x…` identity). */
  machineAddress: string;
  /** Current owner of the machine NFT (EIP-55). */
  owner: string;
  /** Controller set in the machine registry, or null when none is set. */
  controller: string | null;
  /** Effective DID controller: `controller ?? owner` (EIP-55). */
  effectiveController: string;
  /** Operator address (the KYB subject), EIP-55. */
  operator: string;
  deactivated: boolean;
  home: HomeChain;
  tokenId: bigint;
}

/** Attestation state of one topic, computed on chain at the read block: revoked wins over expired. */
export type AttestationStatus = "unverified" | "verified" | "expired" | "revoked";

export interface ReadinessProbe {
  rpc_connected: boolean;
  contracts: {
    identity_registry: boolean;
    identity_staking: boolean;
    event_registry: boolean;
    machine_nft: boolean;
    did_registry: boolean;
    admin_flags: boolean;
  };
}

/** A chip attestation as recorded in the attestation registry. */
export interface ChipAttestation {
  machineId: bigint;
  /** 0x-hex 32 bytes. */
  chipRef: string;
  /** 0x-hex 32 bytes. */
  evidenceHash: string;
  revoked: boolean;
}

export interface ChainReads {
  /** Block number reads are pinned to right now, or null when unknown; derived data may be cached per block. */
  readonly pinnedBlock: number | null;
  /** Identity of the pinned block's state: changes with every new or dropped pin, never returns (ChainReader). */
  readonly headVersion: object | null;
  /**
   * Pins reads to the node's current head now (one `eth_blockNumber`), for decisions that must see the latest state
   * rather than the block watcher's last poll. Throws ChainUnavailableError when the node cannot answer.
   */
  syncHead(): Promise<void>;
  /** Chain ID reported by the node (decimal string). */
  chainId(): Promise<string>;
  /** The machine, or null when the machine registry has no such ID. */
  getMachine(machineId: bigint): Promise<MachineOnChain | null>;
  /**
   * The machine ID the identity registry maps this address to (its `did:<method>:0x…` identity), or null when the
   * address is no registered machine's.
   */
  machineIdOfAddress(address: string): Promise<bigint | null>;
  /**
   * Whether the identity registry (the 1.0 registry) has a machine with this ID, in any status; false when no identity
   * registry is configured.
   */
  identityMachineExists(machineId: bigint): Promise<boolean>;
  chipStatus(machineId: bigint): Promise<AttestationStatus>;
  kybStatus(operator: string): Promise<AttestationStatus>;
  /** The chip attestation with this UID, or null when the UID names none (or names a KYB attestation). */
  getChipAttestation(uid: string): Promise<ChipAttestation | null>;
  /** Document 2 readiness checks: RPC reachable and every contract callable. */
  probe(): Promise<ReadinessProbe>;
}
