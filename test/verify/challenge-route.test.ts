/**
 * POST /v1/verify/chip/challenge (document 1) against the real platform: chain, database, gateway and REST shim over
 * real sockets, and the same operation over GraphQL.
 *
 * "State unchanged" for a rejected request means: no challenge row was stored. Every rejection test counts the rows
 * before and after through the platform's own database handle, on PGlite as on PostgreSQL.
 * What needs a platform of its own (per-IP limits, caps of open challenges, the chain going down, expiry and an
 * invalid server clock) is in challenge-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "ethers";
import { CHALLENGE_FIELDS, CREATE_CHALLENGE, graphqlCode, postChallenge, startVerifyPlatform, type VerifyPlatform } from "./helpers.js";
import { rawRequest, ONBOARDING_TOKEN, postHeaders, send, type HttpAnswer } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { challengeRowCount, expectCreated, expectNoEcho, expectVerifyError } from "../support/verify.js";

const ROTATED_TOKEN = "rotated-onboarding-token-2";
const MAX_UINT256 = ((1n << 256n) - 1n).toString();

let p: VerifyPlatform;

beforeAll(async () => {
  p = await startVerifyPlatform({
    ONBOARDING_TOKENS: `${ONBOARDING_TOKEN},${ROTATED_TOKEN}`,
    VERIFY_OPEN_CHALLENGES_PER_MACHINE: "1000",
  });
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

const body = (machineId: unknown) => JSON.stringify({ machineId });

/** Runs a rejected request and proves no challenge row appeared (read back on either database kind). */
async function rejected(request: () => Promise<HttpAnswer>, status: number, code: string, ...notEchoed: string[]) {
  const before = await challengeRowCount(p);
  const answer = await request();
  expectVerifyError(answer, status, code);
  expectNoEcho(answer, ...notEchoed);
  expect(await challengeRowCount(p)).toBe(before);
  return answer;
}

describe("201: the challenge", () => {
  it("has exactly the nine documented fields for a machine with its own controller", async () => {
    const m = p.machine("active", 0);
    const before = Math.floor(Date.now() / 1000);
    const challenge = expectCreated(await postChallenge(p, body(m.machineId)));
    const after = Math.floor(Date.now() / 1000);
    expect(Object.keys(challenge)).toEqual([...CHALLENGE_FIELDS]);
    expect(challenge).toEqual({
      chainId: "3338",
      didController: m.controllerAddress,
      expiresAt: expect.stringMatching(/^[1-9]\d*$/),
      machineDid: `did:service:${m.machineId}`,
      machineId: m.machineId,
      nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      profile: "vendor-chip-ca306/1",
      protocol: "service.verify.chip-proof/1",
      verifier: "service.verify",
    });
    expect(m.controllerAddress).not.toBe(m.ownerAddress);
    expect(challenge.didController).toBe(getAddress(challenge.didController.toLowerCase())); // EIP-55
    expect(Number(challenge.expiresAt)).toBeGreaterThan(before);
    expect(Number(challenge.expiresAt)).toBeLessThanOrEqual(after + 300);
  });

  it("names the NFT owner as DID controller when the registry sets none", async () => {
    const m = p.machine("active", 1);
    const challenge = expectCreated(await postChallenge(p, body(m.machineId)));
    expect(challenge.didController).toBe(m.ownerAddress);
    expect(challenge.didController).toBe(getAddress(m.ownerAddress.toLowerCase()));
    expect(challenge.machineDid).toBe(`did:service:${m.machineId}`);
  });

  it("generates a fresh nonce every time", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 4; i++) nonces.add(expectCreated(await postChallenge(p, body("2"))).nonce);
    expect(nonces.size).toBe(4);
  });

  it.each([
    ["no Accept header", { accept: undefined }],
    ["Accept */*", { accept: "*/*" }],
    ["Accept application/*", { accept: "application/*" }],
    ["JSON among other ranges", { accept: "text/html, application/json;q=0.5" }],
    ["Content-Type with charset=utf-8", { "content-type": "application/json; charset=utf-8" }],
  ])("accepts %s", async (_label, overrides) => {
    expectCreated(await postChallenge(p, body("2"), { headers: postHeaders(overrides) }));
  });

  it("accepts every configured onboarding token (rotation)", async () => {
    expectCreated(await postChallenge(p, body("2"), { headers: postHeaders({ authorization: `Bearer ${ROTATED_TOKEN}` }) }));
    expectCreated(await postChallenge(p, body("2"), { headers: postHeaders({ authorization: `Bearer ${ONBOARDING_TOKEN}` }) }));
  });

  it("GraphQL createChipChallenge gives the same challenge", async () => {
    const m = p.machine("active", 0);
    const { code, data } = await graphqlCode(p, CREATE_CHALLENGE, { id: m.machineId }, `Bearer ${ONBOARDING_TOKEN}`);
    expect(code).toBeUndefined();
    expect(Object.keys(data.createChipChallenge)).toEqual([...CHALLENGE_FIELDS]);
    expect(data.createChipChallenge).toMatchObject({ machineId: m.machineId, didController: m.controllerAddress, chainId: "3338" });
  });
});

