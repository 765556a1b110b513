/**
 * The payment rails' chain side, built once per markets subgraph (docs/markets-payments.md): RPC endpoints per chain,
 * the escrow operator's sender, the escrow rail and what x402 needs. A rail whose parts are missing (no escrow
 * operator key, no stablecoin or escrow address) answers PAYMENT_RAIL_UNAVAILABLE when used.
 */
import { getAddress, Wallet } from "ethers";
import type { ChainConfig, ContractName } from "../../../shared/config.js";
import type { PaymentsConfig } from "../../../shared/config/payments.js";
import { contractInterface } from "../../../shared/chain/artifacts.js";
import type { ChainReader } from "../../../shared/chain/reader.js";
import { ChainSender } from "./chain.sender.js";
import type { TokenDomain } from "./eip3009.js";
import { EscrowRail } from "./escrow.js";
import { PaymentErrors } from "./payment.errors.js";
import { PaymentRpcs, type PaymentRpc } from "./rpc.js";

/** A chain a transfer payment may be made on: its stablecoin and payee (docs/markets-payments.md "Payment chains"). */
export interface PaymentDestination {
  /** The chain's name in intents: X402_NETWORK for the platform's chain, `eip155:<id>` for the others. */
  chain: string;
  /** Decimal chain ID. */
  chainId: string;
  token: string;
  payTo: string;
  /** Blocks that must hold a transfer before it pays (the transfer's own included; 1 = mined). */
  confirmations: number;
}

export interface PaymentChainOptions {
  chainId: number;
  /** The home chain's reader; null when the subgraph runs without a chain. */
  reader: Pick<ChainReader, "send"> | null;
  addresses: Partial<Record<ContractName, string>>;
  chain: Pick<ChainConfig, "requestTimeoutMs" | "pollIntervalMs" | "maxInFlight">;
  payments: PaymentsConfig;
  /** The faucet's key (FAUCET_PRIVATE_KEY): its transfers are the platform's, never a payment. */
  faucetKey?: string | null;
}

export class PaymentChain {
  readonly rpcs: PaymentRpcs;
  private readonly sender: ChainSender | null;
  private escrowRail: EscrowRail | null = null;
  private domain: Promise<TokenDomain> | null = null;
  private own: ReadonlySet<string> | null = null;

  constructor(private readonly options: PaymentChainOptions) {
    this.rpcs = new PaymentRpcs({ chainId: options.chainId, reader: options.reader }, options.chain, options.payments);
    const key = options.payments.escrowOperatorKey;
    this.sender =
      key && options.reader
        ? new ChainSender(options.reader, new Wallet(key), options.chainId, options.payments.receiptTimeoutMs, [
            contractInterface("PaymentEscrow"),
            contractInterface("TestStablecoin"),
          ])
        : null;
  }

  get chainId(): number {
    return this.options.chainId;
  }

  get x402Network(): string {
    return this.options.payments.x402Network;
  }

  /** MARKET_PAYMENT_RECORDED_PROOFS: whether a wallet proof may be recorded without reading the chain (dev only). */
  get recordedProofs(): boolean {
    return this.options.payments.recordedProofs;
  }

  get x402MaxTimeoutSeconds(): number {
    return this.options.payments.x402MaxTimeoutSeconds;
  }

  /** The stablecoin of the rails (TestStablecoin on the embedded chain, `TEST_STABLECOIN_ADDRESS` otherwise). */
  get tokenAddress(): string {
    const token = this.options.addresses.TestStablecoin;
    if (!token) throw PaymentErrors.railUnavailable();
    return token;
  }

  /** Where the chain rails pay (PAYMENT_PAYEE_ADDRESS; the demo payee in dev mode). */
  get payee(): string {
    const payee = this.options.payments.payeeAddress;
    if (!payee) throw PaymentErrors.railUnavailable();
    return payee;
  }

  get escrowAddress(): string {
    const escrow = this.options.addresses.PaymentEscrow;
    if (!escrow) throw PaymentErrors.railUnavailable();
    return escrow;
  }

  /**
   * Every chain a transfer may pay on: the platform's (when its stablecoin and payee are configured) first, then each
   * PAYMENT_CHAINS entry.
   */
  destinations(): PaymentDestination[] {
    const all: PaymentDestination[] = [];
    try {
      all.push({ chain: this.x402Network, chainId: String(this.chainId), token: getAddress(this.tokenAddress), payTo: getAddress(this.payee), confirmations: 1 });
    } catch {
      // the platform's chain has no stablecoin or payee: its transfers are not offered
    }
    for (const entry of this.options.payments.chains) all.push({ chain: `eip155:${entry.chainId}`, chainId: entry.chainId, token: entry.token, payTo: entry.payee, confirmations: entry.confirmations });
    return all;
  }

  /** The destination on `chainId` (decimal), or null when payments are not accepted on that chain. */
  destination(chainId: string | number): PaymentDestination | null {
    return this.destinations().find((d) => d.chainId === String(chainId)) ?? null;
  }

  /** The home chain's payment RPC. */
  home(): PaymentRpc {
    return this.rpcs.forChain(this.options.chainId);
  }

  /**
   * The addresses whose transactions and transfers are the platform's own (lowercase): the escrow contract, the
   * escrow operator and the faucet. A transfer they sent (an escrow lock, release or refund, a settlement, a faucet
   * funding) never proves a buyer's payment.
   */
  platformAddresses(): ReadonlySet<string> {
    if (this.own) return this.own;
    const own = new Set<string>();
    if (this.options.faucetKey) own.add(new Wallet(this.options.faucetKey).address.toLowerCase());
    const escrow = this.options.addresses.PaymentEscrow;
    if (escrow) own.add(escrow.toLowerCase());
    const key = this.options.payments.escrowOperatorKey;
    if (key) own.add(new Wallet(key).address.toLowerCase());
    this.own = own;
    return own;
  }

  /** The escrow operator's sender (escrow and x402 settlement). */
  operator(): ChainSender {
    if (!this.sender) throw PaymentErrors.railUnavailable();
    return this.sender;
  }

  escrow(): EscrowRail {
    this.escrowRail ??= new EscrowRail(this.home(), this.operator(), { escrow: this.escrowAddress, token: this.tokenAddress });
    return this.escrowRail;
  }

  /** The token's EIP-712 domain, read from the token once (name(), version()). */
  tokenDomain(): Promise<TokenDomain> {
    const token = this.tokenAddress;
    this.domain ??= (async () => {
      const iface = contractInterface("TestStablecoin");
      const read = async (method: string) => {
        const raw = await this.home().send<string>("eth_call", [{ to: token, data: iface.encodeFunctionData(method, []) }, "latest"]);
        return iface.decodeFunctionResult(method, raw)[0] as string;
      };
      const [name, version] = await Promise.all([read("name"), read("version")]);
      return { name, version, chainId: this.options.chainId, verifyingContract: token };
    })();
    this.domain.catch(() => (this.domain = null));
    return this.domain;
  }

  close(): void {
    this.rpcs.close();
  }
}
