/**
 * `cli stream`'s client of the markets API (docs/stream-marketplace.md) and its local key files:
 * - StreamApi: JSON calls (a refusal becomes a CliError naming the platform's code), raw ciphertext upload and
 *   ranged, bearer-authenticated download, all through the client package (gateway/cli/platform.ts);
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
import { CliError } from "../../command.js";
import { getBytes, marketsClient, putBytes, send, type Answer, type MarketsClient } from "../../platform.js";

export class StreamApi {
  private readonly client: MarketsClient;

  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {
    this.client = marketsClient(base);
  }

  with(headers: Record<string, string>): StreamApi {
    return new StreamApi(this.base, { ...this.headers, ...headers });
  }

  async call(method: string, route: string, body?: unknown, expected: number[] = [200, 201]): Promise<any> {
    let answer: Answer;
    try {
      answer = await send(this.client, method, route, { body, headers: this.headers });
    } catch (error) {
      if (error instanceof SyntaxError) throw new CliError(`${method} ${route}: not JSON`);
      throw new CliError(`the markets API at ${this.base} is not answering (${(error as Error).message})`);
    }
    const json = answer.body;
    if (!expected.includes(answer.status)) {
      const code = json?.error?.code ?? "";
      throw new CliError(`${method} ${route} refused: ${answer.status} ${code}${json?.error?.message ? ` (${json.error.message})` : ""}`);
    }
    return json;
  }

  /** PUT of raw bytes (chunk ciphertext), with the agent headers. */
  async putBytes(route: string, bytes: Uint8Array): Promise<any> {
    const answer = await putBytes(this.client, route, bytes, this.headers);
    if (answer.status !== 200 && answer.status !== 201) throw new CliError(`PUT ${route} refused: ${answer.status} ${answer.body?.error?.code ?? ""}`);
    return answer.body;
  }

  /** GET of raw bytes from `start` on (Range), with a bearer token: the response, its body not yet read. */
  async getBytes(url: string, token: string, start: number): Promise<Response> {
    const { response, refusal } = await getBytes(this.client, url, token, start);
    if (!response) throw new CliError(`GET ${url} refused: ${refusal?.status} ${refusal?.body?.error?.code ?? ""}`);
    return response;
  }
}

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

export interface BuyerKey {
  buyerId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  publicKeyHex: string;
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
