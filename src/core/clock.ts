/**
 * The two clocks: the wall clock for times stored, shown or signed; the monotonic clock for every interval, rate
 * and timeout, since an NTP step moves only the first (docs/operations.md, "Clock steps").
 */

/** Milliseconds on the monotonic clock (an arbitrary origin: compare readings, never store them). */
export function monotonicNow(): number {
  return performance.now();
}

/** Milliseconds from `from` to `to`, never below zero. */
export function elapsedMs(from: number, to: number): number {
  return Math.max(0, to - from);
}
