/**
 * TOTP for the faucet's two-factor check (RFC 6238 via `otpauth`: SHA-1, 6 digits, 30-second steps, one step of
 * clock drift either way), and the secret's encryption at rest: AES-256-GCM with the key from FAUCET_TOTP_KEY, a
 * fresh 12-byte IV per secret, and the owner address as associated data (a ciphertext moved to another owner's row
 * does not decrypt).
 */
import { Secret, TOTP } from "otpauth";

const PERIOD_SECONDS = 30;
const DRIFT_STEPS = 1;

/** The owner address is the associated data of a TOTP secret. */
export { SecretBox as TotpSecretBox } from "../../shared/crypto/secret-box.js";

export function newTotpSecret(): Uint8Array {
  return new Uint8Array(new Secret({ size: 20 }).buffer);
}

function totp(secret: Uint8Array, issuer: string, owner: string): TOTP {
  return new TOTP({
    issuer,
    label: owner,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: new Secret({ buffer: Uint8Array.from(secret).buffer }),
  });
}

/** The `otpauth://totp/...` URI an authenticator app enrols from. */
export function otpauthUri(secret: Uint8Array, issuer: string, owner: string): string {
  return totp(secret, issuer, owner).toString();
}

/** The time step a code belongs to (within one step of drift), or null when it matches none. */
export function matchingStep(secret: Uint8Array, code: string, nowMs: number): number | null {
  const delta = totp(secret, "", "").validate({ token: code, timestamp: nowMs, window: DRIFT_STEPS });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD_SECONDS) + delta;
}

/** The current code (tests and the demo CLI act as the authenticator app). */
export function currentCode(secret: Uint8Array, nowMs: number): string {
  return totp(secret, "", "").generate({ timestamp: nowMs });
}
