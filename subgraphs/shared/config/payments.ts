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
  /**
   * PAYMENT_CHAINS: the chains other than the platform's own on which transfer payments are accepted, each with its
   * RPC URL, stablecoin, payee and confirmations (a JSON array of `{ chainId, rpcUrl, token, payee, confirmations? }`). The platform's chain is always
   * accepted (its stablecoin and PAYMENT_PAYEE_ADDRESS), so unset changes nothing. Each entry's RPC URL also answers
   * that chain's payment checks (as a PAYMENT_RPC_URLS entry would).
   */
  chains: PaymentChainEntry[];
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

/** One chain of PAYMENT_CHAINS: where a transfer on it must go, and the node that proves it. */
export interface PaymentChainEntry {
  /** Decimal chain ID. */
  chainId: string;
  rpcUrl: string;
  /** The stablecoin (checksummed): the token whose Transfer log pays. */
  token: string;
  /** The payee on that chain (checksummed). */
  payee: string;
  /** How many blocks (the transfer's own included) must hold the transfer before it pays: 1..1000, default 1. */
  confirmations: number;
}

/** Parses PAYMENT_CHAINS; every defect refuses to start with a ConfigError naming the entry. */
export function paymentChains(raw: string | undefined, platformChainId: number): PaymentChainEntry[] {
  if (raw === undefined || raw.trim() === "") return [];
  const fail = (why: string): never => {
    throw new ConfigError(`PAYMENT_CHAINS ${why} (expected a JSON array of { "chainId", "rpcUrl", "token", "payee", "confirmations"? })`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail("is not valid JSON");
  }
  if (!Array.isArray(parsed)) return fail("must be a JSON array");
  const seen = new Set<string>();
  return parsed.map((entry, index) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return fail(`entry ${index} is not an object`);
    const { chainId, rpcUrl, token, payee, confirmations = 1, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length > 0) fail(`entry ${index} has unknown field(s) ${Object.keys(rest).join(", ")}`);
    const id = typeof chainId === "number" && Number.isSafeInteger(chainId) ? String(chainId) : chainId;
    if (typeof id !== "string" || !/^[1-9][0-9]{0,18}$/.test(id)) return fail(`entry ${index}: chainId must be a positive integer`);
    if (id === String(platformChainId)) fail(`entry ${index}: chain ${id} is the platform's chain, which is always accepted (its stablecoin and PAYMENT_PAYEE_ADDRESS)`);
    if (seen.has(id)) fail(`entry ${index}: chain ${id} is listed twice`);
    seen.add(id);
    if (typeof rpcUrl !== "string" || !/^https?:\/\/[^\s]+$/.test(rpcUrl)) return fail(`entry ${index}: rpcUrl must be an http(s) URL`);
    if (typeof token !== "string" || !isEvmAddress(token)) return fail(`entry ${index}: token must be an EVM address`);
    if (typeof payee !== "string" || !isEvmAddress(payee)) return fail(`entry ${index}: payee must be an EVM address`);
    if (typeof confirmations !== "number" || !Number.isInteger(confirmations) || confirmations < 1 || confirmations > 1000) fail(`entry ${index}: confirmations must be an integer 1..1000`);
    return { chainId: id, rpcUrl, token: checksumAddress(token), payee: checksumAddress(payee), confirmations: confirmations as number };
  });
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
  const chains = paymentChains(env.PAYMENT_CHAINS, chainId);
  const urls = rpcUrls(env.PAYMENT_RPC_URLS);
  for (const entry of chains) {
    const other = urls[entry.chainId];
    if (other !== undefined && other !== entry.rpcUrl) throw new ConfigError(`PAYMENT_RPC_URLS and PAYMENT_CHAINS name different RPC URLs for chain ${entry.chainId}`);
    urls[entry.chainId] = entry.rpcUrl;
  }
  return {
    escrowOperatorKey: key,
    payeeAddress: payee === undefined ? undefined : checksumAddress(payee),
    rpcUrls: urls,
    chains,
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
