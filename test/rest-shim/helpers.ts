/**
 * Test fixtures for the REST shim: a config on free ports, a recording executor that answers canned GraphQL
 * results, and raw-socket requests for what `fetch` cannot send (repeated headers, unsent or chunked bodies).
 */
import type { ForwardedRequest, GraphQLExecutor, OperationResult, ShimOperation } from "../../rest-shim/executor.js";
import { MemoryCounterStore, RateLimiter } from "../../rest-shim/rate-limit.js";
import { createRestListeners, type RestListenersOptions } from "../../rest-shim/server.js";
import { rateLimitClock, type ManualClock } from "../support/clock.js";
import { testConfig } from "../support/config.js";

export interface ExecutorCall {
  operation: string;
  variables: Record<string, unknown>;
  request: ForwardedRequest;
}

type Answer = OperationResult | Error | ((call: ExecutorCall) => OperationResult | Promise<OperationResult>);

/** Answers each operation by name with a canned result (or throws a canned error) and records every call. */
export class RecordingExecutor implements GraphQLExecutor {
  readonly calls: ExecutorCall[] = [];
  private readonly answers = new Map<string, Answer>();

  answer(operationName: string, answer: Answer): this {
    this.answers.set(operationName, answer);
    return this;
  }

  async execute(operation: ShimOperation, variables: Record<string, unknown>, request: ForwardedRequest) {
    const call = { operation: operation.name, variables, request };
    this.calls.push(call);
    const answer = this.answers.get(operation.name);
    if (answer === undefined) throw new Error(`no canned answer for ${operation.name}`);
    if (answer instanceof Error) throw answer;
    return typeof answer === "function" ? answer(call) : answer;
  }
}

export const CHALLENGE = {
  chainId: "3338",
  didController: "0x0000000000000000000000000000000000000001",
  expiresAt: "1800000000",
  machineDid: "did:service:1",
  machineId: "1",
  nonce: `0x${"ab".repeat(32)}`,
  profile: "vendor-chip-ca306/1",
  protocol: "service.verify.chip-proof/1",
  verifier: "service.verify",
};

/** The verification record as the verify subgraph answers it (GraphQL enum statuses). */
export const RECORD = {
  machineId: "1",
  machineDid: "did:service:1",
  homeChain: { kind: "evm", chainId: "3338" },
  didController: { kind: "evm", address: "0x0000000000000000000000000000000000000001" },
  operator: { kind: "evm", address: "0x0000000000000000000000000000000000000002" },
  verification: { kyb: { status: "UNVERIFIED" }, chip: { status: "VERIFIED" } },
};

/** The REST body of that record: the same members, statuses in document 1's lowercase spelling. */
export const RECORD_JSON = JSON.stringify({ ...RECORD, verification: { kyb: { status: "unverified" }, chip: { status: "verified" } } });

/** The readiness report as the ratings subgraph answers it (GraphQL names) ... */
export const READY = {
  status: "READY",
  rpcConnected: true,
  contracts: {
    identityRegistry: true,
    identityStaking: true,
    eventRegistry: true,
    machineNft: true,
    didRegistry: true,
    adminFlags: true,
  },
};

/** An MCR scorecard as the ratings subgraph answers it. */
export const SCORECARD = {
  did: "did:service:0x0000000000000000000000000000000000000001",
  machineId: "1",
  mcrScore: 45,
  mcr: "BB",
  mcrDegraded: false,
  bondStatus: "BONDED",
  negativeFlag: false,
  eventCount: 12,
  revenueEventCount: 7,
  activityEventCount: 5,
  revenueTrend: "STABLE",
  totalRevenue: "35000",
  averageRevenuePerEvent: 5000,
  lastUpdated: 1711900000,
};

/** An executor answering every documented operation successfully. */
export function happyExecutor(): RecordingExecutor {
  return new RecordingExecutor()
    .answer("Health", { data: { health: { status: "OK" } } })
    .answer("Readiness", { data: { readiness: READY } })
    .answer("McrScorecard", { data: { mcrScorecard: SCORECARD } })
    .answer("VerifyMachine", { data: { machineVerification: RECORD } })
    .answer("CreateChipChallenge", { data: { createChipChallenge: CHALLENGE } })
    .answer("SubmitChipEvidence", {
      data: { submitChipEvidence: { receiptId: "3f1c2f52-4a57-4a4c-9a52-2a7f4b9c9e01", status: "ACCEPTED" } },
    });
}

export interface RunningShim {
  httpUrl: string;
  marketsUrl: string;
  httpPort: number;
  marketsPort: number;
  executor: RecordingExecutor;
  /** The clock of the shim's per-IP windows (memory counters), frozen mid-window: `advance(windowMs)` rolls it.
   * Undefined when the test passed its own `rateLimiter` or a `REDIS_URL`. */
  rateLimitClock?: ManualClock;
  close(): Promise<void>;
}

/**
 * The REST listeners in this process on free ports, answering through `executor`. Unless the test passes its own
 * `rateLimiter`, the per-IP counters are in memory and their window stands still (`rateLimitClock`), so a wall-clock
 * window boundary can never reset a count in the middle of a test.
 */
export async function startShim(
  options: Partial<Omit<RestListenersOptions, "executor">> & { executor?: RecordingExecutor } = {},
): Promise<RunningShim> {
  const executor = options.executor ?? happyExecutor();
  const config = options.config ?? testConfig();
  const clock = options.rateLimiter || config.redisUrl ? undefined : rateLimitClock(config.rateLimits.windowMs);
  const ownLimiter = clock ? new RateLimiter(new MemoryCounterStore(), config.rateLimits.windowMs, () => clock.now()) : undefined;
  const listeners = createRestListeners({ ...options, config, executor, rateLimiter: options.rateLimiter ?? ownLimiter });
  const { httpUrl, marketsUrl } = await listeners.listen();
  return {
    httpUrl,
    marketsUrl,
    httpPort: Number(new URL(httpUrl).port),
    marketsPort: Number(new URL(marketsUrl).port),
    executor,
    rateLimitClock: clock,
    async close() {
      await listeners.close();
      await ownLimiter?.close();
    },
  };
}

/** The statuses of `count` requests made one after another. */
export async function statuses(count: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await send()).status);
  return result;
}
