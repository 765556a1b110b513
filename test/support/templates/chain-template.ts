/**
 * A deployed and seeded embedded chain to start test platforms from, instead of deploying the contracts and seeding
 * the demo fixture on every start (about a third of a platform start).
 *
 * The platform already reuses a data directory's chain: anvil loads `<dataDir>/chain/anvil-state.json`, the
 * deployment is reused when `chain/deployment.json` matches the chain and the artifacts, and the demo fixture when
 * `demo.json` matches (subgraphs/shared/chain/deploy.ts, demo.ts). So a template is the `chain/` files and `demo.json`
 * of a chain started once, deployed, seeded and stopped (its state dumped); each test platform gets a copy in its own
 * fresh data directory and starts its own anvil from it. Nothing is shared at run time.
 *
 * A template is keyed by everything that decides what the chain start writes: the contract artifacts, the chain
 * code, and the settings it reads (chain ID, operator, escrow operator and faucet keys, DID method, onboarding tokens,
 * whether the demo is seeded), and by a five-minute window: it is made again in each window, so the seeded blocks
 * are never far in the past of the tests' own blocks (seeded expiries and event ages stay as a fresh seed makes
 * them). Two test workers that make the same template at once both succeed: each builds in its own directory and the
 * first rename wins.
 *
 * `TEST_CHAIN_TEMPLATE=0` turns it off (every platform deploys and seeds, as `npm start` does on a fresh data
 * directory); test/chain/persistence.test.ts covers the deploy and seed path itself.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PlatformConfig } from "../../../subgraphs/shared/config.js";
import { openPlatformChain } from "../../../subgraphs/shared/chain/embedded.js";

const CHAIN_CODE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../subgraphs/shared/chain");
/** Templates are made again in each window of this length (the window is part of their name). */
const TEMPLATE_WINDOW_MS = 5 * 60_000;
/** Templates older than this are removed when a new one is made (earlier runs' leftovers). */
const TEMPLATE_REMOVE_AFTER_MS = 60 * 60_000;
const TEMPLATE_PREFIX = "platform-chain-template-";
/** The files of a data directory that make up the chain (anvil's pid file and log stay behind). */
const TEMPLATE_FILES = ["chain/anvil-state.json", "chain/deployment.json", "demo.json"];

let codeHash: Promise<string> | undefined;

/** Hash of the contract artifacts and the chain start, deploy and seed code. */
function chainCodeHash(): Promise<string> {
  codeHash ??= (async () => {
    const hash = createHash("sha256");
    for (const name of (await readdir(CHAIN_CODE_DIR)).sort()) {
      if (name.endsWith(".ts") || name.endsWith(".json")) hash.update(name).update(await readFile(path.join(CHAIN_CODE_DIR, name)));
    }
    return hash.digest("hex");
  })();
  return codeHash;
}

/** Whether a platform with this configuration can start from a template: an embedded chain in a fresh directory. */
export function chainTemplateApplies(config: PlatformConfig, freshDataDir: boolean): boolean {
  return freshDataDir && !config.chain.rpcUrl && process.env.TEST_CHAIN_TEMPLATE !== "0";
}

async function templateKey(config: PlatformConfig): Promise<string> {
  const settings = JSON.stringify({
    chainId: config.chain.chainId,
    operatorKey: config.chain.operatorKey ?? null,
    addresses: config.chain.addresses,
    escrowOperatorKey: config.payments.escrowOperatorKey ?? null,
    faucetKey: config.ratings.faucet.privateKey ?? null,
    didMethod: config.namespace.didMethod,
    onboardingTokens: config.onboardingTokens,
    seedDemo: config.seedDemo,
  });
  return createHash("sha256").update(await chainCodeHash()).update(settings).digest("hex").slice(0, 24);
}

/** Starts the chain once in a scratch directory, stops it (its state dumped) and publishes the directory. */
async function makeTemplate(config: PlatformConfig, dir: string): Promise<void> {
  await publishTemplate(TEMPLATE_PREFIX, dir, async (scratch) => {
    const chain = await openPlatformChain({ ...config, dataDir: scratch });
    await chain.stop();
  });
}

/**
 * Builds a template directory in a scratch directory beside it and renames it to `dir`; when another worker
 * published the same template first, theirs is used. Then removes this kind's templates (named `<prefix>...` under
 * the OS temp directory) older than an hour: earlier runs' leftovers.
 */
export async function publishTemplate(prefix: string, dir: string, build: (scratch: string) => Promise<void>): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), `${prefix}build-`));
  try {
    await build(scratch);
    await rename(scratch, dir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const tmp = os.tmpdir();
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const full = path.join(tmp, name);
    const age = Date.now() - (await stat(full).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > TEMPLATE_REMOVE_AFTER_MS) await rm(full, { recursive: true, force: true }).catch(() => {});
  }
}

/** Copies a deployed, seeded chain for `config` into `dataDir` (made first when there is none, or it is stale). */
export async function copyChainTemplate(config: PlatformConfig, dataDir: string): Promise<void> {
  const window = Math.floor(Date.now() / TEMPLATE_WINDOW_MS);
  const dir = path.join(os.tmpdir(), `${TEMPLATE_PREFIX}${await templateKey(config)}-${window}`);
  if (!existsSync(path.join(dir, "chain", "deployment.json"))) await makeTemplate(config, dir);
  await mkdir(path.join(dataDir, "chain"), { recursive: true });
  for (const file of TEMPLATE_FILES) {
    if (existsSync(path.join(dir, file))) await cp(path.join(dir, file), path.join(dataDir, file));
  }
}
