import type { LinkVerdict } from "../core/link-outcome.ts";
import type { SqlValue } from "../store/db.ts";
import type { FrontierRepo, NextIds, PageClaim } from "../store/frontier.repo.ts";
import type { StoredLinkKind, TargetState } from "../store/schema.ts";

/**
 * The rows one frontier batch writes, held until its end and written then in a few multi-row statements, so a
 * batch sends a number of statements that does not grow with its pages, links and targets (each one a round
 * trip to PostgreSQL: bench/README.md, "batch statements"). The batch decides every row from memory as it goes
 * (the frontier's target table, the pages claimed already): ids are given in advance from the store's next ids,
 * taken once a batch (nextIds), and the end checks the store agrees (rows changed, ids used), else throws
 * BatchAccountingError inside the transaction, so nothing of the batch is written.
 *
 * Targets are held only while the frontier's target table holds every target of the crawl (`predictsTargets`);
 * otherwise the frontier writes them one statement at a time, as the store decides.
 */

/**
 * A batch whose accounting does not add up (the store's counters against what the batch counted, a target's
 * waiting links against their chain, rows written against rows decided). Thrown inside the batch's transaction,
 * so nothing of the batch is written.
 */
export class BatchAccountingError extends Error {
  override readonly name = "BatchAccountingError";
}

const TARGET_VALUES = 10; // url, internal, as_page, depth, state, status_code, is_broken, error, warning, final_url
const LINK_VALUES = 6; // source url, target id, text, kind, waiting_prev_id, fragment
const PAGE_VALUES = 12; // url, cut, etag, last_modified, body_hash, body_bytes, links_found, excluded, first link id, link count, ids, gap

export class BatchWrites {
  private firstLinkId = 0;
  private firstTargetId = 0;
  private started = false;
  /** Whether targets are held here (the frontier's table is complete) rather than written as the batch goes. */
  private predictsTargets = false;
  private readonly newTargets: SqlValue[] = [];
  /** Changes to targets queued before the batch: the row each ends as (id, as_page, state, verdict, warning, final url). */
  private readonly changedTargets = new Map<number, SqlValue[]>();
  private readonly links: SqlValue[] = [];
  private readonly pages: SqlValue[] = [];
  /** Pages of the batch's results claimed already, by the store or earlier in the batch. */
  private claimed = new Set<string>();
  /** Fragments asked of links, flat (link id, target id, fragments JSON) triples. */
  readonly asked: (number | string)[] = [];

  /**
   * Takes the batch's next ids (on PostgreSQL, the tables' locks: before any row is inserted) and reads which of
   * `pageUrls` are claimed already; `predictsTargets`: the batch's targets are decided in memory.
   */
  async start(repo: FrontierRepo, crawlId: string, pageUrls: readonly string[], predictsTargets: boolean): Promise<void> {
    const ids = await repo.nextIds();
    this.firstLinkId = ids.links;
    this.firstTargetId = ids.crawl_targets;
    this.predictsTargets = predictsTargets;
    this.claimed = await repo.claimedPages(crawlId, pageUrls);
    this.started = true;
  }

  /** The id the next link of the batch gets. */
  get nextLinkId(): number {
    return this.firstLinkId + this.links.length / LINK_VALUES;
  }

  /** A new target, its id; `verdict` set: recorded done with it. */
  addTarget(url: string, internal: boolean, asPage: boolean, depth: number, verdict: LinkVerdict | null, finalUrl: string | null): number {
    if (!this.started || !this.predictsTargets) throw new Error("the batch does not hold its targets");
    const id = this.firstTargetId + this.newTargets.length / TARGET_VALUES;
    this.newTargets.push(url, internal ? 1 : 0, asPage ? 1 : 0, depth, "queued", null, null, null, null, null);
    if (verdict !== null) this.setVerdict(this.newTargets, (id - this.firstTargetId) * TARGET_VALUES + 4, "done", verdict, finalUrl);
    return id;
  }

