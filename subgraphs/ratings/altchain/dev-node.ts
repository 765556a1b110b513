/**
 * The embedded second-chain node of role `all` in dev mode: a small JSON-RPC server that speaks the second chain's
 * `getAccountInfo` (base64 encoding) for the binding accounts it was given, plus `getHealth`, `getSlot` and
 * `getVersion`. It holds no state of its own and answers every commitment alike. Production points
 * ALTCHAIN_RPC_URL at a real node instead.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { address, getBase64Decoder } from "@solana/kit";
import { getBytes } from "ethers";
import { BINDING_DISCRIMINATOR, BINDING_STATUS, bindingAccountCodec, bindingAddressOf } from "./binding-account.js";

export interface DevBinding {
  /** Base58 second-chain key. */
  altchainKey: string;
  evmAddress: string;
  status: keyof typeof BINDING_STATUS;
  boundAt: number;
  revokedAt: number;
}

export interface BindingNode {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const RENT_EXEMPT_LAMPORTS = 1_461_600;

export async function startBindingNode(options: {
  host: string;
  port: number;
  programId: string;
  bindings: readonly DevBinding[];
}): Promise<BindingNode> {
  const programId = address(options.programId);
  const accounts = new Map<string, string>();
  for (const binding of options.bindings) {
    const key = address(binding.altchainKey);
    const data = bindingAccountCodec.encode({
      discriminator: BINDING_DISCRIMINATOR,
      status: BINDING_STATUS[binding.status],
      altchainKey: key,
      evmAddress: getBytes(binding.evmAddress),
      boundAt: BigInt(binding.boundAt),
      revokedAt: BigInt(binding.revokedAt),
    });
    accounts.set(await bindingAddressOf(programId, key), getBase64Decoder().decode(data));
  }
  const startedAt = Date.now();
  const slot = () => Math.floor((Date.now() - startedAt) / 400) + 1;

  const answer = (method: string, params: unknown[]): { result: unknown } | { error: { code: number; message: string } } => {
    switch (method) {
      case "getAccountInfo": {
        const data = accounts.get(String(params[0]));
        const value =
          data === undefined
            ? null
            : { data: [data, "base64"], executable: false, lamports: RENT_EXEMPT_LAMPORTS, owner: programId, rentEpoch: 0, space: Buffer.from(data, "base64").length };
        return { result: { context: { apiVersion: "2.2.0", slot: slot() }, value } };
      }
      case "getHealth":
        return { result: "ok" };
      case "getSlot":
        return { result: slot() };
      case "getVersion":
        return { result: { "solana-core": "2.2.0", "feature-set": 0 } };
      default:
        return { error: { code: -32601, message: "Method not found" } };
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      let id: unknown = null;
      let body: object;
      try {
        const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown; method?: unknown; params?: unknown };
        id = request.id ?? null;
        body = answer(String(request.method), Array.isArray(request.params) ? request.params : []);
      } catch {
        body = { error: { code: -32700, message: "Parse error" } };
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, ...body }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

