/**
 * The receiver's half of the signature scheme (docs/webhooks.md shows it whole). Accepts when `t` is within 300 s
 * and any `v1=` digest matches (several allow secret rotation); anything malformed answers false, never throws.
 * Sign over the RAW body bytes: a re-serialised body no longer matches.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Largest clock difference accepted between the signature's `t` and now; older deliveries are refused as replays. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** A longer header is not one linkpatrol sends; refusing it bounds the work an attacker can cause. */
const MAX_HEADER_LENGTH = 4_096;
const TIMESTAMP = /^\d{1,15}$/;
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

interface ParsedSignature {
  timestamp: number;
  digests: Buffer[];
}

function parseHeader(header: string): ParsedSignature | null {
  if (header.length > MAX_HEADER_LENGTH) return null;
  let timestamp: number | null = null;
  const digests: Buffer[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      // Two timestamps would leave it open which one was signed.
      if (timestamp !== null || !TIMESTAMP.test(value)) return null;
      timestamp = Number(value);
    } else if (key === "v1") {
      if (!HEX_DIGEST.test(value)) return null;
      digests.push(Buffer.from(value, "hex"));
    }
  }
  return timestamp === null || digests.length === 0 ? null : { timestamp, digests };
}

/** True when `header` (X-Service-Signature) signs `rawBody` with `secret` within 300 s of `nowSeconds`. */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string | Uint8Array,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  try {
    if (typeof header !== "string" || typeof secret !== "string" || secret === "") return false;
    const parsed = parseHeader(header);
    if (parsed === null || Math.abs(nowSeconds - parsed.timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
    const expected = createHmac("sha256", secret)
      .update(`${parsed.timestamp}.`, "utf8")
      .update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody)
      .digest();
    let matched = false;
    for (const digest of parsed.digests) {
      // Every entry is compared, match or not, so the time taken says nothing about which one matched.
      matched = timingSafeEqual(expected, digest) || matched;
    }
    return matched;
  } catch {
    return false;
  }
}
