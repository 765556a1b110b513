/**
 * Secrets at rest: AES-256-GCM with a 32-byte key from configuration, a fresh 12-byte IV per secret, and a context
 * string as associated data (a ciphertext moved to another row does not decrypt). Stored as IV | ciphertext | tag.
 * Used for the faucet's TOTP secrets and the markets runtime endpoints' auth tokens.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  constructor(private readonly key: Buffer) {}

  seal(secret: Uint8Array, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]);
  }

  /** Throws when the key, the context or the bytes differ from the sealing. */
  open(sealed: Uint8Array, context: string): Uint8Array {
    const data = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  }
}
