/**
 * Which JSON-RPC endpoint answers payment checks for an EVM chain: the platform's own ChainReader for its home chain,
 * else a reader per `PAYMENT_RPC_URLS` entry (built on first use, same deadline and in-flight cap), else none
 * (PAYMENT_RPC_REQUIRED). Every failure of a request is PAYMENT_RPC_ERROR.
 */
import type { ChainConfig } from "../../../shared/config.js";
import type { PaymentsConfig } from "../../../shared/config/payments.js";
import { ChainReader } from "../../../shared/chain/reader.js";
import { PaymentErrors } from "./payment.errors.js";

/** What a payment check needs from a node: one JSON-RPC request under the reader's deadline and in-flight cap. */
export interface PaymentRpc {
  send<T>(method: string, params: unknown[]): Promise<T>;
}

/** Wraps a reader so any failure (timeout, refused connection, RPC error) becomes PAYMENT_RPC_ERROR. */
export function paymentRpc(reader: Pick<ChainReader, "send">): PaymentRpc {
  return {
    async send<T>(method: string, params: unknown[]): Promise<T> {
      try {
        return await reader.send<T>(method, params);
      } catch {
        throw PaymentErrors.rpcError();
      }
    },
  };
}

export class PaymentRpcs {
  private readonly others = new Map<string, ChainReader>();

  constructor(
    private readonly home: { chainId: number; reader: Pick<ChainReader, "send"> | null },
    private readonly chain: Pick<ChainConfig, "requestTimeoutMs" | "pollIntervalMs" | "maxInFlight">,
    private readonly config: Pick<PaymentsConfig, "rpcUrls">,
  ) {}

  /** The endpoint for `chainId` (decimal), or PAYMENT_RPC_REQUIRED. */
  forChain(chainId: string | number): PaymentRpc {
    const id = String(chainId);
    if (id === String(this.home.chainId) && this.home.reader) return paymentRpc(this.home.reader);
    const url = this.config.rpcUrls[id];
    if (!url) throw PaymentErrors.rpcRequired();
    let reader = this.others.get(id);
    if (!reader) {
      reader = new ChainReader({
        rpcUrl: url,
        addresses: {},
        chainId: Number(id),
        requestTimeoutMs: this.chain.requestTimeoutMs,
        pollIntervalMs: this.chain.pollIntervalMs,
        maxInFlight: this.chain.maxInFlight,
      });
      this.others.set(id, reader);
    }
    return paymentRpc(reader);
  }

  close(): void {
    for (const reader of this.others.values()) reader.close();
    this.others.clear();
  }
}
