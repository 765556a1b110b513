/**
 * The embedded dev chain's start-up scan of anvil's output (subgraphs/shared/chain/devchain.ts `waitForListening`):
 * it reads the port from the `Listening on` line and then stops keeping and scanning the output, which anvil goes on
 * writing (a line per RPC request) for as long as the platform runs. A real child process plays anvil's output.
 */
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { waitForListening } from "../../subgraphs/shared/chain/devchain.js";

describe("dev chain start-up output", () => {
  it("takes the port, then leaves the output to the log alone", async () => {
    const script = `console.log("Listening on 127.0.0.1:4321"); let n = 0; const t = setInterval(() => { console.log("eth_blockNumber"); if (++n === 200) { clearInterval(t); } }, 1);`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    const log = new PassThrough();
    let logged = "";
    log.on("data", (chunk: Buffer) => (logged += chunk.toString()));
    try {
      const stdoutBefore = child.stdout.listenerCount("data");
      const stderrBefore = child.stderr.listenerCount("data");
      expect(await waitForListening(child, log, 10_000)).toBe(4321);
      // Only the log's own listener is left on stdout, none on stderr: nothing keeps or scans what follows.
      expect(child.stdout.listenerCount("data")).toBe(stdoutBefore + 1);
      expect(child.stderr.listenerCount("data")).toBe(stderrBefore);
      await new Promise<void>((resolve) => child.once("close", () => resolve()));
      // Everything anvil printed, before and after, still went to the log.
      expect(logged).toContain("Listening on 127.0.0.1:4321");
      expect(logged.match(/eth_blockNumber/g)?.length).toBe(200);
    } finally {
      child.kill();
    }
  });

  it("an exit before listening is refused, with the port-in-use reason when anvil printed one", async () => {
    const child = spawn(process.execPath, ["-e", `console.error("Error: Address already in use (os error 98)"); process.exit(1);`], { stdio: ["ignore", "pipe", "pipe"] });
    await expect(waitForListening(child, new PassThrough(), 10_000)).rejects.toThrow(/port is already in use/);
  });
});
