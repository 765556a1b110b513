/**
 * The faucet's funding account on the configured chain: balances and one plain value transfer. The nonce is taken
 * from the node (`pending`) while the caller holds the database's send lock, so replicas sending from one account
 * never collide.
 */
import { Wallet, type JsonRpcProvider } from "ethers";
import { createProvider } from "../../shared/chain/rpc.js";
import { ChainUnavailableError } from "../../shared/errors.js";

/** Gas of a plain transfer; also what a transfer to a contract that refuses value runs out of (TRANSFER_FAILED). */
const TRANSFER_GAS = 21_000n;

export interface TransferResult {
  ok: boolean;
  txHash: string;
}

export class FaucetWallet {
  private readonly provider: JsonRpcProvider;
  private readonly wallet: Wallet;

  constructor(
    rpcUrl: string,
    privateKey: string,
    private readonly chainId: number,
    timeoutMs: number,
  ) {
    this.provider = createProvider(rpcUrl, { chainId, timeoutMs });
    this.wallet = new Wallet(privateKey, this.provider);
  }

  get address(): string {
    return this.wallet.address;
  }

  async balanceOf(address: string): Promise<bigint> {
    return this.chain(() => this.provider.getBalance(address, "latest"));
  }

  /** What the faucet needs to send `amount`: the value plus the transfer's gas at the current price. */
  async costOf(amount: bigint): Promise<bigint> {
    const fees = await this.chain(() => this.provider.getFeeData());
    return amount + TRANSFER_GAS * (fees.maxFeePerGas ?? fees.gasPrice ?? 0n);
  }

  /** Sends and waits for the receipt; a reverted or dropped transaction is `ok: false`. */
  async transfer(to: string, amount: bigint, underSendLock: <T>(send: () => Promise<T>) => Promise<T>): Promise<TransferResult> {
    const sent = await underSendLock(() =>
      this.chain(async () => {
        const nonce = await this.provider.getTransactionCount(this.wallet.address, "pending");
        return this.wallet.sendTransaction({ to, value: amount, nonce, gasLimit: TRANSFER_GAS, chainId: this.chainId });
      }),
    );
    const receipt = await this.chain(() => sent.wait(1, 30_000)).catch(() => null);
    return receipt?.status === 1 ? { ok: true, txHash: sent.hash } : { ok: false, txHash: sent.hash };
  }

  close(): void {
    this.provider.destroy();
  }

  private async chain<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw new ChainUnavailableError(error);
    }
  }
}
