/**
 * GET /v1/verify/machines/{machineId} (document 1), through the REST shim and through the GraphQL gateway, against
 * the real chain and the demo fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, startTestPlatform, type TestPlatform } from "../support/platform.js";

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({ RATE_LIMIT_VERIFY_READ_PER_IP: "100000", RATE_LIMIT_VERIFY_API_PER_IP: "100000" });
});
afterAll(() => p?.close());

const read = (id: string, init: RequestInit = {}) =>
  fetch(`${p.http}/v1/verify/machines/${id}`, { redirect: "manual", ...init, headers: { accept: "application/json", ...init.headers } });

function expectVerifyHeaders(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(response.headers.get("cache-control")).toBe("no-store");
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expectVerifyHeaders(response);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(Object.keys(body.detail).sort()).toEqual(["code", "message"]);
  expect(body.detail.code).toBe(code);
  return body;
}

describe("read route: records from the chain", () => {
  it("returns every field of an active machine with its own controller, KYB and chip verified", async () => {
    const m = p.machine("active", 0);
    const response = await read(m.machineId);
    expect(response.status).toBe(200);
    expectVerifyHeaders(response);
    const text = await response.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(JSON.parse(text)).toEqual({
      machineId: m.machineId,
      machineDid: `did:service:${m.machineId}`,
      homeChain: { kind: "evm", chainId: "3338" },
      didController: { kind: "evm", address: m.controllerAddress },
      operator: { kind: "evm", address: m.operatorAddress },
      verification: { kyb: { status: "verified" }, chip: { status: "verified" } },
    });
    expect(m.controllerAddress).not.toBe(m.ownerAddress);
  });

  it("uses the NFT owner as effective controller when none is set; no records means unverified", async () => {
    const m = p.machine("active", 1);
    expect(m.controllerAddress).toBe(m.ownerAddress);
    const body = await (await read(m.machineId)).json();
    expect(body.didController).toEqual({ kind: "evm", address: m.ownerAddress });
    expect(body.verification).toEqual({ kyb: { status: "unverified" }, chip: { status: "unverified" } });
  });

  it("reports expired and revoked attestations, revoked taking precedence over expired", async () => {
    const expiredChip = p.demo.machines.find((m) => m.machineId === "5")!;
    const revokedChip = p.demo.machines.find((m) => m.machineId === "6")!;
    expect((await (await read(expiredChip.machineId)).json()).verification).toEqual({
      kyb: { status: "revoked" },
      chip: { status: "expired" },
    });
    expect((await (await read(revokedChip.machineId)).json()).verification).toEqual({
      kyb: { status: "expired" },
      chip: { status: "revoked" },
    });
  });

  it("still serves the record of a deactivated machine", async () => {
    const m = p.machine("deactivated");
    const response = await read(m.machineId);
    expect(response.status).toBe(200);
    expect((await response.json()).machineId).toBe(m.machineId);
  });

  it("answers 503 VERIFY_READ_UNAVAILABLE for a machine homed on a second chain", async () => {
    await expectError(await read(p.machine("second-chain").machineId), 503, "VERIFY_READ_UNAVAILABLE");
  });

  it("answers 404 MACHINE_NOT_FOUND for a canonical ID the registry does not know, up to 2^256-1", async () => {
    await expectError(await read("999999"), 404, "MACHINE_NOT_FOUND");
    await expectError(await read(((1n << 256n) - 1n).toString()), 404, "MACHINE_NOT_FOUND");
  });
});

describe("read route: machine ID spelling", () => {
  const bad = [
    "0",
    "01",
    "+1",
    "-1",
    "%201",
    "1%20",
    "1.0",
    "1e3",
    "0x1",
    "did:service:1",
    "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A",
    "%EF%BC%91", // full-width digit one
    (1n << 256n).toString(),
  ];
  it.each(bad)("rejects %s with 400 INVALID_MACHINE_ID", async (id) => {
    const body = await expectError(await read(id), 400, "INVALID_MACHINE_ID");
    // Errors never echo identifiers.
    expect(JSON.stringify(body)).not.toContain(decodeURIComponent(id).trim() || "\u0000");
  });
});

describe("read route: HTTP rules", () => {
  it("never redirects: a trailing slash is an unknown verify route", async () => {
    const response = await read(`${p.machine("active").machineId}/`);
    await expectError(response, 404, "VERIFY_ROUTE_NOT_FOUND");
  });

  it("answers 405 with Allow for other methods", async () => {
    const response = await fetch(`${p.http}/v1/verify/machines/1`, { method: "DELETE" });
    await expectError(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toContain("GET");
  });

  it("answers 406 when Accept excludes JSON", async () => {
    await expectError(await read("1", { headers: { accept: "text/html" } }), 406, "NOT_ACCEPTABLE");
  });

  it("accepts an omitted Accept header and JSON-compatible ranges", async () => {
    for (const accept of ["*/*", "application/*", "text/html, application/json;q=0.5"]) {
      expect((await read("1", { headers: { accept } })).status).toBe(200);
    }
    const response = await fetch(`${p.http}/v1/verify/machines/1`);
    expect(response.status).toBe(200);
  });
});

describe("read route through GraphQL", () => {
  const query = `query ($id: String!) { machineVerification(machineId: $id) {
    machineId didController { address } verification { kyb { status } chip { status } } } }`;

  it("serves the same record", async () => {
    const m = p.machine("active", 0);
    const { status, body } = await graphql(p.graphql, query, { id: m.machineId });
    expect(status).toBe(200);
    expect(body.data.machineVerification).toEqual({
      machineId: m.machineId,
      didController: { address: m.controllerAddress },
      verification: { kyb: { status: "VERIFIED" }, chip: { status: "VERIFIED" } },
    });
  });

  it.each([
    ["01", "INVALID_MACHINE_ID"],
    ["424242", "MACHINE_NOT_FOUND"],
    ["4", "VERIFY_READ_UNAVAILABLE"],
  ])("machineId %s gives extensions.code %s", async (id, code) => {
    const { body } = await graphql(p.graphql, query, { id });
    expect(body.errors?.[0]?.extensions?.code).toBe(code);
    expect(body.errors?.[0]).not.toHaveProperty("extensions.stacktrace");
  });

  it("reads one machine across all three subgraphs in one query", async () => {
    const m = p.machine("active", 0);
    const { body } = await graphql(
      p.graphql,
      `query ($id: String!) { machine(machineId: $id) {
        machineId verification { verification { chip { status } } } monetization { status signer } marketsRegistration { status } } }`,
      { id: m.machineId },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.machine).toEqual({
      machineId: m.machineId,
      verification: { verification: { chip: { status: "VERIFIED" } } },
      monetization: { status: "PENDING", signer: null },
      marketsRegistration: null,
    });
  });
});
