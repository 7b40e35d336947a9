/**
 * Reading a `Retry-After` header (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. Shared by the
 * crawler (429 before judging a link) and webhook delivery (a receiver asking for a later retry).
 */

/** Milliseconds to wait from `nowMs`, or null when the header is absent or unreadable. A past date means 0. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1_000;
  // HTTP-dates always name the weekday and GMT; anything else (including bare numbers with signs) is unreadable.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
