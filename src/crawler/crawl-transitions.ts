import type { ComparedCrawl } from "../store/changes.repo.ts";
import { DIGEST_EVENT } from "../core/channels.ts";
import { storedEnd, type CrawlEnd } from "../core/crawl-life.ts";
import { endedEvents, startedEvent } from "../core/crawl-events.ts";
import { describeWarnings, mergeWarnings } from "../core/crawl-warnings.ts";
import { buildDigest, wantsDigest } from "../notifications/digest.ts";
import type { CrawlRecord, CrawlsRepo } from "../store/crawls.repo.ts";
import { LinksRepo } from "../store/links.repo.ts";
import type { Db } from "../store/db.ts";
import { CRAWL_LEASE, LeaseLostError, LeasesRepo, type HeldLease } from "../store/leases.repo.ts";
import { storeNow } from "../store/store-clock.ts";
import { crawlWarnings, readEndFacts } from "./crawl-end.ts";
import { comparedWith, settleOpenLinks } from "./open-links.ts";

/**
 * The crawl state changes clients hear about. Each change and its deliveries are one transaction, so a delivery
 * exists exactly when its change was committed (docs/architecture.md, "Outbox, not fire-and-forget"); the ending
 * transaction also settles warnings and open links, and is final (store/crawl-fence.ts). Every statement of a
 * change runs on its transaction's Db: the repos the body uses are built over it (CrawlsRepo.transaction).
 */

/** Queues the ended crawl's digest for the domain's channels that want it; builds it only when some channel exists. */
async function queueDigest(crawls: CrawlsRepo, crawl: EndedCrawl, against: ComparedCrawl | null, now: string): Promise<void> {
  const channels = await crawls.outbox.channelsFor(crawl.domain_id);
  if (channels.length === 0) return;
  const digest = await buildDigest(crawls.digests, { ...crawl, warnings: describeWarnings(crawl.warnings) }, against);
  const wanted = channels.filter((channel) => wantsDigest(channel.notify_when, digest)).map((channel) => channel.id);
  if (wanted.length > 0) await crawls.outbox.enqueueForChannels(wanted, DIGEST_EVENT, crawl.completed_at ?? now, digest, now);
}

/**
 * Moves the oldest pending crawl to running and queues `crawl.started`; the crawl, or undefined when none waits.
 * The transaction is opened only when a crawl waits: on SQLite a write transaction holds the file's write lock
 * across its awaits, and a crawl job running in this thread on its own connection (inline: `check`, tests) would
 * wait for it synchronously, holding the thread the transaction needs to commit; the pool asks after every launch.
 */
export async function claimNextCrawl(repo: CrawlsRepo, now: string, leaseFor?: LeaseRequest): Promise<ClaimedCrawl | undefined> {
  if (!(await repo.hasPending())) return undefined;
  return repo.transaction(async (crawls, tx) => {
    const id = await crawls.claimOldestPending(now);
    if (id === undefined) return undefined;
    const crawl = (await crawls.findById(id))!;
    await crawls.queueDeliveries([startedEvent(crawl)], now);
    if (leaseFor === undefined) return { ...crawl, lease: null };
    // A pending crawl has no live lease: the claim that moved it to running takes its lease in the same commit.
    const fence = await new LeasesRepo(tx).claim(CRAWL_LEASE, id, leaseFor.node, leaseFor.leaseMs, await storeNow(tx));
    if (fence === null) throw new Error(`crawl ${id} was claimed while another node held its lease`);
    return { ...crawl, lease: { kind: CRAWL_LEASE, key: id, node: leaseFor.node, fence } };
  });
}

/** Who asks for a crawl's lease with its claim (several nodes on one store), and for how long. */
export interface LeaseRequest {
  node: string;
  leaseMs: number;
}

/** A claimed crawl, with the lease its node took with it (null on the appliance). */
export type ClaimedCrawl = CrawlRecord & { lease: HeldLease | null };

