/**
 * Outside loopback the public and trusting defaults are refused (gateway/network-guard.ts): a process with a
 * non-loopback HOST and a documented token, the demo vendor CA, one of anvil's published keys, a documented
 * encryption key, the demo payee or fixture, or a switch that skips a proof in effect does not start, and names each
 * such setting. ALLOW_DEMO_ON_NETWORK=1 starts it anyway with a loud warning. With every setting configured it
 * starts, the dev token is refused, and its data directory and fixture keep secrets to their owner (0700, 0600, no
 * configured token in demo.json). docs/operations.md holds the table of every setting checked.
 */
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HDNodeWallet, Mnemonic, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkExposure, isLoopback, UnsafeExposureError } from "../../gateway/network-guard.js";
import type { Role } from "../../gateway/platform.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { ANVIL_DEFAULT_KEYS, DEV_DEPLOYER_KEY } from "../../subgraphs/shared/chain/dev-keys.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { DEV_MARKETS_SECRETS_KEY } from "../../subgraphs/shared/config/markets.js";
import { DEMO_PAYEE_ADDRESS, DEV_ESCROW_OPERATOR_KEY } from "../../subgraphs/shared/config/payments.js";
import { DEV_FAUCET_KEY, DEV_TOTP_KEY } from "../../subgraphs/shared/config/ratings.js";
import { createDemoVendor } from "../../subgraphs/shared/crypto/vendor-ca.js";
import { startTestPlatform, type TestPlatform } from "../support/platform.js";
import { call } from "../support/http.js";
import { freePort, startCommand } from "../support/processes.js";
import { expectVerifyError } from "../support/verify.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Every setting the guard can refuse, in the order the refusal names them. */
const REFUSABLE = [
  "ONBOARDING_TOKENS",
  "OPERATOR_TOKENS",
  "VENDOR_TRUST_BUNDLE",
  "FAUCET_TOTP_KEY",
  "FAUCET_PRIVATE_KEY",
  "MARKETS_PAIRING_JWT_SECRETS",
  "MARKETS_SECRETS_KEY",
  "ESCROW_OPERATOR_KEY",
  "PAYMENT_PAYEE_ADDRESS",
  "MACHINE_IDENTITY_VERIFICATION",
  "AGENT_PAIRING_VERIFICATION",
  "STREAM_PAYMENT_PROOF_REQUIRED",
  "MARKET_PAYMENT_RECORDED_PROOFS",
  "OPERATOR_PRIVATE_KEY",
  "SEED_DEMO",
];
/** The switches whose defaults are safe: proofs required, recorded payment proofs off. */
const SAFE_SWITCHES = ["MACHINE_IDENTITY_VERIFICATION", "AGENT_PAIRING_VERIFICATION", "STREAM_PAYMENT_PROOF_REQUIRED", "MARKET_PAYMENT_RECORDED_PROOFS"];
/** What `npm start` with nothing configured would run with: all but the switches that default to safe. */
const DEFAULTS_REFUSED = REFUSABLE.filter((name) => !SAFE_SWITCHES.includes(name));
/** The switches turned to their development values. */
const DEV_SWITCHES = { MACHINE_IDENTITY_VERIFICATION: "off", AGENT_PAIRING_VERIFICATION: "off", STREAM_PAYMENT_PROOF_REQUIRED: "false", MARKET_PAYMENT_RECORDED_PROOFS: "on" };
const PAIRING_SECRET = "configured-pairing-secret-0123456789abcdef";
const EXTERNAL_CHAIN = { CHAIN_RPC_URL: "http://127.0.0.1:1" };

/** Role `all` on the embedded chain with every refusable setting configured. */
const CONFIGURED = {
  ONBOARDING_TOKENS: "configured-onboarding-token-7f3a",
  OPERATOR_TOKENS: "configured-operator-token",
  VENDOR_TRUST_BUNDLE: "/etc/platform/vendor-roots.pem",
  FAUCET_TOTP_KEY: "5a".repeat(32),
  FAUCET_PRIVATE_KEY: Wallet.createRandom().privateKey,
  MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET,
  MARKETS_SECRETS_KEY: "6b".repeat(32),
  ESCROW_OPERATOR_KEY: Wallet.createRandom().privateKey,
  PAYMENT_PAYEE_ADDRESS: Wallet.createRandom().address,
  STREAM_PAYMENT_PROOF_REQUIRED: "true",
  OPERATOR_PRIVATE_KEY: Wallet.createRandom().privateKey,
  SEED_DEMO: "0",
};

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "public-address-"));
});
afterAll(() => rm(base, { recursive: true, force: true }));

