/**
 * Bearer token checks shared by the REST shim (before the body is read) and the subgraphs (so GraphQL callers get
 * the same rule). Tokens are compared in constant time: both sides are hashed to a fixed length and every configured
 * token is compared, with no early exit, so neither the length nor the position of a match leaks.
 */
import { hash, timingSafeEqual } from "node:crypto";

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/** SHA-256 in one call (`crypto.hash`, no Hash object): every authorised request hashes its token once per check. */
const digest = (value: string) => hash("sha256", value, "buffer");

export class BearerTokens {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  /** True when `header` is exactly `Bearer <token>` with one of the configured tokens. */
  accepts(header: string | undefined): boolean {
    if (header === undefined) return false;
    const match = BEARER.exec(header);
    return match !== null && this.acceptsToken(match[1]);
  }

  /** True when `token` (no scheme) is one of the configured tokens. */
  acceptsToken(token: string | undefined): boolean {
    if (token === undefined) return false;
    const candidate = digest(token);
    let accepted = false;
    for (const known of this.digests) accepted = timingSafeEqual(candidate, known) || accepted;
    return accepted;
  }
}
