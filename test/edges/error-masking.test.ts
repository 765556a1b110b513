/**
 * What errors tell GraphQL clients (subgraphs/shared/error-mask.ts): domain errors and errors about the request as
 * they are, anything else "Internal server error." on the gateway and on a subgraph role's server alike; a database
 * outage is the documented SERVICE_UNAVAILABLE of ratings and markets, not Prisma's message with host, port or source
 * paths; introspection and field suggestions only in development.
 */
import { ApolloServer } from "@apollo/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorAndSchemaOptions, startGatewayServer, type RunningGateway } from "../../gateway/gateway.js";
import { readCommittedSupergraph } from "../../gateway/compose.js";
import { listenGraphQL, type RunningListener } from "../../gateway/graphql-listener.js";
import { createRateLimiter } from "../../rest-shim/rate-limit.js";
import { schemaBuilders } from "../../subgraphs/index.js";
import { loadConfig } from "../../subgraphs/shared/config.js";
import type { SubgraphContext } from "../../subgraphs/shared/context.js";
import { graphql, PLATFORM_START_TIMEOUT_MS, startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";
import { sql } from "../support/db.js";

/** Text that would mean an internal message leaked. */
const INTERNALS = /prisma|pglite|postgres|127\.0\.0\.1:\d|\.ts:\d|\/work\/|Cannot read|undefined|stack/i;

describe("a database outage on the platform", () => {
  let p: IsolatedPlatform;
  beforeAll(async () => {
    p = await startIsolatedPlatform();
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => p?.close());

  const MACHINE = `{ machine(machineId: "1") { machineId monetization { status } marketsRegistration { status } } }`;

  it("domain errors keep their code and fixed message", async () => {
    const invalid = await graphql(p.graphql, `{ machineVerification(machineId: "01") { machineId } }`);
    expect(invalid.body.errors).toEqual([
      expect.objectContaining({ message: "machineId is not a canonical decimal machine ID.", extensions: { code: "INVALID_MACHINE_ID" } }),
    ]);
    const operator = await graphql(p.graphql, `{ pendingChipEvidence { receiptId } }`);
    expect(operator.body.errors).toEqual([
      expect.objectContaining({ message: "A valid onboarding token is required.", extensions: { code: "ONBOARDING_AUTH_REQUIRED" } }),
    ]);
  });

  it("ratings and markets answer their outage codes with fixed messages, and nothing of the driver's", async () => {
    expect((await graphql(p.graphql, MACHINE)).body).toEqual({
      data: { machine: { machineId: "1", monetization: { status: "PENDING" }, marketsRegistration: null } },
    });
    if (p.databaseUrl) {
      const name = new URL(p.databaseUrl).pathname.slice(1);
      const admin = process.env.DATABASE_URL!;
      await sql(admin, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await sql(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    } else {
      await p.platform.database!.close();
    }
    const { status, body } = await graphql(p.graphql, MACHINE);
    expect(status).toBe(200);
    // Both fields are nullable: each subgraph reports its own outage next to the data that could be read.
    expect(body.data.machine).toEqual({ machineId: "1", monetization: null, marketsRegistration: null });
    const byPath = Object.fromEntries(body.errors!.map((e) => [(e as { path?: string[] }).path?.join("."), e]));
    expect(Object.keys(byPath).sort()).toEqual(["machine.marketsRegistration", "machine.monetization"]);
    // Monetization's outage code is the one its clients retry (docs/monetization.md).
    expect(byPath["machine.monetization"]).toMatchObject({ message: "The machine state is unavailable; retry.", extensions: { code: "MACHINE_UNAVAILABLE" } });
    expect(byPath["machine.marketsRegistration"]).toMatchObject({ message: "The service is unavailable; retry.", extensions: { code: "SERVICE_UNAVAILABLE" } });
    expect(JSON.stringify(body)).not.toMatch(INTERNALS);
  });
});

describe("the gateway's and the subgraph role's Apollo Servers", () => {
  const listeners: RunningListener[] = [];
  const gateways: RunningGateway[] = [];
  const reported: unknown[] = [];

  /** A gateway over the real subgraph schemas built without their services: any resolver needing one fails inside. */
  async function gatewayListener(env: Record<string, string>): Promise<string> {
    const config = loadConfig({ LOG_LEVEL: "silent", ...env });
    const [verify, ratings, markets] = await Promise.all([schemaBuilders.verify(), schemaBuilders.ratings(), schemaBuilders.markets()]);
    const gateway = await startGatewayServer({
      supergraphSdl: await readCommittedSupergraph(),
      subgraphs: { verify: { schema: verify }, ratings: { schema: ratings }, markets: { schema: markets } },
      config,
      rateLimiter: createRateLimiter(config),
      report: (error) => reported.push(error),
    });
    gateways.push(gateway);
    const listener = await listenGraphQL(gateway.server, { host: "127.0.0.1", port: 0, config, audience: "public" });
    listeners.push(listener);
    return listener.url;
  }

  let production: string;
  let development: string;
  let subgraph: string;
  const INTERNAL_TOKEN = "masking-test-token";
  beforeAll(async () => {
    production = await gatewayListener({});
    development = await gatewayListener({ NODE_ENV: "development" });
    const config = loadConfig({ INTERNAL_TOKEN });
    const server = new ApolloServer<SubgraphContext>({ schema: await schemaBuilders.verify(), ...errorAndSchemaOptions(config, (e) => reported.push(e)) });
    await server.start();
    const listener = await listenGraphQL(server, { host: "127.0.0.1", port: 0, config, audience: "internal" });
    listeners.push(listener);
    subgraph = listener.url;
  });
  afterAll(async () => {
    for (const listener of listeners) await listener.close();
    for (const gateway of gateways) await gateway.server.stop();
  });

  const READ = `{ machineVerification(machineId: "1") { machineId } }`;
  function expectMasked(body: Awaited<ReturnType<typeof graphql>>["body"]) {
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({ message: "Internal server error.", path: ["machineVerification"] });
    expect(body.errors![0]!.extensions).toEqual({ code: "INTERNAL_SERVER_ERROR" });
    expect(JSON.stringify(body)).not.toMatch(INTERNALS);
  }

  it("an internal failure is masked on the gateway, in production and in development, and reported to the log", async () => {
    for (const url of [production, development]) {
      const before = reported.length;
      expectMasked((await graphql(url, READ)).body);
      expect(reported.length).toBeGreaterThan(before);
    }
  });

  it("an internal failure is masked on a subgraph role's server", async () => {
    expectMasked((await graphql(subgraph, READ, {}, { "x-internal-token": INTERNAL_TOKEN })).body);
  });

  it("request errors keep their code and message", async () => {
    const syntax = await graphql(production, `{ machineVerification(`);
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors![0]).toMatchObject({ extensions: { code: "GRAPHQL_PARSE_FAILED" } });
    expect(syntax.body.errors![0]!.message).toMatch(/^Syntax Error: Expected Name, found <EOF>/);
    const variables = await graphql(production, `query ($id: String!) { machineVerification(machineId: $id) { machineId } }`, { id: 7 });
    expect(variables.status).toBe(400);
    expect(variables.body.errors![0]).toMatchObject({ extensions: { code: "BAD_USER_INPUT" } });
  });

  it("introspection is off in production and on with NODE_ENV=development", async () => {
    const introspect = `{ __schema { queryType { name } } }`;
    const off = await graphql(production, introspect);
    expect(off.status).toBe(400);
    expect(off.body.data).toBeUndefined();
    expect(off.body.errors![0]!.message).toMatch(/introspection is not allowed/i);
    const on = await graphql(development, introspect);
    expect(on.body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  it("field suggestions, which would reveal the schema, are hidden in production only", async () => {
    const typo = `{ machineVerificatio(machineId: "1") { machineId } }`;
    expect(JSON.stringify((await graphql(production, typo)).body)).not.toContain("machineVerification");
    expect(JSON.stringify((await graphql(development, typo)).body)).toContain('Did you mean \\"machineVerification\\"');
  });
});
