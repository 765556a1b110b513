/**
 * Frames from a socket, taking from it only the bytes the frame in progress still misses (its 4-byte length prefix,
 * then its body) and only while someone waits for a frame. What a peer sends beyond that stays in the socket's own
 * buffer (one read from the kernel, then reading stops) and in the kernel. A length prefix over the limit is refused
 * before any of its body is taken; after a bad frame nothing more is taken.
 */
import { FrameDecoder } from "./decoder.js";
import type { Frame } from "./frames.js";
import type { Connection } from "./wire.js";

export class FrameReader {
  private readonly decoder: FrameDecoder;
  private failure: unknown = null;
  private ended = false;
  private stopped = false;
  private waiter: { resolve(frame: Frame | null): void; reject(error: unknown): void } | null = null;

  constructor(
    private readonly socket: Connection,
    maxFrameBytes: number,
  ) {
    this.decoder = new FrameDecoder(maxFrameBytes);
    socket.on("readable", () => this.pump());
    socket.once("end", () => {
      this.ended = true;
      this.pump();
    });
    socket.once("close", () => {
      this.ended = true;
      this.pump();
    });
  }

  /** The next frame; null when the peer ended cleanly between frames. Throws the decoder's P2pError on a bad frame. */
  next(): Promise<Frame | null> {
    if (this.waiter) return Promise.reject(new Error("a frame is already awaited"));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.pump();
    });
  }

  /** Takes nothing more from the socket (a refused connection); a pending next() never settles. */
  stop(): void {
    this.stopped = true;
    this.waiter = null;
  }

  private pump(): void {
    while (this.waiter && !this.stopped) {
      const waiter = this.waiter;
      if (this.failure) {
        this.waiter = null;
        return waiter.reject(this.failure);
      }
      const missing = this.decoder.missing;
      // read(n) answers n bytes or null (then `readable` comes when they are there); at the end, what is left.
      const bytes: Buffer | null = this.socket.destroyed ? null : this.socket.read(missing);
      if (bytes === null) {
        if (!this.ended) return;
        this.waiter = null;
        try {
          this.decoder.end();
          return waiter.resolve(null);
        } catch (error) {
          this.failure = error;
          return waiter.reject(error);
        }
      }
      try {
        const [frame] = this.decoder.push(bytes);
        if (frame) {
          this.waiter = null;
          return waiter.resolve(frame);
        }
      } catch (error) {
        this.failure = error;
      }
    }
  }
}
