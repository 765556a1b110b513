/**
 * The faucet codes a running dev platform cannot produce, at the service level with the real repositories on a
 * throw-away database and the real QR and TOTP libraries: QR_GENERATION_FAILED (nothing enrolled, by setup and by an
 * owner-signed reset), and SERVICE_UNAVAILABLE when the TOTP key or the faucet key is not configured (production
 * without FAUCET_* settings).
 */
import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { loadRatingsConfig } from "../../subgraphs/shared/config/ratings.js";
import { systemClock } from "../../subgraphs/shared/clock.js";
import { FaucetRepository } from "../../subgraphs/ratings/faucet/faucet.repository.js";
import { FaucetService } from "../../subgraphs/ratings/faucet/faucet.service.js";
import { TwoFactorRepository } from "../../subgraphs/ratings/faucet/two-factor.repository.js";
import { TwoFactorService } from "../../subgraphs/ratings/faucet/two-factor.service.js";
import { TotpSecretBox } from "../../subgraphs/ratings/faucet/totp.js";
import { signTwoFactorReset } from "../../subgraphs/ratings/faucet/two-factor-reset.message.js";
import { withTestDatabase } from "../support/db.js";

const OWNER = "0x1111111111111111111111111111111111111111";

describe("faucet services on a real database", () => {
  const testDb = withTestDatabase();

  it("QR_GENERATION_FAILED when the URI cannot fit a QR code; nothing is enrolled", async () => {
    // An issuer this long makes the otpauth URI exceed a QR code's capacity (2953 bytes at level L).
    const config = { ...loadRatingsConfig({}).faucet, issuer: "x".repeat(3000) };
    const repository = new TwoFactorRepository(testDb.db);
    await expect(new TwoFactorService(repository, config, systemClock, "3338").setup(OWNER, "png")).rejects.toMatchObject({ code: "QR_GENERATION_FAILED" });
    expect(await repository.find(OWNER.toLowerCase(), "127.0.0.1")).toBeNull();
  });

  it("QR_GENERATION_FAILED for a well-signed reset too; nothing is enrolled and the signature stays unused", async () => {
    const config = { ...loadRatingsConfig({}).faucet, issuer: "x".repeat(3000) };
    const repository = new TwoFactorRepository(testDb.db);
    const owner = Wallet.createRandom();
    const fields = { issuer: config.issuer, ownerAddress: owner.address, chainId: "3338", issuedAt: new Date(systemClock.now()).toISOString() };
    const body = await signTwoFactorReset(owner, fields);
    const service = new TwoFactorService(repository, config, systemClock, "3338");
    await expect(service.reset({ ...body, format: "png" })).rejects.toMatchObject({ code: "QR_GENERATION_FAILED" });
    expect(await repository.find(owner.address.toLowerCase(), "127.0.0.1")).toBeNull();
  });

  it("SERVICE_UNAVAILABLE without a TOTP key (production default), for setup, reset, confirm and funding", async () => {
    const config = { ...loadRatingsConfig({ CHAIN_RPC_URL: "http://chain" }).faucet };
    expect(config.totpKey).toBeUndefined();
    expect(config.privateKey).toBeUndefined();
    const twoFactor = new TwoFactorService(new TwoFactorRepository(testDb.db), config, systemClock, "3338");
    await expect(twoFactor.setup(OWNER, "png")).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    await expect(twoFactor.confirm(OWNER, "123456", "127.0.0.1")).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const reset = { ownerAddress: OWNER, issuedAt: new Date().toISOString(), signature: `0x${"11".repeat(65)}`, format: "png" };
    await expect(twoFactor.reset(reset)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const faucet = new FaucetService(new FaucetRepository(testDb.db, new TwoFactorRepository(testDb.db)), twoFactor, null, config, "3338", systemClock, () => {});
    const input = { ownerAddress: OWNER, targetWalletAddress: OWNER, chainId: "3338", twoFactorCode: "123456" };
    await expect(faucet.fund(input, "127.0.0.1")).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });

  it("a sealed secret opens only with its key and for its owner", () => {
    const key = Buffer.alloc(32, 7);
    const sealed = new TotpSecretBox(key).seal(Buffer.from("secret-bytes"), "0xaa");
    expect(Buffer.from(new TotpSecretBox(key).open(sealed, "0xaa")).toString()).toBe("secret-bytes");
    expect(() => new TotpSecretBox(key).open(sealed, "0xbb")).toThrow();
    expect(() => new TotpSecretBox(Buffer.alloc(32, 8)).open(sealed, "0xaa")).toThrow();
  });
});
