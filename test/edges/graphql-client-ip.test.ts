/**
 * The client IP the GraphQL listener hands to resolvers (per-IP limits key on it): the socket address, or with
 * TRUST_PROXY (true, a hop count, an address or CIDR) the client named in X-Forwarded-For. A tiny schema whose one
 * field answers `context.clientIp` shows what the listener decided.
 */
import { ApolloServer } from "@apollo/server";
import { afterEach, describe, expect, it } from "vitest";
import { listenGraphQL, type RunningListener } from "../../gateway/graphql-listener.js";
import type { SubgraphContext } from "../../subgraphs/shared/context.js";
import { testConfig } from "../support/config.js";

const running: Array<{ listener: RunningListener; server: ApolloServer<SubgraphContext> }> = [];
afterEach(async () => {
  for (const { listener, server } of running.splice(0)) {
    await listener.close();
    await server.stop();
  }
});

async function listenerWith(trustProxy?: string): Promise<string> {
  const server = new ApolloServer<SubgraphContext>({
    typeDefs: "type Query { clientIp: String! }",
    resolvers: { Query: { clientIp: (_root: unknown, _args: unknown, context: SubgraphContext) => context.clientIp } },
  });
  await server.start();
  const config = testConfig(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy });
  const listener = await listenGraphQL(server, { host: "127.0.0.1", port: 0, config, audience: "public" });
  running.push({ listener, server });
  return listener.url;
}

async function clientIpSeen(url: string, forwardedFor: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: JSON.stringify({ query: "{ clientIp }" }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { clientIp: string } }).data.clientIp;
}

describe("the GraphQL listener's client IP", () => {
  const chain = "203.0.113.1, 198.51.100.7";

  it("is the socket address without TRUST_PROXY, whatever X-Forwarded-For says", async () => {
    expect(await clientIpSeen(await listenerWith(), chain)).toBe("127.0.0.1");
  });

  it.each([
    ["true: the leftmost address", "true", "203.0.113.1"],
    ["a hop count of 1: the address one hop back", "1", "198.51.100.7"],
    ["a hop count of 2: two hops back", "2", "203.0.113.1"],
    ["the proxy's address: the address it forwarded", "127.0.0.1", "198.51.100.7"],
    ["a CIDR holding the proxy", "127.0.0.0/8", "198.51.100.7"],
    ["a CIDR not holding the proxy: the socket address", "10.0.0.0/8", "127.0.0.1"],
  ])("with TRUST_PROXY as %s", async (_label, trustProxy, expected) => {
    expect(await clientIpSeen(await listenerWith(trustProxy), chain)).toBe(expected);
  });
});
