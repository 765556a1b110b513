/**
 * What every subgraph is built from (the shared runtime of one process) and what building one gives back.
 *
 * `subgraphs/<name>/index.ts` turns a runtime into that subgraph's services and schema; `gateway/subgraph-runtime.ts`
 * is only the table of the three builders. The process entry (gateway/platform.ts) runs the background jobs a
 * subgraph declares and closes what it opened.
 */
import type { GraphQLSchema } from "graphql";
import type { ChainReader } from "./chain/reader.js";
import type { Clock } from "./clock.js";
import type { OutboundClient } from "./net/outbound.js";
import type { PlatformConfig } from "./config.js";
import type { Database } from "./db/index.js";
import type { DemoFixture } from "./chain/demo-fixture.js";

export interface SubgraphRuntime {
  config: PlatformConfig;
  db: Database;
  chain: ChainReader;
  /** The RPC URL the chain reader talks to (the embedded anvil node or CHAIN_RPC_URL). */
  rpcUrl: string;
  /** The demo fixture when the embedded chain was seeded, else null. */
  demo: DemoFixture | null;
  /** Test hook: wraps the loader of the pinned chip vendor trust bundle that the verify subgraph's evidence checks
   * call after claiming a challenge (tests hold a check inside its lease with it, or make the trust store fail). */
  wrapTrust?: <T>(load: () => Promise<T>) => () => Promise<T>;
  /** The guarded client for URLs others chose (data_api fetches, provider calls): never a bare fetch. */
  outbound: OutboundClient;
  clock?: Clock;
  /** Reports an unexpected internal failure (never echoed to clients). */
  log: (error: unknown) => void;
}

/** Work a subgraph wants done on a timer in every process that serves it (each run must be safe across replicas). */
export interface BackgroundJob {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
  /** The one log line of a finished run (e.g. its counts); none: the run is not logged. */
  describe?(result: unknown): string;
}

export interface BuiltSubgraph<TServices = unknown> {
  schema: GraphQLSchema;
  /** The services behind the schema, for the process entry and tests (e.g. a cleanup job run on demand). */
  services: TServices;
  jobs?: BackgroundJob[];
  /** Releases what the builder opened (timers, sockets); the runtime's database and chain belong to the caller. */
  close?(): Promise<void>;
}
