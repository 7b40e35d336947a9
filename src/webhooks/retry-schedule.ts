/**
 * When to retry a failed delivery: a pure function, so the dispatcher stores "next attempt at" and never sleeps.
 * Delays get ±10 % jitter; a longer Retry-After wins (not jittered, capped at 24 h).
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
