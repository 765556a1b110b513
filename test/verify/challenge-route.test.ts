/**
 * POST /v1/verify/chip/challenge (document 1) against the real platform: chain, database, gateway and REST shim over
 * real sockets, and the same operation over GraphQL.
 *
 * "State unchanged" for a rejected request means: no challenge row was stored. Every rejection test counts the rows
 * before and after through the platform's own database handle, on PGlite as on PostgreSQL.
 * Per-IP windows are frozen by the test platform (no minute boundary can fall inside a sequence) and each test
 * speaks from its own loopback address; expiry and clock validity use an injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "ethers";
import { CHALLENGE_FIELDS, CREATE_CHALLENGE, evidenceFor, freshEvidence, graphqlCode, postChallenge, postEvidence, startVerifyPlatform, stopChain, type VerifyPlatform } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { rawRequest, ONBOARDING_TOKEN, postHeaders, send, type HttpAnswer } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { challengeRow, challengeRowCount, expectNoEcho, expectReceipt, expectVerifyError, expectVerifyHeaders } from "../support/verify.js";

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

function expectCreated(answer: HttpAnswer) {
  expect(answer.status, answer.text).toBe(201);
  expectVerifyHeaders(answer);
  return answer.json();
}

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

describe("per-IP limits and open-challenge caps (dedicated platform), then the chain going down", () => {
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform({
      RATE_LIMIT_CHALLENGE_PER_IP: "3",
      RATE_LIMIT_EVIDENCE_PER_IP: "3",
      RATE_LIMIT_VERIFY_API_PER_IP: "5",
      VERIFY_OPEN_CHALLENGES_PER_MACHINE: "2",
      VERIFY_OPEN_CHALLENGES_TOTAL: "3",
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  // Every test speaks from its own loopback address: each has its own per-IP counters.
  const from = (localAddress: string) => ({ localAddress });

  it("429 RATE_LIMITED after the per-IP limit of the challenge route; the token is checked first", async () => {
    for (let i = 0; i < 3; i++) expectVerifyError(await postChallenge(q, body("999999"), from("127.0.0.2")), 404, "MACHINE_NOT_FOUND");
    expectVerifyError(await postChallenge(q, body("999999"), from("127.0.0.2")), 429, "RATE_LIMITED");
    expectVerifyError(
      await postChallenge(q, body("999999"), { ...from("127.0.0.2"), headers: postHeaders({ authorization: undefined }) }),
      401,
      "ONBOARDING_AUTH_REQUIRED",
    );
    // Another client address is not affected.
    expectVerifyError(await postChallenge(q, body("999999"), from("127.0.0.3")), 404, "MACHINE_NOT_FOUND");
  });

  it("429 RATE_LIMITED after the per-IP limit of the evidence route", async () => {
    for (let i = 0; i < 3; i++) expectVerifyError(await postEvidence(q, "{}", from("127.0.0.4")), 400, "INVALID_REQUEST");
    expectVerifyError(await postEvidence(q, "{}", from("127.0.0.4")), 429, "RATE_LIMITED");
  });

  it("429 RATE_LIMITED after the API-wide per-IP limit, counted across verify routes", async () => {
    for (let i = 0; i < 5; i++) {
      const read = await send(`${q.http}/v1/verify/machines/1`, { method: "GET", ...from("127.0.0.5") });
      expect(read.status).toBe(200);
    }
    expectVerifyError(await postChallenge(q, body("999999"), from("127.0.0.5")), 429, "RATE_LIMITED");
  });

  it("429 RATE_LIMITED when the machine has its cap of open challenges", async () => {
    const m = q.machine("active", 0);
    for (let i = 0; i < 2; i++) expect((await postChallenge(q, body(m.machineId), from("127.0.0.6"))).status).toBe(201);
    expectVerifyError(await postChallenge(q, body(m.machineId), from("127.0.0.7")), 429, "RATE_LIMITED");
  });

  it("429 RATE_LIMITED when the service has its total cap of open challenges", async () => {
    expect((await postChallenge(q, body(q.machine("active", 1).machineId), from("127.0.0.8"))).status).toBe(201);
    // Machine 5 has no open challenge; the total (3) is reached.
    expectVerifyError(await postChallenge(q, body(q.machine("active", 2).machineId), from("127.0.0.9")), 429, "RATE_LIMITED");
  });

  it("503 CHAIN_UNAVAILABLE when the chain node is down (challenge route and GraphQL)", async () => {
    await stopChain(q);
    expectVerifyError(await postChallenge(q, body(q.machine("active", 3).machineId), from("127.0.0.10")), 503, "CHAIN_UNAVAILABLE");
    expect((await graphqlCode(q, CREATE_CHALLENGE, { id: "2" }, `Bearer ${ONBOARDING_TOKEN}`)).code).toBe("CHAIN_UNAVAILABLE");
  });
});

describe("open-challenge caps count only unexpired challenges (dedicated platform, injected clock)", () => {
  const clock = manualClock();
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform(
      { VERIFY_CHALLENGE_TTL_SECONDS: "60", VERIFY_OPEN_CHALLENGES_PER_MACHINE: "2", VERIFY_OPEN_CHALLENGES_TOTAL: "3" },
      { clock },
    );
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  it("the per-machine cap, then the total cap, free up when a challenge expires, though its row is still stored", async () => {
    const m = q.machine("active", 0);
    expectCreated(await postChallenge(q, body(m.machineId)));
    clock.advance(30_000);
    expectCreated(await postChallenge(q, body(m.machineId)));
    expectVerifyError(await postChallenge(q, body(m.machineId)), 429, "RATE_LIMITED");
    // The first challenge expires (now >= expiresAt); no cleanup ran, so its row is still there.
    const rows = await challengeRowCount(q);
    clock.advance(30_000);
    expectCreated(await postChallenge(q, body(m.machineId)));
    expect(await challengeRowCount(q)).toBe(rows + 1);
    expectVerifyError(await postChallenge(q, body(m.machineId)), 429, "RATE_LIMITED");

    // The total cap: two of this machine's challenges are open (one expires in 30 s); one more fills the total of 3.
    expectCreated(await postChallenge(q, body(q.machine("active", 1).machineId)));
    const before = await challengeRowCount(q);
    expectVerifyError(await postChallenge(q, body(q.machine("active", 2).machineId)), 429, "RATE_LIMITED");
    expect(await challengeRowCount(q)).toBe(before);
    clock.advance(30_000); // machine 1's second challenge expires
    expectCreated(await postChallenge(q, body(q.machine("active", 2).machineId)));
    expectVerifyError(await postChallenge(q, body(q.machine("active", 3).machineId)), 429, "RATE_LIMITED");
  });
});

describe("an invalid server clock (dedicated platform, injected clock): 503 VERIFY_CLOCK_INVALID, nothing stored", () => {
  const clock = manualClock();
  const realNow = clock.now();
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform({}, { clock });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  it.each([
    ["before the floor (2026-01-01)", Date.UTC(2025, 11, 31, 23, 59, 59)],
    ["at 2100-01-01T00:00:00Z", Date.UTC(2100, 0, 1)],
    ["after 2100", Date.UTC(2150, 0, 1)],
    ["not a number", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
  ])("a clock %s", async (_label, nowMs) => {
    const m = q.machine("active", 1);
    clock.set(realNow);
    const { evidence, challenge } = await freshEvidence(q, m);
    const before = await challengeRowCount(q);
    clock.set(nowMs);
    try {
      expectVerifyError(await postChallenge(q, body(m.machineId)), 503, "VERIFY_CLOCK_INVALID");
      expect((await graphqlCode(q, CREATE_CHALLENGE, { id: m.machineId }, `Bearer ${ONBOARDING_TOKEN}`)).code).toBe("VERIFY_CLOCK_INVALID");
      const answer = await postEvidence(q, evidence);
      expectVerifyError(answer, 503, "VERIFY_CLOCK_INVALID");
      expectNoEcho(answer, challenge.nonce);
    } finally {
      clock.set(realNow);
    }
    expect(await challengeRowCount(q)).toBe(before);
    // The evidence consumed nothing: with the clock sane again it is accepted.
    expect(await challengeRow(q, challenge.nonce)).toMatchObject({ state: "issued", submissionHash: null });
    expectReceipt(await postEvidence(q, evidence));
  });

  it("a clock one millisecond before 2100 is valid", async () => {
    clock.set(Date.UTC(2100, 0, 1) - 1);
    try {
      const answer = await postChallenge(q, body(q.machine("active", 0).machineId));
      expect(answer.status, answer.text).toBe(201);
    } finally {
      clock.set(realNow);
    }
  });
});

describe("an invalid server clock (dedicated platform: VERIFY_CLOCK_FLOOR_UNIX in the future)", () => {
  let q: VerifyPlatform;
  beforeAll(async () => {
    q = await startVerifyPlatform({ VERIFY_CLOCK_FLOOR_UNIX: "4000000000" }); // 2096: the real clock is "reset"
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(() => q?.close());

  it("503 VERIFY_CLOCK_INVALID on the challenge route, and nothing is stored", async () => {
    const before = await challengeRowCount(q);
    expect(before).toBeGreaterThanOrEqual(0);
    expectVerifyError(await postChallenge(q, body("2")), 503, "VERIFY_CLOCK_INVALID");
    expect((await graphqlCode(q, CREATE_CHALLENGE, { id: "2" }, `Bearer ${ONBOARDING_TOKEN}`)).code).toBe("VERIFY_CLOCK_INVALID");
    expect(await challengeRowCount(q)).toBe(before);
  });

  it("503 VERIFY_CLOCK_INVALID on the evidence route for well-formed evidence", async () => {
    const m = q.machine("active", 1);
    const challenge = {
      chainId: "3338",
      didController: m.controllerAddress,
      expiresAt: String(Math.floor(Date.now() / 1000) + 300),
      machineDid: `did:service:${m.machineId}`,
      machineId: m.machineId,
      nonce: `0x${"5a".repeat(32)}`,
      profile: "vendor-chip-ca306/1",
      protocol: "service.verify.chip-proof/1",
      verifier: "service.verify",
    };
    const answer = await postEvidence(q, evidenceFor(challenge, m));
    expectVerifyError(answer, 503, "VERIFY_CLOCK_INVALID");
    expectNoEcho(answer, challenge.nonce);
  });
});
