/**
 * A buyer's downloaded ciphertext on disk, one file per chunk, shared by the peer-to-peer client and the HTTP
 * downloader: `<dir>/<hex>.part` while bytes arrive (its size is the resume offset), renamed to `<hex>.enc` only after
 * its size and SHA-256 equal the verified manifest's `encryptedSize` / `encryptedDataHash`. A chunk is therefore never
 * decrypted from unchecked bytes, and a part that fails the check is deleted so the next attempt starts over.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { StreamFormatError } from "../errors.js";
import type { ChunkManifest } from "../manifest.js";
import { decryptChunk } from "../chunk.js";

const fileName = (chunkId: string) => chunkId.replace(/^sha256:/, "");

export class ChunkFiles {
  constructor(readonly dir: string) {}

  partPath(chunkId: string): string {
    return path.join(this.dir, `${fileName(chunkId)}.part`);
  }

  encPath(chunkId: string): string {
    return path.join(this.dir, `${fileName(chunkId)}.enc`);
  }

  async isComplete(manifest: ChunkManifest): Promise<boolean> {
    const info = await stat(this.encPath(manifest.chunkId)).catch(() => null);
    return info !== null && info.size === manifest.encryptedSize;
  }

  /** Bytes already held of a chunk not yet complete (its resume offset); a part larger than the chunk is dropped. */
  async heldBytes(manifest: ChunkManifest): Promise<number> {
    const info = await stat(this.partPath(manifest.chunkId)).catch(() => null);
    if (!info) return 0;
    if (info.size > manifest.encryptedSize) {
      await rm(this.partPath(manifest.chunkId), { force: true });
      return 0;
    }
    return info.size;
  }

  /** Opens the chunk's part for appending at `offset` (its current size), with the hash of the bytes already there. */
  async openPart(manifest: ChunkManifest, offset: number): Promise<ChunkWriter> {
    await mkdir(this.dir, { recursive: true });
    const file = this.partPath(manifest.chunkId);
    const hash = createHash("sha256");
    if (offset > 0) {
      for await (const part of createReadStream(file, { start: 0, end: offset - 1 })) hash.update(part as Buffer);
    }
    const handle = await open(file, offset > 0 ? "r+" : "w");
    await handle.truncate(offset);
    return new ChunkWriter(this, manifest, handle, hash, offset);
  }
}

export class ChunkWriter {
  constructor(
    private readonly files: ChunkFiles,
    readonly manifest: ChunkManifest,
    private readonly handle: FileHandle,
    private readonly hash: Hash,
    /** Bytes written so far (the next expected offset). */
    public position: number,
  ) {}

  async write(bytes: Uint8Array): Promise<void> {
    if (this.position + bytes.length > this.manifest.encryptedSize) {
      throw new StreamFormatError("CIPHERTEXT_HASH_MISMATCH", `chunk ${this.manifest.chunkId}: more bytes than encryptedSize`);
    }
    this.hash.update(bytes);
    await this.handle.write(bytes, 0, bytes.length, this.position);
    this.position += bytes.length;
  }

  /** Keeps what was written (for a resume) and closes. */
  async suspend(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }

  /** Checks size and hash; renames the part into place, or deletes it and throws CIPHERTEXT_HASH_MISMATCH. */
  async finish(): Promise<string> {
    await this.handle.close();
    const { chunkId, encryptedDataHash, encryptedSize } = this.manifest;
    const actual = `sha256:${this.hash.digest("hex")}`;
    if (this.position !== encryptedSize || actual !== encryptedDataHash) {
      await rm(this.files.partPath(chunkId), { force: true });
      throw new StreamFormatError("CIPHERTEXT_HASH_MISMATCH", `chunk ${chunkId}: the ${this.position} bytes received do not hash to encryptedDataHash`);
    }
    await rename(this.files.partPath(chunkId), this.files.encPath(chunkId));
    return this.files.encPath(chunkId);
  }
}

/**
 * Decrypts checked chunk files in chain order into one output stream: each chunk is read whole (at most 32 MiB, the
 * frame limit) and passed through decryptChunk (hash again, key commitment, tag, plaintext hash) before its plaintext
 * is written. `keyFor` hands over the chunk key (from openBuyerAccess); it is wiped after use.
 */
export async function decryptChunkFiles(
  chunks: Array<{ manifest: ChunkManifest; file: string }>,
  keyFor: (manifest: ChunkManifest, position: number) => Uint8Array,
  write: (plaintext: Uint8Array) => Promise<void> | void,
): Promise<number> {
  let bytes = 0;
  for (const [position, { manifest, file }] of chunks.entries()) {
    const ciphertext = await readFile(file);
    const key = keyFor(manifest, position);
    try {
      const plaintext = decryptChunk(manifest, ciphertext, key, position);
      await write(plaintext);
      bytes += plaintext.length;
    } finally {
      key.fill(0);
    }
  }
  return bytes;
}
