import { parseRetryAfter } from "../net/retry-after.ts";

/**
 * Whether to ask again before judging a link: only a "slow down" answer (429, or 503 that names a
 * Retry-After) is retried, a bounded number of times, and never for longer than the policy allows: a server
 * asking for an hour's pause gets judged now (an external 429 is then a warning, not a broken link).
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The longest single wait honoured. */
  maxWaitMs: number;
  /** Wait when a 429 names no Retry-After; doubles per retry. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxWaitMs: 60_000, baseDelayMs: 1_000 };

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** Decides after an answer with `status` on attempt `retriesSoFar` (0 for the first answer). */
export function retryDecision(
  answer: { status: number; retryAfter?: string },
  retriesSoFar: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  nowMs = Date.now(),
): RetryDecision {
  if (retriesSoFar >= policy.maxRetries) return { retry: false };
  const asked = parseRetryAfter(answer.retryAfter, nowMs);
  if (answer.status === 503 && asked === null) return { retry: false };
  if (answer.status !== 429 && answer.status !== 503) return { retry: false };
  const delayMs = asked ?? policy.baseDelayMs * 2 ** retriesSoFar;
  return delayMs <= policy.maxWaitMs ? { retry: true, delayMs } : { retry: false };
}
