/**
 * Streaming frame decoder: bytes in (any cut), frames out. A length prefix above the limit is refused as soon as its
 * four bytes arrive (FRAME_TOO_LARGE), before any of the body is buffered; a body that is not UTF-8 JSON of one frame
 * type is refused with FRAME_MALFORMED. At most one frame body (plus what arrived after it) is held.
 */
import { LENGTH_PREFIX_BYTES, MAX_FRAME_BYTES, parseFrame, type Frame } from "./frames.js";
import { P2pError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class FrameDecoder {
  private parts: Buffer[] = [];
  private held = 0;
  private expected: number | null = null;

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {
    if (maxFrameBytes > MAX_FRAME_BYTES) throw new RangeError(`a frame limit above ${MAX_FRAME_BYTES} is not allowed`);
  }

  /** Bytes not yet part of a whole frame. */
  get pending(): number {
    return this.held;
  }

  /** Bytes still missing from the frame in progress, its length prefix first (a reader taking no more holds nothing past it). */
  get missing(): number {
    return this.expected === null ? Math.max(0, LENGTH_PREFIX_BYTES - this.held) : Math.max(0, this.expected - this.held);
  }

  /** Feeds bytes; answers the frames they complete, in order. Throws P2pError on the first bad frame. */
  push(bytes: Uint8Array): Frame[] {
    if (bytes.length > 0) {
      this.parts.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      this.held += bytes.length;
    }
    const frames: Frame[] = [];
    for (;;) {
      if (this.expected === null) {
        if (this.held < LENGTH_PREFIX_BYTES) return frames;
        const length = this.take(LENGTH_PREFIX_BYTES).readUInt32BE(0);
        if (length > this.maxFrameBytes) throw new P2pError("FRAME_TOO_LARGE", `frame of ${length} bytes announced; the limit is ${this.maxFrameBytes}`);
        if (length === 0) throw new P2pError("FRAME_MALFORMED", "empty frame");
        this.expected = length;
      }
      if (this.held < this.expected) return frames;
      const body = this.take(this.expected);
      this.expected = null;
      frames.push(decodeBody(body));
    }
  }

  /** The stream ended: refuses a frame cut short. */
  end(): void {
    if (this.held > 0 || this.expected !== null) throw new P2pError("FRAME_MALFORMED", "the stream ended inside a frame");
  }

  private take(count: number): Buffer {
    const first = this.parts[0];
    let out: Buffer;
    if (first.length >= count) {
      out = first.subarray(0, count);
      if (first.length === count) this.parts.shift();
      else this.parts[0] = first.subarray(count);
    } else {
      out = Buffer.allocUnsafe(count);
      let filled = 0;
      while (filled < count) {
        const part = this.parts[0];
        const n = Math.min(part.length, count - filled);
        part.copy(out, filled, 0, n);
        filled += n;
        if (n === part.length) this.parts.shift();
        else this.parts[0] = part.subarray(n);
      }
    }
    this.held -= count;
    return out;
  }
}

function decodeBody(body: Buffer): Frame {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body));
  } catch {
    throw new P2pError("FRAME_MALFORMED", "the frame body is not UTF-8 JSON");
  }
  return parseFrame(value);
}

/** Frames of a byte stream (a socket), in order; a stream ending inside a frame is refused. */
export async function* readFrames(source: AsyncIterable<Uint8Array>, maxFrameBytes = MAX_FRAME_BYTES): AsyncGenerator<Frame> {
  const decoder = new FrameDecoder(maxFrameBytes);
  for await (const bytes of source) yield* decoder.push(bytes);
  decoder.end();
}
