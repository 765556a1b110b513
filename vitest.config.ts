import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // type-graphql loads graphql's CJS build; make every import use the same realm.
    alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }],
  },
  test: {
    setupFiles: ["./test/setup.ts"],
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
