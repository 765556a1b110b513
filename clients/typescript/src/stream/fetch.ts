/**
 * The buyer's last steps, shared by both flows: ciphertext fetched over HTTP (order flow: the platform's chunk data
 * route with the bearer delivery token, `Range` to resume) or peer to peer (purchase flow: p2p/client.ts), kept per
 * chunk only after its size and SHA-256 match the verified manifest (p2p/chunk-files.ts); then each chunk key opened
 * from the buyer-access entry (checked against the signed key commitment), each chunk decrypted and checked, and the
 * dataset's files written from its index chunk (dataset.ts).
 */
import { mkdir } from "node:fs/promises";
import { openBuyerAccess, StreamFormatError, type ChunkManifest } from "../../../../subgraphs/markets/stream/index.js";
import { ChunkFiles, decryptChunkFiles } from "../../../../subgraphs/markets/stream/p2p/chunk-files.js";
import { StepError } from "../errors.js";
import type { BuyerKey, StreamApi } from "./api.js";
import { DatasetWriter, parseIndex } from "./dataset.js";

export interface HttpChunk {
  chunkId: string;
  url?: string;
  reference?: string;
}

/** Downloads every chunk not yet complete in `files`, resuming a part at its size; at most `attempts` tries per chunk. */
export async function httpDownload(
  api: StreamApi,
  token: string,
  chunks: HttpChunk[],
  manifests: ChunkManifest[],
  files: ChunkFiles,
  onBytes: (n: number) => void,
  attempts = 3,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byId = new Map(chunks.map((c) => [c.chunkId, c]));
  for (const manifest of manifests) {
    if (await files.isComplete(manifest)) {
      onBytes(manifest.encryptedSize);
      out.set(manifest.chunkId, files.encPath(manifest.chunkId));
      continue;
    }
    const source = byId.get(manifest.chunkId);
    if (!source?.url) throw new StepError(`chunk ${manifest.chunkId} has no download URL${source?.reference ? ` (stored at ${source.reference})` : ""}`);
    for (let attempt = 1; ; attempt++) {
      const held = await files.heldBytes(manifest);
      const writer = await files.openPart(manifest, held);
      try {
        const response = await api.getBytes(source.url, token, held);
        if (held > 0 && response.status !== 206) throw new StepError(`chunk ${manifest.chunkId}: the server ignored the Range request`);
        if (response.body) {
          for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
            await writer.write(part);
            onBytes(part.length);
          }
        }
        // A body cut short keeps its part for the next attempt's Range; only a whole one is checked.
        if (writer.position < manifest.encryptedSize) throw new Error(`chunk ${manifest.chunkId}: the download ended early`);
        out.set(manifest.chunkId, await writer.finish());
        break;
      } catch (error) {
        await writer.suspend();
        if (error instanceof StreamFormatError) throw new StepError(`chunk ${manifest.chunkId} refused before decryption: ${error.code}: ${error.message}`);
        if (error instanceof StepError || attempt >= attempts) throw error;
      }
    }
  }
  return out;
}

/** Opens each chunk's key from the buyer's access entries, decrypts the index chunk then the files into `outDir`. */
export async function decryptDataset(
  manifests: ChunkManifest[],
  files: Map<string, string>,
  access: unknown[],
  buyer: BuyerKey,
  outDir: string,
): Promise<{ files: number; bytes: number }> {
  const accessFor = new Map<string, unknown>();
  for (const entry of access) {
    const chunkId = (entry as { chunkId?: unknown })?.chunkId;
    if (typeof chunkId === "string") accessFor.set(chunkId, entry);
  }
  const keyFor = (manifest: ChunkManifest, position: number) => {
    const entry = accessFor.get(manifest.chunkId);
    if (!entry) throw new StepError(`no buyer access for chunk ${manifest.chunkId}`);
    return openBuyerAccess(entry, manifest, buyer.secretKey, position);
  };
  const list = manifests.map((manifest) => {
    const file = files.get(manifest.chunkId);
    if (!file) throw new StepError(`chunk ${manifest.chunkId} was not downloaded`);
    return { manifest, file };
  });
  await mkdir(outDir, { recursive: true });
  try {
    let indexBytes: Uint8Array | null = null;
    await decryptChunkFiles(list.slice(0, 1), keyFor, (p) => void (indexBytes = p));
    const index = parseIndex(indexBytes!, manifests);
    const writer = new DatasetWriter(outDir, index);
    await writer.open();
    const offset = (m: ChunkManifest, i: number) => keyFor(m, i + 1);
    const bytes = await decryptChunkFiles(list.slice(1), offset, (p) => writer.write(p));
    await writer.close();
    return { files: index.files.length, bytes };
  } catch (error) {
    if (error instanceof StreamFormatError) {
      throw new StepError(`chunk ${error.chunkIndex ?? "?"} refused: ${error.code}: ${error.message}`);
    }
    throw error;
  }
}
