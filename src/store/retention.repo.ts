import type { Database } from "bun:sqlite";

/**
 * The store side of retention: which ended crawls are past the limits, and deleting one crawl's rows a chunk
 * at a time. Each chunk is its own short transaction, so the API's readers and the crawl workers' writers get
 * the database between chunks; a crawl's row goes last, so an interrupted prune simply continues next time.
 */

export interface RetentionLimits {
  /** Ended before this instant (ISO); null: no age limit. */
  endedBefore: string | null;
  /** Keep this many newest ended crawls per domain; null: no count limit. */
  keepLast: number | null;
}

/** Tables holding a crawl's rows, in the order they are emptied (broken links point at links, links at targets; a target takes its crawl_waiting row along). */
const CHILD_TABLES = ["broken_links", "unchecked_links", "link_fragments", "links", "crawl_targets", "crawl_pages", "crawl_page_ids"] as const;

export class RetentionRepo {
  private readonly deleteChunk: Record<(typeof CHILD_TABLES)[number], ReturnType<Database["prepare"]>>;

  constructor(private readonly sqlite: Database) {
    this.deleteChunk = Object.fromEntries(
      CHILD_TABLES.map((table) => [
        table,
        sqlite.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE crawl_id = $crawlId LIMIT $limit)`),
      ]),
    ) as RetentionRepo["deleteChunk"];
  }

  /** Ended crawls past either limit, oldest first. */
  expiredCrawls(limits: RetentionLimits, max: number): string[] {
    if (limits.endedBefore === null && limits.keepLast === null) return [];
    return this.sqlite
      .query<{ id: string }, { endedBefore: string | null; keepLast: number | null; max: number }>(
        `SELECT id FROM (
           SELECT id, created_at, COALESCE(completed_at, created_at) AS ended_at,
                  ROW_NUMBER() OVER (PARTITION BY domain_id ORDER BY created_at DESC, id DESC) AS newest_rank
           FROM crawls WHERE status IN ('completed', 'failed')
         )
         WHERE ($endedBefore IS NOT NULL AND ended_at < $endedBefore) OR ($keepLast IS NOT NULL AND newest_rank > $keepLast)
         ORDER BY created_at, id LIMIT $max`,
      )
      .all({ endedBefore: limits.endedBefore, keepLast: limits.keepLast, max })
      .map((row) => row.id);
  }

  /** The domain's ended crawls, oldest first. */
  endedCrawlsOf(domainId: string, max: number): string[] {
    return this.sqlite
      .query<{ id: string }, { domainId: string; max: number }>(
        "SELECT id FROM crawls WHERE domain_id = $domainId AND status IN ('completed', 'failed') ORDER BY created_at, id LIMIT $max",
      )
      .all({ domainId, max })
      .map((row) => row.id);
  }

  /**
   * Deletes up to `chunk` rows of the crawl; once it has none left, the crawl itself and its ended webhook
   * deliveries. Returns the number of rows deleted and whether the crawl is gone.
   */
  pruneStep(crawlId: string, chunk: number): { deleted: number; finished: boolean } {
    return this.sqlite.transaction(() => {
      for (const table of CHILD_TABLES) {
        const { changes } = this.deleteChunk[table].run({ crawlId, limit: chunk });
        if (changes > 0) return { deleted: changes, finished: false };
      }
      const deliveries = this.sqlite
        .query("DELETE FROM webhook_deliveries WHERE state != 'pending' AND json_extract(payload, '$.data.crawl_id') = ?")
        .run(crawlId).changes;
      // Only an ended crawl: one started again since the listing (never happens today) would be left alone.
      const crawl = this.sqlite.query("DELETE FROM crawls WHERE id = ? AND status IN ('completed', 'failed')").run(crawlId).changes;
      return { deleted: deliveries + crawl, finished: true };
    })();
  }

  /**
   * Ended webhook deliveries (and their attempts) created before `before`; returns how many deliveries went.
   * Counted by RETURNING: `changes` would add the cascaded attempts, and the caller compares it to `max`.
   */
  pruneDeliveries(before: string, max: number): number {
    return this.sqlite
      .query<{ id: string }, [string, number]>(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE state != 'pending' AND created_at < ? LIMIT ?) RETURNING id`,
      )
      .all(before, max).length;
  }
}
