import type { Database } from "bun:sqlite";

/**
 * The fence between a crawl's end and its worker: every write transaction of a crawl job first checks, under
 * the write lock, that its crawl is still `running`. A crawl ended elsewhere (cancelled by the service, which
 * writes the end state in its own transaction) therefore takes no write after the transaction that ended it,
 * so the counts and warnings the cancel answered with are final (docs/decisions.md, "Cancel is final").
 */

/** The crawl a job writes for is no longer running (cancelled, or gone): nothing more may be written for it. */
export class CrawlEndedError extends Error {
  constructor(readonly crawlId: string) {
    super(`crawl ${crawlId} is no longer running`);
    this.name = "CrawlEndedError";
  }
}

/** Throws CrawlEndedError unless crawl `crawlId` is running; call first inside a write transaction. */
export function requireRunning(sqlite: Database, crawlId: string): void {
  const row = sqlite.query<{ status: string }, [string]>("SELECT status FROM crawls WHERE id = ?1").get(crawlId);
  if (row?.status !== "running") throw new CrawlEndedError(crawlId);
}
