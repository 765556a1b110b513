/**
 * Outside loopback the dev credentials are refused (gateway/network-guard.ts): a process with a non-loopback HOST
 * and the documented tokens, the demo vendor CA or anvil's deployer key in effect does not start, and says which
 * settings to give; ALLOW_DEMO_ON_NETWORK=1 starts it anyway with a loud warning. With every credential configured it
 * starts, the dev token is refused, and its data directory and fixture keep secrets to their owner (0700, 0600, no
 * configured token in demo.json).
 */
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkExposure, isLoopback, UnsafeExposureError } from "../../gateway/network-guard.js";
import { connectContract } from "../../subgraphs/shared/chain/contracts.js";
import { createProvider } from "../../subgraphs/shared/chain/rpc.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import { DEV_ESCROW_OPERATOR_KEY } from "../../subgraphs/shared/config/payments.js";
import { createDemoVendor } from "../../subgraphs/shared/crypto/vendor-ca.js";
import { startTestPlatform, type TestPlatform } from "../support/platform.js";
import { freePort, startCommand } from "../support/processes.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ALL_DEV_CREDENTIALS = [
  "ONBOARDING_TOKENS",
  "OPERATOR_TOKENS",
  "VENDOR_TRUST_BUNDLE",
  "FAUCET_TOTP_KEY",
  "MARKETS_PAIRING_JWT_SECRETS",
  "ESCROW_OPERATOR_KEY",
  "OPERATOR_PRIVATE_KEY",
];
const PAIRING_SECRET = "configured-pairing-secret-0123456789abcdef";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "public-address-"));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("which settings a role needs outside loopback", () => {
  const configured = (env: Record<string, string>) => loadConfig({ HOST: "0.0.0.0", ...env });

  it("loopback addresses need nothing", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "localhost", "::1"]) {
      expect(isLoopback(host), host).toBe(true);
      expect(checkExposure(loadConfig({ HOST: host }), { kind: "all" })).toBeUndefined();
    }
    expect(isLoopback("0.0.0.0")).toBe(false);
    expect(isLoopback("10.1.2.3")).toBe(false);
  });

  it("each role names exactly what it would otherwise take from the dev defaults", () => {
    const missing = (config: ReturnType<typeof loadConfig>, role: Parameters<typeof checkExposure>[1]) => {
      try {
        checkExposure(config, role);
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(UnsafeExposureError);
        return ALL_DEV_CREDENTIALS.filter((name) => (error as Error).message.includes(name));
      }
    };
    expect(missing(configured({}), { kind: "all" })).toEqual(ALL_DEV_CREDENTIALS);
    // A configured list that still holds the documented dev token is not a configured credential.
    expect(missing(configured({ ONBOARDING_TOKENS: "mine,dev-onboarding-token" }), { kind: "all" })).toContain("ONBOARDING_TOKENS");
    const external = { CHAIN_RPC_URL: "http://127.0.0.1:1", ONBOARDING_TOKENS: "a", OPERATOR_TOKENS: "b" };
    expect(missing(configured(external), { kind: "subgraph", name: "verify" })).toEqual(["VENDOR_TRUST_BUNDLE"]);
    expect(missing(configured({ CHAIN_RPC_URL: "http://127.0.0.1:1" }), { kind: "rest" })).toEqual(["ONBOARDING_TOKENS"]);
    expect(missing(configured({}), { kind: "gateway" })).toEqual([]);
    expect(missing(configured({ CHAIN_RPC_URL: "http://127.0.0.1:1" }), { kind: "subgraph", name: "ratings" })).toEqual([]);
    // The documented TOTP key, given explicitly, is still the dev credential.
    const devTotp = { CHAIN_RPC_URL: "http://127.0.0.1:1", FAUCET_TOTP_KEY: "d3f0".repeat(16) };
    expect(missing(configured(devTotp), { kind: "subgraph", name: "ratings" })).toEqual(["FAUCET_TOTP_KEY"]);
    // The markets subgraph signs pairing tokens with the secret generated into the data dir unless one is configured.
    expect(missing(configured({ CHAIN_RPC_URL: "http://127.0.0.1:1" }), { kind: "subgraph", name: "markets" })).toEqual(["MARKETS_PAIRING_JWT_SECRETS"]);
    expect(missing(configured({ CHAIN_RPC_URL: "http://127.0.0.1:1", MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET }), { kind: "subgraph", name: "markets" })).toEqual([]);
    // An escrow operator is needed only when one is set; anvil's account 1, given explicitly, is the dev one.
    const devEscrow = { CHAIN_RPC_URL: "http://127.0.0.1:1", MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET, ESCROW_OPERATOR_KEY: DEV_ESCROW_OPERATOR_KEY };
    expect(missing(configured(devEscrow), { kind: "subgraph", name: "markets" })).toEqual(["ESCROW_OPERATOR_KEY"]);
  });

  it("ALLOW_DEMO_ON_NETWORK=1 turns the refusal into a warning that names what is missing", () => {
    const warning = checkExposure(configured({ ALLOW_DEMO_ON_NETWORK: "1" }), { kind: "all" });
    expect(warning).toMatch(/^WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on 0\.0\.0\.0 with dev credentials/);
    for (const name of ALL_DEV_CREDENTIALS) expect(warning).toContain(name);
  });
});

