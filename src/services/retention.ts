import type { Logger } from "../core/logger.ts";
import type { RetentionRepo } from "../store/retention.repo.ts";

/**
 * Retention: at start and every `intervalMs`, prunes ended crawls past `storage.retention`'s limits (with their
 * links, frontier and ended webhook deliveries) and ended deliveries older than `max_age`. The work goes in
 * small transactions with a turn of the event loop between them, so API requests are served throughout.
 */

export interface RetentionSettings {
  maxAgeMs: number | null;
  keepLast: number | null;
  intervalMs: number;
}

export interface PruneReport {
  crawls: number;
  rows: number;
  deliveries: number;
}

export interface RetentionPrunerOptions {
  repo: RetentionRepo;
  settings: RetentionSettings;
  logger: Logger;
  /** Rows deleted per transaction. */
  chunkRows?: number;
  /** Null while the store's path still names the file opened; else nothing is pruned (store/store-file.ts). */
  storeProblem?: () => string | null;
  now?: () => number;
}

const DEFAULT_CHUNK_ROWS = 2_000;
/** Free pages given back to the file system per transaction (8 MiB of 4 KiB pages), the event loop free between. */
const RELEASE_PAGES = 2_048;
/** Crawls listed per query; a run goes on listing until none is left, or the per-run cap (the rest waits). */
const LIST_BATCH = 100;
const MAX_CRAWLS_PER_RUN = 10_000;

export class RetentionPruner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private current: Promise<PruneReport> | null = null;
  private stopping = false;

  constructor(private readonly options: RetentionPrunerOptions) {}

  start(): void {
    this.stopping = false;
    const tick = () => void this.run().catch((error: unknown) => this.options.logger.error("retention run failed", { error: String(error) }));
    tick();
    this.timer = setInterval(tick, this.options.settings.intervalMs);
  }

  /** Stops the timer and waits for a run in progress to reach its next chunk boundary. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.current?.catch(() => undefined);
  }

  /** One pass now; a pass already running is joined rather than doubled. */
  run(): Promise<PruneReport> {
    this.current ??= this.prune().finally(() => (this.current = null));
    return this.current;
  }

  private async prune(): Promise<PruneReport> {
    const { repo, settings, logger } = this.options;
    const chunk = this.options.chunkRows ?? DEFAULT_CHUNK_ROWS;
    const now = this.options.now?.() ?? Date.now();
    const endedBefore = settings.maxAgeMs === null ? null : new Date(now - settings.maxAgeMs).toISOString();
    const report: PruneReport = { crawls: 0, rows: 0, deliveries: 0 };
    if (this.options.storeProblem?.() != null) return report;

    for (
      let ids = await repo.expiredCrawls({ endedBefore, keepLast: settings.keepLast }, LIST_BATCH);
      ids.length > 0 && !this.stopping && report.crawls < MAX_CRAWLS_PER_RUN;
    ) {
      for (const crawlId of ids) {
        const removed = await this.removeCrawl(crawlId, chunk, () => this.stopping);
        report.rows += removed.rows;
        if (!removed.finished) return report;
        report.crawls += 1;
      }
      ids = await repo.expiredCrawls({ endedBefore, keepLast: settings.keepLast }, LIST_BATCH);
    }
    if (endedBefore !== null) {
      for (let gone = chunk; gone === chunk && !this.stopping; await nextTurn()) {
        gone = await repo.pruneDeliveries(endedBefore, chunk);
        report.deliveries += gone;
      }
    }
    if (report.crawls > 0 || report.deliveries > 0) {
      await this.releaseSpace(() => this.stopping);
      logger.info("retention pruned", { ...report });
    }
    return report;
  }

  /**
   * Gives the pages that deletions freed back to the file system, a few MiB per transaction, so a store that
   * once held a huge crawl does not keep its size for ever (docs/operations.md, "Disk space").
   */
  private async releaseSpace(stop: () => boolean): Promise<void> {
    const { repo } = this.options;
    if (!(await repo.canReleasePages())) return;
    // Bounded: each step frees up to RELEASE_PAGES of the pages free when it started; new ones wait for next time.
    for (let steps = Math.ceil((await repo.freePages()) / RELEASE_PAGES); steps > 0 && !stop(); steps--) {
      await repo.releaseFreePages(RELEASE_PAGES);
      await nextTurn();
    }
  }

  /**
   * Deletes a domain's ended crawls, with everything they hold, the same way: in small transactions with the
   * event loop free in between (a domain's crawls can be millions of rows). Returns how many went.
   */
  async removeEndedCrawlsOf(domainId: string): Promise<number> {
    const chunk = this.options.chunkRows ?? DEFAULT_CHUNK_ROWS;
    let removed = 0;
    // Bounded: every crawl listed is removed (only ended crawls are listed, and an ended crawl never restarts).
    for (
      let ids = await this.options.repo.endedCrawlsOf(domainId, LIST_BATCH);
      ids.length > 0;
      ids = await this.options.repo.endedCrawlsOf(domainId, LIST_BATCH)
    ) {
      for (const crawlId of ids) {
        // Not stopped by stop(): this is a request in flight, which a shutdown lets finish (until its deadline).
        await this.removeCrawl(crawlId, chunk, () => false);
        removed++;
      }
    }
    if (removed > 0) await this.releaseSpace(() => false);
    return removed;
  }

  /** One crawl, chunk by chunk, until it is gone or `stop()` says so. */
  private async removeCrawl(crawlId: string, chunk: number, stop: () => boolean): Promise<{ rows: number; finished: boolean }> {
    let rows = 0;
    // Bounded: each step deletes at least one row or the crawl itself.
    for (;;) {
      if (stop()) return { rows, finished: false };
      const step = await this.options.repo.pruneStep(crawlId, chunk);
      rows += step.deleted;
      await nextTurn();
      if (step.finished) return { rows, finished: true };
    }
  }
}

/** Lets queued I/O (API requests) run before the next transaction. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
