/**
 * `cli stream`'s client of the markets API (docs/stream-marketplace.md) and its local key files:
 * - StreamApi: the client package's (clients/typescript/src/stream/api.ts), at `--api` or MARKETS_URL;
 * - the seller file (`--seller`, default <DATA_DIR>/stream-seller.json): the machine, its agent credentials, its
 *   Ed25519 signing key and X25519 key (generated and registered on first use), and the end of its chunk chain;
 * - the buyer file (`--buyer-key`, default <DATA_DIR>/stream-buyer.json): the buyer's X25519 key.
 * Key files are written with mode 0600.
 */
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import nacl from "tweetnacl";
import { loadConfig } from "../../../../subgraphs/shared/config.js";
import { fromHex, toHex, type ManifestSigner } from "../../../../subgraphs/markets/stream/index.js";
import { StreamApi, type BuyerKey } from "../../../../clients/typescript/src/stream/api.js";
import { CliError } from "../../command.js";

export { StreamApi, type BuyerKey };

export function apiBase(api: string | undefined): string {
  const config = loadConfig();
  return api ?? process.env.MARKETS_URL ?? `http://${config.host}:${config.marketsPort}`;
}

// ---- key files ------------------------------------------------------------------------------------------------------

export interface SellerFile {
  machineId: string;
  /** The machine's identityRef (DID): the manifests' signature.machineDid. */
  machineDid: string;
  agentId: string;
  agentToken: string;
  keyId?: string;
  signingSecretKeyHex?: string;
  boxSecretKeyHex?: string;
  /** Set once the signing key is registered with the platform. */
  signingKeyRegistered?: boolean;
  /** The end of the machine's chunk chain: the next publication continues it. */
  lastChunk?: { chunkId: string; index: number } | null;
}

export interface Seller {
  file: string;
  data: SellerFile;
  signer: ManifestSigner;
  signingPublicKeyHex: string;
  boxSecretKey: Uint8Array;
  boxPublicKey: Uint8Array;
}

const dataDir = () => loadConfig().dataDir;
export const defaultSellerFile = () => path.join(dataDir(), "stream-seller.json");
export const defaultBuyerFile = () => path.join(dataDir(), "stream-buyer.json");

function readJson(file: string, what: string): any {
  if (!existsSync(file)) throw new CliError(`no ${what} file at ${file}`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new CliError(`${file} is not a JSON ${what} file`);
  }
}

/** Reads the seller file; generates (and saves) the keys it lacks. The signing key is registered by the caller. */
export async function loadSeller(file = defaultSellerFile()): Promise<Seller> {
  const data = readJson(file, "seller") as SellerFile;
  for (const key of ["machineId", "machineDid", "agentId", "agentToken"] as const) {
    if (typeof data[key] !== "string" || data[key] === "") throw new CliError(`the seller file ${file} has no ${key}`);
  }
  let changed = false;
  if (!fromHex(data.signingSecretKeyHex, 64)) {
    data.signingSecretKeyHex = toHex(nacl.sign.keyPair().secretKey);
    data.signingKeyRegistered = false;
    changed = true;
  }
  if (!fromHex(data.boxSecretKeyHex, 32)) {
    data.boxSecretKeyHex = toHex(nacl.box.keyPair().secretKey);
    changed = true;
  }
  const secretKey = fromHex(data.signingSecretKeyHex, 64)!;
  const signingPublicKeyHex = toHex(secretKey.subarray(32));
  if (!data.keyId) {
    data.keyId = `cli-${signingPublicKeyHex.slice(0, 16)}`;
    changed = true;
  }
  const seller: Seller = {
    file,
    data,
    signer: { machineDid: data.machineDid, keyId: data.keyId, secretKey },
    signingPublicKeyHex,
    boxSecretKey: fromHex(data.boxSecretKeyHex, 32)!,
    boxPublicKey: nacl.box.keyPair.fromSecretKey(fromHex(data.boxSecretKeyHex, 32)!).publicKey,
  };
  if (changed) await saveSeller(seller);
  return seller;
}

export const saveSeller = (seller: Seller) => writeFile(seller.file, `${JSON.stringify(seller.data, null, 2)}\n`, { mode: 0o600 });

/** The agent's credentials as headers (and as body members for routes that take them there). */
export const agentHeaders = (s: Seller) => ({ "x-machine-agent-id": s.data.agentId, "x-machine-agent-token": s.data.agentToken });
export const agentBody = (s: Seller) => ({ machineId: s.data.machineId, agentId: s.data.agentId, agentToken: s.data.agentToken });

/** Registers the seller's signing key once (POST /machines/:machineId/stream/signing-keys). */
export async function ensureSigningKey(api: StreamApi, seller: Seller): Promise<void> {
  if (seller.data.signingKeyRegistered) return;
  await api.call("POST", `/machines/${seller.data.machineId}/stream/signing-keys`, {
    agentId: seller.data.agentId,
    agentToken: seller.data.agentToken,
    keyId: seller.data.keyId,
    publicKeyHex: seller.signingPublicKeyHex,
  });
  seller.data.signingKeyRegistered = true;
  await saveSeller(seller);
}

/** The buyer's X25519 key (created on first use) and buyer ID. */
export async function loadBuyer(file = defaultBuyerFile(), buyerId?: string): Promise<BuyerKey> {
  let data: { buyerId?: string; boxSecretKeyHex?: string } = existsSync(file) ? readJson(file, "buyer") : {};
  if (!fromHex(data.boxSecretKeyHex, 32) || (buyerId && data.buyerId !== buyerId)) {
    data = { buyerId: buyerId ?? data.buyerId ?? `buyer-${toHex(nacl.randomBytes(6))}`, boxSecretKeyHex: data.boxSecretKeyHex ?? toHex(nacl.box.keyPair().secretKey) };
    await writeFile(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  }
  const secretKey = fromHex(data.boxSecretKeyHex, 32)!;
  const publicKey = nacl.box.keyPair.fromSecretKey(secretKey).publicKey;
  return { buyerId: data.buyerId!, secretKey, publicKey, publicKeyHex: toHex(publicKey) };
}