describe("`npm start` on HOST=0.0.0.0", () => {
  it("refuses to start with the dev credentials, naming each setting, before it writes or opens anything", async () => {
    const dataDir = path.join(base, "refused");
    const child = spawn(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], {
      cwd: root,
      env: { ...process.env, HOST: "0.0.0.0", DATA_DIR: dataDir, ANVIL_PORT: "0", HTTP_PORT: "0", MARKETS_PORT: "0", GRAPHQL_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain("failed to start: HOST=0.0.0.0 is not a loopback address");
    for (const name of [...ALL_DEV_CREDENTIALS, "ALLOW_DEMO_ON_NETWORK=1"]) expect(output).toContain(name);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("with ALLOW_DEMO_ON_NETWORK=1 it starts and says so in the log", async () => {
    const [http, markets, graphql, mcr2, altchain] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const started = await startCommand(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], {
      HOST: "0.0.0.0",
      ALLOW_DEMO_ON_NETWORK: "1",
      DATA_DIR: path.join(base, "opt-in"),
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
      expect(started.output()).toMatch(/^WARNING: ALLOW_DEMO_ON_NETWORK=1: listening on 0\.0\.0\.0 with dev credentials/m);
      expect((await fetch(`http://127.0.0.1:${http}/health`)).status).toBe(200);
    } finally {
      await started.stop();
    }
  }, 240_000);
});

describe("on HOST=0.0.0.0 with every credential configured", () => {
  const TOKEN = "configured-onboarding-token-7f3a";
  const operatorKey = Wallet.createRandom().privateKey;
  let dataDir: string;
  let p: TestPlatform;
  let http: string;

  beforeAll(async () => {
    dataDir = path.join(base, "configured");
    // A data directory an older version created readable by everyone.
    await mkdir(dataDir, { mode: 0o755 });
    const vendor = await createDemoVendor("operator-owned-vendor");
    const bundle = path.join(base, "vendor-bundle.pem");
    await writeFile(bundle, `${vendor.rootCertPem}\n${vendor.intermediateCertPem}`);
    p = await startTestPlatform({
      HOST: "0.0.0.0",
      DATA_DIR: dataDir,
      ONBOARDING_TOKENS: TOKEN,
      OPERATOR_TOKENS: "configured-operator-token",
      VENDOR_TRUST_BUNDLE: bundle,
      OPERATOR_PRIVATE_KEY: operatorKey,
      ESCROW_OPERATOR_KEY: Wallet.createRandom().privateKey,
      FAUCET_TOTP_KEY: "5a".repeat(32),
      MARKETS_PAIRING_JWT_SECRETS: PAIRING_SECRET,
    });
    http = p.http.replace("0.0.0.0", "127.0.0.1");
  }, 300_000);
  afterAll(() => p?.close());

  const issue = (token: string) =>
    fetch(`${http}/v1/verify/chip/challenge`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"machineId":"2"}',
    });

  it("the dev onboarding token is refused and the configured one accepted", async () => {
    expect((await issue("dev-onboarding-token")).status).toBe(401);
    expect((await issue(TOKEN)).status).toBe(201);
  });

  it("the embedded contracts' admin is the configured operator key, not anvil's well-known account", async () => {
    const provider = createProvider(p.platform.chain!.rpcUrl, { chainId: p.demo.chainId, timeoutMs: 10_000 });
    try {
      const admin = await connectContract("AttestationRegistry", p.platform.chain!.addresses, provider).admin();
      expect(admin).toBe(new Wallet(operatorKey).address);
    } finally {
      provider.destroy();
    }
  });

  it("the data directory is 0700, demo.json 0600, and demo.json holds no configured token", async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const fixture = path.join(dataDir, "demo.json");
    expect(statSync(fixture).mode & 0o777).toBe(0o600);
    const text = await readFile(fixture, "utf8");
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text)).not.toHaveProperty("onboardingToken");
    expect(text).toContain("PrivateKey"); // it does hold the demo machines' keys, hence 0600
    expect(text).not.toContain(PAIRING_SECRET);
    // With a configured pairing secret no dev secret is generated.
    expect(existsSync(path.join(dataDir, "markets-pairing-jwt.secret"))).toBe(false);
  });
});
