/**
 * When to try a failed delivery again: one pure function, so the dispatcher stores "next attempt at" and
 * never sleeps in a loop (the svix model). The schedule lists the delay before each retry; the first attempt
 * is immediate and not part of it, so the default schedule of nine delays allows ten attempts in all.
 * Jitter (±10 %) spreads retries of many deliveries that failed together (a receiver outage) so they do not
 * return together. A receiver's Retry-After wins when it asks for longer, but never beyond 24 h, so a
 * misconfigured receiver cannot park a delivery for ever; it is not jittered, since jitter could undercut it.
 */

/** Spread applied to each scheduled delay: ±10 %. */
const RETRY_JITTER = 0.1;
/** Longest wait a Retry-After header can impose. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay in ms before the next attempt after `attemptsMade` attempts (1 after the first failure), or null when
 * the schedule is exhausted and the delivery is dead.
 */
export function nextAttemptDelayMs(
  attemptsMade: number,
  schedule: readonly number[],
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade counts attempts already made (1 or more), got ${attemptsMade}`);
  }
  const scheduled = schedule[attemptsMade - 1];
  if (scheduled === undefined) return null;
  const jittered = Math.round(scheduled * (1 + RETRY_JITTER * (2 * random() - 1)));
  if (retryAfterMs === null || !Number.isFinite(retryAfterMs)) return jittered;
  return Math.max(jittered, Math.min(Math.round(retryAfterMs), MAX_RETRY_AFTER_MS));
}
