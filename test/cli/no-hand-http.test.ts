/**
 * The CLI calls the platform through the client package (clients/typescript, via gateway/cli/platform.ts, which
 * re-exports the client's stream transport, and the gateway client in gateway/cli/operator-api.ts): no file under gateway/cli/ sends an HTTP request of its own.
 * The chain's JSON-RPC goes through ethers providers (subgraphs/shared/chain), which this does not cover.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(root, "gateway/cli");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) ? [path.join(dir, e.name)] : []));

/** Ways to speak HTTP by hand: the global fetch, node's http/https clients, undici, axios and the like. */
const HAND_HTTP = [
  /(?<![.\w])fetch\s*\(/,
  /\bhttps?\.(request|get)\s*\(/,
  /from\s+["'](node:)?https?["']/,
  /from\s+["'](undici|axios|node-fetch|got|ky)["']/,
  /new\s+XMLHttpRequest\b/,
];

/** Comments may name what they describe (`fetch(` in prose); only code counts. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

describe("the CLI uses the client package", () => {
  it("no file under gateway/cli/ sends HTTP by hand", () => {
    const files = sources(CLI);
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((file) => {
      const text = code(readFileSync(file, "utf8"));
      return HAND_HTTP.filter((pattern) => pattern.test(text)).map((pattern) => `${path.relative(root, file)}: ${pattern}`);
    });
    expect(offenders).toEqual([]);
  });

  it("the guard sees a hand-made request", () => {
    expect(HAND_HTTP.some((p) => p.test(code(`const r = await fetch(url, { method: "POST" });`)))).toBe(true);
    expect(HAND_HTTP.some((p) => p.test(code(`import http from "node:http"; http.request(options);`)))).toBe(true);
    expect(HAND_HTTP.some((p) => p.test(code(`// fetch(url) in a comment\nconst x = client.fetch;`)))).toBe(false);
  });

  it("the platform calls go through the client package", () => {
    const platform = readFileSync(path.join(CLI, "platform.ts"), "utf8");
    expect(platform).toContain("clients/typescript/src/");
  });
});
