/** Writing frames to a connection with backpressure, and small connection helpers both peers use. */
import type { Duplex } from "node:stream";
import { encodeFrame, type Frame } from "./frames.js";

/**
 * What a delivery runs over: a TCP socket (transport `tcp`), or a libp2p stream adapted to the same Duplex
 * (libp2p.ts, transport `libp2p`), with the bytes each side has moved.
 */
export type Connection = Duplex & { readonly bytesRead: number; readonly bytesWritten: number };

/** Writes one frame; waits for the socket to drain when its buffer is full, so a sender never piles frames up. */
export async function writeFrame(socket: Connection, frame: Frame): Promise<void> {
  if (socket.destroyed || !socket.writable) throw new Error("the connection is closed");
  if (socket.write(encodeFrame(frame))) return;
  // Listeners added per wait and removed after it, whichever event comes (a long transfer waits thousands of times).
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      socket.off("drain", onDrain);
      socket.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error("the connection closed while sending"));
    socket.on("drain", onDrain);
    socket.on("close", onClose);
  });
}

/** Ends the socket after its buffered bytes are sent (at most `ms`, then destroys it). */
export function closeGracefully(socket: Connection, ms = 5_000): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.end();
  });
}

/**
 * Writes bytes in slices of `sliceBytes`, each after the previous one was taken by the connection (handed to the
 * kernel); a slice not taken within `timeoutMs` rejects with `onStall()`. Progress, not total time, is bounded: a peer
 * that keeps reading never meets the timeout however long the whole takes; one that stops reading meets it once the
 * buffers between the two are full.
 */
export async function writeWithProgress(socket: Connection, bytes: Uint8Array, sliceBytes: number, timeoutMs: number, onStall: () => Error): Promise<void> {
  for (let at = 0; at < bytes.length; at += sliceBytes) {
    const slice = bytes.subarray(at, at + sliceBytes);
    await new Promise<void>((resolve, reject) => {
      if (socket.destroyed || !socket.writable) return reject(new Error("the connection is closed"));
      const done = (error?: Error) => {
        clearTimeout(timer);
        socket.off("close", onClose);
        if (error) reject(error);
        else resolve();
      };
      const onClose = () => done(new Error("the connection closed while sending"));
      const timer = setTimeout(() => done(onStall()), timeoutMs);
      socket.on("close", onClose);
      socket.write(slice, (error) => done(error ?? undefined));
    });
  }
}