describe("400 INVALID_REQUEST: the body", () => {
  const m2 = () => p.machine("active", 1);
  const cases: Array<[string, () => string]> = [
    ["machineId as a JSON number", () => '{"machineId":2}'],
    ["a DID", () => body("did:service:2")],
    ["an address", () => body(m2().machineAddress)],
    ["a leading zero", () => body("02")],
    ["zero", () => body("0")],
    ["a plus sign", () => body("+2")],
    ["a minus sign", () => body("-2")],
    ["leading whitespace in the value", () => body(" 2")],
    ["trailing whitespace in the value", () => body("2 ")],
    ["2^256", () => body((1n << 256n).toString())],
    ["a decimal point", () => body("2.0")],
    ["an exponent", () => body("2e0")],
    ["hex", () => body("0x2")],
    ["a full-width digit", () => body("\uff12")],
    ["an empty machineId", () => body("")],
    ["an empty object", () => "{}"],
    ["an extra field", () => '{"machineId":"2","extra":"x"}'],
    ["duplicate keys", () => '{"machineId":"2","machineId":"2"}'],
    ["duplicate keys, one escaped", () => '{"machineId":"2","machine\\u0049d":"2"}'],
    ["machineId null", () => '{"machineId":null}'],
    ["an array", () => '["2"]'],
    ["a string", () => '"2"'],
    ["a number", () => "2"],
    ["null", () => "null"],
    ["invalid JSON", () => '{"machineId":"2"'],
    ["an empty body", () => ""],
    ["a byte order mark", () => `\ufeff${body("2")}`],
  ];
  it.each(cases)("rejects %s", async (_label, makeBody) => {
    const text = makeBody();
    const value = /"machineId":"([^"]+)"/.exec(text)?.[1];
    await rejected(() => postChallenge(p, text), 400, "INVALID_REQUEST", ...(value && value.length > 1 ? [value] : []));
  });

  it("rejects bytes that are not UTF-8", async () => {
    await rejected(() => postChallenge(p, new Uint8Array([...Buffer.from('{"machineId":"'), 0xff, ...Buffer.from('2"}')])), 400, "INVALID_REQUEST");
  });

  it("GraphQL gives INVALID_REQUEST for a non-canonical machine ID", async () => {
    for (const id of ["02", "did:service:2", "", (1n << 256n).toString()]) {
      expect((await graphqlCode(p, CREATE_CHALLENGE, { id }, `Bearer ${ONBOARDING_TOKEN}`)).code).toBe("INVALID_REQUEST");
    }
  });
});

