/**
 * JSON-RPC batches: many calls in one HTTP request, for reads that fan out (an event history in pages of 100). One
 * round trip instead of one per call; the node still answers each call on its own. Answers are matched by ID; any
 * failure (transport, deadline, a call's error, a missing answer) rejects the whole batch.
 */
export interface RpcCall {
  method: string;
  params: unknown[];
}

export async function sendBatch<T>(rpcUrl: string, calls: readonly RpcCall[], timeoutMs: number): Promise<T[]> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, method: call.method, params: call.params }))),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`JSON-RPC batch answered HTTP ${response.status}`);
  const answers = (await response.json()) as Array<{ id: number; result?: T; error?: { message?: string } }>;
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
