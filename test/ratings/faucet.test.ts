/**
 * Faucet and two-factor routes (docs/faucet.md) through the REST shim: TOTP enrolment with a real otpauth URI and QR
 * image, confirmation, funding with real transfers on the embedded chain, idempotency, the skipped answer, lockout,
 * per-IP / per-owner / per-wallet limits, and the error codes a running platform can produce (the remaining ones,
 * QR_GENERATION_FAILED, SERVICE_UNAVAILABLE and INTERNAL_ERROR, are in faucet-service.test.ts and the shim's
 * error-table tests). The platform trusts X-Forwarded-For, so each test is its own client IP.
 */
import { randomBytes } from "node:crypto";
import { getAddress, Wallet } from "ethers";
import { URI, type TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_FAUCET_KEY } from "../../subgraphs/shared/config/ratings.js";
import { expectFaucetError, startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { rpc } from "../support/chain.js";
import { manualClock } from "../support/clock.js";
import { postJson, type HttpAnswer } from "../support/http.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

const FUND_AMOUNT = 100_000_000_000_000_000n;

let p: RatingsPlatform;
/**
 * The platform's clock, standing still: the tests' authenticator (otpauth) generates codes at the server's time, so no
 * 30 s step boundary can fall between generating a code and checking it; a test that crosses one moves the clock.
 */
const clock = manualClock();
const STEP_MS = 30_000;
beforeAll(async () => {
  p = await startRatingsPlatform(
    {
    TRUST_PROXY: "true",
    // Long enough that no enrolment lapses on a loaded machine; the expiry test moves the platform's clock past it.
    FAUCET_2FA_SETUP_TTL_SECONDS: "600",
    FAUCET_2FA_MAX_ATTEMPTS: "3",
    FAUCET_FUND_PER_IP_PER_HOUR: "3",
    FAUCET_FUND_PER_OWNER_PER_DAY: "1",
    FAUCET_FUND_PER_WALLET_PER_DAY: "1",
    // Above one funding, so a funded wallet is not `skipped` the next time (the wallet cap test).
    FAUCET_MIN_BALANCE_WEI: "1000000000000000000",
    },
    { clock },
  );
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

let ipCounter = 0;
/** A fresh client IP (through the trusted X-Forwarded-For), so the per-IP limit is each test's own. */
const newIp = () => `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const randomAddress = () => getAddress(`0x${randomBytes(20).toString("hex")}`);
const post = (route: string, body: unknown, ip = "10.99.0.1") => postJson(`${p.http}${route}`, body, { headers: { "x-forwarded-for": ip } });

/** The code of the server's current step, or of the step `steps` away from it. */
const codeAt = (totp: TOTP, steps = 0) => totp.generate({ timestamp: clock.now() + steps * STEP_MS });

/** Codes of the previous, current and next 30-second step: all accepted (one step of drift), each once, in order. */
const codes = (totp: TOTP) => [-1, 0, 1].map((steps) => codeAt(totp, steps));

async function enrol(owner = randomAddress()): Promise<{ owner: string; totp: TOTP; setup: HttpAnswer }> {
  const setup = await post("/2fa/setup", { ownerAddress: owner, format: "png" });
  expect(setup.status, setup.text).toBe(200);
  return { owner, totp: URI.parse(setup.json().data.otpauthUri) as TOTP, setup };
}

/** Enrolled and confirmed with the previous step's code: the current and next codes remain for funding. */
async function activeOwner(): Promise<{ owner: string; next: string[] }> {
  const { owner, totp } = await enrol();
  const [previous, current, next] = codes(totp);
  const confirmed = await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: previous });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { owner, next: [current!, next!] };
}

const fundBody = (owner: string, code: string, extra: Record<string, unknown> = {}) => ({
  ownerAddress: owner,
  targetWalletAddress: randomAddress(),
  chainId: "service",
  twoFactorCode: code,
  ...extra,
});

const balance = async (address: string) => BigInt((await rpc(p, "eth_getBalance", [address, "latest"])) as string);

describe("POST /2fa/setup and /2fa/confirm", () => {
  it("setup answers a real otpauth URI and a PNG QR code; the secret is stored encrypted", async () => {
    const { owner, setup, totp } = await enrol();
    const { data } = setup.json();
    expect(setup.json().status).toBe("success");
    expect(Object.keys(data)).toEqual(["ownerAddress", "otpauthUri", "qrImageUrl"]);
    expect(data.otpauthUri).toMatch(/^otpauth:\/\/totp\/service%20faucet:0x[0-9a-fA-F]{40}\?issuer=service%20faucet&secret=[A-Z2-7]+&algorithm=SHA1&digits=6&period=30$/);
    const png = Buffer.from(data.qrImageUrl.slice("data:image/png;base64,".length), "base64");
    expect(data.qrImageUrl.startsWith("data:image/png;base64,")).toBe(true);
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    const [row] = await p.platform.database!.prisma.$queryRaw<Array<{ secret_cipher: Uint8Array; status: string }>>`
      SELECT secret_cipher, status FROM faucet_two_factor WHERE owner_address = ${owner.toLowerCase()}`;
    expect(row!.status).toBe("pending");
    const secret = Buffer.from(totp.secret.bytes);
    expect(Buffer.from(row!.secret_cipher).includes(secret)).toBe(false);
    expect(row!.secret_cipher.length).toBe(12 + secret.length + 16);
  });

  it("an SVG QR code on request; format defaults to png", async () => {
    const svg = await post("/2fa/setup", { ownerAddress: randomAddress(), format: "svg" });
    expect(svg.json().data.qrImageUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(svg.json().data.qrImageUrl.split(",")[1], "base64").toString()).toContain("<svg");
    expect((await post("/2fa/setup", { ownerAddress: randomAddress() })).json().data.qrImageUrl).toMatch(/^data:image\/png;base64,/);
  });

  it("confirm with a good code: active; again: 409 2FA_ALREADY_ACTIVE; a new setup for it: 409 2FA_ALREADY_ACTIVE", async () => {
    const { owner, totp } = await enrol();
    const answer = await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: codeAt(totp) });
    expect(answer.text).toBe(JSON.stringify({ status: "success", data: { ownerAddress: owner, twoFactorActive: true } }));
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: codeAt(totp) }), 409, "2FA_ALREADY_ACTIVE");
    expectFaucetError(await post("/2fa/setup", { ownerAddress: owner }), 409, "2FA_ALREADY_ACTIVE");
  });

  it("a pending enrolment can be set up again (the first secret stops working)", async () => {
    const first = await enrol();
    const second = await enrol(first.owner);
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: first.owner, twoFactorCode: codeAt(first.totp) }), 401, "INVALID_2FA");
    expect((await post("/2fa/confirm", { ownerAddress: first.owner, twoFactorCode: codeAt(second.totp) })).status).toBe(200);
  });

  it("a wrong code: 401 INVALID_2FA; three in a row: 423 2FA_LOCKED, even for a good code", async () => {
    const { owner, totp } = await enrol();
    const good = codeAt(totp);
    const wrong = good === "000000" ? "111111" : "000000";
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: wrong }), 401, "INVALID_2FA");
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: wrong }), 401, "INVALID_2FA");
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: wrong }), 401, "INVALID_2FA");
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: good }), 423, "2FA_LOCKED");
  });

  it("one step of drift either way, across a 30 s step boundary of the server's clock", async () => {
    const before = clock.now();
    const boundary = (Math.floor(before / STEP_MS) + 1) * STEP_MS;
    const stepCode = (totp: TOTP, step: number) => totp.generate({ timestamp: step * STEP_MS });
    const last = boundary / STEP_MS - 1; // the step that ends at the boundary
    const early = await enrol();
    const late = await enrol();
    try {
      // The last millisecond of a step: the step before it is still inside the drift window, two steps ahead is not.
      clock.set(boundary - 1);
      expectFaucetError(await post("/2fa/confirm", { ownerAddress: early.owner, twoFactorCode: stepCode(early.totp, last + 2) }), 401, "INVALID_2FA");
      expect((await post("/2fa/confirm", { ownerAddress: early.owner, twoFactorCode: stepCode(early.totp, last - 1) })).status).toBe(200);
      // One millisecond later the window has moved by a whole step: that code is now two steps behind.
      clock.advance(1);
      expectFaucetError(await post("/2fa/confirm", { ownerAddress: late.owner, twoFactorCode: stepCode(late.totp, last - 1) }), 401, "INVALID_2FA");
      expect((await post("/2fa/confirm", { ownerAddress: late.owner, twoFactorCode: stepCode(late.totp, last + 2) })).status).toBe(200);
    } finally {
      clock.set(before);
    }
  });

  it("confirm for an owner who never ran setup: 403 2FA_NOT_CONFIGURED", async () => {
    expectFaucetError(await post("/2fa/confirm", { ownerAddress: randomAddress(), twoFactorCode: "123456" }), 403, "2FA_NOT_CONFIGURED");
  });

  it("confirm after the enrolment's lifetime: 410 2FA_EXPIRED", async () => {
    const { owner, totp } = await enrol();
    const enrolledAt = clock.now();
    clock.advance(601_000); // past FAUCET_2FA_SETUP_TTL_SECONDS (600 s): the platform's clock moves, no sleep
    try {
      expectFaucetError(await post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: codeAt(totp) }), 410, "2FA_EXPIRED");
    } finally {
      clock.set(enrolledAt);
    }
  });

  it.each([
    ["an invalid owner address", "/2fa/setup", { ownerAddress: "0x123" }, 400, "INVALID_OWNER_ADDRESS"],
    ["an unknown QR format", "/2fa/setup", { ownerAddress: "0x1111111111111111111111111111111111111111", format: "gif" }, 400, "INVALID_PAYLOAD"],
    ["no owner", "/2fa/setup", { format: "png" }, 400, "INVALID_PAYLOAD"],
    ["an owner that is not a string", "/2fa/setup", { ownerAddress: 12 }, 400, "INVALID_PAYLOAD"],
    ["a code of five digits", "/2fa/confirm", { ownerAddress: "0x1111111111111111111111111111111111111111", twoFactorCode: "12345" }, 400, "INVALID_PAYLOAD"],
    ["an array", "/2fa/confirm", [], 400, "INVALID_PAYLOAD"],
    ["not JSON", "/2fa/setup", "{owner", 400, "INVALID_PAYLOAD"],
  ])("%s (%s)", async (_label, route, body, status, code) => {
    expectFaucetError(await post(route, body), status, code);
  });

  it("another content type or an oversize body: 400 INVALID_PAYLOAD", async () => {
    const wrongType = await postJson(`${p.http}/2fa/setup`, "{}", { headers: { "content-type": "text/plain" } });
    expectFaucetError(wrongType, 400, "INVALID_PAYLOAD");
    expectFaucetError(await post("/2fa/setup", { ownerAddress: "x".repeat(3000) }), 400, "INVALID_PAYLOAD");
  });
});

describe("POST /faucet/fund", () => {
  it("funds the wallet with a real transfer; a retry with the requestId answers the same, sending nothing", async () => {
    const { owner, next } = await activeOwner();
    const body = fundBody(owner, next[0]!, { requestId: "fund-once-1" });
    const answer = await post("/faucet/fund", body, newIp());
    expect(answer.status, answer.text).toBe(200);
    const { status, data } = answer.json();
    expect(status).toBe("success");
    expect(Object.keys(data)).toEqual(["requestId", "txHash", "fundedAmount"]);
    expect(data).toMatchObject({ requestId: "fund-once-1", fundedAmount: FUND_AMOUNT.toString() });
    const receipt = (await rpc(p, "eth_getTransactionReceipt", [data.txHash])) as { status: string; to: string };
    expect(receipt).toMatchObject({ status: "0x1", to: body.targetWalletAddress.toLowerCase() });
    expect(await balance(body.targetWalletAddress)).toBe(FUND_AMOUNT);
    const retry = await post("/faucet/fund", { ...body, twoFactorCode: "000000" }, newIp());
    expect(retry.text).toBe(answer.text);
    expect(await balance(body.targetWalletAddress)).toBe(FUND_AMOUNT);
  });

  it("without a requestId one is generated", async () => {
    const { owner, next } = await activeOwner();
    const answer = await post("/faucet/fund", fundBody(owner, next[0]!), newIp());
    expect(answer.json().data.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a wallet that already holds enough gas: skipped, nothing sent", async () => {
    const { owner, next } = await activeOwner();
    const rich = p.demo.ratings.fleetOwner.address;
    const before = await balance(rich);
    const answer = await post("/faucet/fund", fundBody(owner, next[0]!, { targetWalletAddress: rich, requestId: "skip-1" }), newIp());
    expect(answer.text).toBe(JSON.stringify({ status: "skipped", data: { requestId: "skip-1" } }));
    expect(await balance(rich)).toBe(before);
  });

  it("the same requestId with other parameters: 409 REQUEST_ALREADY_PROCESSED", async () => {
    const { owner, next } = await activeOwner();
    expect((await post("/faucet/fund", fundBody(owner, next[0]!, { requestId: "reuse-1" }), newIp())).status).toBe(200);
    expectFaucetError(await post("/faucet/fund", fundBody(owner, next[1]!, { requestId: "reuse-1" }), newIp()), 409, "REQUEST_ALREADY_PROCESSED");
  });

  it("the same request twice at once: one funding, the other 409 DUPLICATE_REQUEST (or its answer, if it came after)", async () => {
    const { owner, next } = await activeOwner();
    const body = fundBody(owner, next[0]!, { requestId: "parallel-1" });
    const ip = newIp();
    const answers = await Promise.all([post("/faucet/fund", body, ip), post("/faucet/fund", body, ip)]);
    const funded = answers.filter((a) => a.status === 200);
    expect(funded.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((a) => a.status !== 200)) expectFaucetError(answer, 409, "DUPLICATE_REQUEST");
    expect(new Set(funded.map((a) => a.json().data.txHash)).size).toBe(1);
    expect(await balance(body.targetWalletAddress)).toBe(FUND_AMOUNT);
  });

  it("a code used once is rejected: 401 INVALID_2FA, nothing sent", async () => {
    const { owner, next } = await activeOwner();
    expect((await post("/faucet/fund", fundBody(owner, next[0]!), newIp())).status).toBe(200);
    const again = fundBody(owner, next[0]!);
    expectFaucetError(await post("/faucet/fund", again, newIp()), 401, "INVALID_2FA");
    expect(await balance(again.targetWalletAddress)).toBe(0n);
  });

  it("2FA set up but not confirmed: 403 2FA_NOT_ACTIVE; never set up: 403 2FA_NOT_CONFIGURED", async () => {
    const { owner, totp } = await enrol();
    expectFaucetError(await post("/faucet/fund", fundBody(owner, codeAt(totp)), newIp()), 403, "2FA_NOT_ACTIVE");
    expectFaucetError(await post("/faucet/fund", fundBody(randomAddress(), "123456"), newIp()), 403, "2FA_NOT_CONFIGURED");
  });

  it("the owner's daily cap: 429 CAP_EXCEEDED_OWNER; the wallet's: 429 CAP_EXCEEDED_WALLET", async () => {
    const a = await activeOwner();
    const wallet = randomAddress();
    expect((await post("/faucet/fund", fundBody(a.owner, a.next[0]!, { targetWalletAddress: wallet }), newIp())).status).toBe(200);
    expectFaucetError(await post("/faucet/fund", fundBody(a.owner, a.next[1]!), newIp()), 429, "CAP_EXCEEDED_OWNER");
    const b = await activeOwner();
    expectFaucetError(await post("/faucet/fund", fundBody(b.owner, b.next[0]!, { targetWalletAddress: wallet }), newIp()), 429, "CAP_EXCEEDED_WALLET");
    expect(await balance(wallet)).toBe(FUND_AMOUNT);
  });

  it("the per-IP limit: 429 RATE_LIMITED after FAUCET_FUND_PER_IP_PER_HOUR requests", async () => {
    const ip = newIp();
    for (let i = 0; i < 3; i++) {
      const { owner, next } = await activeOwner();
      expect((await post("/faucet/fund", fundBody(owner, next[0]!), ip)).status).toBe(200);
    }
    const { owner, next } = await activeOwner();
    const refused = fundBody(owner, next[0]!);
    expectFaucetError(await post("/faucet/fund", refused, ip), 429, "RATE_LIMITED");
    expect(await balance(refused.targetWalletAddress)).toBe(0n);
    // The refused claim consumed nothing: the same code works from another address.
    expect((await post("/faucet/fund", refused, newIp())).status).toBe(200);
  });

  it.each([
    ["a target that is no address", { targetWalletAddress: "0xnot-an-address" }, 400, "INVALID_TARGET_WALLET"],
    ["another chain", { chainId: "ethereum" }, 400, "UNSUPPORTED_CHAIN"],
    ["an owner that is no address", { ownerAddress: "owner" }, 400, "INVALID_PAYLOAD"],
    ["a code of letters", { twoFactorCode: "abcdef" }, 400, "INVALID_PAYLOAD"],
    ["a requestId with spaces", { requestId: "a b" }, 400, "INVALID_PAYLOAD"],
    ["a chainId that is not a string", { chainId: 3338 }, 400, "INVALID_PAYLOAD"],
  ])("%s", async (_label, edit, status, code) => {
    expectFaucetError(await post("/faucet/fund", { ...fundBody(randomAddress(), "123456"), ...edit }, newIp()), status, code);
  });

  it("the decimal chain ID names the chain too", async () => {
    const { owner, next } = await activeOwner();
    expect((await post("/faucet/fund", fundBody(owner, next[0]!, { chainId: "3338" }), newIp())).status).toBe(200);
  });

  it("a transfer the chain refuses (a contract that takes no value): 502 TRANSFER_FAILED, final for its requestId", async () => {
    const { owner, next } = await activeOwner();
    const body = fundBody(owner, next[0]!, { targetWalletAddress: p.demo.contracts.IdentityRegistry, requestId: "refused-1" });
    expectFaucetError(await post("/faucet/fund", body, newIp()), 502, "TRANSFER_FAILED");
    expectFaucetError(await post("/faucet/fund", body, newIp()), 502, "TRANSFER_FAILED");
    const [row] = await p.platform.database!.prisma.$queryRaw<Array<{ status: string; tx_hash: string }>>`
      SELECT status, tx_hash FROM faucet_request WHERE request_id = 'refused-1'`;
    expect(row).toMatchObject({ status: "failed" });
    expect((await rpc(p, "eth_getTransactionReceipt", [row!.tx_hash])) as { status: string }).toMatchObject({ status: "0x0" });
  });

  it("a faucet account that cannot cover the funding: 503 FAUCET_DEPLETED, and the requestId can be retried", async () => {
    const faucet = new Wallet(DEV_FAUCET_KEY).address;
    const saved = (await rpc(p, "eth_getBalance", [faucet, "latest"])) as string;
    const { owner, next } = await activeOwner();
    const body = fundBody(owner, next[0]!, { requestId: "depleted-1" });
    await rpc(p, "anvil_setBalance", [faucet, "0x0"]);
    try {
      expectFaucetError(await post("/faucet/fund", body, newIp()), 503, "FAUCET_DEPLETED");
    } finally {
      await rpc(p, "anvil_setBalance", [faucet, saved]);
    }
    expect(await balance(body.targetWalletAddress)).toBe(0n);
    const retried = await post("/faucet/fund", { ...body, twoFactorCode: next[1] }, newIp());
    expect(retried.status, retried.text).toBe(200);
  });
});
