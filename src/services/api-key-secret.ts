import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The shape and hashing of API key secrets: `lp_` + 40 base62 characters (~238 bits), drawn without modulo
 * bias. Only the SHA-256 is stored; a fast hash is right here because keys are long random strings, not passwords.
 */

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^lp_[0-9A-Za-z]{32,}$/;
const DISPLAY_PREFIX_LENGTH = 3 + 8;

/** A new random key. */
export function generateKeySecret(): string {
  let out = "lp_";
  while (out.length < 3 + SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 62 * 4: bytes above it would make the first characters likelier.
      if (byte < 248 && out.length < 3 + SECRET_LENGTH) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Lowercase hex SHA-256 of the key (Bun's one-shot hasher: every API request hashes its key). */
export function hashKeySecret(secret: string): string {
  return Bun.SHA256.hash(secret, "hex");
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The part of a key shown in listings (`lp_` + 8 characters). */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}
