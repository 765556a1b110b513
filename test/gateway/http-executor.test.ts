/**
 * The `rest` role's HTTP executor against the real in-process gateway (role `all` on free ports), through a counting
 * TCP proxy: real operations and answers, one kept-alive connection, the Authorization header reaching the
 * subgraph, the internal token the gateway believes, and GraphQL errors of any status returned, not thrown.
 * test/rest-shim/http-executor.test.ts keeps only what a healthy gateway never does (HTML error pages, non-GraphQL
 * JSON, silence) and the exact wire format.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpExecutor } from "../../rest-shim/http-executor.js";
import { OPERATIONS } from "../../rest-shim/operations.js";
import { BEARER } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS, startIsolatedPlatform, type IsolatedPlatform } from "../support/platform.js";
import { countingProxy, type CountingProxy } from "../support/proxy.js";

const INTERNAL_TOKEN = "test-internal-token-0123456789";

let p: IsolatedPlatform;
let proxy: CountingProxy;
beforeAll(async () => {
  p = await startIsolatedPlatform({ INTERNAL_TOKEN, RATE_LIMIT_VERIFY_READ_PER_IP: "2", RATE_LIMIT_VERIFY_API_PER_IP: "100000" });
  proxy = await countingProxy(p.graphql, /"operationName":"([A-Za-z]+)"/g);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(async () => {
  await proxy?.close();
  await p?.close();
});

const client = { clientIp: "203.0.113.7" };

describe("createHttpExecutor against the real gateway", () => {
  it("runs the named operations and returns the gateway's answers, over one kept-alive connection", async () => {
    proxy.reset();
    const executor = createHttpExecutor(proxy.url, { internalToken: INTERNAL_TOKEN }); // no path: /graphql is added
    try {
      expect(await executor.execute(OPERATIONS.health, {}, client)).toEqual({ data: { health: { status: "OK" } } });
      const machine = p.machine("active", 0);
      const answer = await executor.execute(OPERATIONS.verifyMachine, { machineId: machine.machineId }, client);
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toMatchObject({ machineVerification: { machineId: machine.machineId, machineDid: `did:service:${machine.machineId}` } });
      // The same record the REST read route serves.
      const rest = await (await fetch(`${p.http}/v1/verify/machines/${machine.machineId}`)).json();
      expect((answer.data as any).machineVerification.didController).toEqual(rest.didController);
      expect(proxy.requests.get("Health")).toBe(1);
      expect(proxy.requests.get("VerifyMachine")).toBe(1);
      expect(proxy.connections).toBe(1);
    } finally {
      await executor.close?.();
    }
  });

  it("forwards Authorization: with the onboarding token a challenge is issued, without it the subgraph refuses", async () => {
    const executor = createHttpExecutor(p.graphql, { internalToken: INTERNAL_TOKEN });
    try {
      const machineId = p.machine("active", 0).machineId;
      const issued = await executor.execute(OPERATIONS.createChipChallenge, { machineId }, { ...client, authorization: BEARER });
      expect(issued.errors).toBeUndefined();
      expect(issued.data).toMatchObject({ createChipChallenge: { machineId } });
      const refused = await executor.execute(OPERATIONS.createChipChallenge, { machineId }, client);
      expect(refused.errors?.[0]?.extensions?.code).toBe("ONBOARDING_AUTH_REQUIRED");
    } finally {
      await executor.close?.();
    }
  });

  it("with the internal token the gateway does not count the call again; without it, it counts per IP", async () => {
    const trusted = createHttpExecutor(p.graphql, { internalToken: INTERNAL_TOKEN });
    const untrusted = createHttpExecutor(p.graphql);
    try {
      const machineId = p.machine("active", 0).machineId;
      p.rateLimitClock!.advance(p.config.rateLimits.windowMs); // a fresh window: no count from another test
      // RATE_LIMIT_VERIFY_READ_PER_IP is 2: five calls pass, because the shim counted them upstream.
      for (let i = 0; i < 5; i++) {
        expect((await trusted.execute(OPERATIONS.verifyMachine, { machineId }, client)).errors).toBeUndefined();
      }
      const codes = [];
      for (let i = 0; i < 3; i++) {
        codes.push((await untrusted.execute(OPERATIONS.verifyMachine, { machineId }, client)).errors?.[0]?.extensions?.code);
      }
      expect(codes).toEqual([undefined, undefined, "RATE_LIMITED"]);
    } finally {
      await trusted.close?.();
      await untrusted.close?.();
    }
  });

  it("returns GraphQL errors of any status (the gateway answers a wrongly typed variable with 400)", async () => {
    const executor = createHttpExecutor(p.graphql, { internalToken: INTERNAL_TOKEN });
    try {
      const answer = await executor.execute(OPERATIONS.verifyMachine, { machineId: 7 }, client);
      expect(answer.data).toBeUndefined();
      expect(answer.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    } finally {
      await executor.close?.();
    }
  });
});
