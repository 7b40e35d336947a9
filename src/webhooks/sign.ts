/**
 * The sender's half of the signature scheme (docs/webhooks.md "The signature"), signed at every attempt so a late
 * retry still falls in the receiver's 300 s window. Shares nothing with verify.ts, so each tests the other.
 */
import { createHmac } from "node:crypto";

/** The X-Service-Signature value for `rawBody` sent at `unixSeconds`. */
export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError(`signature time must be whole unix seconds, got ${unixSeconds}`);
  }
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.${rawBody}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}
