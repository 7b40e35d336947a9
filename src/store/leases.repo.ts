import type { Db } from "./db.ts";

/**
 * Work leases (issue 43): who does a piece of work — a crawl, a delivery's attempt — among the nodes on one store.
 * A lease is taken when it is free (no row, released, or past its expiry), renewed by its holder's heartbeat, and
 * every claim raises its `fence`. Expiry only makes a lease takeable; the fence says who took it: a write checks
 * (holder, fence) with `holds` in its own transaction, so a holder that lost its lease is refused however long it
 * slept. No rules here (when to claim, how often to renew): those are the crawl pool's and the dispatcher's.
 * Times are the callers' `now` (ISO 8601 text compares in time order), so a test decides what time it is.
 */

/** What is leased: `kind` names the work's table ("crawl", "delivery"), `key` its id. */
export interface WorkKey {
  kind: string;
  key: string;
}

export interface Lease extends WorkKey {
  holder: string;
  expires_at: string;
  fence: number;
}

/** The lease kind of a crawl (its key: the crawl's id). */
export const CRAWL_LEASE = "crawl";

/** A lease as its holder knows it: what the holder's writes are checked against (`holds`). */
export interface HeldLease extends WorkKey {
  node: string;
  fence: number;
}

/** A write was refused because its node no longer holds the work's lease: another node took it over. */
export class LeaseLostError extends Error {
  constructor(readonly lease: HeldLease) {
    super(`node ${lease.node} no longer holds ${lease.kind} ${lease.key} (fence ${lease.fence}): another node took it over`);
    this.name = "LeaseLostError";
  }
}

/** A lease given back without finishing has this expiry: any later time is past it, so the next claim takes it. */
export const RELEASED_AT = "1970-01-01T00:00:00.000Z";

const LEASE_COLUMNS = "kind, key, holder, expires_at, fence";

const iso = (ms: number): string => new Date(ms).toISOString();

export class LeasesRepo {
  constructor(private readonly db: Db) {}

  /**
   * Takes the work for `node` until `now + leaseMs` if nobody holds it (never leased, released, or expired):
   * the new fence, or null when another node holds it. Of nodes claiming at once exactly one gets it: a first
   * claim is an insert the key admits once; a takeover locks the expired row and skips one another taker holds.
   */
  async claim(kind: string, key: string, node: string, leaseMs: number, now: Date): Promise<number | null> {
    const params = { kind, key, node, now: now.toISOString(), expiresAt: iso(now.getTime() + leaseMs) };
    return this.db.transaction(async (tx) => {
      const first = await tx.get<{ fence: number }>(
        "INSERT INTO work_leases (kind, key, holder, expires_at, fence) VALUES ($kind, $key, $node, $expiresAt, 1) ON CONFLICT DO NOTHING RETURNING fence",
        params,
      );
      if (first !== undefined) return first.fence;
      const free = await tx.get<{ fence: number }>(
        `SELECT fence FROM work_leases WHERE kind = $kind AND key = $key AND expires_at <= $now${tx.dialect.skipLocked}`,
        params,
      );
      if (free === undefined) return null;
      const taken = await tx.get<{ fence: number }>(
        "UPDATE work_leases SET holder = $node, expires_at = $expiresAt, fence = fence + 1 WHERE kind = $kind AND key = $key RETURNING fence",
        params,
      );
      return taken?.fence ?? null;
    });
  }

  /**
   * Extends every lease `node` holds to `now + leaseMs` (its heartbeat): the leases it still holds. One it
   * believes it holds and is not among them was taken over: its work must stop.
   */
  async renew(node: string, leaseMs: number, now: Date): Promise<Lease[]> {
    return this.db.all<Lease>(`UPDATE work_leases SET expires_at = $expiresAt WHERE holder = $node RETURNING ${LEASE_COLUMNS}`, {
      node,
      expiresAt: iso(now.getTime() + leaseMs),
    });
  }

  /** Gives the work up unfinished (the node stops): the next claim takes it at once, with a higher fence. False when not held. */
  async release(kind: string, key: string, node: string, fence: number): Promise<boolean> {
    const result = await this.db.run(
      "UPDATE work_leases SET expires_at = $releasedAt WHERE kind = $kind AND key = $key AND holder = $node AND fence = $fence",
      { kind, key, node, fence, releasedAt: RELEASED_AT },
    );
    return result.changes > 0;
  }

  /** Every lease `node` holds made free at once: a node that starts again under its name gives up what its last process held. */
  async releaseAll(node: string): Promise<number> {
    return (await this.db.run("UPDATE work_leases SET expires_at = $releasedAt WHERE holder = $node", { node, releasedAt: RELEASED_AT })).changes;
  }

  /** The work is done: its lease goes. False when `node` no longer held it. */
  async finish(kind: string, key: string, node: string, fence: number): Promise<boolean> {
    const result = await this.db.run("DELETE FROM work_leases WHERE kind = $kind AND key = $key AND holder = $node AND fence = $fence", {
      kind,
      key,
      node,
      fence,
    });
    return result.changes > 0;
  }

  /** The leases of `kind` that `node` holds, whatever their expiry. */
  async heldBy(node: string, kind: string): Promise<Lease[]> {
    return this.db.all<Lease>(`SELECT ${LEASE_COLUMNS} FROM work_leases WHERE holder = $node AND kind = $kind ORDER BY key`, { node, kind });
  }

  /** The work is over, whoever held it (a crawl ended by a cancel on another node): its lease goes. */
  async forget(kind: string, key: string): Promise<void> {
    await this.db.run("DELETE FROM work_leases WHERE kind = $kind AND key = $key", { kind, key });
  }

  /**
   * Running crawls no live node holds, oldest first: never leased (an appliance's store copied up; a cluster's
   * claim takes the lease in the same commit), released, or expired.
   */
  async unheldRunningCrawls(now: Date, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      `SELECT c.id FROM crawls c LEFT JOIN work_leases l ON l.kind = $kind AND l.key = c.id
       WHERE c.status = 'running' AND (l.key IS NULL OR l.expires_at <= $now)
       ORDER BY c.started_at, c.id LIMIT $limit`,
      { kind: CRAWL_LEASE, now: now.toISOString(), limit },
    );
    return rows.map((row) => row.id);
  }

  /** Leases of `kind` past their expiry at `now` (the work of silent nodes, and released work), longest expired first. */
  async expiredOf(kind: string, now: Date, limit: number): Promise<Lease[]> {
    return this.db.all<Lease>(`SELECT ${LEASE_COLUMNS} FROM work_leases WHERE kind = $kind AND expires_at <= $now ORDER BY expires_at, key LIMIT $limit`, {
      kind,
      now: now.toISOString(),
      limit,
    });
  }

  /**
   * Whether `node` still holds the work under `fence`: the check a write makes. Run it in the write's transaction:
   * on PostgreSQL it locks the lease row until the commit, so a takeover cannot slip between the check and the write
   * (a claim skips the row meanwhile and takes it on a later look).
   */
  async holds(kind: string, key: string, node: string, fence: number): Promise<boolean> {
    const row = await this.db.get(
      `SELECT 1 AS held FROM work_leases WHERE kind = $kind AND key = $key AND holder = $node AND fence = $fence${this.db.dialect.shareLock}`,
      { kind, key, node, fence },
    );
    return row !== undefined;
  }

  /** The lease on one piece of work, or undefined when it has none. */
  async find(kind: string, key: string): Promise<Lease | undefined> {
    return this.db.get<Lease>(`SELECT ${LEASE_COLUMNS} FROM work_leases WHERE kind = $kind AND key = $key`, { kind, key });
  }
}
