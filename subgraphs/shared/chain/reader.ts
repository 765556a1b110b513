/**
 * ChainReader: the services' view of the chain, over an ethers v6 JsonRpcProvider.
 *
 * Reads are pinned to the latest block the watcher has seen (eth_call with that block number) and cached per block:
 * within one block a repeated read is a Map lookup, concurrent identical reads share one request, and a new block
 * starts an empty cache. Every RPC request has a deadline; a timeout, an RPC error or an undecodable answer becomes
 * `ChainUnavailableError`. When the watcher loses the node, the pinned block and the cache are dropped, so reads fail
 * fast instead of serving a stale block forever.
 *
 * At most `maxInFlight` requests are in flight per reader (a deadline also covers the wait for a slot), over as many
 * keep-alive sockets, so no burst of reads can open thousands of connections to the node. The readiness probe is
 * shared: one probe in flight, its answer reused for a second after it arrives.
 */
import { chainRpcDuration, chainViewCache, secondsSince } from "../observability/metrics.js";
import http from "node:http";
import https from "node:https";
import { ZeroHash, type JsonRpcProvider, type Result } from "ethers";
import type { ContractName } from "../config.js";
import { ChainUnavailableError } from "../errors.js";
import { contractInterface } from "./artifacts.js";
import { bigintAsString, toMachine, toStatus } from "./decode.js";
import { InFlightLimit } from "./in-flight.js";
import { callData, sendBatches } from "./rpc-batch.js";
import { probeReadiness, SharedProbe } from "./readiness.js";
import { createProvider } from "./rpc.js";
import type { AttestationStatus, ChainReads, ChipAttestation, MachineOnChain, ReadinessProbe } from "./types.js";
import { systemClock, type Clock } from "../clock.js";

/** `AttestationRegistry.TOPIC_CHIP`. */
const CHIP_TOPIC = 0;

export interface ChainReaderOptions {
  rpcUrl: string;
  addresses: Partial<Record<ContractName, string>>;
  /** Expected chain ID; `chainId()` rejects a node that reports another one. */
  chainId?: number;
  /** Deadline of one RPC request (config.chain.requestTimeoutMs). */
  requestTimeoutMs: number;
  /** Block watcher period (config.chain.pollIntervalMs). */
  pollIntervalMs: number;
  /** Entries kept per block before the cache is emptied (bounds memory under many distinct keys). */
  maxCacheEntries?: number;
  /** Requests in flight at most (config.chain.maxInFlight). */
  maxInFlight?: number;
  /** When a probe's answer was settled and whether it may be reused (tests move it); default: the system clock. */
  clock?: Clock;
}

/** Told when the watcher sees the head move: `previous` is null when the earlier head is unknown (start, lost node). */
export type NewHeadListener = (previous: number | null, current: number) => void;

interface BlockCache {
  tag: string;
  number: number;
  entries: Map<string, Promise<unknown>>;
}

export class ChainReader implements ChainReads {
  private readonly provider: JsonRpcProvider;
  private readonly agent: http.Agent;
  readonly inFlight: InFlightLimit;
  private readonly maxCacheEntries: number;
  private readonly sharedProbe: SharedProbe;
  private block: BlockCache | null = null;
  private headRequest: Promise<BlockCache> | null = null;
  private watcher: NodeJS.Timeout | null = null;
  private nodeChainId: string | null = null;
  private readonly headListeners = new Set<NewHeadListener>();