/** Adds the warnings of its end to crawl `id`'s; inside the end's transaction. */
async function recordEndWarnings(crawls: CrawlsRepo, id: string): Promise<void> {
  const added = crawlWarnings(await readEndFacts(crawls, id));
  if (added.length > 0) await crawls.warnings.replace(id, mergeWarnings(await crawls.warnings.entries(id), added));
}

type EndedCrawl = Awaited<ReturnType<typeof endedCrawl>>;

/** The crawl as its end events and digest describe it: the row and its aggregated warnings. */
async function endedCrawl(crawls: CrawlsRepo, id: string) {
  return { ...(await crawls.findById(id))!, warnings: await crawls.warnings.entries(id) };
}

/**
 * What the run that ends a crawl knows and the store does not: whether its soft-404 probe let it tell soft 404s
 * (crawl.ts `CrawlRunEnd`). Unknown (a cancel, a crashed worker) counts as no.
 */
export interface RunFindings {
  soft404Judged?: boolean;
  /**
   * The lease the ending node holds on the crawl (several nodes on one store): the end is written only while it
   * does (LeaseLostError otherwise). Whoever ends a crawl, its lease goes with the end.
   */
  lease?: HeldLease | null;
}

/** Refuses the end unless `lease` is still held, then drops the crawl's lease whoever holds it; inside the end's transaction. */
async function endLease(tx: Db, id: string, lease: HeldLease | null | undefined): Promise<void> {
  const leases = new LeasesRepo(tx);
  if (lease != null && !(await leases.holds(lease.kind, lease.key, lease.node, lease.fence))) throw new LeaseLostError(lease);
  await leases.forget(CRAWL_LEASE, id);
}

/**
 * Ends crawl `id` (still pending or running) as completed, settles its open links, counts its broken links that
 * were not open before it (`new_broken_links`) and queues its end events and digest; false when it had already
 * ended (or is gone).
 */
export function completeCrawl(repo: CrawlsRepo, id: string, at: { now: string } & RunFindings): Promise<boolean> {
  const end: CrawlEnd = { kind: "completed" };
  return repo.transaction(async (crawls, tx) => {
    const links = new LinksRepo(tx);
    if (!(await crawls.markEnded(id, { ...storedEnd(end), now: at.now }))) return false;
    // After the crawl's row, as a batch takes them (crawl-fence.ts): the other order deadlocks with a batch in flight.
    await endLease(tx, id, at.lease);
    await recordEndWarnings(crawls, id);
    await settleOpenLinks(crawls.openLinks, (await crawls.findById(id))!, at.soft404Judged === true);
    const against = await comparedWith(crawls.openLinks, id);
    await crawls.setNewBrokenLinks(id, await links.changes.countNewBroken(id, against));
    const crawl = await endedCrawl(crawls, id);
    await crawls.queueDeliveries(endedEvents(crawl, end, crawl.broken_links > 0 ? await links.brokenSample(id) : []), at.now);
    await queueDigest(crawls, crawl, against, at.now);
    return true;
  });
}

/**
 * Ends crawl `id` (still pending or running) as failed or cancelled (stored as the spec's `failed`), settles its
 * open links and queues `crawl.failed` and its digest; false when it had already ended (or is gone).
 */
export function failCrawl(repo: CrawlsRepo, id: string, end: Exclude<CrawlEnd, { kind: "completed" }>, at: { now: string } & RunFindings): Promise<boolean> {
  return repo.transaction(async (crawls, tx) => {
    if (!(await crawls.markEnded(id, { ...storedEnd(end), now: at.now }))) return false;
    // After the crawl's row, as a batch takes them (crawl-fence.ts): the other order deadlocks with a batch in flight.
    await endLease(tx, id, at.lease);
    await recordEndWarnings(crawls, id);
    await settleOpenLinks(crawls.openLinks, (await crawls.findById(id))!, at.soft404Judged === true);
    const crawl = await endedCrawl(crawls, id);
    await crawls.queueDeliveries(endedEvents(crawl, end, []), at.now);
    await queueDigest(crawls, crawl, await comparedWith(crawls.openLinks, id), at.now);
    return true;
  });
}
