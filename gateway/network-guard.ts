/**
 * The settings whose defaults make `npm start` work out of the box are public or trusting: the documented onboarding
 * and operator tokens, the demo vendor CA whose keys derive from a public seed, anvil's published accounts as admin,
 * escrow operator and faucet, the documented encryption keys of TOTP secrets and runtime-endpoint credentials, the
 * demo fixture's machines and payee whose keys derive from public labels, and the switches that accept writes
 * without a proof. They are fine on 127.0.0.1 and dangerous anywhere else: anyone reaching the listeners could mint
 * trusted chip certificates, act as the operator, read sealed credentials or take payments. So a process whose HOST
 * is not a loopback address refuses to start while any setting its role uses holds such a value, naming each one
 * and why. `ALLOW_DEMO_ON_NETWORK=1` lets the demo run on a private network anyway, and says so loudly in the log.
 * docs/operations.md ("Running on a public address") lists every setting checked, refused or not.
 */
import { isIP } from "node:net";
import { DEV_ONBOARDING_TOKEN, DEV_OPERATOR_TOKEN, type PlatformConfig } from "../subgraphs/shared/config.js";
import { DEV_MARKETS_SECRETS_KEY } from "../subgraphs/shared/config/markets.js";
import { DEMO_PAYEE_ADDRESS } from "../subgraphs/shared/config/payments.js";
import { DEV_TOTP_KEY } from "../subgraphs/shared/config/ratings.js";
import { ANVIL_DEFAULT_KEYS } from "../subgraphs/shared/chain/dev-keys.js";
import type { Role } from "./platform.js";

/** A setting that would be public or trusting on this process, and what it holds. */
export interface UnsafeSetting {
  setting: string;
  holds: string;
}

export class UnsafeExposureError extends Error {
  /** The refused settings' names. */
  readonly settings: string[];
  constructor(host: string, unsafe: UnsafeSetting[]) {
    super(
      `HOST=${host} is not a loopback address, and these settings would be public or trusting there: ` +
        `${listed(unsafe)}. Configure each (docs/operations.md, "Running on a public address"), or set ` +
        "ALLOW_DEMO_ON_NETWORK=1 to run the demo on a private network you trust.",
    );
    this.name = "UnsafeExposureError";
    this.settings = unsafe.map((entry) => entry.setting);
  }
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "::ffff:127.0.0.1";
}

/** What a role runs: each check applies to the parts that read its setting. */
type Part = "verify" | "ratings" | "markets" | "rest" | "embeddedChain";

function partsOf(config: PlatformConfig, role: Role): Set<Part> {
  if (role.kind === "all") {
    const parts: Part[] = ["verify", "ratings", "markets", "rest"];
    // Only the embedded chain is deployed and seeded by this process.
    if (!config.chain.rpcUrl) parts.push("embeddedChain");
    return new Set(parts);
  }
  if (role.kind === "subgraph") return new Set([role.name]);
  if (role.kind === "rest") return new Set(["rest"]);
  return new Set();
}

const ANVIL_KEYS = new Set(ANVIL_DEFAULT_KEYS.map((key) => key.toLowerCase()));
const isAnvilKey = (key: string | undefined) => key !== undefined && ANVIL_KEYS.has(key.toLowerCase());
/** A token list counts as configured when it is not empty and holds no documented dev token. */
const devTokens = (tokens: readonly string[], devToken: string) => tokens.length === 0 || tokens.includes(devToken);

interface Check {
  setting: string;
  parts: readonly Part[];
  /** What the setting holds when it is public or trusting; undefined when it is safe. */
  unsafe(config: PlatformConfig, parts: ReadonlySet<Part>): string | false;
}

