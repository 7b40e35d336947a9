import type { Db } from "./db.ts";

/**
 * The store side of retention: which ended crawls are past the limits, and deleting one crawl's rows a chunk
 * at a time. Each chunk is its own short transaction, so the API's readers and the crawl workers' writers get
 * the database between chunks; a crawl's row goes last, so an interrupted prune simply continues next time.
 * SQL over the store's Db (store/db.ts); a chunk's rows are named by the dialect's row key.
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
  private readonly deleteChunk: Record<(typeof CHILD_TABLES)[number], string>;

  constructor(private readonly db: Db) {
    const key = db.dialect.rowKey;
    this.deleteChunk = Object.fromEntries(
      CHILD_TABLES.map((table) => [table, `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE crawl_id = $crawlId LIMIT $limit)`]),
    ) as RetentionRepo["deleteChunk"];
  }

  /** Ended crawls past either limit, oldest first. */
  async expiredCrawls(limits: RetentionLimits, max: number): Promise<string[]> {
    if (limits.endedBefore === null && limits.keepLast === null) return [];
    const rows = await this.db.all<{ id: string }>(
      `SELECT id FROM (
         SELECT id, created_at, COALESCE(completed_at, created_at) AS ended_at,
                ROW_NUMBER() OVER (PARTITION BY domain_id ORDER BY created_at DESC, id DESC) AS newest_rank
         FROM crawls WHERE status IN ('completed', 'failed')
       ) AS ended
       WHERE (CAST($endedBefore AS text) IS NOT NULL AND ended_at < CAST($endedBefore AS text))
          OR (CAST($keepLast AS bigint) IS NOT NULL AND newest_rank > CAST($keepLast AS bigint))
       ORDER BY created_at, id LIMIT $max`,
      { endedBefore: limits.endedBefore, keepLast: limits.keepLast, max },
    );
    return rows.map((row) => row.id);
  }

  /** The domain's ended crawls, oldest first. */
  async endedCrawlsOf(domainId: string, max: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      "SELECT id FROM crawls WHERE domain_id = $domainId AND status IN ('completed', 'failed') ORDER BY created_at, id LIMIT $max",
      { domainId, max },
    );
    return rows.map((row) => row.id);
  }

  /**
   * Deletes up to `chunk` rows of the crawl; once it has none left, the crawl itself and its ended webhook
   * deliveries. Returns the number of rows deleted and whether the crawl is gone.
   */
  pruneStep(crawlId: string, chunk: number): Promise<{ deleted: number; finished: boolean }> {
    return this.db.transaction(async (tx) => {
      for (const table of CHILD_TABLES) {
        const { changes } = await tx.run(this.deleteChunk[table], { crawlId, limit: chunk });
        if (changes > 0) return { deleted: changes, finished: false };
      }
      // Counted by RETURNING, alike on both stores: bun:sqlite's `changes` would add the rows ON DELETE CASCADE removes.
      const crawlOf = tx.dialect.jsonText("payload", ["data", "crawl_id"]);
      const deliveries = await tx.all(`DELETE FROM webhook_deliveries WHERE state != 'pending' AND ${crawlOf} = $crawlId RETURNING id`, { crawlId });
      // Only an ended crawl: one started again since the listing (never happens today) would be left alone.
      const crawl = await tx.all("DELETE FROM crawls WHERE id = $crawlId AND status IN ('completed', 'failed') RETURNING id", { crawlId });
      return { deleted: deliveries.length + crawl.length, finished: true };
    });
  }

  /** Pages of the store file that deletions left free (they are reused before the file grows); none on PostgreSQL. */
  async freePages(): Promise<number> {
    if (!this.db.dialect.filePages) return 0;
    return (await this.db.get<{ freelist_count: number }>("PRAGMA freelist_count"))?.freelist_count ?? 0;
  }

  /**
   * Gives up to `pages` free pages back to the file system (the file shrinks at the next checkpoint). Only a
   * store created with auto_vacuum=INCREMENTAL can (store/sqlite.ts); on any other it does nothing.
   */
  async releaseFreePages(pages: number): Promise<void> {
    if (!this.db.dialect.filePages) return;
    await this.db.run(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  }

  /** Whether the store can give free pages back (a SQLite store created with auto_vacuum=INCREMENTAL). */
  async canReleasePages(): Promise<boolean> {
    if (!this.db.dialect.filePages) return false;
    return (await this.db.get<{ auto_vacuum: number }>("PRAGMA auto_vacuum"))?.auto_vacuum === 2;
  }

  /**
   * Ended webhook deliveries (and their attempts) created before `before`; returns how many deliveries went.
   * Counted by RETURNING: `changes` would add the cascaded attempts, and the caller compares it to `max`.
   */
  async pruneDeliveries(before: string, max: number): Promise<number> {
    const gone = await this.db.all<{ id: string }>(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE state != 'pending' AND created_at < $before LIMIT $max) RETURNING id`,
      { before, max },
    );
    return gone.length;
  }
}