/** The settings the guard refuses for this environment and role, read from the error (none: it passed). */
function refused(env: Record<string, string>, role: Role = { kind: "all" }, host = "10.1.2.3"): string[] {
  try {
    checkExposure(loadConfig({ HOST: host, ...env }), role);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeExposureError);
    const { message, settings } = error as UnsafeExposureError;
    // The message names every refused setting, and only those.
    expect(REFUSABLE.filter((name) => new RegExp(`\\b${name}\\b`).test(message))).toEqual(settings);
    return settings;
  }
}

describe("which settings a role needs outside loopback", () => {
  it("loopback addresses need nothing", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "localhost", "::1"]) {
      expect(isLoopback(host), host).toBe(true);
      expect(checkExposure(loadConfig({ HOST: host }), { kind: "all" })).toBeUndefined();
      expect(checkExposure(loadConfig({ HOST: host, MACHINE_IDENTITY_VERIFICATION: "off", AGENT_PAIRING_VERIFICATION: "off" }), { kind: "all" })).toBeUndefined();
    }
    expect(isLoopback("0.0.0.0")).toBe(false);
    expect(isLoopback("10.1.2.3")).toBe(false);
  });

  it("with nothing configured, every public or trusting default is named", () => {
    expect(refused({})).toEqual(DEFAULTS_REFUSED);
    expect(refused(DEV_SWITCHES)).toEqual(REFUSABLE);
  });

  it("HOST=10.1.2.3 with every documented credential set but MARKETS_SECRETS_KEY is refused, naming it", () => {
    const { MARKETS_SECRETS_KEY: _unset, ...rest } = CONFIGURED;
    expect(refused(rest)).toEqual(["MARKETS_SECRETS_KEY"]);
    // The documented dev key given explicitly, in either case, is the same public key.
    expect(refused({ ...CONFIGURED, MARKETS_SECRETS_KEY: DEV_MARKETS_SECRETS_KEY })).toEqual(["MARKETS_SECRETS_KEY"]);
    expect(refused({ ...CONFIGURED, MARKETS_SECRETS_KEY: DEV_MARKETS_SECRETS_KEY.toUpperCase() })).toEqual(["MARKETS_SECRETS_KEY"]);
  });

  it("with every setting configured, role `all` passes", () => {
    expect(refused(CONFIGURED)).toEqual([]);
    expect(checkExposure(loadConfig({ HOST: "10.1.2.3", ...CONFIGURED }), { kind: "all" })).toBeUndefined();
  });

  // Each setting unset (""), or set to a public or trusting value, in an otherwise configured environment.
  const anvil3 = ANVIL_DEFAULT_KEYS[3]!;
  const cases: [string, string, string][] = [
    ["ONBOARDING_TOKENS", "unset", ""],
    ["ONBOARDING_TOKENS", "a list holding the dev token", "mine-0123456789,dev-onboarding-token"],
    ["OPERATOR_TOKENS", "unset", ""],
    ["OPERATOR_TOKENS", "the dev token", "dev-operator-token"],
    ["VENDOR_TRUST_BUNDLE", "unset", ""],
    ["FAUCET_TOTP_KEY", "unset", ""],
    ["FAUCET_TOTP_KEY", "the documented key", DEV_TOTP_KEY],
    ["FAUCET_PRIVATE_KEY", "unset", ""],
    ["FAUCET_PRIVATE_KEY", "anvil's account 9", DEV_FAUCET_KEY],
    ["FAUCET_PRIVATE_KEY", "anvil's account 3", anvil3],
    ["MARKETS_PAIRING_JWT_SECRETS", "unset", ""],
    ["MARKETS_SECRETS_KEY", "unset", ""],
    ["ESCROW_OPERATOR_KEY", "unset", ""],
    ["ESCROW_OPERATOR_KEY", "anvil's account 1", DEV_ESCROW_OPERATOR_KEY],
    ["ESCROW_OPERATOR_KEY", "anvil's account 0, upper case", DEV_DEPLOYER_KEY.toUpperCase().replace("0X", "0x")],
    ["PAYMENT_PAYEE_ADDRESS", "unset", ""],
    ["PAYMENT_PAYEE_ADDRESS", "the demo payee, lower case", DEMO_PAYEE_ADDRESS.toLowerCase()],
    ["MACHINE_IDENTITY_VERIFICATION", "off", "off"],
    ["AGENT_PAIRING_VERIFICATION", "off", "off"],
    ["STREAM_PAYMENT_PROOF_REQUIRED", "false", "false"],
    ["MARKET_PAYMENT_RECORDED_PROOFS", "on", "on"],
    ["OPERATOR_PRIVATE_KEY", "unset", ""],
    ["OPERATOR_PRIVATE_KEY", "anvil's account 0", DEV_DEPLOYER_KEY],
    ["SEED_DEMO", "unset", ""],
    ["SEED_DEMO", "1", "1"],
  ];
  it.each(cases)("%s %s is refused, naming it alone", (setting, _label, value) => {
    expect(refused({ ...CONFIGURED, [setting]: value })).toEqual([setting]);
    // The same value on loopback is fine.
    expect(refused({ ...CONFIGURED, [setting]: value }, { kind: "all" }, "127.0.0.1")).toEqual([]);
  });

  it("each role names exactly what it would otherwise take from the public defaults", () => {
    // External chain: no dev defaults for keys, tokens, payee; the embedded chain's checks do not apply.
    const external = { ...EXTERNAL_CHAIN, ONBOARDING_TOKENS: "a", OPERATOR_TOKENS: "b" };
    expect(refused(external, { kind: "subgraph", name: "verify" })).toEqual(["VENDOR_TRUST_BUNDLE"]);
    expect(refused(EXTERNAL_CHAIN, { kind: "rest" })).toEqual(["ONBOARDING_TOKENS"]);
    expect(refused({}, { kind: "gateway" })).toEqual([]);
    expect(refused({ MACHINE_IDENTITY_VERIFICATION: "off" }, { kind: "gateway" })).toEqual([]);
    expect(refused(EXTERNAL_CHAIN, { kind: "subgraph", name: "ratings" })).toEqual([]);
    expect(refused({}, { kind: "subgraph", name: "ratings" })).toEqual(["FAUCET_TOTP_KEY", "FAUCET_PRIVATE_KEY"]);
    expect(refused({ ...EXTERNAL_CHAIN, FAUCET_TOTP_KEY: DEV_TOTP_KEY }, { kind: "subgraph", name: "ratings" })).toEqual(["FAUCET_TOTP_KEY"]);
    expect(refused({ ...EXTERNAL_CHAIN, FAUCET_PRIVATE_KEY: DEV_FAUCET_KEY }, { kind: "subgraph", name: "ratings" })).toEqual(["FAUCET_PRIVATE_KEY"]);
    const markets: Role = { kind: "subgraph", name: "markets" };
    expect(refused(EXTERNAL_CHAIN, markets)).toEqual(["MARKETS_PAIRING_JWT_SECRETS"]);
    // The markets subgraph's arbiter: unset is no arbiter (nobody resolves disputes); the dev token is refused.
    expect(refused({ ...EXTERNAL_CHAIN, MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET, OPERATOR_TOKENS: "dev-operator-token" }, markets)).toEqual(["OPERATOR_TOKENS"]);
    expect(refused({ ...EXTERNAL_CHAIN, MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET, OPERATOR_TOKENS: "configured-operator-token" }, markets)).toEqual([]);
    expect(refused({ ...EXTERNAL_CHAIN, STREAM_PAYMENT_PROOF_REQUIRED: "false", MARKET_PAYMENT_RECORDED_PROOFS: "on" }, markets)).toEqual([
      "MARKETS_PAIRING_JWT_SECRETS",
      "STREAM_PAYMENT_PROOF_REQUIRED",
      "MARKET_PAYMENT_RECORDED_PROOFS",
    ]);
    const marketsConfigured = { ...EXTERNAL_CHAIN, MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET, STREAM_PAYMENT_PROOF_REQUIRED: "true" };
    expect(refused(marketsConfigured, markets)).toEqual([]);
    // On the embedded chain's dev defaults the markets subgraph would resolve disputes for anyone holding the dev
    // operator token, and seal, operate escrow and take payments with public keys.
    expect(refused({ MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET, STREAM_PAYMENT_PROOF_REQUIRED: "true" }, markets)).toEqual([
      "OPERATOR_TOKENS",
      "MARKETS_SECRETS_KEY",
      "ESCROW_OPERATOR_KEY",
      "PAYMENT_PAYEE_ADDRESS",
    ]);
    expect(refused({ ...marketsConfigured, MACHINE_IDENTITY_VERIFICATION: "off", AGENT_PAIRING_VERIFICATION: "off" }, markets)).toEqual([
      "MACHINE_IDENTITY_VERIFICATION",
      "AGENT_PAIRING_VERIFICATION",
    ]);
    // Role `all` on an external chain deploys and seeds nothing.
    const { OPERATOR_PRIVATE_KEY: _key, SEED_DEMO: _seed, ...allExternal } = CONFIGURED;
    expect(refused({ ...allExternal, ...EXTERNAL_CHAIN })).toEqual([]);
  });

  it("the published anvil keys are exactly the ten accounts of anvil's default mnemonic", () => {
    const mnemonic = Mnemonic.fromPhrase("test test test test test test test test test test test junk");
    const derived = Array.from({ length: 10 }, (_, i) => HDNodeWallet.fromMnemonic(mnemonic, `m/44'/60'/0'/0/${i}`).privateKey);
    expect(ANVIL_DEFAULT_KEYS).toEqual(derived);
    expect(derived).toContain(DEV_ESCROW_OPERATOR_KEY);
    expect(derived).toContain(DEV_FAUCET_KEY);
  });

  it("ALLOW_DEMO_ON_NETWORK=1 turns the refusal into a warning that names what is public or trusting", () => {
    const warning = checkExposure(loadConfig({ HOST: "0.0.0.0", ALLOW_DEMO_ON_NETWORK: "1", MACHINE_IDENTITY_VERIFICATION: "off" }), { kind: "all" });
    expect(warning).toMatch(/^WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on 0\.0\.0\.0 with public or trusting settings/);
    for (const name of DEFAULTS_REFUSED) expect(warning).toContain(name);
    expect(warning).toContain("MACHINE_IDENTITY_VERIFICATION (off");
  });
});

