/**
 * Chunk delivery tokens (stream/seller/delivery.token.ts) and machine-agent credentials merging (stream/seller/agent.auth.ts):
 * scope, expiry, signature, audience, secret rotation, the bearer header form.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../subgraphs/shared/errors.js";
import { agentCredentials } from "../../../subgraphs/markets/stream/seller/agent.auth.js";
import { bearerToken, DeliveryTokens } from "../../../subgraphs/markets/stream/seller/delivery.token.js";
import { PairingTokens } from "../../../subgraphs/markets/orders/pairing.token.js";

const SECRET = "s".repeat(32);
const OLD = "o".repeat(32);
const NOW = Date.UTC(2026, 0, 1);
const A = `sha256:${"a".repeat(64)}`;
const B = `sha256:${"b".repeat(64)}`;

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  return "OK";
}

describe("DeliveryTokens", () => {
  const tokens = new DeliveryTokens([SECRET], "peaq", 60);

  it("issues a token scoped to an order, a buyer and chunks; verify answers the claims", async () => {
    const { token, expiresAt } = await tokens.issue({ scope: { orderId: "sord_1" }, buyerId: "buyer-1", chunkIds: [A] }, NOW);
    expect(expiresAt.getTime()).toBe(NOW + 60_000);
    const claims = await tokens.authorize(token, A, NOW + 59_000);
    expect(claims).toMatchObject({ scope: { orderId: "sord_1" }, buyerId: "buyer-1", chunkIds: [A], iat: NOW / 1000, exp: NOW / 1000 + 60 });
    expect(claims.jti).toMatch(/^sdt_[0-9a-f]{24}$/);
  });

  it("a purchase scope works the same", async () => {
    const { token } = await tokens.issue({ scope: { purchaseId: "pur_1" }, buyerId: "b", chunkIds: [A, B] }, NOW);
    expect((await tokens.authorize(token, B, NOW)).scope).toEqual({ purchaseId: "pur_1" });
  });

  it("another chunk: DELIVERY_TOKEN_SCOPE", async () => {
    const { token } = await tokens.issue({ scope: { orderId: "o" }, buyerId: "b", chunkIds: [A] }, NOW);
    expect(await code(tokens.authorize(token, B, NOW))).toBe("DELIVERY_TOKEN_SCOPE");
  });

  it("expired at exp (no tolerance): DELIVERY_TOKEN_EXPIRED", async () => {
    const { token } = await tokens.issue({ scope: { orderId: "o" }, buyerId: "b", chunkIds: [A] }, NOW);
    expect(await code(tokens.verify(token, NOW + 59_999))).toBe("OK");
    expect(await code(tokens.verify(token, NOW + 60_000))).toBe("DELIVERY_TOKEN_EXPIRED");
  });

  it("none: DELIVERY_TOKEN_REQUIRED; garbage, tampered, other secret, other audience: DELIVERY_TOKEN_INVALID", async () => {
    const { token } = await tokens.issue({ scope: { orderId: "o" }, buyerId: "b", chunkIds: [A] }, NOW);
    expect(await code(tokens.verify(undefined, NOW))).toBe("DELIVERY_TOKEN_REQUIRED");
    expect(await code(tokens.verify("", NOW))).toBe("DELIVERY_TOKEN_REQUIRED");
    expect(await code(tokens.verify("not-a-jwt", NOW))).toBe("DELIVERY_TOKEN_INVALID");
    const [h, payload, s] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), chunkIds: [A, B] })).toString("base64url");
    expect(await code(tokens.verify(`${h}.${forged}.${s}`, NOW))).toBe("DELIVERY_TOKEN_INVALID");
    expect(await code(new DeliveryTokens([OLD], "peaq").verify(token, NOW))).toBe("DELIVERY_TOKEN_INVALID");
    const pairing = await new PairingTokens([SECRET], "peaq", 60).issue(
      { machineId: "m", pairingId: "p", sessionId: "s", agentAddress: "0x", agentDid: null, delegationPolicyHash: "h", jti: "j" },
      NOW,
    );
    expect(await code(tokens.verify(pairing.token, NOW))).toBe("DELIVERY_TOKEN_INVALID");
  });

  it("claims out of shape (signed with the right key) are refused: DELIVERY_TOKEN_INVALID", async () => {
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt(NOW / 1000).setExpirationTime(NOW / 1000 + 60)
        .setJti("j").setIssuer(tokens.issuer).setAudience(tokens.audience).sign(new TextEncoder().encode(SECRET));
    for (const claims of [
      { scope: { orderId: "o", purchaseId: "p" }, buyerId: "b", chunkIds: [A] },
      { scope: { orderId: "o" }, buyerId: "", chunkIds: [A] },
      { scope: { orderId: "o" }, buyerId: "b", chunkIds: [] },
      { scope: { orderId: "o" }, buyerId: "b", chunkIds: ["sha256:xyz"] },
    ]) {
      expect(await code(tokens.verify(await sign(claims), NOW))).toBe("DELIVERY_TOKEN_INVALID");
    }
  });

  it("rotation: a token signed by an older configured secret still verifies; the first secret signs", async () => {
    const old = await new DeliveryTokens([OLD], "peaq").issue({ scope: { orderId: "o" }, buyerId: "b", chunkIds: [A] }, NOW);
    expect(await code(new DeliveryTokens([SECRET, OLD], "peaq").verify(old.token, NOW))).toBe("OK");
  });

  it("refuses to issue claims it would refuse to verify", async () => {
    await expect(tokens.issue({ scope: { orderId: "o" }, buyerId: "b", chunkIds: [] }, NOW)).rejects.toThrow();
  });
});

describe("bearerToken and agentCredentials", () => {
  it("takes the token of `Bearer <token>` only", () => {
    expect(bearerToken("Bearer abc.def.ghi")).toBe("abc.def.ghi");
    expect(bearerToken("bearer  x")).toBe("x");
    expect(bearerToken("Basic x")).toBeNull();
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });

  it("header credentials win over body ones; either alone is used", () => {
    expect(agentCredentials({ agentId: "h", agentToken: "ht" }, { agentId: "b", agentToken: "bt" })).toEqual({ agentId: "h", agentToken: "ht" });
    expect(agentCredentials(null, { agentId: "b", agentToken: "bt" })).toEqual({ agentId: "b", agentToken: "bt" });
    expect(agentCredentials({}, {})).toEqual({ agentId: null, agentToken: null });
  });
});
