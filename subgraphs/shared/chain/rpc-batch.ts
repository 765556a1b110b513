/**
 * JSON-RPC batches: many calls in one HTTP request, for reads that fan out (an event history in pages of 100). One
 * round trip instead of one per call; the node still answers each call on its own. Answers are matched by ID; any
 * failure (transport, deadline, HTTP status, a call's error, a missing answer) rejects the whole batch.
 *
 * Sent with node:http(s) over the caller's keep-alive agent, the body read as Buffers and parsed from them
 * (rpc-answer.ts): a batch answer is megabytes of hex, and fetch's web streams cost about as much CPU again as
 * parsing it.
 */
import http from "node:http";
import https from "node:https";
import type { Interface } from "ethers";
import type { InFlightLimit } from "./in-flight.js";
import { parseRpcAnswer } from "./rpc-answer.js";

export interface RpcCall {
  method: string;
  params: unknown[];
}

/**
 * The call data of one function with many argument lists: what `encodeFunctionData` gives for each, with the selector
 * (a keccak in ethers on every call) computed once.
 */
export function callData(contract: Interface, method: string, argsList: ReadonlyArray<readonly unknown[]>): string[] {
  const fragment = contract.getFunction(method);
  if (!fragment) throw new Error(`no function ${method}`);
  const selector = fragment.selector;
  const coder = contract.getAbiCoder();
  return argsList.map((args) => `${selector}${coder.encode(fragment.inputs, args).slice(2)}`);
}

export async function sendBatch<T>(rpcUrl: string, calls: readonly RpcCall[], timeoutMs: number, agent?: http.Agent): Promise<T[]> {
  const body = JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, method: call.method, params: call.params })));
  const answers = parseRpcAnswer(await post(rpcUrl, body, timeoutMs, agent)) as Array<{ id: number; result?: T; error?: { message?: string } }>;
  if (!Array.isArray(answers)) throw new Error("JSON-RPC batch answer is not an array");
  const results: T[] = new Array(calls.length);
  const seen = new Set<number>();
  for (const answer of answers) {
    if (answer.error || !Number.isInteger(answer.id) || answer.id < 0 || answer.id >= calls.length) {
      throw new Error(`JSON-RPC batch call failed: ${answer.error?.message ?? "bad answer"}`);
    }
    results[answer.id] = answer.result as T;
    seen.add(answer.id);
  }
  if (seen.size !== calls.length) throw new Error("JSON-RPC batch answer is incomplete");
  return results;
}

/** Where batches go: the node, the deadline of one batch, the keep-alive agent and the reader's in-flight cap. */
export interface BatchTransport {
  rpcUrl: string;
  timeoutMs: number;
  agent: http.Agent;
  inFlight: InFlightLimit;
}

/**
 * `calls` as batches of `batchSize`, each in its own in-flight slot under its own deadline (the wait for the slot
 * included), each answer decoded as soon as it arrives while the node is still answering the others; in call order.
 */
export async function sendBatches<T>(transport: BatchTransport, calls: readonly RpcCall[], decode: (returnData: string, call: number) => T, batchSize: number): Promise<T[]> {
  const batches: Promise<T[]>[] = [];
  for (let start = 0; start < calls.length; start += batchSize) {
    const batch = calls.slice(start, start + batchSize);
    const deadline = AbortSignal.timeout(transport.timeoutMs);
    const send = () => sendBatch<string>(transport.rpcUrl, batch, transport.timeoutMs, transport.agent);
    batches.push(transport.inFlight.run(send, deadline).then((results) => results.map((result, i) => decode(result, start + i))));
  }
  return (await Promise.all(batches)).flat();
}

/** POSTs `body` and resolves with the answer's bytes; rejects on a non-2xx status, a cut-off answer or the deadline. */
function post(rpcUrl: string, body: string, timeoutMs: number, agent: http.Agent | undefined): Promise<Buffer> {
  const url = new URL(rpcUrl);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const request = client.request(url, { method: "POST", headers, agent, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.resume();
        reject(new Error(`JSON-RPC batch answered HTTP ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve(Buffer.concat(chunks)));
      response.on("error", reject);
      // A destroyed response (deadline, reset) may close without "end" or "error".
      response.on("close", () => {
        if (!response.complete) reject(new Error("JSON-RPC batch answer was cut off"));
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}
