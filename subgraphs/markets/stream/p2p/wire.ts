/** Writing frames to a socket with backpressure, and small socket helpers both peers use. */
import type { Socket } from "node:net";
import { encodeFrame, type Frame } from "./frames.js";

/** Writes one frame; waits for the socket to drain when its buffer is full, so a sender never piles frames up. */
export async function writeFrame(socket: Socket, frame: Frame): Promise<void> {
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
export function closeGracefully(socket: Socket, ms = 5_000): Promise<void> {
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