describe("400 INVALID_REQUEST: the headers", () => {
  it.each([
    ["no Content-Type", { "content-type": undefined }],
    ["text/plain", { "content-type": "text/plain" }],
    ["a form", { "content-type": "application/x-www-form-urlencoded" }],
    ["application/jsonx", { "content-type": "application/jsonx" }],
    ["charset=latin1", { "content-type": "application/json; charset=latin1" }],
    ["charset=utf-16", { "content-type": "application/json; charset=utf-16" }],
    ["another parameter", { "content-type": "application/json; profile=x" }],
    ["Content-Encoding gzip", { "content-encoding": "gzip" }],
    ["Content-Encoding identity", { "content-encoding": "identity" }],
  ])("rejects %s", async (_label, overrides) => {
    await rejected(() => postChallenge(p, body("2"), { headers: postHeaders(overrides) }), 400, "INVALID_REQUEST");
  });

  it("rejects two Content-Type headers", async () => {
    await rejected(
      () => postChallenge(p, body("2"), { headers: postHeaders({ "content-type": ["application/json", "application/json"] }) }),
      400,
      "INVALID_REQUEST",
    );
  });
});

describe("401 ONBOARDING_AUTH_REQUIRED", () => {
  it.each([
    ["no Authorization", undefined],
    ["Basic credentials", `Basic ${Buffer.from(`user:${ONBOARDING_TOKEN}`).toString("base64")}`],
    ["Bearer without a token", "Bearer"],
    ["Bearer and a space", "Bearer "],
    ["a lowercase scheme", `bearer ${ONBOARDING_TOKEN}`],
    ["two spaces", `Bearer  ${ONBOARDING_TOKEN}`],
    ["the bare token", ONBOARDING_TOKEN],
    ["an invalid token", "Bearer guessed-token-0123456789"],
    ["a valid token with a suffix", `Bearer ${ONBOARDING_TOKEN}x`],
    ["two tokens in one header", `Bearer ${ONBOARDING_TOKEN}, Bearer ${ROTATED_TOKEN}`],
  ])("for %s, without echoing it", async (_label, authorization) => {
    await rejected(
      () => postChallenge(p, body("2"), { headers: postHeaders({ authorization }) }),
      401,
      "ONBOARDING_AUTH_REQUIRED",
      "guessed-token-0123456789",
      ROTATED_TOKEN,
    );
  });

  it("for two Authorization headers, even both valid", async () => {
    await rejected(
      () => postChallenge(p, body("2"), { headers: postHeaders({ authorization: [`Bearer ${ONBOARDING_TOKEN}`, `Bearer ${ONBOARDING_TOKEN}`] }) }),
      401,
      "ONBOARDING_AUTH_REQUIRED",
    );
  });

  it("is decided before the body is read: an announced body that never comes gets the 401 at once", async () => {
    const port = Number(new URL(p.http).port);
    const response = await rawRequest(port, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Content-Length: 1000",
    ]);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).detail.code).toBe("ONBOARDING_AUTH_REQUIRED");
    expect(response.headers.connection).toBe("close");
  });

  it("is decided before the body is read for a repeated header too (raw socket)", async () => {
    const port = Number(new URL(p.http).port);
    const response = await rawRequest(port, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      `Authorization: Bearer ${ROTATED_TOKEN}`,
      "Content-Type: application/json",
      "Content-Length: 1000",
    ]);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).detail.code).toBe("ONBOARDING_AUTH_REQUIRED");
    expect(response.body).not.toContain(ONBOARDING_TOKEN);
  });

  it("GraphQL gives ONBOARDING_AUTH_REQUIRED without or with a wrong token", async () => {
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: "2" })).code).toBe("ONBOARDING_AUTH_REQUIRED");
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: "2" }, "Bearer wrong")).code).toBe("ONBOARDING_AUTH_REQUIRED");
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: "2" }, `Basic ${ONBOARDING_TOKEN}`)).code).toBe("ONBOARDING_AUTH_REQUIRED");
  });
});

