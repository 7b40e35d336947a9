/**
 * The sender's half of the signature scheme (docs/webhooks.md "The signature"): `t=<unix seconds>,
 * v1=<hex HMAC-SHA256>` over "<t>.<raw body>", keyed with the webhook's secret as UTF-8 text. The deliverer calls this at every attempt
 * with the time of that attempt, so a retry hours later still falls inside the receiver's 300 s window.
 * verify.ts is the receiver's half; the two share nothing on purpose, so a test of one checks the other.
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
