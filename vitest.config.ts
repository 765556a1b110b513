import { defineConfig } from "vitest/config";
import { PLATFORM_START_TIMEOUT_MS, PLATFORM_TEST_TIMEOUT_MS } from "./test/support/timeouts.js";

/**
 * Two projects (test/README.md):
 * - `fast`: library and REST-shim tests that start no platform, chain, database or child process; seconds, run it on
 *   every change (`npx vitest run --project fast`).
 * - `platform`: every other test file (real anvil, PGlite/PostgreSQL, gateway, child processes).
 * `platform` is "everything not in `fast`", so no test file can fall outside both; test/install/projects.test.ts checks
 * that no `fast` file starts a platform part.
 */
export const FAST_TEST_FILES = [
  "test/chain/artifacts.test.ts",
  "test/chain/evm-address.test.ts",
  "test/chain/reader-deadline.test.ts",
  "test/chain/vendor-ca.test.ts",
  // The client package's generated sources against the committed OpenAPI documents (no platform).
  "test/clients/generated.test.ts",
  "test/clients/graphql-generated.test.ts",
  "test/edges/graphql-client-ip.test.ts",
  "test/edges/listeners.test.ts",
  "test/gateway/compiled-execution.test.ts",
  "test/gateway/compiled-variables.test.ts",
  "test/gateway/fixed-form.test.ts",
  "test/db/timestamp-parser.test.ts",
  "test/gateway/document-cache.test.ts",
  "test/gateway/request-observation.test.ts",
  "test/gateway/supergraph.test.ts",
  "test/install/*.test.ts",
  "test/markets/orders/pairing-token.test.ts",
  "test/stream/seller/seller-delivery-token.test.ts",
  "test/net/client-bucket.test.ts",
  "test/net/outbound.test.ts",
  "test/ratings/event-decoder.test.ts",
  "test/ratings/mcr-score.test.ts",
  "test/rest-shim/*.test.ts",
  // The formats library's suites only: the other stream suites run against a platform.
  "test/stream/formats/formats.test.ts",
  "test/stream/formats/primitives.test.ts",
  "test/stream/formats/sealed-box.test.ts",
  "test/stream/formats/storage.test.ts",
  "test/stream/formats/vectors.test.ts",
  "test/stream/formats/verify.test.ts",
  // The stream order error codes (no platform); orders-states opens a database, so it runs in `platform`.
  "test/stream/orders/orders-errors.test.ts",
  // Peer-to-peer frames and delivery over local sockets, the CLI's dataset layout; cli-e2e starts a platform.
  "test/stream/p2p/p2p-frames.test.ts",
  "test/stream/p2p/p2p-transfer.test.ts",
  "test/stream/p2p/p2p-bounds.test.ts",
  "test/stream/p2p/p2p-progress.test.ts",
  "test/stream/cli/cli-dataset.test.ts",
  "test/verify/config.test.ts",
  "test/verify/evidence/evidence-canonical.test.ts",
  "test/verify/evidence/evidence-check.test.ts",
  "test/verify/evidence/evidence-kit.test.ts",
  "test/verify/evidence/evidence-schema.test.ts",
  "test/verify/evidence/evidence-trust.test.ts",
  "test/verify/evidence/evidence-vectors.test.ts",
];

/** Hook timeout of the platform project: what a platform start needs (test/support/timeouts.ts). */
export const PLATFORM_HOOK_TIMEOUT_MS = PLATFORM_START_TIMEOUT_MS;

export default defineConfig({
  resolve: {
    // type-graphql loads graphql's CJS build; make every import use the same realm.
    alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }],
  },
  test: {
    setupFiles: ["./test/setup.ts"],
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // A test that makes no assertion fails: empty cases cannot pass by accident.
    expect: { requireAssertions: true },
    projects: [
      {
        extends: true,
        test: { name: "fast", include: FAST_TEST_FILES, testTimeout: 30_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: "platform",
          include: ["test/**/*.test.ts"],
          exclude: FAST_TEST_FILES,
          testTimeout: PLATFORM_TEST_TIMEOUT_MS,
          hookTimeout: PLATFORM_HOOK_TIMEOUT_MS,
        },
      },
    ],
  },
});