  /**
   * Queued target `id` (`asPage` as it stands) ends the batch as `state`: done with `verdict` (and `finalUrl`),
   * skipped with `reason`, or still queued (made a page).
   */
  changeTarget(id: number, state: TargetState, asPage: boolean, verdict: LinkVerdict | null, finalUrl: string | null, reason: string | null = null): void {
    if (!this.started || !this.predictsTargets) throw new Error("the batch does not hold its targets");
    if (id >= this.firstTargetId) {
      // Inserted by this batch: its row is changed before it is written.
      const at = (id - this.firstTargetId) * TARGET_VALUES;
      this.newTargets[at + 2] = asPage ? 1 : 0;
      this.setVerdict(this.newTargets, at + 4, state, verdict, finalUrl);
      if (reason !== null) this.newTargets[at + 8] = reason;
      return;
    }
    const row: SqlValue[] = [id, asPage ? 1 : 0, "queued", null, null, null, null, null];
    this.setVerdict(row, 2, state, verdict, finalUrl);
    if (reason !== null) row[6] = reason;
    this.changedTargets.set(id, row);
  }

  /** Writes (state, status_code, is_broken, error, warning, final_url) into `row` from `at`. */
  private setVerdict(row: SqlValue[], at: number, state: TargetState, verdict: LinkVerdict | null, finalUrl: string | null): void {
    row[at] = state;
    row[at + 1] = verdict?.status_code ?? null;
    row[at + 2] = verdict === null ? null : verdict.is_broken ? 1 : 0;
    row[at + 3] = verdict?.error ?? null;
    row[at + 4] = verdict?.warning ?? null;
    row[at + 5] = finalUrl;
  }

  /** Claims page `url` with its first link id the batch's next one; false when it is claimed already (parsed under another URL). */
  claimPage(url: string, claim: Omit<PageClaim, "firstLinkId">): boolean {
    if (this.claimed.has(url)) return false;
    this.claimed.add(url);
    const { record } = claim;
    this.pages.push(
      url,
      claim.cut ? 1 : 0,
      record?.etag ?? null,
      record?.lastModified ?? null,
      record?.bodyHash ?? null,
      record?.bodyBytes ?? null,
      record?.linksFound ?? null,
      claim.excluded,
      this.nextLinkId,
      claim.linkCount,
      claim.ids?.hashes ?? null,
      claim.ids?.gap ?? null,
    );
    return true;
  }

  /** Adds a link of page `sourceUrl`; its id is nextLinkId before the call. */
  addLink(sourceUrl: string, targetId: number, text: string, kind: StoredLinkKind, waitingPrevId: number | null, fragment: string): void {
    this.links.push(sourceUrl, targetId, text, kind, waitingPrevId, fragment);
  }

  /**
   * Writes the held rows, those others refer to first (targets before links and crawl_waiting), and checks the
   * store agrees: every changed target was still queued, every page unclaimed, the ids the ones it gave.
   */
  async write(repo: FrontierRepo, crawlId: string): Promise<void> {
    if (!this.started) throw new Error("the batch was not started");
    await repo.insertTargets(crawlId, this.newTargets);
    const changed = [...this.changedTargets.values()].flat();
    const updated = await repo.updateQueuedTargets(changed);
    if (updated !== this.changedTargets.size)
      throw new BatchAccountingError(`crawl ${crawlId}: ${this.changedTargets.size} queued targets changed in memory, ${updated} in the store`);
    const pages = this.pages.length / PAGE_VALUES;
    const claimed = await repo.claimPages(crawlId, this.pages);
    if (claimed !== pages) throw new BatchAccountingError(`crawl ${crawlId}: ${pages} pages claimed in memory, ${claimed} in the store`);
    await repo.insertLinks(crawlId, this.links);
    this.check(crawlId, await repo.nextIdsAgain());
  }

  private check(crawlId: string, next: NextIds): void {
    if (next.links !== this.nextLinkId)
      throw new BatchAccountingError(`crawl ${crawlId}: the batch's links end before id ${this.nextLinkId}, the store's before ${next.links}`);
    const nextTarget = this.firstTargetId + this.newTargets.length / TARGET_VALUES;
    // Targets written one at a time take their ids as the store gives them (and on PostgreSQL, an upsert that
    // finds its row takes one too).
    if (this.predictsTargets && next.crawl_targets !== nextTarget)
      throw new BatchAccountingError(`crawl ${crawlId}: the batch's targets end before id ${nextTarget}, the store's before ${next.crawl_targets}`);
  }
}
