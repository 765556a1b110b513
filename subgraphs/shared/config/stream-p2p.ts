/**
 * Bounds of the seller's peer-to-peer delivery server (`cli stream serve`; docs/stream-marketplace.md "Bounds of the
 * delivery server"). The defaults are the delivery server's own (subgraphs/markets/stream/p2p/limits.ts; a test keeps
 * the two equal).
 */
import { ConfigError, int, type Env } from "./env.js";

export interface StreamP2pConfig {
  maxConnections: number;
  maxRequestBytes: number;
  requestTimeoutMs: number;
  authorizeTimeoutMs: number;
  progressTimeoutMs: number;
  ackTimeoutMs: number;
}

/** Every buyer keeps its requests within this many bytes, so a seller may not accept fewer. */
export const STREAM_P2P_MIN_REQUEST_BYTES = 16 * 1024;

const SETTINGS: Array<[keyof StreamP2pConfig, string, number, number, number]> = [
  ["maxConnections", "STREAM_P2P_MAX_CONNECTIONS", 32, 1, 4096],
  ["maxRequestBytes", "STREAM_P2P_MAX_REQUEST_BYTES", STREAM_P2P_MIN_REQUEST_BYTES, STREAM_P2P_MIN_REQUEST_BYTES, 1024 * 1024],
  ["requestTimeoutMs", "STREAM_P2P_REQUEST_TIMEOUT_MS", 10_000, 100, 300_000],
  ["authorizeTimeoutMs", "STREAM_P2P_AUTHORIZE_TIMEOUT_MS", 30_000, 100, 300_000],
  ["progressTimeoutMs", "STREAM_P2P_PROGRESS_TIMEOUT_MS", 30_000, 100, 600_000],
  ["ackTimeoutMs", "STREAM_P2P_ACK_TIMEOUT_MS", 60_000, 100, 600_000],
];

export function loadStreamP2pConfig(env: Env): StreamP2pConfig {
  const config = {} as StreamP2pConfig;
  for (const [key, name, fallback, min, max] of SETTINGS) {
    const value = int(env, name, fallback);
    if (value < min || value > max) throw new ConfigError(`${name} must be ${min}..${max}`);
    config[key] = value;
  }
  return config;
}
