/**
 * The client package as a user gets it: `npm pack` in clients/typescript (its prepack builds dist/) gives a tarball
 * that, installed into an empty project beside its declared dependencies only, imports and runs under Node, and
 * whose declarations type-check a handful of calls (and refuse wrong ones) in a strict TypeScript project.
 * Installing: the tarball unpacked as npm would, its dependencies linked from this repository's node_modules (the
 * same versions its package.json names), so an import of anything undeclared fails to resolve.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "clients", "typescript");
let work: string;
let consumer: string;
let tarball: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "client-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: packageDir, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("[")));
  tarball = path.join(work, packed.filename);
  consumer = path.join(work, "consumer");
  const installed = path.join(consumer, "node_modules", "@machine-economy", "client");
  await mkdir(installed, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
  const manifest = JSON.parse(await readFile(path.join(installed, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  // The consumer's own dev dependency for the type check: Node's types.
  for (const name of [...Object.keys(manifest.dependencies), "@types/node"]) {
    await mkdir(path.dirname(path.join(consumer, "node_modules", name)), { recursive: true });
    await symlink(path.join(root, "node_modules", name), path.join(consumer, "node_modules", name), "dir");
  }
  await writeFile(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
}, 300_000);
afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe("the packed client", () => {
  it("holds the bundle and the declarations, not the sources", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/types/clients/typescript/src/index.d.ts");
    expect(files).toContain("package/dist/types/clients/typescript/src/generated/markets.d.ts");
    expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
  });

  it("imports and runs in an empty project", async () => {
    const script = `
      import * as client from "@machine-economy/client";
      const markets = client.createMarketsClient({ env: { MARKETS_API_URL: "http://127.0.0.1:1" } });
      const error = new client.ApiError("NOT_FOUND", 404, { error: { code: "NOT_FOUND", details: { id: 1 } } }, "GET", "/x");
      console.log(JSON.stringify({ exports: Object.keys(client).sort(), base: markets.baseUrl, code: error.code, details: error.details }));`;
    await writeFile(path.join(consumer, "run.mjs"), script);
    const { stdout } = await run(process.execPath, ["run.mjs"], { cwd: consumer });
    const answer = JSON.parse(stdout);
    expect(answer.exports).toEqual(expect.arrayContaining(["buyService", "buyStream", "createMarketsClient", "createVerifyClient", "setMonetization", "submitChipEvidence"]));
    expect(answer).toMatchObject({ base: "http://127.0.0.1:1", code: "NOT_FOUND", details: { id: 1 } });
  });

  it("its declarations type-check typed calls and refuse wrong ones", async () => {
    const source = `
      import { createMarketsClient, createRatings2Client, ok, type MarketsPaths } from "@machine-economy/client";
      const markets = createMarketsClient({ baseUrl: "http://127.0.0.1:8100" });
      export async function calls() {
        const found = await ok(markets.api.POST("/api/v1/market/search", { body: { machineId: "mach_1", skillKey: "oracle.price-feed" } }));
        const quoteId: string = found.item.quotes[0]!.id;
        const purchase = await ok(markets.api.GET("/api/v1/purchases/{purchaseId}", { params: { path: { purchaseId: "pur_1" } } }));
        const chunkIds: string[] = purchase.item.resource.selection.chunkIds;
        const health = await createRatings2Client().api.GET("/health");
        // @ts-expect-error: no such path
        await markets.api.GET("/api/v1/nowhere");
        // @ts-expect-error: the path parameter is required
        await markets.api.GET("/api/v1/machines/{machineId}", {});
        // @ts-expect-error: a search answers an item, not a list
        const wrong: number = found.item;
        return { quoteId, chunkIds, health, wrong };
      }
      export type Search = MarketsPaths["/api/v1/market/search"]["post"];`;
    await writeFile(path.join(consumer, "check.ts"), source);
    const tsconfig = { compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: true, types: ["node"] }, files: ["check.ts"] };
    await writeFile(path.join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
    const result = await run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: consumer }).catch((error) => error);
    expect(result.stdout ?? "", result.stderr).toBe("");
  });
});
