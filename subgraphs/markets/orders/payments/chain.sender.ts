/**
 * Transactions the platform sends for the payment rails (escrow lock/release/refund, x402 settlement), signed with the
 * escrow operator key and sent through the home chain's reader (its deadline and in-flight cap apply to every
 * request).
 *
 * Sends are serialised per process so nonces never collide: the nonce is read once from the node (`pending`) and
 * counted locally; any failed send drops it so the next send re-reads it. Gas is estimated first, so a call that would
 * revert is refused before it costs gas (PAYMENT_TX_FAILED) and the revert's name is kept for the log. Then the receipt
 * is polled until it exists (PAYMENT_RECEIPT_TIMEOUT_MS). Two processes sharing one operator key would race for
 * nonces: give each instance its own key (docs/markets-payments.md).
 */
import type { Interface, Wallet } from "ethers";
import type { ChainReader } from "../../../shared/chain/reader.js";
import { PaymentErrors } from "./payment.errors.js";
import type { RpcReceipt } from "./transfer.check.js";

export interface SentTransaction {
  hash: string;
  receipt: RpcReceipt;
}

const POLL_MS = 50;

export class ChainSender {
  private queue: Promise<unknown> = Promise.resolve();
  private nonce: number | null = null;
  /** Revert name of the last refused send (for logs and tests; never in an answer). */
  lastRevert: string | null = null;

  constructor(
    /** The home chain's reader (raw `send`: errors keep their cause, so a revert is told from a dead node). */
    private readonly reader: Pick<ChainReader, "send">,
    private readonly wallet: Wallet,
    private readonly chainId: number,
    private readonly receiptTimeoutMs: number,
    /** Interfaces whose custom errors name a revert. */
    private readonly errorInterfaces: Interface[] = [],
  ) {}

  get address(): string {
    return this.wallet.address;
  }

  /** Sends `data` to `to` and answers the mined receipt; a revert (before or after sending) is PAYMENT_TX_FAILED. */
  async send(to: string, data: string): Promise<SentTransaction> {
    const hash = await this.serialised(() => this.sign(to, data));
    const receipt = await this.receipt(hash);
    if (BigInt(receipt.status) !== 1n) {
      this.lastRevert = "mined with status 0";
      throw PaymentErrors.txFailed();
    }
    return { hash, receipt };
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  private async sign(to: string, data: string): Promise<string> {
    let gas: string;
    try {
      gas = await this.rawSend<string>("eth_estimateGas", [{ from: this.wallet.address, to, data }]);
    } catch (error) {
      const revert = revertOf(error);
      if (revert === undefined) throw PaymentErrors.rpcError();
      this.lastRevert = this.decode(revert);
      throw PaymentErrors.txFailed();
    }
    try {
      const gasPrice = await this.rawSend<string>("eth_gasPrice", []);
      this.nonce ??= Number(BigInt(await this.rawSend<string>("eth_getTransactionCount", [this.wallet.address, "pending"])));
      const raw = await this.wallet.signTransaction({
        type: 0,
        chainId: this.chainId,
        nonce: this.nonce,
        to,
        data,
        gasLimit: (BigInt(gas) * 12n) / 10n + 10_000n,
        gasPrice: BigInt(gasPrice),
      });
      const hash = await this.rawSend<string>("eth_sendRawTransaction", [raw]);
      this.nonce++;
      return hash.toLowerCase();
    } catch {
      this.nonce = null;
      throw PaymentErrors.rpcError();
    }
  }

  private async receipt(hash: string): Promise<RpcReceipt> {
    const deadline = Date.now() + this.receiptTimeoutMs;
    for (;;) {
      const receipt = await this.rawSend<RpcReceipt | null>("eth_getTransactionReceipt", [hash]).catch(() => {
        throw PaymentErrors.rpcError();
      });
      if (receipt) return receipt;
      if (Date.now() > deadline) throw PaymentErrors.rpcError();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private rawSend<T>(method: string, params: unknown[]): Promise<T> {
    return this.reader.send<T>(method, params);
  }

  private decode(data: string): string {
    for (const iface of this.errorInterfaces) {
      try {
        const parsed = iface.parseError(data);
        if (parsed) return `${parsed.name}(${parsed.args.map(String).join(", ")})`;
      } catch {
        // not this interface's error
      }
    }
    return data === "0x" ? "reverted without data" : data;
  }
}

/** Revert data of a JSON-RPC error (ethers CALL_EXCEPTION, possibly wrapped), or undefined when it is no revert. */
function revertOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const e = current as { code?: string; data?: unknown; error?: { data?: unknown; message?: string }; cause?: unknown };
    if (e.code === "CALL_EXCEPTION") return typeof e.data === "string" ? e.data : "0x";
    if (typeof e.error?.message === "string" && /revert/i.test(e.error.message)) {
      return typeof e.error.data === "string" ? e.error.data : "0x";
    }
    current = e.cause;
  }
  return undefined;
}
