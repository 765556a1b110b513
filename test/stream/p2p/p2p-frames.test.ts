/**
 * Peer-to-peer frames: exact bytes (4-byte big-endian length + RFC 8785 JSON), every frame type's shape, the 32 MiB
 * limit (refused from the length prefix alone), malformed bodies, and the streaming decoder fed at every cut.
 */
import { describe, expect, it } from "vitest";
import {
  FrameDecoder, MAX_FRAME_BYTES, P2P_ENCODING, P2P_PROTOCOL, P2pError, encodeFrame, parseFrame, type Frame,
} from "../../../subgraphs/markets/stream/p2p/index.js";

const CHUNK = `sha256:${"ab".repeat(32)}`;
const OTHER = `sha256:${"cd".repeat(32)}`;

const request = (over: Record<string, unknown> = {}) => ({
  type: "chunk.request", protocol: P2P_PROTOCOL, encoding: P2P_ENCODING, requestId: "r1", purchaseId: "spur_1",
  deliverySessionId: "sdel_1", buyerId: "buyer-1", chunkIds: [CHUNK, OTHER], resumeOffsets: { [OTHER]: 10 }, handoff: "shof_x", ...over,
});

const FRAMES: Frame[] = [
  request() as Frame,
  { type: "chunk.manifest", requestId: "r1", deliverySessionId: "s1", chunkId: CHUNK, manifest: { chunkId: CHUNK } },
  { type: "chunk.data", requestId: "r1", deliverySessionId: "s1", chunkId: CHUNK, offset: 7, dataBase64: "AAEC/w==" },
  { type: "chunk.end", requestId: "r1", deliverySessionId: "s1", chunkId: CHUNK, bytes: 5 },
  { type: "delivery.ack", requestId: "r1", deliverySessionId: "s1", purchaseId: "spur_1", buyerId: "buyer-1", transportId: "tcp", status: "received" },
  { type: "delivery.error", requestId: "r1", code: "HANDOFF_EXPIRED", message: "over" },
];

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof P2pError ? error.code : `not a P2pError: ${String(error)}`;
  }
  return undefined;
}

const rawFrame = (body: string | Buffer) => {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(bytes.length);
  return Buffer.concat([prefix, bytes]);
};

describe("frame encoding", () => {
  it("is the length, big-endian, then sorted compact JSON (vectors)", () => {
    const end = encodeFrame(FRAMES[3]);
    expect(end.subarray(0, 4).toString("hex")).toBe("0000009c");
    expect(end.subarray(4).toString()).toBe(`{"bytes":5,"chunkId":"${CHUNK}","deliverySessionId":"s1","requestId":"r1","type":"chunk.end"}`);
    const data = encodeFrame(FRAMES[2]);
    expect(data.subarray(0, 4).toString("hex")).toBe("000000b6");
    expect(data.subarray(4).toString()).toBe(`{"chunkId":"${CHUNK}","dataBase64":"AAEC/w==","deliverySessionId":"s1","offset":7,"requestId":"r1","type":"chunk.data"}`);
  });

  it("round-trips every frame type through the decoder", () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(Buffer.concat(FRAMES.map(encodeFrame)))).toEqual(FRAMES);
    expect(decoder.pending).toBe(0);
  });

  it("decodes the same frames whatever the cuts (one byte at a time)", () => {
    const bytes = Buffer.concat(FRAMES.map(encodeFrame));
    const decoder = new FrameDecoder();
    const out: Frame[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...decoder.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(FRAMES);
    expect(() => decoder.end()).not.toThrow();
  });

  it("refuses to send a frame a receiver would refuse", () => {
    expect(code(() => encodeFrame({ ...FRAMES[3], bytes: -1 } as Frame))).toBe("FRAME_MALFORMED");
  });
});

