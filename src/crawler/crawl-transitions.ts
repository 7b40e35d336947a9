import type { CrawlFailure } from "../core/crawl-failure.ts";
import { endedEvents, startedEvent } from "../core/crawl-events.ts";
import type { CrawlRecord, CrawlsRepo } from "../store/crawls.repo.ts";
import type { LinksRepo } from "../store/links.repo.ts";
import { comparedWith, settleOpenLinks } from "./open-links.ts";

/**
 * The changes of a crawl's state that clients hear about: it starts running (`crawl.started`), it completes
 * (`crawl.completed`, and `broken_links.found` when it found any) or it fails (`crawl.failed`). Each change and
 * its webhook deliveries are one transaction, so a delivery exists exactly when its change was committed
 * (docs/architecture.md, "Outbox, not fire-and-forget"). An ended crawl settles its domain's open links in the
 * same transaction (open-links.ts: what it did not check is carried), so what it changed is known the moment
 * it has ended. What the end state is, crawl-end.ts judges.
 */

/** Moves the oldest pending crawl to running and queues `crawl.started`; the crawl, or undefined when none waits. */
export function claimNextCrawl(crawls: CrawlsRepo, now: string): CrawlRecord | undefined {
  return crawls.transaction(() => {
    const id = crawls.claimOldestPending(now);
    if (id === undefined) return undefined;
    const crawl = crawls.findById(id)!;
    crawls.queueDeliveries([startedEvent(crawl)], now);
    return crawl;
  });
}

/**
 * Ends crawl `id` (still pending or running) as completed, settles its open links, counts its broken links that
 * were not open before it (`new_broken_links`) and queues its end events; false when it had already ended (or is
 * gone).
 */
export function completeCrawl(store: { crawls: CrawlsRepo; links: LinksRepo }, id: string, end: { warnings: string[]; now: string }): boolean {
  const { crawls, links } = store;
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { status: "completed", error: null, failure: null, warnings: end.warnings, now: end.now })) return false;
    settleOpenLinks(crawls.openLinks, crawls.findById(id)!);
    crawls.setNewBrokenLinks(id, links.changes.countNewBroken(id, comparedWith(crawls.openLinks, id)));
    const crawl = crawls.findById(id)!;
    crawls.queueDeliveries(endedEvents(crawl, crawl.broken_links > 0 ? links.brokenSample(id) : []), end.now);
    return true;
  });
}

/**
 * Ends crawl `id` (still pending or running) as failed, settles its open links and queues `crawl.failed`; false
 * when it had already ended (or is gone).
 */
export function failCrawl(
  crawls: CrawlsRepo,
  id: string,
  end: { error: string; failure: CrawlFailure; warnings: string[]; now: string },
): boolean {
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { status: "failed", ...end })) return false;
    const crawl = crawls.findById(id)!;
    settleOpenLinks(crawls.openLinks, crawl);
    crawls.queueDeliveries(endedEvents(crawl, []), end.now);
    return true;
  });
}
