/** The chunk storage driver interface and its local file driver: references, streamed put, Range reads, head, delete. */
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LocalChunkStorage, StorageError, driverFor, localStorageRoot, parseStorageRef, type ChunkStorageDriver, type StorageErrorCode,
} from "../../../subgraphs/markets/stream/index.js";
import { collect, concat, patternStream, sameBytes } from "../fixtures.js";

let dataDir: string;
let storage: LocalChunkStorage;
const bytesOf = async (body: AsyncIterable<Uint8Array>) => concat((await collect(body)).map((b) => new Uint8Array(b)));

async function expectStorageCode(work: () => Promise<unknown> | unknown, code: StorageErrorCode) {
  let caught: unknown;
  try {
    await work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(StorageError);
  expect((caught as StorageError).code).toBe(code);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "stream-storage-"));
  storage = new LocalChunkStorage(localStorageRoot(dataDir));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("storage references", () => {
  it("are local:<bucket>/<key>; anything else is STORAGE_REF_INVALID", async () => {
    expect(parseStorageRef("local:listing-1/chunks/0001", "local")).toEqual({ bucket: "listing-1", key: "chunks/0001" });
    for (const ref of ["local:listing-1", "local:/key", "local:b/../x", "local:b/./x", "local:b/a//c", "local:..b/x/", "file:///etc/passwd", "local:b/k%2F", `local:b/${"a/".repeat(8)}a`]) {
      await expectStorageCode(() => parseStorageRef(ref, "local"), "STORAGE_REF_INVALID");
    }
  });

  it("name their driver; an unknown scheme is STORAGE_DRIVER_UNKNOWN", async () => {
    const drivers: ChunkStorageDriver[] = [storage];
    expect(driverFor("local:b/k", drivers)).toBe(storage);
    await expectStorageCode(() => driverFor("s3://bucket/key", drivers), "STORAGE_DRIVER_UNKNOWN");
    await expectStorageCode(() => driverFor("no scheme", drivers), "STORAGE_DRIVER_UNKNOWN");
  });
});

describe("local file driver", () => {
  it("stores a stream under the data dir and returns its reference, size and hash", async () => {
    const stored = await storage.put("listing-1", "chunks/0000", patternStream(300_000, 7000));
    const expected = concat(await collect(patternStream(300_000)));
    expect(stored).toEqual({ ref: "local:listing-1/chunks/0000", size: 300_000, sha256: `sha256:${createHash("sha256").update(expected).digest("hex")}` });
    expect(await readdir(path.join(dataDir, "stream-chunks", "listing-1", "chunks"))).toEqual(["0000"]);
    const head = await storage.head(stored.ref);
    expect(head?.size).toBe(300_000);
    const whole = await storage.get(stored.ref);
    expect([whole.start, whole.end, whole.size]).toEqual([0, 299_999, 300_000]);
    expect(sameBytes(await bytesOf(whole.body), expected)).toBe(true);
  });

  it("serves byte ranges, inclusive, an open end running to the last byte", async () => {
    const ref = "local:listing-1/chunks/0000";
    const expected = concat(await collect(patternStream(300_000)));
    for (const [start, end] of [[0, 0], [100, 199], [299_999, 299_999], [250_000, undefined], [10, 1_000_000]] as const) {
      const read = await storage.get(ref, { start, end });
      const last = Math.min(end ?? 299_999, 299_999);
      expect([read.start, read.end]).toEqual([start, last]);
      const got = await bytesOf(read.body);
      expect(got.length).toBe(last + 1 - start);
      expect(sameBytes(got, expected.subarray(start, last + 1))).toBe(true);
    }
  });

  it("refuses a range outside the object, backwards or not integral (STORAGE_RANGE_INVALID)", async () => {
    const ref = "local:listing-1/chunks/0000";
    for (const range of [{ start: 300_000 }, { start: 10, end: 9 }, { start: -1 }, { start: 1.5 }]) {
      await expectStorageCode(() => storage.get(ref, range), "STORAGE_RANGE_INVALID");
    }
  });

  it("replaces an object atomically and leaves nothing behind when an upload is too large or fails", async () => {
    await storage.put("listing-1", "chunks/0001", new Uint8Array([1, 2, 3]));
    await expectStorageCode(() => storage.put("listing-1", "chunks/0001", patternStream(10_000, 1000), { maxBytes: 5000 }), "STORAGE_TOO_LARGE");
    const failing = (async function* () { yield new Uint8Array(10); throw new Error("connection reset"); })();
    await expect(storage.put("listing-1", "chunks/0001", failing)).rejects.toThrow("connection reset");
    expect(await bytesOf((await storage.get("local:listing-1/chunks/0001")).body)).toEqual(new Uint8Array([1, 2, 3]));
    expect((await readdir(path.join(dataDir, "stream-chunks", "listing-1", "chunks"))).sort()).toEqual(["0000", "0001"]);
    await storage.put("listing-1", "chunks/0001", new Uint8Array([4]));
    expect(await bytesOf((await storage.get("local:listing-1/chunks/0001")).body)).toEqual(new Uint8Array([4]));
  });

  it("stores an empty object, reads it whole, refuses any range of it", async () => {
    const stored = await storage.put("listing-1", "empty", new Uint8Array(0));
    const read = await storage.get(stored.ref);
    expect([read.size, read.start, read.end]).toEqual([0, 0, -1]);
    expect(await bytesOf(read.body)).toEqual(new Uint8Array(0));
    await expectStorageCode(() => storage.get(stored.ref, { start: 0 }), "STORAGE_RANGE_INVALID");
  });

  it("head and get of a missing object; delete once, then false; bad keys refused on put", async () => {
    expect(await storage.head("local:listing-1/nothing")).toBeNull();
    expect(await storage.head("local:listing-1/chunks/0000/deeper")).toBeNull();
    await expectStorageCode(() => storage.get("local:listing-1/nothing"), "STORAGE_NOT_FOUND");
    expect(await storage.delete("local:listing-1/chunks/0001")).toBe(true);
    expect(await storage.delete("local:listing-1/chunks/0001")).toBe(false);
    expect(await storage.head("local:listing-1/chunks/0001")).toBeNull();
    await expectStorageCode(() => storage.put("..", "x", new Uint8Array(1)), "STORAGE_REF_INVALID");
    await expectStorageCode(() => storage.put("b", "../x", new Uint8Array(1)), "STORAGE_REF_INVALID");
    await expectStorageCode(() => storage.head("file:///etc/passwd"), "STORAGE_REF_INVALID");
  });
});
