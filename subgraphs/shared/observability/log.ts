/**
 * Structured logs (pino): JSON lines on stdout, or pino-pretty's human-readable lines when NODE_ENV=development.
 * Secrets are removed by configuration, not by care at each call site: every path in `REDACT_PATHS` is replaced
 * by `[redacted]` whatever logs it through the logger.
 *
 * The per-request line is the exception, redacted by construction instead: `requestLineWriter` writes a fixed set
 * of fields the platform itself chose (listener, method, route pattern, status, duration, request ID, client IP),
 * never the raw URL (paths and queries can hold identifiers and tokens) and no header values, so there is nothing
 * to redact. pino's wildcard redaction walked every line for 54 paths: about 200 us per line on this machine, more
 * than the whole answer of a reused read.
 */
import { pino, type DestinationStream, type Logger } from "pino";
import type { PlatformConfig } from "../config.js";
import { BatchedOutput } from "./log-output.js";

/** Members that hold credentials, keys or single-use values, at any depth up to three levels (pino's redaction). */
const SECRET_NAMES = [
  "authorization",
  "cookie",
  "token",
  "agentToken",
  "authToken",
  "onboardingToken",
  "internalToken",
  "x-internal-token",
  "x-agent-pairing-token",
  "apiKey",
  "privateKey",
  "secret",
  "password",
  "nonce",
  "signature",
  "evidence",
  "otp",
  "code",
];

export const REDACT_PATHS = SECRET_NAMES.flatMap((name) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`;
  return [key.slice(key.startsWith(".") ? 1 : 0), `*${key}`, `*.*${key}`];
});

export type PlatformLog = Logger;

/** Writes one request line: method, route pattern, status, duration (ms), request ID, client IP. */
export type RequestLineWriter = (method: string, route: string, status: number, durationMs: number, requestId: string, clientIp: string | undefined) => void;

/**
 * The request line for `listener`, in the logger's format (`{"level":30,"time":…,"pid":…,…,"msg":"request"}`) and
 * to its destination. Strings are JSON-quoted; the request ID is the client's only when well formed (http.ts).
 */
export function requestLineWriter(log: PlatformLog, listener: string): RequestLineWriter {
  const lines = requestLines(log, listener);
  return (method, route, status, durationMs, requestId, clientIp) => lines.write(lines.prefix(method, route, status), durationMs, requestId, clientIp);
}

/**
 * The request line in two steps: `prefix` formats the part fixed per method, route pattern and status once (a
 * caller keeps it with that route's metric series), `write` adds the time, duration, request ID and client IP.
 */
export interface RequestLines {
  prefix(method: string, route: string, status: number): string;
  write(prefix: string, durationMs: number, requestId: string, clientIp: string | undefined): void;
}

export function requestLines(log: PlatformLog, listener: string): RequestLines {
  const stream = (log as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!;
  const head = `{"level":30,"time":"`;
  const pidAndListener = `","pid":${process.pid},"listener":${JSON.stringify(listener)},"method":`;
  let millisecond = -1;
  let time = "";
  return {
    prefix: (method, route, status) => `${pidAndListener}${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":`,
    write(prefix, durationMs, requestId, clientIp) {
      const now = Date.now();
      if (now !== millisecond) {
        millisecond = now;
        time = new Date(now).toISOString();
      }
      stream.write(
        `${head}${time}${prefix}${Math.round(durationMs * 1000) / 1000},"requestId":${JSON.stringify(requestId)},${clientIp === undefined ? "" : `"clientIp":${JSON.stringify(clientIp)},`}"msg":"request"}\n`,
      );
    },
  };
}

export function createLog(config: Pick<PlatformConfig, "logLevel" | "development">, destination?: DestinationStream): PlatformLog {
  const options = {
    level: config.logLevel,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return pino(options, destination);
  if (config.development && config.logLevel !== "silent") {
    return pino({ ...options, transport: { target: "pino-pretty", options: { destination: 1, translateTime: "SYS:HH:MM:ss.l" } } });
  }
  // Lines are batched (one synchronous write per 16 KiB, or 100 ms after a line is waiting, and on exit): see
  // log-output.ts for why not pino's asynchronous destination.
  return pino(options, new BatchedOutput());
}
