/**
 * Per-caller token buckets: each holds up to `capacity` tokens and refills continuously at
 * capacity per `windowMs`, so a caller may burst to the limit and then proceeds at the steady rate.
 * Full buckets are forgotten when the table grows, which bounds memory under many distinct callers.
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

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const PRUNE_THRESHOLD = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly capacity: number,
    windowMs = 60_000,
  ) {
    this.refillPerMs = capacity / windowMs;
  }

  /** Takes one token for `callerId` if there is one. */
  take(callerId: string, now = Date.now()): BucketDecision {
    const bucket = this.refilled(callerId, now);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: this.capacity,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.capacity - bucket.tokens) / this.refillPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)),
    };
  }

  private refilled(callerId: string, now: number): Bucket {
    let bucket = this.buckets.get(callerId);
    if (!bucket) {
      if (this.buckets.size >= PRUNE_THRESHOLD) this.pruneFull(now);
      bucket = { tokens: this.capacity, updatedAt: now };
      this.buckets.set(callerId, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  private pruneFull(now: number): void {
    for (const [id, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs >= this.capacity) this.buckets.delete(id);
    }
  }
}
