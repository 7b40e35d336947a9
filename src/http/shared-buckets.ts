import { TokenBuckets, bucketDecision, type BucketDecision } from "./token-bucket.ts";

/**
 * Token buckets every node of a PostgreSQL store shares (issue 43): each take is one atomic statement on the
 * caller's row (store/rate-buckets.repo.ts), so N nodes allow `capacity` a window in total, exactly, and the
 * RateLimit-* headers tell the bucket's true state whichever node answers. Chosen over node-local buckets synced
 * every second for that exactness, at a measured cost per request (docs/decisions.md, "Rate limits across nodes").
 * Time is the wall clock (the only clock nodes share); the repo refills nothing for a take stamped in the past.
 * If the store cannot answer, this node's own buckets decide, so /healthz and the error pages still answer
 * (limited per node meanwhile) rather than failing on the limiter.
 */

/** Where shared buckets live: store/rate-buckets.repo.ts. */
export interface SharedBucketStore {
  take(caller: string, capacity: number, perMs: number, now: number): Promise<{ allowed: boolean; tokens: number }>;
  prune(before: number): Promise<number>;
}

export class SharedTokenBuckets {
  private readonly perMs: number;
  private readonly local: TokenBuckets;
  private nextPruneAt = 0;

  constructor(
    private readonly store: SharedBucketStore,
    private readonly capacity: number,
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
  ) {
    this.perMs = capacity / windowMs;
    this.local = new TokenBuckets(capacity, windowMs);
  }

  /** Takes one token for `callerId` from its shared bucket. */
  async take(callerId: string): Promise<BucketDecision> {
    const now = this.clock();
    try {
      if (now >= this.nextPruneAt) {
        // Once a window per node: rows untouched for a whole window are full buckets, the same as no row.
        this.nextPruneAt = now + this.windowMs;
        await this.store.prune(now - this.windowMs);
      }
      const taken = await this.store.take(callerId, this.capacity, this.perMs, now);
      return bucketDecision(taken.allowed, taken.tokens, this.capacity, this.perMs);
    } catch {
      return this.local.take(callerId);
    }
  }
}
