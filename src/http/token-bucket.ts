import { elapsedMs, monotonicNow } from "../core/clock.ts";

/**
 * Per-caller token buckets on the monotonic clock, so a wall-clock step neither drains nor refills them. Bounded:
 * full buckets and, past `maxCallers`, the least recently used are forgotten.
 */

export interface BucketDecision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (meaningful when not allowed). */
  retryAfterSeconds: number;
}

/** The decision for a take that left `tokens` in a bucket of `capacity` refilled by `refillPerMs` a millisecond. */
export function bucketDecision(allowed: boolean, tokens: number, capacity: number, refillPerMs: number): BucketDecision {
  return {
    allowed,
    limit: capacity,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((capacity - tokens) / refillPerMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / refillPerMs / 1000)),
  };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Table size at which full buckets are looked for and forgotten. */
const PRUNE_THRESHOLD = 10_000;
/** Callers remembered at most, by default. */
const MAX_CALLERS = 100_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;
  private nextPruneAt: number;

  constructor(
    private readonly capacity: number,
    windowMs = 60_000,
    private readonly maxCallers = MAX_CALLERS,
  ) {
    this.refillPerMs = capacity / windowMs;
    this.nextPruneAt = Math.min(PRUNE_THRESHOLD, maxCallers);
  }

  /** Takes one token for `callerId` if there is one; `now` is monotonic milliseconds. */
  take(callerId: string, now = monotonicNow()): BucketDecision {
    const bucket = this.refilled(callerId, now);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return bucketDecision(allowed, bucket.tokens, this.capacity, this.refillPerMs);
  }

  /** Callers currently remembered. */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(callerId: string, now: number): Bucket {
    let bucket = this.buckets.get(callerId);
    if (!bucket) {
      if (this.buckets.size >= this.nextPruneAt) this.prune(now);
      bucket = { tokens: this.capacity, updatedAt: now };
      this.buckets.set(callerId, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + elapsedMs(bucket.updatedAt, now) * this.refillPerMs);
    bucket.updatedAt = now;
    // Re-inserted so the map's order is least recently used first, for the bound below.
    this.buckets.delete(callerId);
    this.buckets.set(callerId, bucket);
    return bucket;
  }

  private prune(now: number): void {
    for (const [id, bucket] of this.buckets) {
      if (bucket.tokens + elapsedMs(bucket.updatedAt, now) * this.refillPerMs >= this.capacity) this.buckets.delete(id);
    }
    // At the bound, down to 90 % of it, so a flood of new callers costs one scan per tenth of the table.
    const keep = Math.floor(this.maxCallers * 0.9);
    for (const id of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(id);
    }
    this.nextPruneAt = Math.min(this.maxCallers, Math.max(PRUNE_THRESHOLD, Math.ceil(this.buckets.size * 1.5)));
  }
}
