/**
 * The demo provider: a small real HTTP provider for the catalogue's native skill `oracle.price-feed` (operation
 * `get-price`), which role `all` starts beside the embedded demo so `execute` works on `npm start`. It speaks the
 * native execution protocol of work/task.executor.ts:
 *
 *   POST /v1/skills/oracle.price-feed/get-price   Authorization: Bearer <token>
 *   {"taskId": "...", "machineId": "...", "input": {"pair": "ETH/USD"}}
 *   -> 200 {"pair": "ETH/USD", "price": "3120.55", "currency": "USD", "asOf": "...", "source": "demo-oracle"}
 *
 * Prices are made up (a fixed table, so runs are repeatable). A missing or wrong token is 401, an unknown pair 404,
 * a body without a `pair` 422, other paths 404; `GET /health` is 200. Bodies over 16 KiB are refused (413).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, toUtf8Bytes, Wallet } from "ethers";

export const DEMO_PROVIDER_TOKEN = "demo-provider-token";

/** The demo AI agent's wallet: a key derived from a public seed (dev only), written to demo.json for `cli market`. */
export function demoAgent(): { address: string; privateKey: string } {
  const wallet = new Wallet(keccak256(toUtf8Bytes("demo-market-agent|1")));
  return { address: wallet.address, privateKey: wallet.privateKey };
}
export const DEMO_PROVIDER_SKILL = "oracle.price-feed";
export const DEMO_PROVIDER_OPERATION = "get-price";

const PRICES: Record<string, string> = {
  "ETH/USD": "3120.55",
  "BTC/USD": "64250.10",
  "SOL/USD": "142.37",
  "EUR/USD": "1.0842",
};

export interface DemoProvider {
  url: string;
  /** Requests answered so far (for tests and the operator's curiosity). */
  requests(): number;
  close(): Promise<void>;
}

function answer(response: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

export async function startDemoProvider(options: { host: string; port: number; token?: string; now?: () => number }): Promise<DemoProvider> {
  const token = options.token ?? DEMO_PROVIDER_TOKEN;
  const now = options.now ?? Date.now;
  let served = 0;
  const server = http.createServer((request, response) => {
    served += 1;
    if (request.method === "GET" && request.url === "/health") return answer(response, 200, { status: "ok" });
    if (request.method !== "POST" || request.url !== `/v1/skills/${DEMO_PROVIDER_SKILL}/${DEMO_PROVIDER_OPERATION}`) {
      request.resume();
      return answer(response, 404, { error: "not_found" });
    }
    if (request.headers.authorization !== `Bearer ${token}`) {
      request.resume();
      return answer(response, 401, { error: "unauthorized" });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 16_384) chunks.push(chunk);
    });
    request.on("end", () => {
      if (size > 16_384) return answer(response, 413, { error: "too_large" });
      let pair: unknown;
      try {
        pair = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input?: { pair?: unknown } }).input?.pair;
      } catch {
        pair = undefined;
      }
      if (typeof pair !== "string") return answer(response, 422, { error: "input.pair is required" });
      const price = PRICES[pair.toUpperCase()];
      if (!price) return answer(response, 404, { error: "unknown pair", pairs: Object.keys(PRICES) });
      answer(response, 200, { pair: pair.toUpperCase(), price, currency: pair.split("/")[1]?.toUpperCase(), asOf: new Date(now()).toISOString(), source: "demo-oracle" });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    requests: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
