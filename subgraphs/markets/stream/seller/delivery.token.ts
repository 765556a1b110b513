/**
 * Chunk delivery tokens (docs/stream-marketplace.md "Auth"): the `Authorization: Bearer` credential of
 * `GET /stream/chunks/:chunkId/data`. A short-lived HS256 JWT made and checked with `jose`, keyed by the same
 * configured secrets as the pairing tokens (MARKETS_PAIRING_JWT_SECRETS; first signs, all verify) but with its own
 * audience, so a pairing token is never a delivery token nor the reverse.
 *
 * Claims: `scope` = `{ orderId }` or `{ purchaseId }`, `buyerId`, `chunkIds` (the bought chunks, 1..10000), iat,
 * exp, jti; iss `<namespace>-machine-markets`, aud `<namespace>-stream-delivery`. Codes: DELIVERY_TOKEN_REQUIRED
 * (no bearer), DELIVERY_TOKEN_INVALID (shape, signature, algorithm, issuer, audience, claims), DELIVERY_TOKEN_EXPIRED
 * (past exp), DELIVERY_TOKEN_SCOPE (valid, but the chunk asked for is not among its chunkIds).
 */
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { importVerifyKeys, verifyHs256 } from "../../common/hs256.verify.js";
import { StreamErrors } from "./seller.errors.js";

export type DeliveryScope = { orderId: string; purchaseId?: undefined } | { purchaseId: string; orderId?: undefined };

export interface DeliveryClaims {
  scope: DeliveryScope;
  buyerId: string;
  chunkIds: string[];
  jti: string;
  iat: number;
  exp: number;
}

export const DEFAULT_DELIVERY_TOKEN_TTL_SECONDS = 900;
export const MAX_TOKEN_CHUNKS = 10_000;
const CHUNK_ID = /^sha256:[0-9a-f]{64}$/;
const SCOPE_ID = /^[A-Za-z0-9_-]{1,100}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]{10,2000}\.[A-Za-z0-9_-]{10,1200000}\.[A-Za-z0-9_-]{20,200}$/;

export class DeliveryTokens {
  private readonly keys: Uint8Array<ArrayBuffer>[];
  private verifyKeys: Promise<CryptoKey[]> | null = null;
  readonly issuer: string;
  readonly audience: string;

  constructor(secrets: string[], namespace: string, readonly ttlSeconds = DEFAULT_DELIVERY_TOKEN_TTL_SECONDS) {
    if (secrets.length === 0) throw new Error("no delivery token secret");
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new Error("delivery token ttl must be a positive integer");
    this.keys = secrets.map((s) => new TextEncoder().encode(s));
    this.issuer = `${namespace}-machine-markets`;
    this.audience = `${namespace}-stream-delivery`;
  }

  /** A token for `chunkIds` of one order or purchase; throws (programming error) on claims it would refuse itself. */
  async issue(
    input: { scope: DeliveryScope; buyerId: string; chunkIds: string[] },
    nowMs: number,
  ): Promise<{ token: string; expiresAt: Date }> {
    const { scope, buyerId, chunkIds } = input;
    if (!validScope(scope) || !validBuyer(buyerId) || !validChunks(chunkIds)) throw new Error("delivery token claims out of range");
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + this.ttlSeconds;
    const token = await new SignJWT({ scope: { ...scope }, buyerId, chunkIds })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(`sdt_${randomBytes(12).toString("hex")}`)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .sign(this.keys[0]!);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a token valid at `nowMs` (see the file comment for the codes). */
  async verify(token: string | null | undefined, nowMs: number): Promise<DeliveryClaims> {
    if (token == null || token === "") throw StreamErrors.deliveryTokenRequired();
    if (!JWT_SHAPE.test(token)) throw StreamErrors.deliveryTokenInvalid();
    this.verifyKeys ??= importVerifyKeys(this.keys);
    const outcome = await verifyHs256(token, await this.verifyKeys, this.issuer, this.audience, nowMs);
    if ("failure" in outcome) throw outcome.failure === "expired" ? StreamErrors.deliveryTokenExpired() : StreamErrors.deliveryTokenInvalid();
    return claimsOf(outcome.payload);
  }

  /** verify + the chunk must be one of the token's chunks (DELIVERY_TOKEN_SCOPE otherwise). */
  async authorize(token: string | null | undefined, chunkId: string, nowMs: number): Promise<DeliveryClaims> {
    const claims = await this.verify(token, nowMs);
    if (!claims.chunkIds.includes(chunkId)) throw StreamErrors.deliveryTokenScope();
    return claims;
  }
}

/** `Authorization: Bearer <token>` → the token; anything else (other scheme, empty) → null. */
export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

const validScope = (scope: unknown): scope is DeliveryScope => {
  if (typeof scope !== "object" || scope === null || Array.isArray(scope)) return false;
  const keys = Object.keys(scope);
  if (keys.length !== 1 || (keys[0] !== "orderId" && keys[0] !== "purchaseId")) return false;
  const value = (scope as Record<string, unknown>)[keys[0]];
  return typeof value === "string" && SCOPE_ID.test(value);
};
const validBuyer = (buyerId: unknown): buyerId is string => typeof buyerId === "string" && buyerId.length > 0 && buyerId.length <= 200;
const validChunks = (chunkIds: unknown): chunkIds is string[] =>
  Array.isArray(chunkIds) &&
  chunkIds.length > 0 &&
  chunkIds.length <= MAX_TOKEN_CHUNKS &&
  chunkIds.every((id) => typeof id === "string" && CHUNK_ID.test(id));

function claimsOf(payload: Record<string, unknown>): DeliveryClaims {
  const { scope, buyerId, chunkIds, jti, iat, exp } = payload;
  if (!validScope(scope) || !validBuyer(buyerId) || !validChunks(chunkIds) || typeof jti !== "string") {
    throw StreamErrors.deliveryTokenInvalid();
  }
  return { scope, buyerId, chunkIds, jti, iat: iat as number, exp: exp as number };
}