/** In the order the refusal names them. */
const CHECKS: readonly Check[] = [
  {
    setting: "ONBOARDING_TOKENS",
    parts: ["verify", "rest"],
    unsafe: (c) => devTokens(c.onboardingTokens, DEV_ONBOARDING_TOKEN) && `unset or the documented ${DEV_ONBOARDING_TOKEN}`,
  },
  {
    setting: "OPERATOR_TOKENS",
    // The verify subgraph's evidence attestation and the markets subgraph's dispute arbiter. Unset, the markets
    // subgraph has no arbiter (nobody can resolve a dispute), which trusts no one; only the dev token is refused there.
    parts: ["verify", "markets"],
    unsafe: (c, parts) =>
      parts.has("verify")
        ? devTokens(c.operatorTokens, DEV_OPERATOR_TOKEN) && `unset or the documented ${DEV_OPERATOR_TOKEN}`
        : c.operatorTokens.includes(DEV_OPERATOR_TOKEN) && `the documented ${DEV_OPERATOR_TOKEN}`,
  },
  {
    setting: "VENDOR_TRUST_BUNDLE",
    parts: ["verify"],
    unsafe: (c) => !c.vendorTrustBundlePath && "unset: the demo vendor CA, whose keys derive from a public seed",
  },
  {
    setting: "FAUCET_TOTP_KEY",
    parts: ["ratings"],
    unsafe: (c) => !!c.ratings.faucet.totpKey?.equals(Buffer.from(DEV_TOTP_KEY, "hex")) && "the documented dev key",
  },
  {
    setting: "FAUCET_PRIVATE_KEY",
    parts: ["ratings"],
    unsafe: (c) => isAnvilKey(c.ratings.faucet.privateKey) && "one of anvil's published keys: anyone could spend the faucet",
  },
  {
    setting: "MARKETS_PAIRING_JWT_SECRETS",
    parts: ["markets"],
    unsafe: (c) => c.markets.pairingJwtSecrets.length === 0 && "unset: the dev secret generated into the data dir",
  },
  {
    setting: "MARKETS_SECRETS_KEY",
    parts: ["markets"],
    unsafe: (c) =>
      !!c.markets.secretsKey?.equals(Buffer.from(DEV_MARKETS_SECRETS_KEY, "hex")) &&
      "the documented dev key: runtime-endpoint credentials would be sealed under a public key",
  },
  {
    setting: "ESCROW_OPERATOR_KEY",
    parts: ["markets"],
    unsafe: (c) => isAnvilKey(c.payments.escrowOperatorKey) && "one of anvil's published keys: anyone could release every escrow",
  },
  {
    setting: "PAYMENT_PAYEE_ADDRESS",
    parts: ["markets"],
    unsafe: (c) =>
      c.payments.payeeAddress?.toLowerCase() === DEMO_PAYEE_ADDRESS.toLowerCase() &&
      "the demo payee, whose key derives from a public label: anyone could take the payments",
  },
  {
    setting: "MACHINE_IDENTITY_VERIFICATION",
    parts: ["markets"],
    unsafe: (c) => c.markets.identityVerification === "off" && "off: machine records bind without the controller's proof (set required)",
  },
  {
    setting: "AGENT_PAIRING_VERIFICATION",
    parts: ["markets"],
    unsafe: (c) => c.markets.pairingVerification === "off" && "off: pairings are made without the agent's proof (set required)",
  },
  {
    setting: "STREAM_PAYMENT_PROOF_REQUIRED",
    parts: ["markets"],
    unsafe: (c) => !c.payments.streamProofRequired && "false: a self-reported reference pays a stream order (set true)",
  },
  {
    setting: "MARKET_PAYMENT_RECORDED_PROOFS",
    parts: ["markets"],
    unsafe: (c) => c.payments.recordedProofs && "on: a made-up transaction hash pays a market order (set off)",
  },
  {
    setting: "OPERATOR_PRIVATE_KEY",
    parts: ["embeddedChain"],
    unsafe: (c) =>
      (!c.chain.operatorKey || isAnvilKey(c.chain.operatorKey)) && "unset or one of anvil's published keys as the contracts' admin and attester",
  },
  {
    setting: "SEED_DEMO",
    parts: ["embeddedChain"],
    unsafe: (c) => c.seedDemo && "on: the demo machines, owners and agents have public keys (set 0)",
  },
];

/** The settings this role would run with public or trusting values, each with what it holds. */
export function unsafeSettings(config: PlatformConfig, role: Role): UnsafeSetting[] {
  const parts = partsOf(config, role);
  const unsafe: UnsafeSetting[] = [];
  for (const check of CHECKS) {
    if (!check.parts.some((part) => parts.has(part))) continue;
    const holds = check.unsafe(config, parts);
    if (holds) unsafe.push({ setting: check.setting, holds });
  }
  return unsafe;
}

function listed(unsafe: UnsafeSetting[]): string {
  return unsafe.map((entry) => `${entry.setting} (${entry.holds})`).join(", ");
}

/** Throws UnsafeExposureError, or returns a warning to log (opt-in), or nothing when the address is safe. */
export function checkExposure(config: PlatformConfig, role: Role): string | undefined {
  if (isLoopback(config.host)) return undefined;
  const unsafe = unsafeSettings(config, role);
  if (unsafe.length === 0) return undefined;
  if (!config.allowDemoOnNetwork) throw new UnsafeExposureError(config.host, unsafe);
  return (
    `WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on ${config.host} with public or trusting settings: ${listed(unsafe)}. ` +
    "Anyone who can reach this address can use the documented tokens and keys and mint trusted chip certificates. " +
    "Use this on a private network only."
  );
}
