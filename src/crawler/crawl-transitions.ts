import type { ComparedCrawl } from "../store/changes.repo.ts";
import { DIGEST_EVENT } from "../core/channels.ts";
import { storedEnd, type CrawlEnd } from "../core/crawl-life.ts";
import { endedEvents, startedEvent } from "../core/crawl-events.ts";
import { describeWarnings, mergeWarnings } from "../core/crawl-warnings.ts";
import { buildDigest, wantsDigest } from "../notifications/digest.ts";
import type { CrawlRecord, CrawlsRepo } from "../store/crawls.repo.ts";
import type { LinksRepo } from "../store/links.repo.ts";
import { crawlWarnings, readEndFacts } from "./crawl-end.ts";
import { comparedWith, settleOpenLinks } from "./open-links.ts";

/**
 * The crawl state changes clients hear about. Each change and its deliveries are one transaction, so a delivery
 * exists exactly when its change was committed (docs/architecture.md, "Outbox, not fire-and-forget"); the ending
 * transaction also settles warnings and open links, and is final (store/crawl-fence.ts).
 */

/** Queues the ended crawl's digest for the domain's channels that want it; builds it only when some channel exists. */
function queueDigest(crawls: CrawlsRepo, crawl: EndedCrawl, against: ComparedCrawl | null, now: string): void {
  const channels = crawls.outbox.channelsFor(crawl.domain_id);
  if (channels.length === 0) return;
  const digest = buildDigest(crawls.digests, { ...crawl, warnings: describeWarnings(crawl.warnings) }, against);
  const wanted = channels.filter((channel) => wantsDigest(channel.notify_when, digest)).map((channel) => channel.id);
  if (wanted.length > 0) crawls.outbox.enqueueForChannels(wanted, DIGEST_EVENT, crawl.completed_at ?? now, digest, now);
}

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

type EndedCrawl = ReturnType<typeof endedCrawl>;

/** The crawl as its end events and digest describe it: the row and its aggregated warnings. */
function endedCrawl(crawls: CrawlsRepo, id: string) {
  return { ...crawls.findById(id)!, warnings: crawls.warnings.entries(id) };
}

/**
 * What the run that ends a crawl knows and the store does not: whether its soft-404 probe let it tell soft 404s
 * (crawl.ts `CrawlRunEnd`). Unknown (a cancel, a crashed worker) counts as no.
 */
export interface RunFindings {
  soft404Judged?: boolean;
}

/**
 * Ends crawl `id` (still pending or running) as completed, settles its open links, counts its broken links that
 * were not open before it (`new_broken_links`) and queues its end events and digest; false when it had already
 * ended (or is gone).
 */
export function completeCrawl(store: { crawls: CrawlsRepo; links: LinksRepo }, id: string, at: { now: string } & RunFindings): boolean {
  const { crawls, links } = store;
  const end: CrawlEnd = { kind: "completed" };
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { ...storedEnd(end), now: at.now })) return false;
    recordEndWarnings(crawls, id);
    settleOpenLinks(crawls.openLinks, crawls.findById(id)!, at.soft404Judged === true);
    const against = comparedWith(crawls.openLinks, id);
    crawls.setNewBrokenLinks(id, links.changes.countNewBroken(id, against));
    const crawl = endedCrawl(crawls, id);
    crawls.queueDeliveries(endedEvents(crawl, end, crawl.broken_links > 0 ? links.brokenSample(id) : []), at.now);
    queueDigest(crawls, crawl, against, at.now);
    return true;
  });
}

/**
 * Ends crawl `id` (still pending or running) as failed or cancelled (stored as the spec's `failed`), settles its
 * open links and queues `crawl.failed` and its digest; false when it had already ended (or is gone).
 */
export function failCrawl(crawls: CrawlsRepo, id: string, end: Exclude<CrawlEnd, { kind: "completed" }>, at: { now: string } & RunFindings): boolean {
  return crawls.transaction(() => {
    if (!crawls.markEnded(id, { ...storedEnd(end), now: at.now })) return false;
    recordEndWarnings(crawls, id);
    settleOpenLinks(crawls.openLinks, crawls.findById(id)!, at.soft404Judged === true);
    const crawl = endedCrawl(crawls, id);
    crawls.queueDeliveries(endedEvents(crawl, end, []), at.now);
    queueDigest(crawls, crawl, comparedWith(crawls.openLinks, id), at.now);
    return true;
  });
}