describe("limits", () => {
  it("refuses a length above 32 MiB from the prefix alone, before any body arrives", () => {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(MAX_FRAME_BYTES + 1);
    const decoder = new FrameDecoder();
    expect(code(() => decoder.push(prefix))).toBe("FRAME_TOO_LARGE");
  });

  it("accepts exactly the limit's prefix and waits for the body (nothing decoded, nothing refused)", () => {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(MAX_FRAME_BYTES);
    const decoder = new FrameDecoder();
    expect(decoder.push(prefix)).toEqual([]);
    expect(code(() => decoder.end())).toBe("FRAME_MALFORMED");
  });

  it("applies a lower limit a receiver sets (a seller bounds requests)", () => {
    const decoder = new FrameDecoder(100);
    expect(code(() => decoder.push(encodeFrame(FRAMES[0])))).toBe("FRAME_TOO_LARGE");
    expect(() => new FrameDecoder(MAX_FRAME_BYTES + 1)).toThrow(RangeError);
  });

  it("refuses an empty frame and a stream ending inside a frame", () => {
    expect(code(() => new FrameDecoder().push(Buffer.alloc(4)))).toBe("FRAME_MALFORMED");
    const decoder = new FrameDecoder();
    decoder.push(encodeFrame(FRAMES[3]).subarray(0, 20));
    expect(code(() => decoder.end())).toBe("FRAME_MALFORMED");
  });
});

describe("malformed frames", () => {
  const cases: Array<[string, Buffer]> = [
    ["not JSON", rawFrame("{nope")],
    ["not UTF-8", rawFrame(Buffer.from([0x7b, 0xff, 0x7d]))],
    ["not an object", rawFrame("[1,2]")],
    ["unknown type", rawFrame('{"type":"chunk.steal","requestId":"r1"}')],
    ["a member missing", rawFrame(JSON.stringify({ ...FRAMES[3], bytes: undefined }))],
    ["an extra member", rawFrame(JSON.stringify({ ...FRAMES[3], extra: 1 }))],
    ["offset not an integer", rawFrame(JSON.stringify({ ...FRAMES[2], offset: 1.5 }))],
    ["data not base64", rawFrame(JSON.stringify({ ...FRAMES[2], dataBase64: "AA*=" }))],
    ["data empty", rawFrame(JSON.stringify({ ...FRAMES[2], dataBase64: "" }))],
    ["data in base64url", rawFrame(JSON.stringify({ ...FRAMES[2], dataBase64: "AA-_" }))],
    ["data without padding", rawFrame(JSON.stringify({ ...FRAMES[2], dataBase64: "AAE" }))],
    ["data with a space", rawFrame(JSON.stringify({ ...FRAMES[2], dataBase64: "AA E" }))],
    ["chunkId not a hash", rawFrame(JSON.stringify({ ...FRAMES[3], chunkId: "chunk-1" }))],
    ["manifest of another chunk", rawFrame(JSON.stringify({ ...FRAMES[1], manifest: { chunkId: OTHER } }))],
    ["ack not received", rawFrame(JSON.stringify({ ...FRAMES[4], status: "lost" }))],
    ["error code lowercase", rawFrame(JSON.stringify({ ...FRAMES[5], code: "oops" }))],
    ["request of another protocol", rawFrame(JSON.stringify(request({ protocol: "/other/1.0.0" })))],
    ["request of another encoding", rawFrame(JSON.stringify(request({ encoding: "cbor" })))],
    ["request without chunks", rawFrame(JSON.stringify(request({ chunkIds: [], resumeOffsets: {} })))],
    ["request repeating a chunk", rawFrame(JSON.stringify(request({ chunkIds: [CHUNK, CHUNK], resumeOffsets: {} })))],
    ["resume offset of a chunk not requested", rawFrame(JSON.stringify(request({ chunkIds: [CHUNK] })))],
    ["negative resume offset", rawFrame(JSON.stringify(request({ resumeOffsets: { [CHUNK]: -1 } })))],
    ["empty handoff", rawFrame(JSON.stringify(request({ handoff: "" })))],
  ];
  it.each(cases)("refuses %s with FRAME_MALFORMED", (_name, bytes) => {
    expect(code(() => new FrameDecoder().push(bytes))).toBe("FRAME_MALFORMED");
  });

  it("parses the valid request beside them (the cases differ only in the fault)", () => {
    expect(parseFrame(request())).toEqual(request());
  });
});
