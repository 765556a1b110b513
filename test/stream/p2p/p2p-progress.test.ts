/**
 * The delivery server's bound while it sends is on progress, not on wall time, over real sockets: a buyer that drips
 * one byte out every 50 ms is cut once the buffers between them are full and a slice waits past the progress timeout
 * (and its connection ends before the data); a slow but honest buyer (a relay pacing the seller's bytes) takes many
 * times every configured deadline and still gets every byte, decrypted, with its ack counted; a chunk list longer than
 * one request allows is asked for over several connections, each request within the limit.
 */
import { mkdtemp } from "node:fs/promises";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FrameDecoder, downloadChunks, type DownloadOptions, type Frame } from "../../../subgraphs/markets/stream/p2p/index.js";
import { sameBytes } from "../fixtures.js";
import { dataset, encodeFrame, pacedRelay, plaintextOf, requestFrame, seller, within, type Dataset, type Seller } from "./p2p-helpers.js";

/** 12 MiB of plaintext, 16 MiB on the wire: well over what the kernel buffers of one loopback connection hold (about 4 MB). */
let big: Dataset;
let many: Dataset;
let work: string;
const open: Seller[] = [];

beforeAll(async () => {
  big = await dataset(24, 512 * 1024);
  many = await dataset(300, 512); // 300 chunk IDs: about 22 KB of request, more than the default limit
  work = await mkdtemp(path.join(os.tmpdir(), "p2p-progress-buyer-"));
});

afterAll(async () => {
  for (const s of open) await s.server.close();
});

async function bounded(...args: Parameters<typeof seller>): Promise<Seller> {
  const s = await seller(...args);
  open.push(s);
  return s;
}

const options = (port: number, data: Dataset, dir: string, over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  host: "127.0.0.1", port, purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1",
  handoff: "shof_good", manifests: data.manifests, dir: path.join(work, dir), ...over,
});

describe("progress while sending", () => {
  it("cuts a buyer that drips one byte out every 50 ms once a slice waits past the progress timeout", async () => {
    const s = await bounded(big, { progressTimeoutMs: 300 });
    const socket = connect({ host: s.server.host, port: s.server.port });
    socket.on("error", () => undefined);
    await new Promise((resolve) => socket.once("connect", resolve));
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.pause();
    socket.write(encodeFrame(requestFrame(big.manifests)));
    const taken: Buffer[] = [];
    const drip = setInterval(() => {
      const byte = socket.read(1) as Buffer | null;
      if (byte) taken.push(byte);
    }, 50);
    try {
      const report = await s.report("PROGRESS_TIMEOUT", 6_000);
      expect(report).not.toBe("none");
      const wire = big.manifests.reduce((n, m) => n + m.encryptedSize, 0) * (4 / 3);
      expect((report as { bytesWritten: number }).bytesWritten).toBeLessThan(wire / 2);
    } finally {
      clearInterval(drip);
    }
    // What reached the buyer ends before the last chunk's end frame: the seller did not wait for it.
    const frames: Frame[] = [];
    const decoder = new FrameDecoder();
    socket.on("data", (bytes: Buffer) => {
      try {
        frames.push(...decoder.push(bytes));
      } catch {
        socket.destroy();
      }
    });
    socket.resume();
    expect(await within(ended, 5_000)).not.toBe("timeout");
    expect(frames.filter((f) => f.type === "chunk.end").length).toBeLessThan(big.manifests.length);
    expect(s.acks).toEqual([]);
  });

  it("lets a slow but honest buyer finish a transfer many times longer than every deadline, ack included", async () => {
    const s = await bounded(big, { requestTimeoutMs: 400, progressTimeoutMs: 400, ackTimeoutMs: 5_000 });
    const relay = await pacedRelay(s.server, 256 * 1024, 50); // about 5 MB/s through a relay that reads only that much
    try {
      const started = Date.now();
      const result = await downloadChunks(options(relay.port, big, "slow-honest"));
      const took = Date.now() - started;
      expect(took).toBeGreaterThan(5 * 400);
      expect(sameBytes(await plaintextOf(big.manifests, result.files), big.original)).toBe(true);
      expect(s.acks).toHaveLength(1);
      const report = await s.report("delivered");
      expect(report).not.toBe("none");
      expect(s.reports.map((r) => r.outcome)).toEqual(["delivered"]);
    } finally {
      relay.close();
    }
  });
});

describe("a chunk list longer than one request allows", () => {
  it("is asked for over several connections, each request within the seller's limit, and every chunk arrives", async () => {
    const s = await bounded(many, { maxRequestBytes: 4096 });
    const result = await downloadChunks(options(s.server.port, many, "batched", { maxRequestBytes: 4096 }));
    expect(s.requests.length).toBeGreaterThanOrEqual(3);
    for (const request of s.requests) expect(encodeFrame(request).length - 4).toBeLessThanOrEqual(4096);
    expect(s.requests.flatMap((r) => r.chunkIds)).toEqual(many.manifests.map((m) => m.chunkId));
    expect(s.acks).toEqual(s.requests.map((r) => r.requestId));
    expect(sameBytes(await plaintextOf(many.manifests, result.files), many.original)).toBe(true);
  });

  it("keeps a default buyer's requests within the default limit every seller accepts", async () => {
    const s = await bounded(many, {});
    const result = await downloadChunks(options(s.server.port, many, "default-batches"));
    expect(result.files.size).toBe(many.manifests.length);
    expect(s.requests).toHaveLength(2);
    for (const request of s.requests) expect(encodeFrame(request).length - 4).toBeLessThanOrEqual(s.server.limits.maxRequestBytes);
    expect(s.acks).toHaveLength(2);
  });
});
