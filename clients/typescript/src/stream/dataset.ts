/**
 * A dataset as `cli stream` publishes it: the regular files of a directory (sorted by relative path), each cut into
 * chunks of `chunkSize` on its own (a file starts on a chunk boundary; an empty file has no chunk), preceded by one
 * index chunk, encrypted, signed and chained like the others:
 *
 *   { "schemaVersion": "peaq.stream.dataset-index.v1", "chunkSize": n, "files": [ { "path", "bytes", "chunks" } ] }
 *
 * So file names and sizes are confidential and signed too, and a buyer rebuilds the files from the chain alone.
 */
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { encryptChunk, rechunk, type ChunkContext, type ChunkManifest, type EncryptedChunk } from "../../../../subgraphs/markets/stream/index.js";
import { StepError } from "../errors.js";

export const INDEX_SCHEMA = "peaq.stream.dataset-index.v1";

export interface DatasetFile {
  path: string;
  bytes: number;
  chunks: number;
}

export interface DatasetIndex {
  schemaVersion: typeof INDEX_SCHEMA;
  chunkSize: number;
  files: DatasetFile[];
}

/** The dataset's files (relative POSIX paths, sorted) and how many chunks each takes. */
export async function datasetIndex(dir: string, chunkSize: number): Promise<DatasetIndex> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new StepError(`${dir} is not a directory`);
  const files: DatasetFile[] = [];
  const walk = async (relative: string) => {
    const entries = (await readdir(path.join(dir, relative), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) {
        const bytes = (await stat(path.join(dir, child))).size;
        files.push({ path: child, bytes, chunks: Math.ceil(bytes / chunkSize) });
      }
    }
  };
  await walk("");
  if (files.length === 0) throw new StepError(`${dir} has no files to publish`);
  return { schemaVersion: INDEX_SCHEMA, chunkSize, files };
}

/** Index chunk first, then every file's chunks, chained after `previous`; one chunk in memory at a time. */
export async function* encryptDataset(
  dir: string,
  index: DatasetIndex,
  context: ChunkContext,
  previous: { chunkId: string; index: number } | null,
): AsyncGenerator<EncryptedChunk & { file: string | null }> {
  let position = { index: previous ? previous.index + 1 : 0, previousChunkId: previous?.chunkId ?? null };
  const next = (chunk: EncryptedChunk) => {
    position = { index: position.index + 1, previousChunkId: chunk.manifest.chunkId };
  };
  const first = encryptChunk(new TextEncoder().encode(JSON.stringify(index)), position, context);
  next(first);
  yield { ...first, file: null };
  for (const file of index.files) {
    if (file.bytes === 0) continue;
    let count = 0;
    for await (const plaintext of rechunk(createReadStream(path.join(dir, file.path), { highWaterMark: Math.min(index.chunkSize, 4 * 1024 * 1024) }), index.chunkSize)) {
      const chunk = encryptChunk(plaintext, position, context);
      next(chunk);
      count += 1;
      yield { ...chunk, file: file.path };
    }
    if (count !== file.chunks) throw new StepError(`${file.path} changed while it was published`);
  }
}

/** Parses and checks a decrypted index against the manifests bought: the chunk counts must add up. */
export function parseIndex(plaintext: Uint8Array, manifests: ChunkManifest[]): DatasetIndex {
  let index: DatasetIndex;
  try {
    index = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plaintext));
  } catch {
    throw new StepError("the dataset's index chunk is not JSON");
  }
  const ok = index?.schemaVersion === INDEX_SCHEMA && Array.isArray(index.files)
    && index.files.every((f) => typeof f.path === "string" && safePath(f.path) && Number.isSafeInteger(f.bytes) && Number.isSafeInteger(f.chunks) && f.chunks >= 0);
  if (!ok) throw new StepError("the dataset's index chunk is not a peaq.stream.dataset-index.v1 index");
  const total = index.files.reduce((n, f) => n + f.chunks, 0);
  if (total !== manifests.length - 1) throw new StepError(`the index names ${total} file chunks; ${manifests.length - 1} were bought`);
  return index;
}

/** A relative path that stays inside the output directory. */
function safePath(p: string): boolean {
  return p.length > 0 && p.length <= 1024 && !p.startsWith("/") && !p.includes("\\") && p.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/** Writes plaintext chunks into the index's files, in order, under `outDir`. */
export class DatasetWriter {
  private fileIndex = 0;
  private written = 0;
  private handle: FileHandle | null = null;

  constructor(
    private readonly outDir: string,
    private readonly index: DatasetIndex,
  ) {}

  async open(): Promise<void> {
    for (const file of this.index.files) {
      if (file.chunks === 0) {
        await mkdir(path.dirname(path.join(this.outDir, file.path)), { recursive: true });
        await (await open(path.join(this.outDir, file.path), "w")).close();
      }
    }
    this.skipEmpty();
  }

  private skipEmpty() {
    while (this.fileIndex < this.index.files.length && this.index.files[this.fileIndex].chunks === 0) this.fileIndex += 1;
  }

  async write(plaintext: Uint8Array): Promise<void> {
    const file = this.index.files[this.fileIndex];
    if (!file) throw new StepError("more chunks than the index names");
    if (!this.handle) {
      const target = path.join(this.outDir, file.path);
      await mkdir(path.dirname(target), { recursive: true });
      this.handle = await open(target, "w");
    }
    await this.handle.write(plaintext);
    this.written += 1;
    if (this.written === file.chunks) {
      await this.handle.close();
      this.handle = null;
      this.written = 0;
      this.fileIndex += 1;
      this.skipEmpty();
    }
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}
