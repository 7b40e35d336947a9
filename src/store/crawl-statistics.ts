import type { Db } from "./db.ts";

/** The tables a crawl fills and its listings read (links, targets, broken links, pages, counts per status). */
const CRAWL_TABLES = ["links", "crawl_targets", "broken_links", "crawl_pages", "crawl_status_counts"] as const;

/** Brings the planner's statistics of the tables a crawl filled up to date (dialect.refreshStatistics). */
export async function refreshCrawlStatistics(db: Db): Promise<void> {
  for (const statement of db.dialect.refreshStatistics(CRAWL_TABLES)) await db.run(statement);
}
