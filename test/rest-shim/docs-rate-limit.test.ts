/**
 * The documentation paths count against their own per-IP limit, RATE_LIMIT_DOCS_PER_IP (rest-shim/page-limit.ts):
 * `/openapi.json`, `/docs` and its assets on the REST listeners, `/supergraph.graphql` and GraphiQL with its assets on
 * the GraphQL listener. One counter per process and client IP; the refusal is the listener's own 429 envelope; the
 * API routes keep their own counters; a refused request serves nothing.
 */
import Fastify from "fastify";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { publicGraphQLPages } from "../../gateway/public-pages.js";
import { MemoryCounterStore, RateLimiter } from "../../rest-shim/rate-limit.js";
import { testConfig } from "../support/config.js";
import { call } from "../support/http.js";
import { startShim, type RunningShim } from "./helpers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SUPERGRAPH = readFileSync(path.join(root, "gateway", "supergraph.graphql"), "utf8");

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function shimWith(env: Record<string, string>): Promise<RunningShim> {
  const shim = await startShim({ config: testConfig(env) });
  closers.push(() => shim.close());
  return shim;
}

const statusesOf = async (urls: string[]) => {
  const statuses: number[] = [];
  for (const url of urls) statuses.push((await call(url)).status);
  return statuses;
};

describe("per-IP limit of the REST listeners' documentation", () => {
  it("counts /openapi.json, /docs and its assets together; the 429 is the area's envelope; API routes keep counting their own", async () => {
    const shim = await shimWith({ RATE_LIMIT_DOCS_PER_IP: "3" });
    const docs = [`${shim.httpUrl}/openapi.json`, `${shim.httpUrl}/docs`, `${shim.httpUrl}/docs/assets/swagger-ui.css`];
    expect(await statusesOf(docs)).toEqual([200, 200, 200]);

    const refused = await call(`${shim.httpUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(refused.status).toBe(429);
    // The HTTP listener's root area is document 2's: slowapi's text, not the Swagger bundle.
    expect(refused.body).toBe('{"detail":"Rate limit exceeded: 3 per 1 minute"}');
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(await statusesOf([`${shim.httpUrl}/openapi.json`, `${shim.httpUrl}/docs`])).toEqual([429, 429]);

    // One counter per process: the markets listener's documents are refused too, in the markets envelope.
    const markets = await call(`${shim.marketsUrl}/openapi.json`);
    expect(markets.status).toBe(429);
    expect(markets.body).toBe('{"error":{"code":"RATE_LIMITED","message":"Too many requests; retry later."}}');

    // The API's counters are untouched, and the window's roll-over frees the pages again.
    expect((await call(`${shim.httpUrl}/v1/verify/machines/1`)).status).toBe(200);
    shim.rateLimitClock!.advance(60_000);
    const again = await call(`${shim.httpUrl}/openapi.json`);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body).openapi).toBe("3.1.0");
  });

  it("API requests do not spend the documentation budget", async () => {
    const shim = await shimWith({ RATE_LIMIT_DOCS_PER_IP: "1" });
    expect(await statusesOf([1, 2, 3].map(() => `${shim.httpUrl}/v1/verify/machines/1`))).toEqual([200, 200, 200]);
    expect(await statusesOf([`${shim.httpUrl}/docs`, `${shim.httpUrl}/docs`])).toEqual([200, 429]);
  });
});

describe("per-IP limit of the GraphQL listener's pages", () => {
  async function pagesWith(env: Record<string, string>) {
    const config = testConfig(env);
    const limiter = new RateLimiter(new MemoryCounterStore(), config.rateLimits.windowMs);
    const app = Fastify();
    publicGraphQLPages(SUPERGRAPH, config, limiter)(app);
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    closers.push(() => app.close());
    return url;
  }

  it("counts /supergraph.graphql, /graphiql and its assets together and refuses with a GraphQL error body", async () => {
    const url = await pagesWith({ RATE_LIMIT_DOCS_PER_IP: "3", NODE_ENV: "development" });
    const first = await call(`${url}/supergraph.graphql`);
    expect(first.status).toBe(200);
    expect(first.body).toBe(SUPERGRAPH);
    expect(await statusesOf([`${url}/graphiql`, `${url}/graphiql/assets/graphiql.min.css`])).toEqual([200, 200]);

    const refused = await call(`${url}/supergraph.graphql`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(JSON.parse(refused.body)).toEqual({
      errors: [
        {
          message: "Too many requests: the per-IP limit docsPerIp (3 per 60000 ms) is used up; retry later.",
          extensions: { code: "RATE_LIMITED", limit: "docsPerIp" },
        },
      ],
    });
    expect((await call(`${url}/graphiql/assets/graphiql.min.js`)).status).toBe(429);
  });

  it("serves no GraphiQL outside development, and the supergraph is limited there too", async () => {
    const url = await pagesWith({ RATE_LIMIT_DOCS_PER_IP: "1" });
    expect(await statusesOf([`${url}/graphiql`, `${url}/supergraph.graphql`, `${url}/supergraph.graphql`])).toEqual([404, 200, 429]);
  });
});
