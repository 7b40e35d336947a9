import type { Db } from "./db.ts";

/**
 * Dashboard sessions signed out before their expiry, by the cookie's nonce (issue 43): on a PostgreSQL store every
 * node asks here, so a cookie signed out on one node is refused by the others; on the appliance the rows bring the
 * sign-outs back after a restart. Times are the callers' (ISO 8601 text compares in time order).
 */
export class EndedSessionsRepo {
  constructor(private readonly db: Db) {}

  /** Records the session `nonce` as signed out; signing out twice keeps the first row. */
  async add(nonce: string, expiresAt: Date): Promise<void> {
    await this.db.run("INSERT INTO ended_sessions (nonce, expires_at) VALUES ($nonce, $expiresAt) ON CONFLICT DO NOTHING", {
      nonce,
      expiresAt: expiresAt.toISOString(),
    });
  }

  /** Whether the session `nonce` was signed out. */
  async has(nonce: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS ended FROM ended_sessions WHERE nonce = $nonce", { nonce })) !== undefined;
  }

  /** The newest `limit` sign-outs still on record, newest expiry first (a node's memory at start). */
  async newest(limit: number): Promise<{ nonce: string; expires_at: string }[]> {
    return this.db.all("SELECT nonce, expires_at FROM ended_sessions ORDER BY expires_at DESC, nonce LIMIT $limit", { limit });
  }

  /** Forgets sign-outs of sessions that expired at or before `before`: the rows removed. */
  async prune(before: Date): Promise<number> {
    return (await this.db.run("DELETE FROM ended_sessions WHERE expires_at <= $before", { before: before.toISOString() })).changes;
  }
}
