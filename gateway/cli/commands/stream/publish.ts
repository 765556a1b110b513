/**
 * `cli stream publish <dir>` (seller): the directory's files are chunked, encrypted, signed and chained
 * (clients/typescript/src/stream/dataset.ts; the keys sealed to the machine's own X25519 key), the signing key registered once, each chunk's
 * manifest registered (POST /stream/chunks) and its ciphertext uploaded (PUT /stream/chunks/:chunkId/data) as it is
 * made, so only one chunk is ever in memory; then the listing is created. Progress on stderr; one JSON line on stdout.
 */
import { MAX_CHUNK_SIZE, type ChunkContext } from "../../../../subgraphs/markets/stream/index.js";
import { CliError, UsageError, parseOptions, printResult, progress } from "../../command.js";
import { StreamApi, agentBody, agentHeaders, apiBase, ensureSigningKey, loadSeller, saveSeller } from "./api.js";
import { datasetIndex, encryptDataset } from "../../../../clients/typescript/src/stream/dataset.js";
import { progressBar } from "./progress.js";
import { SELLER_BUCKET, sellerStore } from "./serve.js";

/**
 * The CLI's default chunk size: 1 MiB. The notes' 256 KiB costs about a fifth of the cipher's speed in per-chunk work
 * (a fresh key, a sealed box, a signature, two HTTP calls); 1 MiB reaches the 80% target (README, `npm run bench`).
 */
export const CLI_CHUNK_SIZE = 1024 * 1024;

export const PUBLISH_USAGE = `Usage: cli stream publish <dir> --title T --price 1.50 [--price-per-chunk 0.01] [--currency USD] [--topic /camera/front]
                          [--chunk-size ${CLI_CHUNK_SIZE}] [--seller <file>] [--api http://127.0.0.1:<MARKETS_PORT>]
Publishes the directory's files as one listing: chunked, encrypted (XChaCha20-Poly1305, a fresh key per chunk sealed to
the machine's X25519 key), signed with the machine's Ed25519 key (registered on first use), manifests and ciphertext
uploaded chunk by chunk. The seller file (default <DATA_DIR>/stream-seller.json) names machineId, machineDid, agentId
and agentToken; the keys are generated into it when absent. --price-per-chunk: what each chunk of a subset costs.`;

export async function publishCommand(args: string[]): Promise<void> {
  const [dir, ...rest] = args;
  if (dir === "--help" || dir === "-h") return void process.stdout.write(`${PUBLISH_USAGE}\n`);
  if (dir === undefined || dir.startsWith("--")) throw new UsageError(`missing <dir>\n\n${PUBLISH_USAGE}`);
  const o = parseOptions(
    rest,
    { title: { type: "string" }, price: { type: "string" }, "price-per-chunk": { type: "string" }, currency: { type: "string" }, topic: { type: "string" }, "chunk-size": { type: "string" }, seller: { type: "string" }, api: { type: "string" } },
    PUBLISH_USAGE,
  );
  if (!o) return;
  const chunkSize = Number(o["chunk-size"] ?? CLI_CHUNK_SIZE);
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1024 || chunkSize > MAX_CHUNK_SIZE) throw new UsageError(`--chunk-size must be 1024..${MAX_CHUNK_SIZE}\n\n${PUBLISH_USAGE}`);
  if (!o.price || !/^\d+(\.\d{1,6})?$/.test(o.price)) throw new UsageError(`--price must be a decimal amount (up to 6 decimals)\n\n${PUBLISH_USAGE}`);
  const perChunk = o["price-per-chunk"];
  if (perChunk !== undefined && !/^\d+(\.\d{1,6})?$/.test(perChunk)) throw new UsageError(`--price-per-chunk must be a decimal amount (up to 6 decimals)\n\n${PUBLISH_USAGE}`);
  const title = o.title ?? dir.split("/").filter(Boolean).at(-1) ?? "dataset";

  const seller = await loadSeller(o.seller);
  const api = new StreamApi(apiBase(o.api)).with(agentHeaders(seller));
  await ensureSigningKey(api, seller);
  const index = await datasetIndex(dir, chunkSize);
  const totalBytes = index.files.reduce((n, f) => n + f.bytes, 0);
  const totalChunks = 1 + index.files.reduce((n, f) => n + f.chunks, 0);
  progress(`publish: ${index.files.length} file(s), ${totalBytes} bytes, ${totalChunks} chunks of up to ${chunkSize} bytes`);
  const context: ChunkContext = {
    signer: seller.signer,
    signerPublicKeyHex: seller.signingPublicKeyHex,
    recipients: [{ recipientId: seller.data.machineId, recipientType: "machine", publicKey: seller.boxPublicKey }],
  };
  const bar = progressBar("publish", totalBytes);
  const chunkIds: string[] = [];
  const store = sellerStore();
  let last = seller.data.lastChunk ?? null;
  let done = 0;
  for await (const chunk of encryptDataset(dir, index, context, last)) {
    await api.call("POST", "/stream/chunks", { ...agentBody(seller), manifest: chunk.manifest, metadata: { file: chunk.file } });
    await api.putBytes(`/stream/chunks/${encodeURIComponent(chunk.manifest.chunkId)}/data`, chunk.ciphertext);
    // The seller's own copy, served peer to peer by `cli stream serve` (purchase flow).
    await store.put(SELLER_BUCKET, chunk.manifest.chunkId.slice("sha256:".length), chunk.ciphertext);
    chunkIds.push(chunk.manifest.chunkId);
    last = { chunkId: chunk.manifest.chunkId, index: chunk.manifest.index };
    // The chain's end is saved after every chunk: an interrupted publication continues the chain, never forks it.
    seller.data.lastChunk = last;
    await saveSeller(seller);
    if (chunk.file !== null) done += chunk.ciphertext.length - 16;
    bar(done);
  }
  if (chunkIds.length !== totalChunks) throw new CliError(`published ${chunkIds.length} chunks, expected ${totalChunks}`);
  const listing = (
    await api.call("POST", `/machines/${seller.data.machineId}/stream/listings`, {
      ...agentBody(seller),
      title,
      chunkIds,
      price: { amount: o.price, currency: o.currency ?? "USD" },
      ...(o.topic ? { topic: o.topic } : {}),
      ...(perChunk !== undefined ? { pricePerChunk: perChunk } : {}),
    })
  ).item;
  printResult({ step: "publish", listingId: listing.id, machineId: seller.data.machineId, files: index.files.length, bytes: totalBytes, chunks: chunkIds.length, chunkSize, firstChunkId: chunkIds[0], lastChunkId: chunkIds.at(-1) });
}
