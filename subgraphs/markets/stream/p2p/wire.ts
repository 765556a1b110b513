/** Writing frames to a socket with backpressure, and small socket helpers both peers use. */
import { once } from "node:events";
import type { Socket } from "node:net";
import { encodeFrame, type Frame } from "./frames.js";

/** Writes one frame; waits for the socket to drain when its buffer is full, so a sender never piles frames up. */
export async function writeFrame(socket: Socket, frame: Frame): Promise<void> {
  if (socket.destroyed || !socket.writable) throw new Error("the connection is closed");
  if (socket.write(encodeFrame(frame))) return;
  await Promise.race([
    once(socket, "drain"),
    once(socket, "close").then(() => {
      throw new Error("the connection closed while sending");
    }),
  ]);
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
