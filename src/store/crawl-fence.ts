import type { Db } from "./db.ts";

/**
 * The fence between a crawl's end and its worker: every write transaction of a crawl job first checks, under
 * the write lock, that its crawl is still `running`. A crawl ended elsewhere (cancelled by the service, which
 * writes the end state in its own transaction) therefore takes no write after the transaction that ended it,
 * so the counts and warnings the cancel answered with are final (docs/decisions.md, "Cancel is final").
 * On SQLite the job's immediate transaction holds the store's write lock; on PostgreSQL the crawl's row is read
 * `FOR SHARE`, so a cancel's UPDATE of it waits for the job's commit (and a job's read waits for a cancel's).
 */

/** The crawl a job writes for is no longer running (cancelled, or gone): nothing more may be written for it. */
export class CrawlEndedError extends Error {
  constructor(readonly crawlId: string) {
    super(`crawl ${crawlId} is no longer running`);
    this.name = "CrawlEndedError";
  }
}

/** Rejects with CrawlEndedError unless crawl `crawlId` is running; await it first inside a write transaction. */
export async function requireRunning(tx: Db, crawlId: string): Promise<void> {
  const row = await tx.get<{ status: string }>(`SELECT status FROM crawls WHERE id = $id${tx.dialect.shareLock}`, { id: crawlId });
  if (row?.status !== "running") throw new CrawlEndedError(crawlId);
}
