/**
 * The HS256 check shared by the pairing tokens (orders/pairing.token.ts) and the chunk delivery tokens
 * (stream/seller/delivery.token.ts): every configured secret is tried (the first signs, all verify), the issuer, audience,
 * exp/iat/jti and the clock are checked by `jose`, and the caller maps the outcome onto its own error codes.
 */
import { errors as joseErrors, jwtVerify, type JWTPayload } from "jose";

export type Hs256Outcome = { payload: JWTPayload } | { failure: "expired" | "invalid" };

/** WebCrypto keys imported once: jose would import a raw key on every call, the larger part of its cost. */
export function importVerifyKeys(secrets: Uint8Array<ArrayBuffer>[]): Promise<CryptoKey[]> {
  return Promise.all(secrets.map((raw) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"])));
}

export async function verifyHs256(token: string, keys: CryptoKey[], issuer: string, audience: string, nowMs: number): Promise<Hs256Outcome> {
  for (const key of keys) {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ["HS256"],
        issuer,
        audience,
        currentDate: new Date(nowMs),
        clockTolerance: 0,
        requiredClaims: ["exp", "iat", "jti"],
      });
      return { payload };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { failure: "expired" };
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      return { failure: "invalid" };
    }
  }
  return { failure: "invalid" };
}
