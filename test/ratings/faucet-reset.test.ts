/**
 * Two-factor belongs to the owner address (docs/faucet.md, "Owner-signed reset"), over the real REST and GraphQL
 * listeners: a stranger who enrolled an owner's address first (the owner then met 2FA_ALREADY_ACTIVE for good) loses
 * it to the owner's signed reset, and cannot take the owner's fresh enrolment back before it is confirmed; an owner
 * who lost the authenticator enrols again the same way; stale, replayed, foreign and malformed signatures are refused
 * with their documented codes and change nothing stored.
 *
 * The platform runs on an injected clock: codes and `issuedAt` are made at the platform's time, which moves only when
 * a test moves it.
 */
import { readFileSync } from "node:fs";
import { Wallet, type HDNodeWallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticator, authenticatorOf, expectFaucetError, FaucetClient, startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

let p: RatingsPlatform;
let faucet: FaucetClient;
const clock = manualClock();
beforeAll(async () => {
  p = await startRatingsPlatform({ TRUST_PROXY: "true", FAUCET_2FA_SETUP_TTL_SECONDS: "600" }, { clock });
  faucet = new FaucetClient(p, clock);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

let ipCounter = 0;
const newIp = () => `10.81.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** An owner whose address a stranger enrolled and confirmed first; the stranger's authenticator is returned. */
async function squatted(owner: string, strangerIp: string) {
  const stranger = await faucet.activate(owner, strangerIp);
  expectFaucetError(await faucet.post("/2fa/setup", { ownerAddress: owner }, newIp()), 409, "2FA_ALREADY_ACTIVE");
  return stranger;
}

describe("POST /2fa/reset", () => {
  it("the owner takes a squatted address back; the stranger's codes stop working and cannot replace the new enrolment", async () => {
    const owner = Wallet.createRandom();
    const [strangerIp, ownerIp] = [newIp(), newIp()];
    const stranger = await squatted(owner.address, strangerIp);

    const reset = await faucet.post("/2fa/reset", await faucet.resetBody(owner), ownerIp);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json().status).toBe("success");
    expect(Object.keys(reset.json().data)).toEqual(["ownerAddress", "otpauthUri", "qrImageUrl"]);
    expect(reset.json().data.ownerAddress).toBe(owner.address);
    expect(reset.json().data.qrImageUrl).toMatch(/^data:image\/png;base64,/);
    const mine = authenticatorOf(reset);
    expect(Buffer.from(mine.secret.bytes).equals(Buffer.from(stranger.secret.bytes))).toBe(false);

    // Until the owner confirms, an anonymous setup does not replace the owner's enrolment.
    const pending = await faucet.stored(owner.address);
    expectFaucetError(await faucet.post("/2fa/setup", { ownerAddress: owner.address }, strangerIp), 409, "2FA_ALREADY_ACTIVE");
    expect(await faucet.stored(owner.address)).toEqual(pending);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(stranger)), strangerIp), 403, "2FA_NOT_ACTIVE");

    const confirmed = await faucet.post("/2fa/confirm", { ownerAddress: owner.address, twoFactorCode: faucet.code(mine, -1) }, ownerIp);
    expect(confirmed.text).toBe(JSON.stringify({ status: "success", data: { ownerAddress: owner.address, twoFactorActive: true } }));
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(stranger)), strangerIp), 401, "INVALID_2FA");
    const funded = await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(mine)), ownerIp);
    expect(funded.status, funded.text).toBe(200);
    expect(funded.json().status).toBe("success");
  });

  it("the signed text is the message of docs/faucet.md, byte for byte", async () => {
    const owner = Wallet.createRandom();
    const issuedAt = new Date(clock.now()).toISOString();
    const text = `service faucet 2FA reset\naddress: ${owner.address.toLowerCase()}\nchainId: ${p.demo.chainId}\nissuedAt: ${issuedAt}`;
    const documented = /```\n(service faucet 2FA reset\n[^`]*)\n```/.exec(readFileSync(new URL("../../docs/faucet.md", import.meta.url), "utf8"))![1]!;
    expect(documented.split("\n").map((line) => line.split(": ")[0])).toEqual(text.split("\n").map((line) => line.split(": ")[0]));
    const body = { ownerAddress: owner.address, issuedAt, signature: await owner.signMessage(text) };
    const reset = await faucet.post("/2fa/reset", body, newIp());
    expect(reset.status, reset.text).toBe(200);
  });

  it("an owner who lost the authenticator enrols again; the old one's codes are refused", async () => {
    const owner = Wallet.createRandom();
    const ip = newIp();
    const lost = await faucet.activate(owner.address, ip);
    clock.advance(1_000);
    const reset = await faucet.post("/2fa/reset", { ...(await faucet.resetBody(owner)), format: "svg" }, ip);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json().data.qrImageUrl).toMatch(/^data:image\/svg\+xml;base64,/);
    const fresh = authenticatorOf(reset);
    expectFaucetError(await faucet.post("/2fa/confirm", { ownerAddress: owner.address, twoFactorCode: faucet.code(lost, 1) }, ip), 401, "INVALID_2FA");
    expect((await faucet.post("/2fa/confirm", { ownerAddress: owner.address, twoFactorCode: faucet.code(fresh, 1) }, ip)).status).toBe(200);
  });

  it("an address nobody enrolled: the reset is the owner's own enrolment, and no one else can replace it", async () => {
    const owner = Wallet.createRandom();
    const reset = await faucet.post("/2fa/reset", await faucet.resetBody(owner), newIp());
    expect(reset.status, reset.text).toBe(200);
    expectFaucetError(await faucet.post("/2fa/setup", { ownerAddress: owner.address }, newIp()), 409, "2FA_ALREADY_ACTIVE");
    // Once the owner's enrolment expires unconfirmed, the address is open to setup as before.
    clock.advance(601_000);
    expect((await faucet.post("/2fa/setup", { ownerAddress: owner.address }, newIp())).status).toBe(200);
  });

  it("a signature resets once: the same body again, or an older issuedAt, is 409 STALE_SIGNATURE; a later one works", async () => {
    const owner = Wallet.createRandom();
    const ip = newIp();
    const earlier = await faucet.resetBody(owner, { issuedAt: new Date(clock.now() - 10_000).toISOString() });
    const body = await faucet.resetBody(owner);
    expect((await faucet.post("/2fa/reset", body, ip)).status).toBe(200);
    const stored = await faucet.stored(owner.address);
    expectFaucetError(await faucet.post("/2fa/reset", body, ip), 409, "STALE_SIGNATURE");
    expectFaucetError(await faucet.post("/2fa/reset", earlier, ip), 409, "STALE_SIGNATURE");
    expect(await faucet.stored(owner.address)).toEqual(stored);
    clock.advance(1);
    expect((await faucet.post("/2fa/reset", await faucet.resetBody(owner), ip)).status).toBe(200);
  });

  const now = () => clock.now();
  const other = Wallet.createRandom();
  const cases: Array<[string, (owner: HDNodeWallet) => Promise<unknown>, number, string]> = [
    ["issuedAt 301 s ago", (o) => faucet.resetBody(o, { issuedAt: new Date(now() - 301_000).toISOString() }), 409, "STALE_SIGNATURE"],
    ["issuedAt 31 s ahead", (o) => faucet.resetBody(o, { issuedAt: new Date(now() + 31_000).toISOString() }), 409, "STALE_SIGNATURE"],
    ["another key's signature", async (o) => ({ ...(await faucet.resetBody(other)), ownerAddress: o.address }), 403, "UNAUTHORIZED_SIGNER"],
    ["the owner's key naming another address", async (o) => ({ ...(await faucet.resetBody(o, { ownerAddress: other.address })), ownerAddress: o.address }), 403, "UNAUTHORIZED_SIGNER"],
    ["a message for another chain", (o) => faucet.resetBody(o, { chainId: 1 }), 403, "UNAUTHORIZED_SIGNER"],
    ["a message for another service", (o) => faucet.resetBody(o, { issuer: "other faucet" }), 403, "UNAUTHORIZED_SIGNER"],
    ["a short signature", async (o) => ({ ...(await faucet.resetBody(o)), signature: "0x1234" }), 400, "INVALID_SIGNATURE"],
    ["a signature that recovers nothing", async (o) => ({ ...(await faucet.resetBody(o)), signature: `0x${"00".repeat(65)}` }), 400, "INVALID_SIGNATURE"],
    ["a signature with a bad v", async (o) => ({ ...(await faucet.resetBody(o)), signature: `0x${"11".repeat(65)}` }), 400, "INVALID_SIGNATURE"],
    ["issuedAt in Unix seconds", async (o) => ({ ...(await faucet.resetBody(o)), issuedAt: String(Math.floor(now() / 1000)) }), 400, "INVALID_PAYLOAD"],
    ["issuedAt on February 30", (o) => faucet.resetBody(o, { issuedAt: "2026-02-30T00:00:00Z" }), 400, "INVALID_PAYLOAD"],
    ["issuedAt with an offset", (o) => faucet.resetBody(o, { issuedAt: new Date(now()).toISOString().replace("Z", "+00:00") }), 400, "INVALID_PAYLOAD"],
    ["no signature", async (o) => ({ ownerAddress: o.address, issuedAt: new Date(now()).toISOString() }), 400, "INVALID_PAYLOAD"],
    ["a signature that is not a string", async (o) => ({ ...(await faucet.resetBody(o)), signature: 7 }), 400, "INVALID_PAYLOAD"],
    ["an unknown QR format", async (o) => ({ ...(await faucet.resetBody(o)), format: "gif" }), 400, "INVALID_PAYLOAD"],
    ["an owner that is no address", async (o) => ({ ...(await faucet.resetBody(o)), ownerAddress: "0x12" }), 400, "INVALID_OWNER_ADDRESS"],
  ];

  it.each(cases)("%s: refused, the squatter's enrolment unchanged", async (_label, makeBody, status, code) => {
    const owner = Wallet.createRandom();
    const strangerIp = newIp();
    const stranger = await squatted(owner.address, strangerIp);
    const before = await faucet.stored(owner.address);
    expectFaucetError(await faucet.post("/2fa/reset", await makeBody(owner), newIp()), status, code);
    expect(await faucet.stored(owner.address)).toEqual(before);
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(stranger)), strangerIp)).status).toBe(200);
  });
});

