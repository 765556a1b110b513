/**
 * Peer-to-peer delivery frames (public notes 3.5 "P2P delivery", protocol `/peaqos/stream/chunk/1.0.0`, encoding
 * `peaqos-json-frame-v1`): each frame is a 4-byte big-endian length, then that many bytes of compact sorted JSON
 * (RFC 8785, `canonicalize`), at most 32 MiB. Every frame is an object with a `type` member and exactly the members of
 * its type (below); `parseFrame` refuses anything else with FRAME_MALFORMED.
 */
import { canonicalBytes, isHash } from "../encoding.js";
import { P2pError } from "./errors.js";

export const P2P_PROTOCOL = "/peaqos/stream/chunk/1.0.0";
export const P2P_ENCODING = "peaqos-json-frame-v1";
/** Largest frame body (the JSON after the length prefix). */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;
export const LENGTH_PREFIX_BYTES = 4;
/** Raw ciphertext bytes per chunk.data frame a sender cuts by default (base64 makes it 4/3 larger on the wire). */
export const DEFAULT_DATA_FRAME_BYTES = 256 * 1024;
/**
 * Most chunks one request frame may name. The seller's request size limit (limits.ts, 16 KiB by default: about 200
 * chunk IDs) is the tighter bound in practice; a buyer asks for a longer list over several connections.
 */
export const MAX_REQUEST_CHUNKS = 65_536;

export interface ChunkRequestFrame {
  type: "chunk.request";
  protocol: typeof P2P_PROTOCOL;
  encoding: typeof P2P_ENCODING;
  requestId: string;
  /** The purchase (purchase flow) or order (order flow) the chunks were bought in. */
  purchaseId: string;
  deliverySessionId: string;
  buyerId: string;
  chunkIds: string[];
  /** chunkId → first byte wanted (bytes already held from an interrupted transfer); absent chunks start at 0. */
  resumeOffsets: Record<string, number>;
  /** The connect handoff of the delivery descriptor (short-lived, checked by the seller before any byte is sent). */
  handoff: string;
}

export interface ChunkManifestFrame {
  type: "chunk.manifest";
  requestId: string;
  deliverySessionId: string;
  chunkId: string;
  manifest: Record<string, unknown>;
}

export interface ChunkDataFrame {
  type: "chunk.data";
  requestId: string;
  deliverySessionId: string;
  chunkId: string;
  /** Position of the first byte of this frame's data in the chunk's ciphertext. */
  offset: number;
  dataBase64: string;
}

export interface ChunkEndFrame {
  type: "chunk.end";
  requestId: string;
  deliverySessionId: string;
  chunkId: string;
  /** Size of the chunk's whole ciphertext (not only the bytes of this transfer). */
  bytes: number;
}

export interface DeliveryAckFrame {
  type: "delivery.ack";
  requestId: string;
  deliverySessionId: string;
  purchaseId: string;
  buyerId: string;
  transportId: string;
  status: "received";
}

export interface DeliveryErrorFrame {
  type: "delivery.error";
  requestId: string;
  code: string;
  message: string;
}

export type Frame = ChunkRequestFrame | ChunkManifestFrame | ChunkDataFrame | ChunkEndFrame | DeliveryAckFrame | DeliveryErrorFrame;
export type FrameType = Frame["type"];

/** The frame as bytes on the wire: length prefix, then its canonical JSON. */
export function encodeFrame(frame: Frame): Buffer {
  parseFrame(frame); // a sender never emits what a receiver must refuse
  const body = canonicalBytes(frame);
  if (body.length > MAX_FRAME_BYTES) throw new P2pError("FRAME_TOO_LARGE", `frame of ${body.length} bytes exceeds ${MAX_FRAME_BYTES}`);
  const out = Buffer.allocUnsafe(LENGTH_PREFIX_BYTES + body.length);
  out.writeUInt32BE(body.length, 0);
  out.set(body, LENGTH_PREFIX_BYTES);
  return out;
}

// ---- shape checks ---------------------------------------------------------------------------------------------------

const ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === "string" && ID.test(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
/**
 * Non-empty, padded, standard-alphabet base64: the only spelling that decodes and re-encodes to itself (Node's decoder
 * skips foreign characters and takes base64url, so the round trip is the check). Native both ways: a regular
 * expression over a 350 KB frame cost more than the chunk's decryption.
 */
const isBase64 = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length % 4 === 0 && Buffer.from(v, "base64").toString("base64") === v;

const MEMBERS: Record<FrameType, string[]> = {
  "chunk.request": ["type", "protocol", "encoding", "requestId", "purchaseId", "deliverySessionId", "buyerId", "chunkIds", "resumeOffsets", "handoff"],
  "chunk.manifest": ["type", "requestId", "deliverySessionId", "chunkId", "manifest"],
  "chunk.data": ["type", "requestId", "deliverySessionId", "chunkId", "offset", "dataBase64"],
  "chunk.end": ["type", "requestId", "deliverySessionId", "chunkId", "bytes"],
  "delivery.ack": ["type", "requestId", "deliverySessionId", "purchaseId", "buyerId", "transportId", "status"],
  "delivery.error": ["type", "requestId", "code", "message"],
};

function fail(why: string): never {
  throw new P2pError("FRAME_MALFORMED", why);
}

function checkRequest(f: Record<string, unknown>): void {
  if (f.protocol !== P2P_PROTOCOL) fail(`protocol is not ${P2P_PROTOCOL}`);
  if (f.encoding !== P2P_ENCODING) fail(`encoding is not ${P2P_ENCODING}`);
  if (!isId(f.purchaseId) || !isId(f.buyerId)) fail("purchaseId and buyerId are IDs");
  if (typeof f.handoff !== "string" || f.handoff.length < 1 || f.handoff.length > 4096) fail("handoff is 1..4096 characters");
  const ids = f.chunkIds;
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_REQUEST_CHUNKS || !ids.every(isHash)) fail("chunkIds is 1..65536 sha256 hashes");
  if (new Set(ids).size !== ids.length) fail("chunkIds repeats a chunk");
  if (!isObject(f.resumeOffsets)) fail("resumeOffsets is an object");
  const named = new Set(ids);
  for (const [id, offset] of Object.entries(f.resumeOffsets)) {
    if (!named.has(id)) fail(`resumeOffsets names ${id.slice(0, 80)}, not a requested chunk`);
    if (!isCount(offset)) fail("a resume offset is an integer >= 0");
  }
}

/** Checks a decoded JSON value is exactly one frame type's shape; answers it typed. */
export function parseFrame(value: unknown): Frame {
  if (!isObject(value) || typeof value.type !== "string" || !(value.type in MEMBERS)) fail("not a frame: no known type");
  const type = value.type as FrameType;
  const members = MEMBERS[type];
  const keys = Object.keys(value);
  if (keys.length !== members.length || !members.every((m) => m in value)) fail(`${type}: members missing or unknown`);
  if (!isId(value.requestId)) fail(`${type}: requestId is an ID`);
  if (type !== "delivery.error" && !isId(value.deliverySessionId)) fail(`${type}: deliverySessionId is an ID`);
  if (type.startsWith("chunk.") && type !== "chunk.request" && !isHash(value.chunkId)) fail(`${type}: chunkId is a sha256 hash`);
  switch (type) {
    case "chunk.request":
      checkRequest(value);
      break;
    case "chunk.manifest":
      if (!isObject(value.manifest)) fail("chunk.manifest: manifest is an object");
      if (value.manifest.chunkId !== value.chunkId) fail("chunk.manifest: the manifest is for another chunk");
      break;
    case "chunk.data":
      if (!isCount(value.offset)) fail("chunk.data: offset is an integer >= 0");
      if (!isBase64(value.dataBase64)) fail("chunk.data: dataBase64 is non-empty padded base64");
      break;
    case "chunk.end":
      if (!isCount(value.bytes)) fail("chunk.end: bytes is an integer >= 0");
      break;
    case "delivery.ack":
      if (!isId(value.purchaseId) || !isId(value.buyerId) || !isId(value.transportId)) fail("delivery.ack: purchaseId, buyerId and transportId are IDs");
      if (value.status !== "received") fail('delivery.ack: status is "received"');
      break;
    case "delivery.error":
      if (typeof value.code !== "string" || !CODE.test(value.code)) fail("delivery.error: code is UPPER_SNAKE");
      if (typeof value.message !== "string" || value.message.length > 2000) fail("delivery.error: message is at most 2000 characters");
      break;
  }
  return value as unknown as Frame;
}
