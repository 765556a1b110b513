/**
 * Rejected two-factor codes lock the client that sent them, not the owner (docs/faucet.md, "Lockout"), over the real
 * REST and GraphQL listeners: FAUCET_2FA_MAX_ATTEMPTS (3 here) wrong codes in a row lock that client bucket (an IPv4
 * address, or a whole IPv6 /64) while the owner goes on from elsewhere; FAUCET_2FA_MAX_ATTEMPTS_PER_OWNER (6 here)
 * wrong codes from all clients since the owner's last good code lock the owner everywhere, which the owner's signed
 * reset lifts. Before, five anonymous wrong codes locked any owner out of every client.
 *
 * The platform runs on an injected clock (codes, lock expiry); each test speaks from its own client IPs.
 */
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticatorOf, expectFaucetError, FaucetClient, startRatingsPlatform, type RatingsPlatform } from "./helpers.js";
import { manualClock } from "../support/clock.js";
import { PLATFORM_START_TIMEOUT_MS } from "../support/platform.js";

let p: RatingsPlatform;
let faucet: FaucetClient;
const clock = manualClock();
beforeAll(async () => {
  p = await startRatingsPlatform(
    { TRUST_PROXY: "true", FAUCET_2FA_MAX_ATTEMPTS: "3", FAUCET_2FA_MAX_ATTEMPTS_PER_OWNER: "6", FAUCET_2FA_LOCKOUT_SECONDS: "900" },
    { clock },
  );
  faucet = new FaucetClient(p, clock);
}, PLATFORM_START_TIMEOUT_MS);
afterAll(() => p?.close());

