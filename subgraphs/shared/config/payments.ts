/**
 * Settings of the on-chain payment rails of document 3 (docs/markets-payments.md). Every setting is documented in the
 * README's configuration table and docs/markets-payments.md.
 */
import { checksumAddress, isEvmAddress, isPrivateKey } from "../chain/evm-address.js";
import { ConfigError, int, list, type Env } from "./env.js";

/** Label of the demo payee's key (dev-keys.ts demoWallet): where the demo's provider payments go. */
export const DEMO_PAYEE_LABEL = "payee-demo-oracle";
/**
 * The address of that key, written out: deriving it takes secp256k1, which configuration loading (every process and
 * CLI command) would otherwise load for this one value. test/chain/evm-address.test.ts derives it again.
 */
export const DEMO_PAYEE_ADDRESS = "0x667e887dEdBe34177314Da00e4Ef1F4Dcb7F2840";

/**
 * anvil's second default account (mnemonic "test test ... junk", index 1): the dev escrow operator and x402 settler.
 * Public, so refused on a non-loopback HOST (gateway/network-guard.ts) like the other dev credentials.
 */
export const DEV_ESCROW_OPERATOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

export interface PaymentsConfig {
  /**
   * ESCROW_OPERATOR_KEY: the key that sends escrow lock/release/refund and settles x402 authorizations (it pays the
   * gas). Dev default (embedded chain): DEV_ESCROW_OPERATOR_KEY. Unset in production: those rails answer
   * PAYMENT_RAIL_UNAVAILABLE.
   */
  escrowOperatorKey?: string;
  /**
   * PAYMENT_RPC_URLS: `<chainId>=<url>` pairs for EVM chains other than the platform's own (whose RPC is CHAIN_RPC_URL
   * or the embedded node). A proof in `rpc` mode on a chain without one answers PAYMENT_RPC_REQUIRED.
   */
  rpcUrls: Record<string, string>;
  /** PAYMENT_RECEIPT_TIMEOUT_MS: how long a sent escrow or settlement transaction may take to be mined. */
  receiptTimeoutMs: number;
  /**
   * PAYMENT_PAYEE_ADDRESS: the address the chain rails pay (wallet transfers, escrow payee, x402 payTo). Dev default:
   * the demo payee (demo.json `payments.payee`), whose key derives from a public label: refused on a non-loopback
   * HOST. Unset in production: those rails answer PAYMENT_RAIL_UNAVAILABLE.
   */
  payeeAddress?: string;
  /** X402_NETWORK: the x402 v1 network name of the platform's chain (default `peaq` for chain 3338, else `eip155:<id>`). */
  x402Network: string;
  /** X402_MAX_TIMEOUT_SECONDS: `maxTimeoutSeconds` of the payment requirements (how long a signed authorization may live). */
  x402MaxTimeoutSeconds: number;
  /**
   * STREAM_PAYMENT_PROOF_REQUIRED (`true` | `false`, default true): whether paying a stream order needs a qualifying
   * on-chain transfer, given as `proof: { chainId, txHash }` or as a `paymentReference` that is the transaction's hash.
   * `false` (development only) lets a self-reported reference pay, as the hosted beta did (public notes 3); that
   * trusts the buyer, so it is refused on a non-loopback HOST (gateway/network-guard.ts).
   */
  streamProofRequired: boolean;
  /**
   * MARKET_PAYMENT_RECORDED_PROOFS (`on` | `off`, default off): whether a market wallet proof may use `mode: "recorded"`,
   * which stores the given hash without reading the chain. `on` (development only) trusts the agent, so it is refused
   * on a non-loopback HOST (gateway/network-guard.ts); off, the mode answers PAYMENT_PROOF_MODE_DISABLED.
   */
  recordedProofs: boolean;
}

function rpcUrls(raw: string | undefined): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const entry of list(raw)) {
    const match = /^(\d+)=(https?:\/\/.+)$/.exec(entry);
    if (!match) throw new ConfigError("PAYMENT_RPC_URLS must be comma-separated <chainId>=<http(s) URL> pairs");
    urls[String(BigInt(match[1]))] = match[2];
  }
  return urls;
}

export function loadPaymentsConfig(env: Env, chainId: number): PaymentsConfig {
  const devMode = !env.CHAIN_RPC_URL;
  const key = env.ESCROW_OPERATOR_KEY || (devMode ? DEV_ESCROW_OPERATOR_KEY : undefined);
  if (key !== undefined && !isPrivateKey(key)) throw new ConfigError("ESCROW_OPERATOR_KEY must be a 32-byte hex private key");
  const maxTimeout = int(env, "X402_MAX_TIMEOUT_SECONDS", 300);
  if (maxTimeout < 10 || maxTimeout > 86_400) throw new ConfigError("X402_MAX_TIMEOUT_SECONDS must be 10..86400");
  const payee = env.PAYMENT_PAYEE_ADDRESS || (devMode ? DEMO_PAYEE_ADDRESS : undefined);
  if (payee !== undefined && !isEvmAddress(payee)) throw new ConfigError("PAYMENT_PAYEE_ADDRESS must be an EVM address");
  return {
    escrowOperatorKey: key,
    payeeAddress: payee === undefined ? undefined : checksumAddress(payee),
    rpcUrls: rpcUrls(env.PAYMENT_RPC_URLS),
    receiptTimeoutMs: Math.max(1000, int(env, "PAYMENT_RECEIPT_TIMEOUT_MS", 30_000)),
    x402Network: env.X402_NETWORK || (chainId === 3338 ? "peaq" : `eip155:${chainId}`),
    x402MaxTimeoutSeconds: maxTimeout,
    streamProofRequired: flag(env.STREAM_PAYMENT_PROOF_REQUIRED, "STREAM_PAYMENT_PROOF_REQUIRED", true),
    recordedProofs: onOff(env.MARKET_PAYMENT_RECORDED_PROOFS, "MARKET_PAYMENT_RECORDED_PROOFS"),
  };
}

function flag(raw: string | undefined, name: string, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  if (raw === "false") return false;
  if (raw === "true") return true;
  throw new ConfigError(`${name} must be true or false`);
}

function onOff(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === "" || raw === "off") return false;
  if (raw === "on") return true;
  throw new ConfigError(`${name} must be on or off`);
}
