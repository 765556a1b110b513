/**
 * Request bodies as raw bytes with a hard limit. No JSON parsing happens here: the verify routes need the exact
 * bytes (the evidence route passes them on verbatim, the challenge route parses strictly itself).
 *
 * Declared lengths over the limit are refused before reading (http-rules.ts). A chunked body is counted while it
 * arrives; once it passes the limit, reading stops and the route answers 413 on a connection that then closes.
 */
import type { FastifyRequest } from "fastify";
import type { IncomingMessage } from "node:http";

/** The body passed the route's limit while it was being read. */
export const BODY_TOO_LARGE: unique symbol = Symbol("body too large");

export type ReadBody = Buffer | typeof BODY_TOO_LARGE;

type ParserDone = (error: Error | null, body?: ReadBody) => void;

/** A Fastify content-type parser (registered for `*`) that collects at most `limit` bytes. */
export function createBodyReader(limit: number) {
  return function readBody(_request: FastifyRequest, payload: IncomingMessage, done: ParserDone): void {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: Error | null, body?: ReadBody) => {
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      payload.removeListener("error", onError);
      done(error, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        payload.pause();
        finish(null, BODY_TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    const onError = (error: Error) => finish(error);
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onError);
  };
}

/** For routes without a body: Fastify must not read or reject anything (unknown paths are answered earlier). */
export function ignoreBody(_request: FastifyRequest, _payload: IncomingMessage, done: ParserDone): void {
  done(null, undefined);
}
