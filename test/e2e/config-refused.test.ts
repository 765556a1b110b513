/**
 * A setting outside its documented range stops the server at start, before it opens any port or data: the process
 * exits with code 1 and says which setting, and never logs `ready`.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../support/processes.js";

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "config-refused-"));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("the server refuses to start", () => {
  it.each(["0", "301"])("with VERIFY_CHALLENGE_TTL_SECONDS=%s", async (ttl) => {
    const env = { DATA_DIR: dataDir, VERIFY_CHALLENGE_TTL_SECONDS: ttl, HTTP_PORT: "0", MARKETS_PORT: "0", GRAPHQL_PORT: "0", ANVIL_PORT: "0", MCR2_PORT: "0", ALTCHAIN_RPC_PORT: "0" };
    const failure = await startCommand(process.execPath, ["--import", "tsx", "gateway/main.ts", "all"], env, 120_000).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/exited with 1/);
    expect(failure?.message).toContain("failed to start: VERIFY_CHALLENGE_TTL_SECONDS must be 1..300");
    expect(failure?.message).not.toMatch(/^ready$/m);
    // Nothing was started: the data directory is still empty (no chain state, no database).
    expect(await readdir(dataDir)).toEqual([]);
  });
});
