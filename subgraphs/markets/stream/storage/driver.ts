/**
 * Where chunk ciphertext is kept. A storage reference names its driver by its URI scheme:
 *   local:<bucket>/<key>      the local file driver (storage/local.ts), under <data dir>/stream-chunks/
 * (later drivers: s3://<bucket>/<key>, walrus://<blob>, ...). A reference never holds a file-system path, so a
 * manifest or a database row cannot point the server at an arbitrary file.
 */
import type { Readable } from "node:stream";

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive; the end of the object when absent. */
  end?: number;
}

export interface StoredObject {
  ref: string;
  size: number;
  /** `sha256:<hex>` of the stored bytes. */
  sha256: string;
}

export interface ObjectHead {
  ref: string;
  size: number;
  modifiedAt: Date;
}

export interface ObjectRead {
  body: Readable;
  /** Size of the whole object. */
  size: number;
  /** The bytes served, inclusive both ends (the whole object when no range was asked). */
  start: number;
  end: number;
}

export interface ChunkStorageDriver {
  /** The URI scheme of the references this driver makes and accepts, without the colon. */
  readonly scheme: string;
  /** Stores the bytes (streamed, never buffered whole) and returns the reference; replaces an existing object. */
  put(bucket: string, key: string, body: AsyncIterable<Uint8Array> | Uint8Array, options?: { maxBytes?: number }): Promise<StoredObject>;
  /** Reads the object, or the range of it; STORAGE_NOT_FOUND or STORAGE_RANGE_INVALID otherwise. */
  get(ref: string, range?: ByteRange): Promise<ObjectRead>;
  /** Size and time of the object, or null when there is none. */
  head(ref: string): Promise<ObjectHead | null>;
  /** Removes the object; false when there was none. */
  delete(ref: string): Promise<boolean>;
}

export type StorageErrorCode = "STORAGE_REF_INVALID" | "STORAGE_DRIVER_UNKNOWN" | "STORAGE_NOT_FOUND" | "STORAGE_RANGE_INVALID" | "STORAGE_TOO_LARGE";

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(readonly code: StorageErrorCode, message: string) {
    super(`${code}: ${message}`);
  }
}

/** Bucket and key segments: 1..128 of [A-Za-z0-9._-], not "." or ".."; a key may have up to 8 segments. */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;
export const isBucket = (bucket: string) => SEGMENT.test(bucket);
export const isObjectKey = (key: string) => {
  const segments = key.split("/");
  return segments.length <= 8 && segments.every((s) => SEGMENT.test(s));
};

/** Splits `<scheme>:<bucket>/<key>`; STORAGE_REF_INVALID for anything else. */
export function parseStorageRef(ref: string, scheme: string): { bucket: string; key: string } {
  const prefix = `${scheme}:`;
  if (typeof ref !== "string" || ref.length > 1200 || !ref.startsWith(prefix)) throw new StorageError("STORAGE_REF_INVALID", `not a ${prefix} reference`);
  const rest = ref.slice(prefix.length);
  const slash = rest.indexOf("/");
  const bucket = rest.slice(0, slash);
  const key = rest.slice(slash + 1);
  if (slash < 0 || !isBucket(bucket) || !isObjectKey(key)) throw new StorageError("STORAGE_REF_INVALID", `malformed ${prefix} reference`);
  return { bucket, key };
}

export const formatStorageRef = (scheme: string, bucket: string, key: string) => `${scheme}:${bucket}/${key}`;

/** The driver a reference names, among those configured. */
export function driverFor(ref: string, drivers: ChunkStorageDriver[]): ChunkStorageDriver {
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(ref)?.[1];
  const driver = drivers.find((d) => d.scheme === scheme);
  if (!driver) throw new StorageError("STORAGE_DRIVER_UNKNOWN", `no storage driver for ${scheme ?? "this reference"}`);
  return driver;
}
