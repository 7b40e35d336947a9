import type { Db } from "./db.ts";

/**
 * Failed dashboard sign-ins shared by the nodes of a PostgreSQL store (issue 43): one row per bucket (an address's
 * network, a key prefix), counted by one atomic statement, so guesses spread over nodes add up in one count. Times
 * are the store's clock (dialect `nowMs`), which every node reads alike: node clocks may differ. The waits a count
 * earns are the caller's rules (ui/shared-sign-in-backoff.ts); this holds only the counts.
 */

/** A bucket's failures as the store holds them, with the store's time of reading. */
export interface FailureCount {
  failures: number;
  /** When the last failure was counted, ms since the epoch on the store's clock. */
  lastFailedAt: number;
  /** The store's clock when this was read. */
  now: number;
}

export class SignInFailuresRepo {
  constructor(private readonly db: Db) {}

  /**
   * Counts a failure against `bucket`, starting over from one when the last was more than `forgetAfterMs` ago;
   * returns the count.
   */
  async fail(bucket: string, forgetAfterMs: number): Promise<number> {
    const now = this.db.dialect.nowMs;
    const row = await this.db.get<{ failures: number }>(
      `INSERT INTO sign_in_failures (bucket, failures, last_failed_at) VALUES ($bucket, 1, ${now})
       ON CONFLICT (bucket) DO UPDATE SET
         failures = CASE WHEN ${now} - sign_in_failures.last_failed_at > CAST($forgetAfterMs AS bigint) THEN 1 ELSE sign_in_failures.failures + 1 END,
         last_failed_at = ${now}
       RETURNING failures`,
      { bucket, forgetAfterMs },
    );
    return Number(row!.failures);
  }

  /** `bucket`'s count, or undefined when it has none on record. */
  async get(bucket: string): Promise<FailureCount | undefined> {
    const row = await this.db.get<{ failures: number; last_failed_at: number; now: number }>(
      `SELECT failures, last_failed_at, ${this.db.dialect.nowMs} AS now FROM sign_in_failures WHERE bucket = $bucket`,
      { bucket },
    );
    return row === undefined ? undefined : { failures: Number(row.failures), lastFailedAt: Number(row.last_failed_at), now: Number(row.now) };
  }

  /**
   * Forgets counts whose last failure is more than `forgetAfterMs` old (they would start over anyway), then all but
   * the `keep` most recently failed: the table stays bounded however many addresses and prefixes fail. Rows removed.
   */
  async prune(forgetAfterMs: number, keep: number): Promise<number> {
    const old = await this.db.run(`DELETE FROM sign_in_failures WHERE last_failed_at < ${this.db.dialect.nowMs} - CAST($forgetAfterMs AS bigint)`, {
      forgetAfterMs,
    });
    const over = await this.db.run(
      `DELETE FROM sign_in_failures WHERE last_failed_at < (
         SELECT last_failed_at FROM sign_in_failures ORDER BY last_failed_at DESC LIMIT 1 OFFSET CAST($keep AS bigint))`,
      { keep },
    );
    return old.changes + over.changes;
  }

  /** Buckets on record. */
  async count(): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM sign_in_failures"))!.n);
  }
}
