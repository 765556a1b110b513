/**
 * What every listener of the platform shares (the two REST listeners, the GraphQL listener, a subgraph role's
 * listener), so a slow or greedy client meets the same edges whichever door it uses:
 *
 * - headers must arrive within `headersTimeoutMs`, the whole request within `requestTimeoutMs` (Node answers 408 and
 *   closes); Node checks these on a timer, which runs often enough here that a drip-feeding client is cut off within
 *   a fraction of a second of its deadline;
 * - an idle keep-alive connection is closed after `idleTimeoutMs`;
 * - at most `maxConnections` connections are open per listener; further ones are closed at once;
 * - on shutdown, requests in flight get `shutdownGraceMs` to finish (no new connections are accepted, idle ones are
 *   closed), then every connection is cut.
 */
import type { Server } from "node:http";
import type { FastifyHttpOptions, FastifyInstance, FastifyReply } from "fastify";
import type { ListenerLimits } from "../config.js";

/** Fastify options applying the limits; `app.server` gets the connection cap in {@link capConnections}. */
export function listenerOptions(limits: ListenerLimits): FastifyHttpOptions<Server> {
  return {
    keepAliveTimeout: limits.idleTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Closing the listener closes idle keep-alive connections; requests in flight finish (see closeListener).
    forceCloseConnections: "idle",
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks both deadlines on this timer (30 s by default, which let drip-feeding clients stay far longer).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

export function capConnections(app: FastifyInstance, limits: ListenerLimits): void {
  app.server.maxConnections = limits.maxConnections;
}

/** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts whatever is still open. */
export async function closeListener(app: FastifyInstance, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      app.server.closeAllConnections();
      resolve();
    }, graceMs);
  });
  try {
    await Promise.race([app.close(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a connection closed with its request body unread keeps reading (and discarding) before it is destroyed. */
export const LINGER_MS = 2_000;

/**
 * Answers with `Connection: close` on a request whose body is left unread, and closes gracefully: after the answer
 * the server sends its FIN, then reads and discards what the client still sends for up to LINGER_MS before it
 * destroys the socket. Destroying at once would make the kernel answer the client's next bytes with a reset, which
 * can discard the answer (a 413, say) before the client has read it.
 */
export function closeAfterAnswer(reply: FastifyReply): FastifyReply {
  const socket = reply.raw.socket;
  if (socket && !socket.destroyed) {
    socket.destroySoon = () => {
      socket.end();
      socket.resume();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
  }
  return reply.header("connection", "close");
}
