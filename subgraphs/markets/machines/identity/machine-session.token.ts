/**
 * Machine session tokens: the bearer credential of a machine's authority (docs/markets-identity.md "Machine
 * sessions"). HS256 JWTs made and checked with `jose`, signed with the same secrets as the pairing tokens; their
 * audience, `<namespace>-machine-session`, keeps the kinds apart, so a pairing or delivery token never passes here.
 *
 * Claims: machineId (the market record), controllerAddress (EIP-55, the signer of the identity proof), jti (the
 * session ID), iat, exp, iss `<namespace>-machine-markets`. Tokens are never stored: the session row is named by jti.
 */
import { SignJWT } from "jose";
import { importVerifyKeys, verifyHs256 } from "../../common/hs256.verify.js";
import { MarketsErrors } from "../../common/errors.js";

export interface MachineSessionClaims {
  machineId: string;
  controllerAddress: string;
  jti: string;
  iat: number;
  exp: number;
}

/** Three base64url parts of bounded length: anything else is not a token of ours. */
export const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{10,2000}\.[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{20,200}$/;

export class MachineSessionTokens {
  private readonly keys: Uint8Array<ArrayBuffer>[];
  private verifyKeys: Promise<CryptoKey[]> | null = null;
  readonly issuer: string;
  readonly audience: string;

  constructor(secrets: string[], namespace: string, readonly ttlSeconds: number) {
    if (secrets.length === 0) throw new Error("no machine session secret");
    this.keys = secrets.map((s) => new TextEncoder().encode(s));
    this.issuer = `${namespace}-machine-markets`;
    this.audience = `${namespace}-machine-session`;
  }

  async issue(claims: Omit<MachineSessionClaims, "iat" | "exp">, nowMs: number): Promise<{ token: string; issuedAt: Date; expiresAt: Date }> {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + this.ttlSeconds;
    const token = await new SignJWT({ machineId: claims.machineId, controllerAddress: claims.controllerAddress })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(claims.jti)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .sign(this.keys[0]!);
    return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  }

  /**
   * The claims of a token that verifies with one of the secrets: MACHINE_IDENTITY_PROOF_EXPIRED past `exp`,
   * MACHINE_IDENTITY_PROOF_INVALID for anything else wrong (shape, algorithm, signature, issuer, audience, claims).
   */
  async verify(token: string, nowMs: number): Promise<MachineSessionClaims> {
    if (!SESSION_TOKEN_SHAPE.test(token)) throw MarketsErrors.identityProofInvalid();
    this.verifyKeys ??= importVerifyKeys(this.keys);
    const outcome = await verifyHs256(token, await this.verifyKeys, this.issuer, this.audience, nowMs);
    if ("failure" in outcome) throw outcome.failure === "expired" ? MarketsErrors.identityProofExpired() : MarketsErrors.identityProofInvalid();
    const { machineId, controllerAddress, jti, iat, exp } = outcome.payload;
    const ok = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= 200;
    if (!ok(machineId) || !ok(controllerAddress) || !ok(jti)) throw MarketsErrors.identityProofInvalid();
    return { machineId, controllerAddress, jti, iat: iat as number, exp: exp as number };
  }
}
