/**
 * Pairing session tokens and policy hashes without a platform: HS256 via jose with the configured secrets (first
 * signs, all verify), expiry, issuer and audience, refused algorithms; the RFC 8785 policy hash; the settings'
 * parsing; the dev secret generated once into the data dir (0600).
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMarketsConfig } from "../../../subgraphs/shared/config/markets.js";
import { ConfigError } from "../../../subgraphs/shared/config/env.js";
import { DEV_PAIRING_SECRET_FILE, PairingTokens, pairingSecrets } from "../../../subgraphs/markets/orders/pairing.token.js";
import { normalizePolicy, policyHash } from "../../../subgraphs/markets/orders/pairing.policy.js";

const OLD = "old-secret-0123456789abcdef0123456789";
const NEW = "new-secret-0123456789abcdef0123456789";
const NOW = Date.parse("2026-11-24T10:00:00.000Z");
const claims = {
  machineId: "mach_1",
  pairingId: "pair_aaaaaaaaaaaaaaaa",
  sessionId: "sess_x",
  agentAddress: "0x00000000000000000000000000000000000000a1",
  agentDid: "did:pkh:eip155:1:0x00000000000000000000000000000000000000a1",
  delegationPolicyHash: "ab".repeat(32),
  jti: "stok_x",
};
const code = async (promise: Promise<unknown>) => promise.then(() => "ok", (error: { code?: string }) => error.code);

describe("pairing tokens", () => {
  it("verify answers the claims of a token signed with the first secret", async () => {
    const tokens = new PairingTokens([NEW], "service", 3600);
    const { token, issuedAt, expiresAt } = await tokens.issue(claims, NOW);
    expect(expiresAt.getTime() - issuedAt.getTime()).toBe(3_600_000);
    expect(await tokens.verify(token, NOW)).toMatchObject({ ...claims, iat: NOW / 1000, exp: NOW / 1000 + 3600 });
  });

  it("rotation: a token of the old secret verifies while the old secret is listed, and not after", async () => {
    const { token } = await new PairingTokens([OLD], "service", 3600).issue(claims, NOW);
    expect(await code(new PairingTokens([NEW, OLD], "service", 3600).verify(token, NOW))).toBe("ok");
    expect(await code(new PairingTokens([NEW], "service", 3600).verify(token, NOW))).toBe("AGENT_AUTH_INVALID");
  });

  it("at exp: AGENT_AUTH_EXPIRED; one second before: valid", async () => {
    const tokens = new PairingTokens([NEW], "service", 3600);
    const { token } = await tokens.issue(claims, NOW);
    expect(await code(tokens.verify(token, NOW + 3_599_000))).toBe("ok");
    expect(await code(tokens.verify(token, NOW + 3_600_000))).toBe("AGENT_AUTH_EXPIRED");
  });

  it("a remembered token keeps its clock checks: valid, then expired at exp, and valid again if the clock goes back", async () => {
    const tokens = new PairingTokens([NEW], "service", 3600);
    const { token } = await tokens.issue(claims, NOW);
    expect(await code(tokens.verify(token, NOW))).toBe("ok");
    expect(await code(tokens.verify(token, NOW + 3599_999))).toBe("ok");
    expect(await code(tokens.verify(token, NOW + 3600_000))).toBe("AGENT_AUTH_EXPIRED");
    expect(await code(tokens.verify(token, NOW))).toBe("ok");
    // A token changed by one character is another text: verified afresh, and refused.
    const forged = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
    expect(await code(tokens.verify(forged, NOW))).toBe("AGENT_AUTH_INVALID");
  });

  it("another issuer or audience, HS512, alg none, missing claims: AGENT_AUTH_INVALID", async () => {
    const tokens = new PairingTokens([NEW], "service", 3600);
    const key = new TextEncoder().encode(NEW);
    const base = () => new SignJWT({ ...claims }).setIssuedAt(NOW / 1000).setExpirationTime(NOW / 1000 + 60).setJti("stok_x");
    const otherIssuer = await base().setProtectedHeader({ alg: "HS256" }).setIssuer("elsewhere").setAudience(tokens.audience).sign(key);
    const otherAudience = await base().setProtectedHeader({ alg: "HS256" }).setIssuer(tokens.issuer).setAudience("elsewhere").sign(key);
    const hs512 = await base().setProtectedHeader({ alg: "HS512" }).setIssuer(tokens.issuer).setAudience(tokens.audience).sign(key);
    const unsecured = new UnsecuredJWT({ ...claims }).setIssuer(tokens.issuer).setAudience(tokens.audience).setExpirationTime(NOW / 1000 + 60).encode();
    const noMachine = await new SignJWT({ pairingId: claims.pairingId })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(NOW / 1000)
      .setExpirationTime(NOW / 1000 + 60)
      .setJti("stok_x")
      .setIssuer(tokens.issuer)
      .setAudience(tokens.audience)
      .sign(key);
    for (const token of [otherIssuer, otherAudience, hs512, unsecured, noMachine, "a.b.c"]) expect(await code(tokens.verify(token, NOW)), token).toBe("AGENT_AUTH_INVALID");
  });
});

describe("delegation policy hash", () => {
  it("is the SHA-256 of the RFC 8785 form: member order and list order do not change it, values do", () => {
    const a = normalizePolicy({ allowedSkillKeys: ["b", "a"], perTransactionLimit: 1, currency: "USD" });
    const b = normalizePolicy({ currency: "USD", perTransactionLimit: 1, allowedSkillKeys: ["a", "b", "a"] });
    expect(policyHash(a)).toBe(policyHash(b));
    expect(policyHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(policyHash(normalizePolicy({ ...a, perTransactionLimit: 2 }))).not.toBe(policyHash(a));
  });

  it("refuses bad members with VALIDATION_ERROR", () => {
    for (const bad of [{ perTransactionLimit: -1 }, { dailySpendLimit: 0.0000001 }, { currency: "usd" }, { allowedSkillKeys: ["has space"] }]) {
      expect(() => normalizePolicy(bad as never), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    }
  });
});

describe("pairing settings", () => {
  it("defaults: verification required, 300 s challenges, 1 h tokens, no configured secret", () => {
    expect(loadMarketsConfig({})).toMatchObject({ pairingVerification: "required", pairingChallengeTtlSeconds: 300, pairingTokenTtlSeconds: 3600, pairingJwtSecrets: [] });
  });

  it("MARKETS_PAIRING_JWT_SECRETS is a comma list of secrets of 32+ characters; bad values refuse to start", () => {
    expect(loadMarketsConfig({ MARKETS_PAIRING_JWT_SECRETS: `${NEW}, ${OLD}` }).pairingJwtSecrets).toEqual([NEW, OLD]);
    expect(() => loadMarketsConfig({ MARKETS_PAIRING_JWT_SECRETS: "short" })).toThrow(ConfigError);
    expect(() => loadMarketsConfig({ AGENT_PAIRING_VERIFICATION: "maybe" })).toThrow(ConfigError);
    expect(() => loadMarketsConfig({ AGENT_PAIRING_TOKEN_TTL_SECONDS: "10" })).toThrow(ConfigError);
    expect(loadMarketsConfig({ AGENT_PAIRING_VERIFICATION: "off" }).pairingVerification).toBe("off");
  });

  describe("the dev secret", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "pairing-secret-"));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it("is generated once into the data dir (0600) and reused; a configured secret wins", async () => {
      const [first] = pairingSecrets([], dir);
      const file = path.join(dir, DEV_PAIRING_SECRET_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, "utf8")).trim()).toBe(first);
      expect(first!.length).toBeGreaterThanOrEqual(32);
      expect(pairingSecrets([], dir)).toEqual([first]);
      expect(pairingSecrets([NEW], dir)).toEqual([NEW]);
    });
  });
});