describe("the resetTwoFactor mutation on the GraphQL listener", () => {
  const errorCode = (answer: { body: { errors?: Array<{ extensions?: Record<string, unknown> }> } }) => answer.body.errors?.[0]?.extensions?.code;

  it("reclaims a squatted address, and the owner confirms and funds over GraphQL", async () => {
    const owner = Wallet.createRandom();
    const strangerIp = newIp();
    const strangerSetup = await faucet.graphql("setupTwoFactor", { ownerAddress: owner.address, format: "png" }, strangerIp);
    const stranger = authenticator(strangerSetup.body.data.setupTwoFactor.otpauthUri);
    const squat = await faucet.graphql("confirmTwoFactor", { ownerAddress: owner.address, twoFactorCode: faucet.code(stranger, -1) }, strangerIp);
    expect(squat.body.data.confirmTwoFactor.twoFactorActive).toBe(true);
    expect(errorCode(await faucet.graphql("setupTwoFactor", { ownerAddress: owner.address, format: "png" }, newIp()))).toBe("2FA_ALREADY_ACTIVE");

    const ownerIp = newIp();
    const reset = await faucet.graphql("resetTwoFactor", { ...(await faucet.resetBody(owner)), format: "png" }, ownerIp);
    expect(reset.body.errors).toBeUndefined();
    expect(reset.body.data.resetTwoFactor.ownerAddress).toBe(owner.address);
    const mine = authenticator(reset.body.data.resetTwoFactor.otpauthUri);
    const confirmed = await faucet.graphql("confirmTwoFactor", { ownerAddress: owner.address, twoFactorCode: faucet.code(mine, -1) }, ownerIp);
    expect(confirmed.body.data.confirmTwoFactor).toEqual({ ownerAddress: owner.address, twoFactorActive: true });
    const funded = await faucet.graphql("fundWallet", { input: faucet.fundBody(owner.address, faucet.code(mine)) }, ownerIp);
    expect(funded.body.data.fundWallet.status).toBe("SUCCESS");
  });

  it("stale, foreign and malformed signatures: their codes, nothing stored", async () => {
    const owner = Wallet.createRandom();
    const attempts: Array<[Record<string, unknown>, string]> = [
      [await faucet.resetBody(owner, { issuedAt: new Date(clock.now() - 301_000).toISOString() }), "STALE_SIGNATURE"],
      [{ ...(await faucet.resetBody(Wallet.createRandom())), ownerAddress: owner.address }, "UNAUTHORIZED_SIGNER"],
      [{ ...(await faucet.resetBody(owner)), signature: "0xzz" }, "INVALID_SIGNATURE"],
      [{ ...(await faucet.resetBody(owner)), issuedAt: "now" }, "INVALID_PAYLOAD"],
    ];
    for (const [variables, code] of attempts) {
      expect(errorCode(await faucet.graphql("resetTwoFactor", { format: "png", ...variables }, newIp()))).toBe(code);
    }
    expect(await faucet.stored(owner.address)).toEqual({ enrolment: null, failures: [] });
  });
});
