/**
 * The ratings subgraph's typed view of the platform contracts, over the shared ChainReader (reads pinned to the
 * watcher's block and cached per block). Every method throws ChainUnavailableError when the node cannot answer.
 */
import { getAddress, toUtf8Bytes, toUtf8String, ZeroAddress, type Result } from "ethers";
import type { ContractName } from "../../shared/config.js";
import { contractInterface } from "../../shared/chain/artifacts.js";
import type { ChainReader } from "../../shared/chain/reader.js";
import type { MachineOnChain } from "../../shared/chain/types.js";
import { decodeMachineEvents } from "./event-decoder.js";

/** Events per `getEvents` call (the public notes: the server pages through history in batches of 100). */
export const EVENT_PAGE_SIZE = 100;
/**
 * Pages per JSON-RPC batch. The batches go out together (10 for a 10,000-event history, within the reader's in-flight
 * cap): the node answers them in parallel, and the first are decoded while it is still executing the rest.
 */
export const PAGES_PER_BATCH = 10;

/** IdentityRegistry.Status. */
export const IdentityStatus = { None: 0, Pending: 1, Verified: 2, Rejected: 3, Deactivated: 4 } as const;

export interface EventRecord {
  /** Position in the machine's history (0 = oldest). */
  index: number;
  eventType: number;
  value: bigint;
  currency: string;
  timestamp: number;
  dataHash: string;
  trustLevel: number;
  sourceChainId: bigint;
  sourceTxHash: string;
  metadata: string;
  /** Lowercase hex (not checksummed: nothing shows it, and checksumming 10,000 of them costs a keccak each). */
  submitter: string;
  recordedAt: number;
}

interface RawLog {
  topics: string[];
  data: string;
  blockNumber: string;
  logIndex: string;
}

export interface DecodedLog {
  args: Result;
  block: number;
  logIndex: number;
}

const isZeroAddress = (address: string) => address === ZeroAddress;

export class RatingsChain {
  constructor(
    private readonly reader: ChainReader,
    private readonly addresses: Partial<Record<ContractName, string>>,
  ) {}

  /** Whether the contracts a deployment reads are configured ("Service not initialised" otherwise). */
  configured(...names: ContractName[]): boolean {
    return names.every((name) => Boolean(this.addresses[name]));
  }

  address(name: ContractName): string | undefined {
    return this.addresses[name];
  }

  chainId(): Promise<string> {
    return this.reader.chainId();
  }

  get pinnedBlock(): number | null {
    return this.reader.pinnedBlock;
  }

  machine(machineId: bigint): Promise<MachineOnChain | null> {
    return this.reader.getMachine(machineId);
  }

  /** The machine ID the identity registry gives this address; 0 when none. */
  async identityMachineIdOf(address: string): Promise<bigint> {
    return (await this.reader.machineIdOfAddress(address)) ?? 0n;
  }

  async identityExists(machineId: bigint): Promise<boolean> {
    return (await this.view("IdentityRegistry", "machineExists", [machineId]))[0] as boolean;
  }

  async identityStatus(machineId: bigint): Promise<number> {
    return Number((await this.view("IdentityRegistry", "machineStatus", [machineId]))[0]);
  }

  /** The machine's wallet in the 1.0 registry, or null when none is linked. */
  async identityWalletOf(machineId: bigint): Promise<string | null> {
    const address = (await this.view("IdentityRegistry", "machineAddressOf", [machineId]))[0] as string;
    return isZeroAddress(address) ? null : address;
  }

  async identityOperatorOf(machineId: bigint): Promise<string | null> {
    const address = (await this.view("IdentityRegistry", "operatorOf", [machineId]))[0] as string;
    return isZeroAddress(address) ? null : address;
  }

  async isStaked(machineId: bigint): Promise<boolean> {
    return (await this.view("IdentityStaking", "isStaked", [machineId]))[0] as boolean;
  }

  async eventCount(machineId: bigint): Promise<number> {
    return Number((await this.view("EventRegistry", "eventCount", [machineId]))[0]);
  }

  /**
   * Events `[offset, offset + count)` in pages of 100: a single page through the reader's per-block cache; more as
   * JSON-RPC batches of PAGES_PER_BATCH pages, all sent at once and each decoded (its events numbered) as it arrives.
   */
  async events(machineId: bigint, offset: number, count: number): Promise<EventRecord[]> {
    const pageArgs: Array<[bigint, number, number]> = [];
    for (let start = offset; start < offset + count; start += EVENT_PAGE_SIZE) {
      pageArgs.push([machineId, start, Math.min(EVENT_PAGE_SIZE, offset + count - start)]);
    }
    if (pageArgs.length === 1) {
      // The page is cached per block and shared (numbered from 0): callers get copies, numbered from the offset.
      const page = await this.reader.callViewDecoded("EventRegistry", "getEvents", pageArgs[0]!, decodeMachineEvents);
      return page.map((event, i) => ({ ...event, index: offset + i }));
    }
    const decodePage = (returnData: string, page: number) => decodeMachineEvents(returnData, pageArgs[page]![1]);
    return (await this.reader.callViewsBatched("EventRegistry", "getEvents", pageArgs, decodePage, PAGES_PER_BATCH)).flat();
  }

