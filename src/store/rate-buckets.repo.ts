import type { Db } from "./db.ts";

/**
 * Token buckets shared by the nodes of a PostgreSQL store (issue 43): one row per caller, and a take is one
 * statement that refills the row by the time since its last take, takes a token when there is one and returns the
 * result, so nodes taking at once queue on the row and no token is handed out twice. Times are the callers'
 * milliseconds since the epoch; a take stamped earlier than the row refills nothing and leaves the stamp, so a node
 * whose clock lags cannot refill a bucket twice (one that leads refills early by its lead). No rules here (the
 * capacity and window come from the caller: http/shared-buckets.ts).
 */

/** What a take left in the bucket. */
export interface BucketTake {
  /** Whether this take got a token. */
  allowed: boolean;
  /** Tokens left after it (fractional). */
  tokens: number;
}

// Every parameter is cast: PostgreSQL would otherwise type `$perMs` from the bigint column it multiplies.
const NOW = "CAST($now AS bigint)";
const ELAPSED = `(CASE WHEN ${NOW} > rate_buckets.updated_at THEN ${NOW} - rate_buckets.updated_at ELSE 0 END)`;
const GROWN = `(rate_buckets.tokens + ${ELAPSED} * CAST($perMs AS double precision))`;
const REFILLED = `(CASE WHEN ${GROWN} >= CAST($capacity AS double precision) THEN CAST($capacity AS double precision) ELSE ${GROWN} END)`;
const TAKEN = `(CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END)`;

const TAKE = `INSERT INTO rate_buckets (caller, tokens, updated_at, allowed)
  VALUES ($caller, CAST($capacity AS double precision) - 1, ${NOW}, 1)
  ON CONFLICT (caller) DO UPDATE SET
    tokens = ${REFILLED} - ${TAKEN},
    allowed = ${TAKEN},
    updated_at = CASE WHEN ${NOW} > rate_buckets.updated_at THEN ${NOW} ELSE rate_buckets.updated_at END
  RETURNING tokens, allowed`;

export class RateBucketsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Takes one token from `caller`'s bucket (made full if it has no row) holding at most `capacity` tokens and
   * refilled by `perMs` tokens a millisecond, at `now` (milliseconds since the epoch).
   */
  async take(caller: string, capacity: number, perMs: number, now: number): Promise<BucketTake> {
    const row = await this.db.get<{ tokens: number; allowed: number }>(TAKE, { caller, capacity, perMs, now });
    return { allowed: Number(row!.allowed) === 1, tokens: Number(row!.tokens) };
  }

  /** Forgets buckets untouched since `before` (ms): a bucket left alone for a whole window is full, as a missing row is. */
  async prune(before: number): Promise<number> {
    return (await this.db.run("DELETE FROM rate_buckets WHERE updated_at < CAST($before AS bigint)", { before })).changes;
  }

  /** Buckets on record. */
  async count(): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM rate_buckets"))!.n);
  }
}