describe("the machine", () => {
  it("404 MACHINE_NOT_FOUND for an ID the registry does not know, up to 2^256-1", async () => {
    await rejected(() => postChallenge(p, body("999999")), 404, "MACHINE_NOT_FOUND", "999999");
    await rejected(() => postChallenge(p, body(MAX_UINT256)), 404, "MACHINE_NOT_FOUND", MAX_UINT256);
  });

  it("409 MACHINE_DEACTIVATED for a deactivated machine", async () => {
    await rejected(() => postChallenge(p, body(p.machine("deactivated").machineId)), 409, "MACHINE_DEACTIVATED");
  });

  it("503 CHAIN_UNAVAILABLE for a machine homed on a second chain", async () => {
    await rejected(() => postChallenge(p, body(p.machine("second-chain").machineId)), 503, "CHAIN_UNAVAILABLE");
  });

  it("GraphQL gives the same codes", async () => {
    const auth = `Bearer ${ONBOARDING_TOKEN}`;
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: "999999" }, auth)).code).toBe("MACHINE_NOT_FOUND");
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: p.machine("deactivated").machineId }, auth)).code).toBe("MACHINE_DEACTIVATED");
    expect((await graphqlCode(p, CREATE_CHALLENGE, { id: p.machine("second-chain").machineId }, auth)).code).toBe("CHAIN_UNAVAILABLE");
  });
});

describe("HTTP rules", () => {
  it.each(["GET", "PUT", "DELETE", "PATCH"])("405 METHOD_NOT_ALLOWED with Allow: POST for %s", async (method) => {
    const answer = await rejected(
      () => send(p.challengeUrl, { method, headers: postHeaders(), body: method === "GET" ? undefined : body("2") }),
      405,
      "METHOD_NOT_ALLOWED",
    );
    expect(answer.headers.allow).toBe("POST");
  });

  it.each(["/v1/verify/chip", "/v1/verify/chip/challenge/", "/v1/verify/chip/Challenge", "/v1/verify/chip/challenges", "/v1/verify/unknown"])(
    "404 VERIFY_ROUTE_NOT_FOUND for %s",
    async (routePath) => {
      await rejected(() => send(`${p.http}${routePath}`, { headers: postHeaders(), body: body("2") }), 404, "VERIFY_ROUTE_NOT_FOUND");
    },
  );

  it.each(["text/html", "application/json;q=0", "application/xml, text/*"])("406 NOT_ACCEPTABLE for Accept %s", async (accept) => {
    await rejected(() => postChallenge(p, body("2"), { headers: postHeaders({ accept }) }), 406, "NOT_ACCEPTABLE");
  });

  it("takes a body of exactly 1024 bytes", async () => {
    const padded = body("999999").replace("{", `{${" ".repeat(1024 - body("999999").length)}`);
    expect(Buffer.byteLength(padded)).toBe(1024);
    await rejected(() => postChallenge(p, padded), 404, "MACHINE_NOT_FOUND");
  });

  it("413 REQUEST_TOO_LARGE for 1025 bytes by Content-Length", async () => {
    const padded = body("2").replace("{", `{${" ".repeat(1025 - body("2").length)}`);
    expect(Buffer.byteLength(padded)).toBe(1025);
    await rejected(() => postChallenge(p, padded), 413, "REQUEST_TOO_LARGE");
  });

  it("413 REQUEST_TOO_LARGE for a chunked body passing 1024 bytes", async () => {
    const padded = body("2").replace("{", `{${" ".repeat(2000)}`);
    await rejected(
      () => postChallenge(p, padded, { headers: postHeaders({ "transfer-encoding": "chunked" }) }),
      413,
      "REQUEST_TOO_LARGE",
    );
  });

  it("413 is decided from Content-Length before the body is read", async () => {
    const port = Number(new URL(p.http).port);
    const response = await rawRequest(port, [
      "POST /v1/verify/chip/challenge HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${ONBOARDING_TOKEN}`,
      "Content-Type: application/json",
      "Content-Length: 5000",
    ]);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).detail.code).toBe("REQUEST_TOO_LARGE");
  });
});
