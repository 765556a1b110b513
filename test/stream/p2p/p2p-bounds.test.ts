/**
 * Bounds of the seller's delivery server over real sockets, before and after the data: the connection cap (the one
 * over it answered SELLER_BUSY at once, a new one accepted after one closes), the request's size limit (a length
 * prefix over it refused from its four bytes, an 8 MiB first frame refused after at most one socket read), the request
 * deadline counted from the connection's start (a silent client and a one-byte drip are both cut at it), the
 * authorization deadline, the ack deadline (a drip after the last chunk does not renew it), and their settings.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_DELIVERY_LIMITS, MAX_FRAME_BYTES, REQUEST_FRAME_MAX_BYTES, downloadChunks, startDeliveryServer, type DownloadOptions,
} from "../../../subgraphs/markets/stream/p2p/index.js";
import { ConfigError, loadConfig } from "../../../subgraphs/shared/config.js";
import { sameBytes } from "../fixtures.js";
import { dataset, encodeFrame, errorsOf, plaintextOf, rawClient, requestFrame, seller, sleep, within, type Dataset, type Seller } from "./p2p-helpers.js";

let data: Dataset;
let work: string;
const open: Seller[] = [];

beforeAll(async () => {
  data = await dataset(4, 16 * 1024);
  work = await mkdtemp(path.join(os.tmpdir(), "p2p-bounds-buyer-"));
});

afterAll(async () => {
  for (const s of open) await s.server.close();
});

async function bounded(...args: Parameters<typeof seller>): Promise<Seller> {
  const s = await seller(...args);
  open.push(s);
  return s;
}

const options = (s: Seller, dir: string): DownloadOptions => ({
  host: s.server.host, port: s.server.port, purchaseId: "spur_1", deliverySessionId: "sdel_1", buyerId: "buyer-1",
  handoff: "shof_good", manifests: data.manifests, dir: path.join(work, dir),
});

async function until(check: () => boolean, ms = 2_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(10)) if (check()) return true;
  return check();
}

const prefix = (length: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(length);
  return bytes;
};

describe("connection cap", () => {
  it("answers the connection over the cap SELLER_BUSY at once, and accepts a new one once one closes", async () => {
    const s = await bounded(data, { maxConnections: 2 });
    const held = [await rawClient(s.server), await rawClient(s.server)];
    expect(await until(() => s.server.connections === 2)).toBe(true);

    const over = await rawClient(s.server);
    expect(await within(over.closed, 3_000)).toBeLessThan(2_500);
    expect(over.frames).toEqual([expect.objectContaining({ type: "delivery.error", requestId: "unknown", code: "SELLER_BUSY" })]);
    await expect(downloadChunks(options(s, "busy"))).rejects.toThrow(/^DELIVERY_REFUSED: SELLER_BUSY/);
    expect(s.requests).toEqual([]); // nothing of the refused connections was read as a request
    expect(s.server.connections).toBe(2);

    held[0].socket.destroy();
    expect(await until(() => s.server.connections === 1)).toBe(true);
    const result = await downloadChunks(options(s, "after-close"));
    expect(sameBytes(await plaintextOf(data.manifests, result.files), data.original)).toBe(true);
    expect(result.bytesReceived).toBe(data.manifests.reduce((n, m) => n + m.encryptedSize, 0));
    expect(s.acks).toHaveLength(1);
    held[1].socket.destroy();
  });
});

describe("the request's size, before authorization", () => {
  it("refuses a length prefix one byte over the default limit from its four bytes", async () => {
    const s = await bounded(data, {});
    const client = await rawClient(s.server);
    client.socket.write(prefix(16 * 1024 + 1));
    expect(await within(client.closed, 3_000)).toBeLessThan(2_500);
    expect(errorsOf(client.frames)).toEqual(["FRAME_TOO_LARGE"]);
    expect(s.requests).toEqual([]);
    expect(s.server.limits.maxRequestBytes).toBe(REQUEST_FRAME_MAX_BYTES);
    expect(REQUEST_FRAME_MAX_BYTES).toBe(16 * 1024);
  });

  it("refuses an 8 MiB first frame after reading at most one socket read of it, and closes", async () => {
    const s = await bounded(data, { maxRequestBytes: 4096 });
    const client = await rawClient(s.server);
    const body = Buffer.alloc(8 * 1024 * 1024, 0x20);
    client.socket.write(Buffer.concat([prefix(body.length), body]));
    expect(await within(client.closed, 3_000)).toBeLessThan(3_000);
    expect(errorsOf(client.frames)).toEqual(["FRAME_TOO_LARGE"]);
    const report = await s.report("FRAME_TOO_LARGE");
    expect(report).not.toBe("none");
    // One read from the kernel is at most 64 KiB; the server never asked for more.
    expect((report as { bytesRead: number }).bytesRead).toBeLessThanOrEqual(4 + 64 * 1024);
  });

  it("serves a request within the limit on the same server", async () => {
    const s = await bounded(data, { maxRequestBytes: 4096 });
    const result = await downloadChunks(options(s, "small-limit"));
    expect(result.files.size).toBe(data.manifests.length);
    expect(s.requests).toHaveLength(1);
    expect(encodeFrame(s.requests[0]).length - 4).toBeLessThanOrEqual(4096);
  });
});

describe("deadlines a drip cannot renew", () => {
  it("cuts a connection that sends nothing at the request deadline, with REQUEST_TIMEOUT", async () => {
    const s = await bounded(data, { requestTimeoutMs: 300 });
    const client = await rawClient(s.server);
    const closedAfter = await within(client.closed, 3_000);
    expect(closedAfter).toBeGreaterThanOrEqual(280);
    expect(closedAfter).toBeLessThan(2_500);
    expect(errorsOf(client.frames)).toEqual(["REQUEST_TIMEOUT"]);
  });

  it("cuts a request dripped one byte every 50 ms at the same deadline, counted from the connection's start", async () => {
    const s = await bounded(data, { requestTimeoutMs: 300 });
    const client = await rawClient(s.server);
    const bytes = encodeFrame(requestFrame(data.manifests));
    let sent = 0;
    const drip = setInterval(() => {
      if (!client.socket.destroyed && sent < bytes.length) client.socket.write(bytes.subarray(sent, ++sent));
    }, 50);
    try {
      const closedAfter = await within(client.closed, 3_000);
      expect(closedAfter).toBeGreaterThanOrEqual(280);
      expect(closedAfter).toBeLessThan(2_500);
      expect(errorsOf(client.frames)).toEqual(["REQUEST_TIMEOUT"]);
      expect(sent).toBeLessThan(bytes.length);
      expect(s.requests).toEqual([]);
    } finally {
      clearInterval(drip);
    }
  });

  it("answers SELLER_UNAVAILABLE when the seller's own check outlasts the authorization deadline", async () => {
    const s = await bounded(data, { authorizeTimeoutMs: 200 }, 3_000);
    const started = Date.now();
    await expect(downloadChunks(options(s, "slow-check"))).rejects.toThrow(/^DELIVERY_REFUSED: SELLER_UNAVAILABLE/);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("cuts a buyer that drips bytes instead of its ack at the ack deadline, with ACK_TIMEOUT", async () => {
    const s = await bounded(data, { ackTimeoutMs: 300 });
    const client = await rawClient(s.server);
    client.socket.write(encodeFrame(requestFrame(data.manifests)));
    expect(await until(() => client.frames.filter((f) => f.type === "chunk.end").length === data.manifests.length)).toBe(true);
    const lastEnd = Date.now();
    const ack = encodeFrame({ type: "delivery.ack", requestId: "r", deliverySessionId: "sdel_1", purchaseId: "spur_1", buyerId: "buyer-1", transportId: "tcp", status: "received" });
    let sent = 0;
    const drip = setInterval(() => {
      if (!client.socket.destroyed && sent < ack.length) client.socket.write(ack.subarray(sent, ++sent));
    }, 50);
    try {
      expect(await within(client.closed, 3_000)).not.toBe("timeout");
      const afterLastEnd = Date.now() - lastEnd;
      expect(afterLastEnd).toBeGreaterThanOrEqual(250);
      expect(afterLastEnd).toBeLessThan(2_500);
      expect(errorsOf(client.frames)).toEqual(["ACK_TIMEOUT"]);
      expect(s.acks).toEqual([]);
    } finally {
      clearInterval(drip);
    }
  });
});

describe("settings", () => {
  const VARS = {
    maxConnections: "STREAM_P2P_MAX_CONNECTIONS",
    maxRequestBytes: "STREAM_P2P_MAX_REQUEST_BYTES",
    requestTimeoutMs: "STREAM_P2P_REQUEST_TIMEOUT_MS",
    authorizeTimeoutMs: "STREAM_P2P_AUTHORIZE_TIMEOUT_MS",
    progressTimeoutMs: "STREAM_P2P_PROGRESS_TIMEOUT_MS",
    ackTimeoutMs: "STREAM_P2P_ACK_TIMEOUT_MS",
  };

  it("defaults to the delivery server's own bounds, and reads each setting", () => {
    expect(loadConfig({}).streamP2p).toEqual(DEFAULT_DELIVERY_LIMITS);
    expect(DEFAULT_DELIVERY_LIMITS).toEqual({ maxConnections: 32, maxRequestBytes: 16_384, requestTimeoutMs: 10_000, authorizeTimeoutMs: 30_000, progressTimeoutMs: 30_000, ackTimeoutMs: 60_000 });
    const env = { STREAM_P2P_MAX_CONNECTIONS: "5", STREAM_P2P_MAX_REQUEST_BYTES: "65536", STREAM_P2P_REQUEST_TIMEOUT_MS: "2000", STREAM_P2P_AUTHORIZE_TIMEOUT_MS: "3000", STREAM_P2P_PROGRESS_TIMEOUT_MS: "4000", STREAM_P2P_ACK_TIMEOUT_MS: "5000" };
    expect(loadConfig(env).streamP2p).toEqual({ maxConnections: 5, maxRequestBytes: 65_536, requestTimeoutMs: 2_000, authorizeTimeoutMs: 3_000, progressTimeoutMs: 4_000, ackTimeoutMs: 5_000 });
    expect(Object.keys(VARS).sort()).toEqual(Object.keys(DEFAULT_DELIVERY_LIMITS).sort());
  });

  it.each([
    ["STREAM_P2P_MAX_CONNECTIONS", "0"],
    ["STREAM_P2P_MAX_CONNECTIONS", "many"],
    ["STREAM_P2P_MAX_REQUEST_BYTES", "16383"], // below what every buyer may send
    ["STREAM_P2P_MAX_REQUEST_BYTES", "2097152"],
    ["STREAM_P2P_REQUEST_TIMEOUT_MS", "99"],
    ["STREAM_P2P_AUTHORIZE_TIMEOUT_MS", "300001"],
    ["STREAM_P2P_PROGRESS_TIMEOUT_MS", "-1"],
    ["STREAM_P2P_ACK_TIMEOUT_MS", "600001"],
  ])("refuses %s=%s at start", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("the server refuses bounds that are not positive integers, or a request limit above the frame limit", async () => {
    const base = { storage: [data.storage], authorize: async () => ({ transportId: "tcp", chunks: [] }) };
    await expect(startDeliveryServer({ ...base, limits: { maxConnections: 0 } })).rejects.toThrow(RangeError);
    await expect(startDeliveryServer({ ...base, limits: { progressTimeoutMs: 1.5 } })).rejects.toThrow(RangeError);
    await expect(startDeliveryServer({ ...base, limits: { maxRequestBytes: MAX_FRAME_BYTES + 1 } })).rejects.toThrow(RangeError);
  });
});