let ipCounter = 0;
const newIp = () => `10.82.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
let prefixCounter = 0;
/** Two addresses of one fresh IPv6 /64. */
const newSlash64 = () => {
  const prefix = `2001:db8:82:${(++prefixCounter).toString(16)}`;
  return [`${prefix}::1`, `${prefix}:ffff:ffff:ffff:fffe`];
};

/** `count` wrong fund codes from `ip`, each 401 INVALID_2FA. */
async function wrongCodes(owner: string, totp: Parameters<FaucetClient["code"]>[0], ip: string, count: number) {
  for (let i = 0; i < count; i++) {
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.wrongCode(totp)), ip), 401, "INVALID_2FA");
  }
}

describe("a stranger's wrong codes", () => {
  it("lock the stranger's client only: even a good code from it is 423, the owner funds from elsewhere", async () => {
    const owner = Wallet.createRandom().address;
    const [ownerIp, strangerIp] = [newIp(), newIp()];
    const totp = await faucet.activate(owner, ownerIp);
    await wrongCodes(owner, totp, strangerIp, 3);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), strangerIp), 423, "2FA_LOCKED");
    const funded = await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), ownerIp);
    expect(funded.status, funded.text).toBe(200);
    // The stranger's bucket stays locked; the owner's good code restarted the owner-wide count.
    const stored = await faucet.stored(owner);
    expect(stored.enrolment).toMatchObject({ lockedUntil: null, failedAttempts: 0 });
    expect(stored.failures).toEqual([
      { ownerAddress: owner.toLowerCase(), clientBucket: strangerIp, failedAttempts: 0, lockedUntil: new Date(clock.now() + 900_000) },
    ]);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp, 1)), strangerIp), 423, "2FA_LOCKED");
  });

  it("on an enrolment awaiting confirmation: the owner confirms from another client", async () => {
    const owner = Wallet.createRandom().address;
    const [ownerIp, strangerIp] = [newIp(), newIp()];
    const totp = await faucet.enrol(owner, ownerIp);
    for (let i = 0; i < 3; i++) {
      expectFaucetError(await faucet.post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: faucet.wrongCode(totp) }, strangerIp), 401, "INVALID_2FA");
    }
    expectFaucetError(await faucet.post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: faucet.code(totp) }, strangerIp), 423, "2FA_LOCKED");
    expect((await faucet.post("/2fa/confirm", { ownerAddress: owner, twoFactorCode: faucet.code(totp) }, ownerIp)).status).toBe(200);
  });

  it("from one IPv6 address lock its whole /64, and no other /64", async () => {
    const owner = Wallet.createRandom().address;
    const [strangerA, strangerB] = newSlash64();
    const [ownerIp] = newSlash64();
    const totp = await faucet.activate(owner, ownerIp!);
    await wrongCodes(owner, totp, strangerA!, 3);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), strangerB!), 423, "2FA_LOCKED");
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), ownerIp!)).status).toBe(200);
    expect((await faucet.stored(owner)).failures).toMatchObject([{ clientBucket: `${strangerA!.split("::")[0]}::/64` }]);
  });

  it("a client's lock ends after FAUCET_2FA_LOCKOUT_SECONDS", async () => {
    const owner = Wallet.createRandom().address;
    const [ownerIp, otherIp] = [newIp(), newIp()];
    const totp = await faucet.activate(owner, ownerIp);
    await wrongCodes(owner, totp, otherIp, 3);
    clock.advance(899_000);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), otherIp), 423, "2FA_LOCKED");
    clock.advance(1_000);
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), otherIp)).status).toBe(200);
  });
});

describe("the per-owner ceiling", () => {
  it("wrong codes from many clients lock the owner everywhere; the owner's signed reset lifts it", async () => {
    const owner = Wallet.createRandom();
    const ownerIp = newIp();
    const totp = await faucet.activate(owner.address, ownerIp);
    await wrongCodes(owner.address, totp, newIp(), 3);
    await wrongCodes(owner.address, totp, newIp(), 3);
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(totp)), ownerIp), 423, "2FA_LOCKED");
    expectFaucetError(await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(totp)), newIp()), 423, "2FA_LOCKED");

    const reset = await faucet.post("/2fa/reset", await faucet.resetBody(owner), ownerIp);
    expect(reset.status, reset.text).toBe(200);
    expect(await faucet.stored(owner.address)).toMatchObject({ enrolment: { lockedUntil: null, failedAttempts: 0 }, failures: [] });
    const fresh = authenticatorOf(reset);
    expect((await faucet.post("/2fa/confirm", { ownerAddress: owner.address, twoFactorCode: faucet.code(fresh, -1) }, ownerIp)).status).toBe(200);
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner.address, faucet.code(fresh)), ownerIp)).status).toBe(200);
  });

  it("counts since the owner's last good code", async () => {
    const owner = Wallet.createRandom().address;
    const ownerIp = newIp();
    const totp = await faucet.activate(owner, ownerIp);
    await wrongCodes(owner, totp, newIp(), 3);
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp)), ownerIp)).status).toBe(200);
    await wrongCodes(owner, totp, newIp(), 3);
    expect((await faucet.post("/faucet/fund", faucet.fundBody(owner, faucet.code(totp, 1)), ownerIp)).status).toBe(200);
  });
});

describe("on the GraphQL listener", () => {
  const errorCode = (answer: { body: { errors?: Array<{ extensions?: Record<string, unknown> }> } }) => answer.body.errors?.[0]?.extensions?.code;

  it("a stranger's wrong codes lock the stranger's client; the owner funds from elsewhere", async () => {
    const owner = Wallet.createRandom().address;
    const [ownerIp, strangerIp] = [newIp(), newIp()];
    const totp = await faucet.activate(owner, ownerIp);
    for (let i = 0; i < 3; i++) {
      const wrong = await faucet.graphql("fundWallet", { input: faucet.fundBody(owner, faucet.wrongCode(totp)) }, strangerIp);
      expect(errorCode(wrong)).toBe("INVALID_2FA");
    }
    expect(errorCode(await faucet.graphql("fundWallet", { input: faucet.fundBody(owner, faucet.code(totp)) }, strangerIp))).toBe("2FA_LOCKED");
    const funded = await faucet.graphql("fundWallet", { input: faucet.fundBody(owner, faucet.code(totp)) }, ownerIp);
    expect(funded.body.errors).toBeUndefined();
    expect(funded.body.data.fundWallet.status).toBe("SUCCESS");
  });
});
