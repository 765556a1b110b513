/**
 * Test fixtures for the REST shim: a config on free ports, a recording executor that answers canned GraphQL
 * results, and raw-socket requests for what `fetch` cannot send (repeated headers, unsent or chunked bodies).
 */
import net from "node:net";
import { loadConfig, type PlatformConfig } from "../../subgraphs/shared/config.js";
import type { ForwardedRequest, GraphQLExecutor, OperationResult, ShimOperation } from "../../rest-shim/executor.js";
import { createRestListeners, type RestListenersOptions } from "../../rest-shim/server.js";

export const TOKEN = "onboarding-token-A1";
export const OTHER_TOKEN = "onboarding-token-B2";

export function testConfig(env: Record<string, string> = {}): PlatformConfig {
  return loadConfig({
    HOST: "127.0.0.1",
    HTTP_PORT: "0",
    MARKETS_PORT: "0",
    MCR2_PORT: "0",
    ONBOARDING_TOKENS: `${TOKEN},${OTHER_TOKEN}`,
    LOG_LEVEL: "silent",
    // Generous limits, so only the rate-limit tests meet them.
    RATE_LIMIT_CHALLENGE_PER_IP: "10000",
    RATE_LIMIT_EVIDENCE_PER_IP: "10000",
    RATE_LIMIT_VERIFY_API_PER_IP: "10000",
    RATE_LIMIT_VERIFY_READ_PER_IP: "10000",
    RATE_LIMIT_RATINGS_PER_IP: "10000",
    RATE_LIMIT_MARKETS_PER_IP: "10000",
    ...env,
  });
}

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

export const RECORD = {
  machineId: "1",
  machineDid: "did:service:1",
  homeChain: { kind: "evm", chainId: "3338" },
  didController: { kind: "evm", address: "0x0000000000000000000000000000000000000001" },
  operator: { kind: "evm", address: "0x0000000000000000000000000000000000000002" },
  verification: { kyb: { status: "unverified" }, chip: { status: "verified" } },
};

/** The readiness report as the ratings subgraph answers it (GraphQL names) ... */
export const READY = {
  status: "ready",
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

/** ... and as GET /ready writes it (document 2's names, in this order). */
export const READY_BODY =
  '{"status":"ready","rpc_connected":true,"contracts":{"identity_registry":true,"identity_staking":true,"event_registry":true,"machine_nft":true,"did_registry":true,"admin_flags":true}}';

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
    .answer("Health", { data: { health: { status: "ok" } } })
    .answer("Readiness", { data: { readiness: READY } })
    .answer("McrScorecard", { data: { mcrScorecard: SCORECARD } })
    .answer("VerifyMachine", { data: { machineVerification: RECORD } })
    .answer("CreateChipChallenge", { data: { createChipChallenge: CHALLENGE } })
    .answer("SubmitChipEvidence", {
      data: { submitChipEvidence: { receiptId: "3f1c2f52-4a57-4a4c-9a52-2a7f4b9c9e01", status: "accepted" } },
    });
}

export interface RunningShim {
  httpUrl: string;
  marketsUrl: string;
  httpPort: number;
  marketsPort: number;
  executor: RecordingExecutor;
  close(): Promise<void>;
}

export async function startShim(
  options: Partial<Omit<RestListenersOptions, "executor">> & { executor?: RecordingExecutor } = {},
): Promise<RunningShim> {
  const executor = options.executor ?? happyExecutor();
  const listeners = createRestListeners({ ...options, config: options.config ?? testConfig(), executor });
  const { httpUrl, marketsUrl } = await listeners.listen();
  return {
    httpUrl,
    marketsUrl,
    httpPort: Number(new URL(httpUrl).port),
    marketsPort: Number(new URL(marketsUrl).port),
    executor,
    close: () => listeners.close(),
  };
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from sending the head to the end of the response. */
  elapsedMs: number;
}

/**
 * Sends `head` (request line and headers, CRLF separated, without the final empty line) and then `body` parts, and
 * reads one response. The socket stays open after the parts unless the server closes it, so a body that is
 * announced but never sent stays unsent.
 */
export function rawRequest(port: number, head: string[], bodyParts: Array<string | Buffer> = []): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = Date.now();
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within 5 s: ${received.toString("latin1")}`));
    }, 5000);
    const isHead = head[0]!.startsWith("HEAD ");
    const tryParse = () => {
      const response = parseResponse(received, isHead);
      if (response === undefined) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...response, elapsedMs: Date.now() - started });
    };
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse();
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("connect", () => {
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      for (const part of bodyParts) socket.write(part);
    });
  });
}

function parseResponse(bytes: Buffer, isHead: boolean): Omit<RawResponse, "elapsedMs"> | undefined {
  const text = bytes.toString("latin1");
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const [statusLine, ...lines] = text.slice(0, headEnd).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const length = isHead ? 0 : Number(headers["content-length"] ?? 0);
  const body = bytes.subarray(headEnd + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine!.split(" ")[1]), headers, body: body.subarray(0, length).toString("utf8") };
}

/** The verify envelope, byte for byte. */
export const verifyBody = (code: string, message: string) => JSON.stringify({ detail: { code, message } });

export interface SimpleResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** `fetch` reduced to what the assertions need. */
export async function call(url: string, init: RequestInit = {}): Promise<SimpleResponse> {
  const response = await fetch(url, { redirect: "manual", ...init });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** Headers of an authorised JSON POST, with overrides (`undefined` removes a header). */
export function postHeaders(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json",
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
