/**
 * POST /v1/verify/chip/challenge (document 1), what needs a platform of its own: the per-IP limits and the caps of
 * open challenges (a platform with low limits), the chain going down, expiry freeing the caps and an invalid server
 * clock (an injected clock). The route's answers on a platform with the default limits are in challenge-route.test.ts.
 *
 * "State unchanged" for a rejected request means: no challenge row was stored, counted through the platform's own
 * database handle. Per-IP windows are frozen by the test platform (no minute boundary can fall inside a sequence) and
 * each test speaks from its own loopback address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CHALLENGE, evidenceFor, freshEvidence, graphqlCode, postChallenge, postEvidence, startVerifyPlatform, stopChain, type VerifyPlatform } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { ONBOARDING_TOKEN, postHeaders, send } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";
import { challengeRow, challengeRowCount, expectCreated, expectNoEcho, expectReceipt, expectVerifyError } from "../support/verify.js";

const body = (machineId: unknown) => JSON.stringify({ machineId });

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
