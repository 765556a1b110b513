/**
 * Pairing session tokens (Authentication 2 and 3; public notes 2.3): HS256 JWTs made and checked with `jose`.
 *
 * Claims: machineId, pairingId, sessionId, agentAddress, agentDid, delegationPolicyHash, iat, exp, jti (= the
 * pairing's sessionTokenId), iss `<namespace>-machine-markets`, aud `<namespace>-machine-markets-api`. The first
 * secret signs; every configured secret verifies (rotation). Tokens are never logged nor stored: the pairing keeps
 * their SHA-256 and last four characters.
 *
 * A token that verified once is remembered by its text (a bounded map, oldest forgotten first): the HS256 signature,
 * issuer, audience and claim types are facts of the text and are not checked again, while the clock's checks (nbf,
 * exp) and the claims' shape run on every use. What can change about a valid token (revocation, rotation, pause, the
 * policy) is the pairing row's, which every write still reads under its lock (PairingService.authenticate).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SignJWT } from "jose";
import { importVerifyKeys, verifyHs256 } from "../common/hs256.verify.js";
import { writeSecretFile } from "../../shared/data-dir.js";
import { MarketsErrors } from "../common/errors.js";

export interface PairingClaims {
  machineId: string;
  pairingId: string;
  sessionId: string;
  agentAddress: string;
  agentDid: string | null;
  delegationPolicyHash: string;
  jti: string;
  iat: number;
  exp: number;
}

export const DEV_PAIRING_SECRET_FILE = "markets-pairing-jwt.secret";

/** The configured secrets, or the dev secret kept in the data dir (generated once, 0600). */
export function pairingSecrets(configured: string[], dataDir: string): string[] {
  if (configured.length > 0) return configured;
  const file = path.join(dataDir, DEV_PAIRING_SECRET_FILE);
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length >= 32) return [secret];
  }
  const secret = randomBytes(32).toString("base64url");
  writeSecretFile(file, `${secret}\n`);
  return [secret];
}

export const tokenHash = (token: string) => new Uint8Array(createHash("sha256").update(token, "utf8").digest());

/** How many verified tokens are remembered (each a few hundred bytes). */
export const VERIFIED_TOKENS_LIMIT = 4096;

const JWT_SHAPE = /^[A-Za-z0-9_-]{10,2000}\.[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{20,200}$/;

export class PairingTokens {
  private readonly keys: Uint8Array<ArrayBuffer>[];
  /** WebCrypto keys imported once: jose would import a raw key on every call, the larger part of its cost. */
  private verifyKeys: Promise<CryptoKey[]> | null = null;
  /** Payloads of tokens whose signature, issuer and audience verified, by the token's text. */
  private readonly verified = new Map<string, Record<string, unknown>>();
  readonly issuer: string;
  readonly audience: string;

  constructor(secrets: string[], namespace: string, readonly ttlSeconds: number) {
    if (secrets.length === 0) throw new Error("no pairing token secret");
    this.keys = secrets.map((s) => new TextEncoder().encode(s));
    this.issuer = `${namespace}-machine-markets`;
    this.audience = `${namespace}-machine-markets-api`;
  }

  async issue(claims: Omit<PairingClaims, "iat" | "exp">, nowMs: number): Promise<{ token: string; issuedAt: Date; expiresAt: Date }> {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + this.ttlSeconds;
    const { jti, ...rest } = claims;
    const token = await new SignJWT({ ...rest })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .sign(this.keys[0]!);
    return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  }

  /**
   * The claims of a token that verifies with one of the secrets: AGENT_AUTH_EXPIRED past `exp`, AGENT_AUTH_INVALID
   * for anything else wrong (shape, algorithm, signature, issuer, audience, claim types).
   */
  async verify(token: string, nowMs: number): Promise<PairingClaims> {
    let payload = this.verified.get(token);
    if (payload === undefined) {
      if (!JWT_SHAPE.test(token)) throw MarketsErrors.agentAuthInvalid();
      this.verifyKeys ??= importVerifyKeys(this.keys);
      const outcome = await verifyHs256(token, await this.verifyKeys, this.issuer, this.audience, nowMs);
      if ("failure" in outcome) throw outcome.failure === "expired" ? MarketsErrors.agentAuthExpired() : MarketsErrors.agentAuthInvalid();
      payload = outcome.payload as Record<string, unknown>;
      const claims = claimsOf(payload);
      if (this.verified.size >= VERIFIED_TOKENS_LIMIT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, payload);
      return claims;
    }
    // The clock's checks as jose makes them (whole seconds, no tolerance): nbf first, then exp.
    const now = Math.floor(nowMs / 1000);
    if (typeof payload.nbf === "number" && payload.nbf > now) throw MarketsErrors.agentAuthInvalid();
    if ((payload.exp as number) <= now) throw MarketsErrors.agentAuthExpired();
    return claimsOf(payload);
  }
}

function claimsOf(payload: Record<string, unknown>): PairingClaims {
  const str = (name: string) => {
    const value = payload[name];
    if (typeof value !== "string" || value.length === 0 || value.length > 200) throw MarketsErrors.agentAuthInvalid();
    return value;
  };
  const did = payload.agentDid;
  if (did !== null && typeof did !== "string") throw MarketsErrors.agentAuthInvalid();
  return {
    machineId: str("machineId"),
    pairingId: str("pairingId"),
    sessionId: str("sessionId"),
    agentAddress: str("agentAddress"),
    agentDid: did as string | null,
    delegationPolicyHash: str("delegationPolicyHash"),
    jti: str("jti"),
    iat: payload.iat as number,
    exp: payload.exp as number,
  };
}
