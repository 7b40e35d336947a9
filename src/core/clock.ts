/**
 * The two clocks. The wall clock (`Date.now()`) says what time it is: timestamps that are stored, shown or
 * signed. The monotonic clock (`performance.now()`) says how long something took or how long to wait: an NTP
 * step or a date set by hand moves the first and never the second, so every interval, rate and timeout in
 * memory is measured on it (docs/operations.md, "Clock steps").
 */

/** Milliseconds on the monotonic clock (an arbitrary origin: compare readings, never store them). */
export function monotonicNow(): number {
  return performance.now();
}

/** Milliseconds from `from` to `to`, never below zero. */
export function elapsedMs(from: number, to: number): number {
  return Math.max(0, to - from);
}
