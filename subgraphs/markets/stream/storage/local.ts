/**
 * The local file driver: `local:<bucket>/<key>` is the file <root>/<bucket>/<key>, with <root> =
 * <data dir>/stream-chunks by default. Writes go to a temporary file in the same folder and are renamed into place,
 * so a reader never sees half an object and a failed upload leaves nothing behind.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import {
  StorageError, formatStorageRef, isBucket, isObjectKey, parseStorageRef,
  type ByteRange, type ChunkStorageDriver, type ObjectHead, type ObjectRead, type StoredObject,
} from "./driver.js";

export const LOCAL_SCHEME = "local";

/** Where the local driver keeps objects inside the platform's data directory. */
export const localStorageRoot = (dataDir: string) => path.join(dataDir, "stream-chunks");

export class LocalChunkStorage implements ChunkStorageDriver {
  readonly scheme = LOCAL_SCHEME;
  constructor(private readonly root: string) {}

  private file(ref: string): string {
    const { bucket, key } = parseStorageRef(ref, LOCAL_SCHEME);
    return path.join(this.root, bucket, ...key.split("/"));
  }

  async put(bucket: string, key: string, body: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<StoredObject> {
    if (!isBucket(bucket) || !isObjectKey(key)) throw new StorageError("STORAGE_REF_INVALID", "malformed bucket or key");
    const ref = formatStorageRef(LOCAL_SCHEME, bucket, key);
    const target = this.file(ref);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString("hex")}.part`;
    const handle = await open(temporary, "wx");
    const hash = createHash("sha256");
    let size = 0;
    try {
      for await (const part of body instanceof Uint8Array ? [body] : body) {
        size += part.length;
        if (options.maxBytes !== undefined && size > options.maxBytes) {
          throw new StorageError("STORAGE_TOO_LARGE", `object exceeds ${options.maxBytes} bytes`);
        }
        hash.update(part);
        await handle.write(part);
      }
      await handle.close();
      await rename(temporary, target);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
    return { ref, size, sha256: `sha256:${hash.digest("hex")}` };
  }

  async head(ref: string): Promise<ObjectHead | null> {
    const info = await stat(this.file(ref)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
      throw error;
    });
    return info?.isFile() ? { ref, size: info.size, modifiedAt: info.mtime } : null;
  }

  async get(ref: string, range?: ByteRange): Promise<ObjectRead> {
    const head = await this.head(ref);
    if (!head) throw new StorageError("STORAGE_NOT_FOUND", `no object ${ref}`);
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? head.size - 1, head.size - 1);
    const valid = Number.isSafeInteger(start) && start >= 0 && (range?.end === undefined || (Number.isSafeInteger(range.end) && range.end >= start));
    // An empty object has no bytes to range over; asking for none of it is the one range that is still fine.
    if (!valid || (range && start >= head.size)) {
      throw new StorageError("STORAGE_RANGE_INVALID", `range ${start}-${range?.end ?? ""} is outside 0-${head.size - 1}`);
    }
    const body = head.size === 0 ? Readable.from([]) : createReadStream(this.file(ref), { start, end });
    return { body, size: head.size, start, end };
  }

  async delete(ref: string): Promise<boolean> {
    try {
      await unlink(this.file(ref));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }
}