/** Runs `gateway/main.ts all` to its exit; its output and exit code. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], {
    cwd: root,
    env: { ...process.env, ANVIL_PORT: "0", HTTP_PORT: "0", MARKETS_PORT: "0", GRAPHQL_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, output };
}

describe("`npm start` on a non-loopback HOST", () => {
  it("refuses to start with the defaults, naming each setting, before it writes or opens anything", async () => {
    const dataDir = path.join(base, "refused");
    const { code, output } = await runToExit({ HOST: "0.0.0.0", DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain("failed to start: HOST=0.0.0.0 is not a loopback address");
    for (const name of [...DEFAULTS_REFUSED, "ALLOW_DEMO_ON_NETWORK=1"]) expect(output).toContain(name);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("HOST=10.1.2.3 with every documented credential set but MARKETS_SECRETS_KEY does not start, naming it alone", async () => {
    const dataDir = path.join(base, "no-secrets-key");
    const { MARKETS_SECRETS_KEY: _unset, ...rest } = CONFIGURED;
    const { code, output } = await runToExit({ HOST: "10.1.2.3", DATA_DIR: dataDir, ...rest });
    expect(code).toBe(1);
    expect(output).toContain("failed to start: HOST=10.1.2.3 is not a loopback address");
    expect(output).toContain("MARKETS_SECRETS_KEY (the documented dev key");
    expect(REFUSABLE.filter((name) => new RegExp(`\\b${name}\\b`).test(output))).toEqual(["MARKETS_SECRETS_KEY"]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("with ALLOW_DEMO_ON_NETWORK=1 it starts, says so in the log, and keeps demo.json to its owner", async () => {
    const dataDir = path.join(base, "opt-in");
    // A data directory an older version created readable by everyone.
    await mkdir(dataDir, { mode: 0o755 });
    const token = "configured-onboarding-token-opt-in";
    const [http, markets, graphql, mcr2, altchain] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const started = await startCommand(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], {
      HOST: "0.0.0.0",
      ALLOW_DEMO_ON_NETWORK: "1",
      DATA_DIR: dataDir,
      ONBOARDING_TOKENS: token,
      MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET,
      ANVIL_PORT: "0",
      DEMO_PROVIDER_PORT: "0",
      HTTP_PORT: String(http),
      MARKETS_PORT: String(markets),
      GRAPHQL_PORT: String(graphql),
      // Free ports for every listener: the defaults (8200, 8899) may be taken by another platform on this machine.
      MCR2_PORT: String(mcr2),
      ALTCHAIN_RPC_PORT: String(altchain),
    }, 180_000);
    try {
      expect(started.output()).toMatch(/^WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on 0\.0\.0\.0 with public or trusting settings/m);
      expect(started.output()).toMatch(/SEED_DEMO \(on: the demo machines/);
      expect((await fetch(`http://127.0.0.1:${http}/health`)).status).toBe(200);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const fixture = path.join(dataDir, "demo.json");
      expect(statSync(fixture).mode & 0o777).toBe(0o600);
      const text = await readFile(fixture, "utf8");
      expect(text).not.toContain(token);
      expect(JSON.parse(text)).not.toHaveProperty("onboardingToken");
      expect(text).toContain("PrivateKey"); // it does hold the demo machines' keys, hence 0600
      expect(text).not.toContain(PAIRING_SECRET);
      // With a configured pairing secret no dev secret is generated.
      expect(existsSync(path.join(dataDir, "markets-pairing-jwt.secret"))).toBe(false);
    } finally {
      await started.stop();
    }
  }, 240_000);
});

describe("on HOST=0.0.0.0 with every setting configured", () => {
  let dataDir: string;
  let p: TestPlatform;
  let http: string;

  beforeAll(async () => {
    dataDir = path.join(base, "configured");
    await mkdir(dataDir, { mode: 0o755 });
    const vendor = await createDemoVendor("operator-owned-vendor");
    const bundle = path.join(base, "vendor-bundle.pem");
    await writeFile(bundle, `${vendor.rootCertPem}\n${vendor.intermediateCertPem}`);
    p = await startTestPlatform({ ...CONFIGURED, HOST: "0.0.0.0", DATA_DIR: dataDir, VENDOR_TRUST_BUNDLE: bundle });
    http = p.http.replace("0.0.0.0", "127.0.0.1");
  }, 300_000);
  afterAll(() => p?.close());

  const challenge = (token: string) => ({
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: '{"machineId":"2"}',
  });

  it("the dev onboarding token is refused and the configured one accepted", async () => {
    expectVerifyError(await call(`${http}/v1/verify/chip/challenge`, challenge("dev-onboarding-token")), 401, "ONBOARDING_AUTH_REQUIRED");
    // Machine 2 is not registered without the demo fixture: the token passed, the machine did not.
    expectVerifyError(await call(`${http}/v1/verify/chip/challenge`, challenge(CONFIGURED.ONBOARDING_TOKENS)), 404, "MACHINE_NOT_FOUND");
  });

  it("the embedded contracts' admin is the configured operator key, and the configured faucet key is funded", async () => {
    const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.config.chain.chainId, timeoutMs: 10_000 });
    try {
      const admin = await connectContract("AttestationRegistry", p.platform.chain!.addresses, provider).admin();
      expect(admin).toBe(new Wallet(CONFIGURED.OPERATOR_PRIVATE_KEY).address);
      const balance = BigInt(await provider.send("eth_getBalance", [new Wallet(CONFIGURED.FAUCET_PRIVATE_KEY).address, "latest"]));
      expect(balance).toBeGreaterThanOrEqual(p.config.ratings.faucet.fundAmountWei);
    } finally {
      provider.destroy();
    }
  });

  it("the data directory is 0700, and neither a demo fixture nor a dev pairing secret is written", () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(p.platform.chain!.demo).toBeNull();
    expect(existsSync(path.join(dataDir, "demo.json"))).toBe(false);
    expect(existsSync(path.join(dataDir, "markets-pairing-jwt.secret"))).toBe(false);
  });
});