  constructor(private readonly options: ChainReaderOptions) {
    this.inFlight = new InFlightLimit(options.maxInFlight ?? 32);
    const Agent = options.rpcUrl.startsWith("https:") ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: this.inFlight.max });
    // The chain ID passed to ethers only spares it a network detection; reads never sign anything.
    this.provider = createProvider(options.rpcUrl, {
      chainId: options.chainId ?? 0,
      timeoutMs: options.requestTimeoutMs,
      agent: this.agent,
    });
    this.maxCacheEntries = options.maxCacheEntries ?? 10_000;
    this.sharedProbe = new SharedProbe(() => probeReadiness(options.addresses, (method, params) => this.send(method, params)), options.clock ?? systemClock);
  }

  /** The contract addresses reads go to. */
  get addresses(): Partial<Record<ContractName, string>> {
    return this.options.addresses;
  }

  /** Starts the block watcher; resolves after its first poll (a failed first poll is not an error here). */
  async start(): Promise<void> {
    if (this.watcher) return;
    this.watcher = setInterval(() => void this.pollHead().catch(() => {}), this.options.pollIntervalMs);
    this.watcher.unref();
    await this.pollHead().catch(() => {});
  }

  close(): void {
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = null;
    this.block = null;
    this.provider.destroy();
    this.agent.destroy();
  }

  /** Calls `listener` whenever the head moves (e.g. to scan the new blocks' logs); returns the unsubscribe. */
  onNewHead(listener: NewHeadListener): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  async syncHead(): Promise<void> {
    await this.pollHead();
  }

  /** Block number reads are pinned to, or null before the first successful poll. */
  get pinnedBlock(): number | null {
    return this.block?.number ?? null;
  }

  /**
   * An object that stands for the state reads see now: a new one whenever the pinned block changes or is dropped
   * (lost node), so an earlier one never comes back, not even when the node returns to the same block number (a
   * restarted or reverted chain). Null while no block is pinned. Equal tokens before and after a computation mean
   * every read in between was answered at the same block.
   */
  get headVersion(): object | null {
    return this.block;
  }

  /** Asked once from the node; a node on another chain than configured is a bad answer. */
  async chainId(): Promise<string> {
    if (this.nodeChainId) return this.nodeChainId;
    const reported = BigInt(await this.send<string>("eth_chainId", [])).toString();
    if (this.options.chainId !== undefined && reported !== String(this.options.chainId)) {
      throw new ChainUnavailableError(new Error(`node reports chain ${reported}, expected ${this.options.chainId}`));
    }
    this.nodeChainId = reported;
    return reported;
  }

  async getMachine(machineId: bigint): Promise<MachineOnChain | null> {
    return this.cachedView("MachineRegistry", "getMachine", [machineId], "machine", ([view]) => toMachine(machineId, view));
  }

  async machineIdOfAddress(address: string): Promise<bigint | null> {
    return this.cachedView("IdentityRegistry", "machineIdOf", [address], "machineIdOf", ([id]) => (id === 0n ? null : (id as bigint)));
  }

  async identityMachineExists(machineId: bigint): Promise<boolean> {
    if (!this.options.addresses.IdentityRegistry) return false;
    return this.cachedView("IdentityRegistry", "machineExists", [machineId], "identityExists", ([exists]) => exists as boolean);
  }

  async chipStatus(machineId: bigint): Promise<AttestationStatus> {
    return this.cachedView("AttestationRegistry", "chipStatus", [machineId], "status", ([code]) => toStatus(code));
  }

  async kybStatus(operator: string): Promise<AttestationStatus> {
    return this.cachedView("AttestationRegistry", "kybStatus", [operator], "status", ([code]) => toStatus(code));
  }

  /**
   * Read at the current head, not the watcher's last block: the operator records an attestation right after mining
   * it, and an older pinned block would not show it yet.
   */
  async getChipAttestation(uid: string): Promise<ChipAttestation | null> {
    await this.syncHead();
    return this.cachedView("AttestationRegistry", "getAttestation", [uid], "attestation", ([a]) =>
      a.uid === ZeroHash || Number(a.topic) !== CHIP_TOPIC
        ? null
        : { machineId: BigInt(a.machineId), chipRef: a.ref, evidenceHash: a.evidenceHash, revoked: BigInt(a.revocationTime) !== 0n },
    );
  }

  /**
   * Any view function of a platform contract, pinned and cached like the methods above (for services that need reads
   * beyond ChainReads: events, DID attributes, admin flags, bonds). Treat the returned Result as read-only: it is shared.
   */
  async callView(name: ContractName, method: string, args: readonly unknown[] = []): Promise<Result> {
    return this.cachedView(name, method, args, "raw", (result) => result);
  }

  /**
   * A view whose return data the caller decodes itself, pinned and cached like `callView`: for large answers where
   * ethers' general ABI decoder is the bottleneck (100 events take it ~140 ms). A decoder error is a bad answer.
   */
  async callViewDecoded<T>(name: ContractName, method: string, args: readonly unknown[], decode: (returnData: string) => T): Promise<T> {
    return this.cachedView(name, method, args, `decoded:${decode.name}`, decode, (returnData) => returnData);
  }

  /**
   * The same view with many argument lists, as JSON-RPC batches of `batchSize` calls sent together (each in its own
   * in-flight slot, over the reader's keep-alive sockets), at the pinned block: one round trip per batch instead of per
   * call, each batch decoded as soon as it arrives. Not cached (callers that fan out cache their own results).
   */
  async callViewsBatched<T>(
    name: ContractName,
    method: string,
    argsList: ReadonlyArray<readonly unknown[]>,
    decode: (returnData: string, call: number) => T,
    batchSize: number,
  ): Promise<T[]> {
    const block = this.block ?? (await this.refreshHead());
    const to = this.options.addresses[name];
    if (!to) throw new ChainUnavailableError(new Error(`no address configured for ${name}`));
    const calls = callData(contractInterface(name), method, argsList).map((data) => ({ method: "eth_call", params: [{ to, data }, block.tag] }));
    const transport = { rpcUrl: this.options.rpcUrl, timeoutMs: this.options.requestTimeoutMs, agent: this.agent, inFlight: this.inFlight };
    try {
      return await sendBatches(transport, calls, decode, batchSize);
    } catch (error) {
      throw new ChainUnavailableError(error);
    }
  }

  /** The readiness checks (readiness.ts); concurrent and repeated callers within a second share one probe. */
  probe(): Promise<ReadinessProbe> {
    return this.sharedProbe.get();
  }

  /**
   * A view call at the pinned block, cached per block. The key is the call data plus `kind`, which names the mapping
   * applied to the decoded result (the same call may be cached raw and mapped).
   */
  private async cachedView<T, R = Result>(
    name: ContractName,
    method: string,
    args: readonly unknown[],
    kind: string,
    map: (result: R) => T,
    decode: (returnData: string) => R = (returnData) => contractInterface(name).decodeFunctionResult(method, returnData) as R,
  ): Promise<T> {
    const block = this.block ?? (await this.refreshHead());
    // A hit must stay a Map lookup: no ABI encoding (keccak of the signature) before it.
    const key = `${kind}|${name}.${method}${JSON.stringify(args, bigintAsString)}`;
    const hit = block.entries.get(key) as Promise<T> | undefined;
    if (hit) {
      chainViewCache.inc({ result: "hit" });
      return hit;
    }
    chainViewCache.inc({ result: "miss" });

    const { to, data } = this.encodeCall(name, method, args);
    const pending = this.send<string>("eth_call", [{ to, data }, block.tag]).then((returnData) => {
      try {
        return map(decode(returnData));
      } catch (error) {
        throw new ChainUnavailableError(error);
      }
    });
    if (block.entries.size >= this.maxCacheEntries) block.entries.clear();
    block.entries.set(key, pending);
    // Failures are not cached: the next read tries again.
    pending.catch(() => {
      if (block.entries.get(key) === pending) block.entries.delete(key);
    });
    return pending;
  }

  private encodeCall(name: ContractName, method: string, args: readonly unknown[]): { to: string; data: string } {
    const to = this.options.addresses[name];
    if (!to) throw new ChainUnavailableError(new Error(`no address configured for ${name}`));
    return { to, data: contractInterface(name).encodeFunctionData(method, args) };
  }

  /**
   * One JSON-RPC request (views, logs, the finalized head) in an in-flight slot, under the deadline (the wait for the
   * slot included); every failure is a ChainUnavailableError. A request past its deadline keeps its slot until the
   * transport ends it: the cap bounds sockets.
   */
  async send<T>(method: string, params: unknown[]): Promise<T> {
    const started = process.hrtime.bigint();
    let outcome = "error";
    try {
      const result = await this.inFlight.runWithin(() => this.provider.send(method, params) as Promise<T>, this.options.requestTimeoutMs, () => new ChainUnavailableError(new Error(`${method} timed out`)));
      outcome = "ok";
      return result;
    } catch (error) {
      throw error instanceof ChainUnavailableError ? error : new ChainUnavailableError(error);
    } finally {
      chainRpcDuration.observe({ method, outcome }, secondsSince(started));
    }
  }

  private async pollHead(): Promise<BlockCache> {
    try {
      return await this.refreshHead();
    } catch (error) {
      this.block = null;
      throw error;
    }
  }

  /** Fetches the head (one request shared by concurrent callers) and starts a new cache when it moved. */
  private refreshHead(): Promise<BlockCache> {
    this.headRequest ??= this.send<string>("eth_blockNumber", [])
      .then((hex) => {
        const number = Number(BigInt(hex));
        const previous = this.block?.number ?? null;
        if (this.block === null || previous !== number) {
          this.block = { tag: `0x${number.toString(16)}`, number, entries: new Map() };
          for (const listener of this.headListeners) listener(previous, number);
        }
        return this.block;
      })
      .finally(() => {
        this.headRequest = null;
      });
    return this.headRequest;
  }
}