  /** Whether `account` is in event submission's authorization set (machine wallet, operator, delegate). */
  async isSubmitter(machineId: bigint, account: string): Promise<boolean> {
    return (await this.view("EventRegistry", "isSubmitter", [machineId, account]))[0] as boolean;
  }

  /** AdminFlags trust override in percent, or null (none, or AdminFlags not configured). */
  async trustOverride(machineId: bigint): Promise<number | null> {
    if (!this.addresses.AdminFlags) return null;
    const [active, value] = await this.view("AdminFlags", "trustOverrideOf", [machineId]);
    return active ? Number(value) : null;
  }

  /** AdminFlags flag timestamp, or null (not flagged, or AdminFlags not configured). */
  async flaggedAt(machineId: bigint): Promise<number | null> {
    if (!this.addresses.AdminFlags) return null;
    const flagged = Number((await this.view("AdminFlags", "flaggedAt", [machineId]))[0]);
    return flagged === 0 ? null : flagged;
  }

  /** A DID attribute's value as text, or null when the DID has no such attribute (or it is not UTF-8). */
  async didAttribute(didAccount: string, name: string): Promise<string | null> {
    const [attribute] = await this.view("DidRegistry", "readAttribute", [didAccount, toUtf8Bytes(name)]);
    if ((attribute.created as bigint) === 0n) return null;
    try {
      return toUtf8String(attribute.value as string);
    } catch {
      return null;
    }
  }

  /** MachineNFT token of a machine; 0 when none was minted. */
  async tokenIdOf(machineId: bigint): Promise<bigint> {
    return (await this.view("MachineNFT", "tokenIdOf", [machineId]))[0] as bigint;
  }

  /** The machine a MachineNFT token belongs to; 0 when the token does not exist. */
  async machineIdOfToken(tokenId: bigint): Promise<bigint> {
    return (await this.view("MachineNFT", "machineIdOf", [tokenId]))[0] as bigint;
  }

  /** Owner of an existing token (the caller checked it exists: `ownerOf` reverts otherwise). */
  async ownerOfToken(tokenId: bigint): Promise<string> {
    return getAddress((await this.view("MachineNFT", "ownerOf", [tokenId]))[0] as string);
  }

  /** Machine IDs that got an `EventSubmitted` log in blocks `[fromBlock, toBlock]`, with the latest such block. */
  async machinesWithNewEvents(fromBlock: number, toBlock: number): Promise<Map<string, number>> {
    const events = contractInterface("EventRegistry");
    const logs = await this.logs("EventRegistry", events.getEvent("EventSubmitted")!.topicHash, fromBlock, toBlock);
    const latest = new Map<string, number>();
    for (const log of logs) {
      const machineId = BigInt(log.topics[1]!).toString();
      latest.set(machineId, Math.max(latest.get(machineId) ?? 0, Number(BigInt(log.blockNumber))));
    }
    return latest;
  }

  /** Decoded logs of one event of a platform contract in `[fromBlock, toBlock]`, in chain order. */
  async decodedLogs(name: ContractName, event: string, fromBlock: number, toBlock: number): Promise<DecodedLog[]> {
    const contract = contractInterface(name);
    const fragment = contract.getEvent(event)!;
    const logs = await this.logs(name, fragment.topicHash, fromBlock, toBlock);
    return logs.map((log) => ({
      args: contract.decodeEventLog(fragment, log.data, log.topics),
      block: Number(BigInt(log.blockNumber)),
      logIndex: Number(BigInt(log.logIndex)),
    }));
  }

  /** The block number of a tag (`finalized`, `latest`), asked of the node now. */
  async blockNumber(tag: "finalized" | "latest"): Promise<number> {
    const block = await this.reader.send<{ number: string } | null>("eth_getBlockByNumber", [tag, false]);
    return block ? Number(BigInt(block.number)) : 0;
  }

  private async logs(name: ContractName, topic: string, fromBlock: number, toBlock: number): Promise<RawLog[]> {
    const address = this.addresses[name];
    if (!address || toBlock < fromBlock) return [];
    return this.reader.send<RawLog[]>("eth_getLogs", [
      { address, topics: [topic], fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${toBlock.toString(16)}` },
    ]);
  }

  private view(name: ContractName, method: string, args: readonly unknown[]): Promise<Result> {
    return this.reader.callView(name, method, args);
  }
}
