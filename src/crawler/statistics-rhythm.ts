import type { Db } from "../store/db.ts";
import { refreshCrawlStatistics } from "../store/crawl-statistics.ts";

/** Pages written before the first refresh; each later one waits for ten times as many. */
const FIRST_REFRESH_PAGES = 500;

/**
 * When a crawl has the planner's statistics of its tables refreshed (a no-op on SQLite: dialect.refreshStatistics):
 * as it grows tenfold (500, 5,000, 50,000 … pages written) and once at its end. A PostgreSQL store whose tables were
 * never analyzed (a new cluster before autovacuum's first pass, or a server without it) planned a running crawl's
 * deep link pages as a join and sort of every link, seconds each, until the node's pool was full of them
 * (bench/README.md, "The API mix on PostgreSQL"). A refresh runs beside the crawl, never two at once; a failure
 * costs plans, not results, so it is reported and the crawl goes on.
 */
export class StatisticsRhythm {
  private pages = 0;
  private nextAt = FIRST_REFRESH_PAGES;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Told after each batch: the pages it wrote. */
  pagesWritten(pages: number): void {
    this.pages += pages;
    if (this.pages < this.nextAt || this.running !== null) return;
    while (this.nextAt <= this.pages) this.nextAt *= 10;
    this.running = this.refresh();
  }

  /** A refresh now (after any under way), awaited: the crawl's end. */
  async atEnd(): Promise<void> {
    await this.settled();
    await this.refresh();
  }

  /** Waits for a refresh under way. */
  async settled(): Promise<void> {
    await this.running;
  }

  private async refresh(): Promise<void> {
    try {
      await refreshCrawlStatistics(this.db);
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = null;
    }
  }
}
