import type { CrawlFailure } from "../core/crawl-failure.ts";
import { endedEvents, startedEvent } from "../core/crawl-events.ts";
import { mergeWarnings } from "../core/crawl-warnings.ts";
import type { CrawlRecord, CrawlsRepo } from "../store/crawls.repo.ts";
import type { LinksRepo } from "../store/links.repo.ts";
import { crawlWarnings, readEndFacts } from "./crawl-end.ts";

/**
 * The changes of a crawl's state that clients hear about: it starts running (`crawl.started`), it completes
 * (`crawl.completed`, and `broken_links.found` when it found any) or it fails (`crawl.failed`). Each change and
 * its webhook deliveries are one transaction, so a delivery exists exactly when its change was committed
 * (docs/architecture.md, "Outbox, not fire-and-forget"). What the end state is, crawl-end.ts judges. However a
 * crawl ends (completed, failed, cancelled, crashed), the warnings recorded while it ran are kept and those of
 * its end (crawl-end.ts `crawlWarnings`) are added in the same transaction, from its counts as they are then:
 * a crawl's worker writes nothing after its end (store/crawl-fence.ts), so those counts are final.
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

/** Adds the warnings of its end to crawl `id`'s; inside the end's transaction. */
function recordEndWarnings(crawls: CrawlsRepo, id: string): void {
  const added = crawlWarnings(readEndFacts(crawls, id));
  if (added.length > 0) crawls.warnings.replace(id, mergeWarnings(crawls.warnings.entries(id), added));
}

/** The crawl as its end events describe it: the row and its aggregated warnings. */
function endedCrawl(crawls: CrawlsRepo, id: string) {
  return { ...crawls.findById(id)!, warnings: crawls.warnings.entries(id) };
}

/**
 * Ends crawl `id` (still pending or running) as completed, counts the broken links the previous completed
 * crawl of its domain did not have (`new_broken_links`) and queues its end events; false when it had already
 * ended (or is gone).
 */
export function completeCrawl(store: { crawls: CrawlsRepo; links: LinksRepo }, id: string, end: { now: string }): boolean {
  const { crawls, links } = store;
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { status: "completed", error: null, failure: null, now: end.now })) return false;
    recordEndWarnings(crawls, id);
    const previous = crawls.previousCompleted(id);
    crawls.setNewBrokenLinks(id, links.countChanges(id, previous?.id ?? null, "new_broken"));
    const crawl = endedCrawl(crawls, id);
    crawls.queueDeliveries(endedEvents(crawl, crawl.broken_links > 0 ? links.brokenSample(id) : []), end.now);
    return true;
  });
}

/** Ends crawl `id` (still pending or running) as failed and queues `crawl.failed`; false when it had already ended (or is gone). */
export function failCrawl(crawls: CrawlsRepo, id: string, end: { error: string; failure: CrawlFailure; now: string }): boolean {
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { status: "failed", ...end })) return false;
    recordEndWarnings(crawls, id);
    crawls.queueDeliveries(endedEvents(endedCrawl(crawls, id), []), end.now);
    return true;
  });
}
