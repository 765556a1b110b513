/**
 * Structured logs (pino): JSON lines on stdout, or pino-pretty's human-readable lines when NODE_ENV=development.
 * Secrets are removed by configuration, not by care at each call site: every path in `REDACT_PATHS` is replaced
 * by `[redacted]` whatever logs it. Request lines carry the route pattern, never the raw URL (paths and queries can
 * hold identifiers and tokens), and no header values.
 */
import { pino, type DestinationStream, type Logger } from "pino";
import type { PlatformConfig } from "../config.js";

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
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
