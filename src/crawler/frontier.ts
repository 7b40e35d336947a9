import type { LinkVerdict } from "../core/link-outcome.ts";
import type { Db } from "../store/db.ts";
import { FragmentsRepo } from "../store/fragments.repo.ts";
import type { CrawlFence } from "../store/crawl-fence.ts";
import { FrontierRepo, type FrontierTarget, type StoredTarget, type WaitingLink } from "../store/frontier.repo.ts";
import { OpenLinksRepo, type LinkSource } from "../store/open-links.repo.ts";
import { BrokenSince, DATED_TOGETHER } from "./broken-since.ts";
import type { StoredLinkKind } from "../store/schema.ts";
import type { RedirectEnd } from "./check-target.ts";
import { hashesToBytes, type PageIds } from "./page-ids.ts";
import type { PageRecord } from "./page-reuse.ts";
import { TargetTable, type KnownTarget } from "./target-table.ts";
import { BatchAccountingError, BatchWrites } from "./batch-writes.ts";
import type { SitemapList } from "./sitemap-discovery.ts";
import { UNLINKED_DEPTH } from "../core/sitemap-entry.ts";
import { mergeWarnings, type WarningInput, type WarningTally } from "../core/crawl-warnings.ts";
import { WarningsRepo } from "../store/warnings.repo.ts";

/**
 * A crawl's frontier as the crawler works it: seeded with the start page, pulled in discovery order, and told
 * each batch of results, whose meaning it decides. Every batch is one transaction that marks targets done,
 * records new targets and links, and moves the crawl's counters by exactly what it wrote, so a crash between
 * batches loses only work that was never committed and a replayed result changes nothing (its target is no
 * longer `queued`). The rules (docs/api.md "Crawls"): an internal anchor makes a still-queued target a
 * page, and a target checked meanwhile as something else is handed back to be checked again, as a page;
 * max_pages and max_depth stop parsing, not checking; a Link counts once its target has a verdict; a
 * robots-skipped target is never fetched nor linked, only counted; a site's sitemap entries are recorded once the
 * pages reachable by links are crawled (recordSitemaps). The statements are store/frontier.repo.ts.
 *
 * Nothing reads links by target (links have no such index; see schema.ts): a link to a checked target is
 * counted as it is written; links to a queued target are counted in memory and chained through
 * links.waiting_prev_id until the target's verdict counts them all (and, when it is broken, follows the chain
 * to list them). The in-memory table of the crawl's targets (target-table.ts) holds those counts: writing
 * them to the store with every batch slowed crawls (bench/README.md, "What made the crawl linear"). They are
 * rebuilt from the links when a crawl resumes, and only targets beyond what the table holds keep theirs in
 * `crawl_waiting`.
 * What a batch learns about targets stays in the batch until it commits, then joins the table, so a
 * rolled-back batch leaves it as the store is.
 */

/** A link found on a parsed page, already gated by the crawl's options. */
export interface FoundLink {
  url: string;
  internal: boolean;
  kind: StoredLinkKind;
  text: string;
  /** Set for a link judged without a request (an href that cannot be checked): its target is recorded done. */
  verdict?: LinkVerdict;
  /**
   * With `check_fragments`: the URL's fragment (without `#`, as recorded: fragments.ts recordedFragment), part of
   * the Link's identity.
   */
  fragment?: string;
  /** The fragment waits for a verdict against the target page's ids at the crawl's end (fragment-check.ts). */
  judgeFragment?: boolean;
}

/** A reused page's links (page-reuse.ts), read one at a time into a record the frontier owns rather than an object each. */
export interface LinkRows {
  readonly count: number;
  /** Link `i` (0 ≤ i < count, in the page's order) into `into`, every field set. */
  read(i: number, into: FoundLink): void;
}

/** One finished piece of work, in the order it should be recorded. */
export type FrontierResult =
  | {
      kind: "checked";
      target: FrontierTarget;
      verdict: LinkVerdict;
      finalUrl: string | null;
      /** Recorded so the URL a page's redirects ended at is not fetched again. */
      redirectEnd: RedirectEnd | null;
      /**
       * The parsed page behind the target (its final URL and links, and whether its body was cut), when it was
       * one; `stylesheet`: it is a stylesheet of the site, whose links are recorded but which is not a page.
       */
      page: {
        url: string;
        links: FoundLink[];
        cut: boolean;
        stylesheet?: boolean;
        ids?: PageIds | null;
        excluded?: number;
        /** Kept with the page for the next crawl to reuse it (page-reuse.ts). */
        record?: PageRecord | null;
        /** Its links came from the previous crawl (page-reuse.ts), not from parsing it. */
        reused?: boolean;
        /** Those links (then `links` is empty), read from the previous crawl's rows. */
        reusedLinks?: LinkRows | null;
      } | null;
    }
  /** robots.txt refused the target; `reason` says how. */
  | { kind: "skipped"; target: FrontierTarget; reason: string };

/** What one committed batch did, as the crawl goes on from it. */
export interface BatchOutcome {
  /** Targets that became pages while they were checked as something else: to check again, as pages. */
  redo: FrontierTarget[];
  /** The crawl's parsed pages once the batch is in, as the store counted them (checked against the batch's own count). */
  pagesCrawled: number;
}

export { BatchAccountingError };

/** The page limits recording applies. */
export interface PageLimits {
  maxPages: number;
  maxDepth: number;
}

/**
 * Targets of one crawl held in memory (target-table.ts; its memory at the limit: bench/README.md, "Memory").
 * A crawl with more distinct targets asks the store about the rest, one lookup per link.
 */
export const MAX_KNOWN_TARGETS = 1 << 18;

function toKnown(row: StoredTarget): KnownTarget {
  return {
    id: row.id,
    state: row.state,
    asPage: row.as_page === 1,
    statusCode: row.status_code ?? 0,
    isBroken: row.is_broken === 1,
    waitingLinks: row.waiting_links ?? 0,
    lastWaitingLinkId: row.last_waiting_link_id ?? 0,
  };
}

/** A new link's links.waiting_prev_id: the link before it in the chain of its still-queued target. */
function waitingPrevId(target: KnownTarget): number | null {
  return target.state === "queued" && target.lastWaitingLinkId > 0 ? target.lastWaitingLinkId : null;
}

/** What one batch changes, kept apart until its transaction commits. */
class BatchChanges {
  /** Targets whose state the batch changed (or created), by URL: they join the known table after the commit. */
  readonly targets = new Map<string, KnownTarget>();
  /** URLs whose crawl_waiting row must be written (upserted while queued with links, deleted otherwise). */
  readonly waiting = new Set<string>();
  /** Broken targets whose waiting links become broken links (listWaiting), with the target as it waited. */
  readonly brokenWaiting: { url: string; target: KnownTarget }[] = [];
  /** Triples of (link id, target id, broken since) of links that became broken links. */
  readonly brokenLinks: (number | string)[] = [];
  /**
   * Links that became broken links and whose broken_since the previous crawl must tell, as (link id, target id,
   * target URL, page URL, fragment): dated together at the batch's end (listBrokenLater).
   */
  readonly brokenLater: (number | string)[] = [];
  /** Links counted, by status code * 2 + broken. */
  readonly statusCounts = new Map<number, number>();
  /** The rows the batch writes at its end (batch-writes.ts). */
  readonly writes = new BatchWrites();
  pagesAdded = 0;
  stylesheetsAdded = 0;
  total = 0;
  broken = 0;
  skipped = 0;
  excluded = 0;
  truncated = 0;
  pagesCut = 0;
  pagesReused = 0;

  /** Counts `links` links whose target has verdict `statusCode`/`isBroken`. */
  count(statusCode: number, isBroken: boolean, links: number): void {
    this.total += links;
    if (isBroken) this.broken += links;
    const key = statusCode * 2 + (isBroken ? 1 : 0);
    this.statusCounts.set(key, (this.statusCounts.get(key) ?? 0) + links);
  }
}

/** The repos of one batch, over its transaction. */
interface BatchStore {
  repo: FrontierRepo;
  fragments: FragmentsRepo;
  openLinks: OpenLinksRepo;
  warnings: WarningsRepo;
}

function batchStore(repo: FrontierRepo, tx: Db): BatchStore {
  return { repo, fragments: new FragmentsRepo(tx), openLinks: new OpenLinksRepo(tx), warnings: new WarningsRepo(tx) };
}

export class Frontier {
  private readonly repo: FrontierRepo;
  private readonly warnings: WarningsRepo;
  private readonly known: TargetTable;
  private knownFor: string | null = null;
  /** Stylesheets of the crawl read for their links so far (committed); they have a max_pages budget of their own. */
  private stylesheetsParsed = 0;
  /** Pages of the crawl parsed so far (committed): the store's pages_crawled, kept so a batch need not read it. */
  private pages = 0;

  private readonly openLinks: OpenLinksRepo;
  /** broken_since of the crawl's broken links (broken-since.ts), set for the crawl `use` holds. */
  private since: BrokenSince | null = null;

  /** The statements of fragment checks: asked fragments and pages' ids are written with the batch that finds them. */
  readonly fragments: FragmentsRepo;

  /** The job's store (its own connection): every batch is one transaction on it. */
  constructor(db: Db, options: { maxKnownTargets?: number; fence?: CrawlFence } = {}) {
    this.repo = new FrontierRepo(db, options.fence);
    this.warnings = new WarningsRepo(db);
    this.openLinks = new OpenLinksRepo(db);
    this.fragments = new FragmentsRepo(db, options.fence);
    this.known = new TargetTable(options.maxKnownTargets ?? MAX_KNOWN_TARGETS);
  }

  /** Queues the crawl's root page unless it is already in the frontier (a resumed crawl). */
  async seed(crawlId: string, rootUrl: string): Promise<void> {
    await this.use(crawlId);
    const changes = new BatchChanges();
    await this.repo.whileRunning(crawlId, async (repo, tx) => {
      await changes.writes.start(repo, crawlId, [], this.known.complete);
      await this.target(batchStore(repo, tx), crawlId, { url: rootUrl, internal: true, kind: "anchor" }, 0, changes);
      await changes.writes.write(repo, crawlId);
    });
    this.keepCommitted(changes);
  }

  /** Up to `limit` queued targets after `afterId`, in discovery order. */
  pull(crawlId: string, afterId: number, limit: number): Promise<FrontierTarget[]> {
    return this.repo.pull(crawlId, afterId, limit);
  }

  /** Records a batch of results in one transaction. */
  async commit(crawlId: string, results: FrontierResult[], limits: PageLimits): Promise<BatchOutcome> {
    await this.use(crawlId);
    if (results.length === 0) return { redo: [], pagesCrawled: this.pages };
    const changes = new BatchChanges();
    const redo = await this.repo.whileRunning(crawlId, (repo, tx) => this.recordBatch(batchStore(repo, tx), crawlId, results, limits, changes));
    this.keepCommitted(changes);
    return { redo, pagesCrawled: this.pages };
  }

  /** After a commit: what the batch learnt about targets joins the in-memory table, what it parsed the counts. */
  private keepCommitted(changes: BatchChanges): void {
    for (const [url, target] of changes.targets) this.known.set(url, target);
    this.stylesheetsParsed += changes.stylesheetsAdded;
    this.pages += changes.pagesAdded;
  }

  /**
   * What is known about `url` in this crawl: the batch's own changes first, then memory, then the store (a
   * promise only then: every link passes here, and most are answered from memory).
   */
  private lookup(s: BatchStore, crawlId: string, url: string, changes: BatchChanges): KnownTarget | undefined | Promise<KnownTarget | undefined> {
    const known = changes.targets.get(url) ?? this.known.get(url);
    if (known !== undefined || this.known.complete) return known;
    return s.repo.findTarget(crawlId, url).then((stored) => (stored === null ? undefined : toKnown(stored)));
  }

  /**
   * Makes the in-memory table hold `crawlId`'s targets (all of them, for a resumed crawl, up to the table's
   * limit), with the links waiting for each one counted from the links themselves; targets beyond the limit
   * get theirs in crawl_waiting. Outside any batch, so it reads what is committed.
   */
  private async use(crawlId: string): Promise<void> {
    if (this.knownFor === crawlId) return;
    this.known.clear();
    this.knownFor = null;
    try {
      this.since = await BrokenSince.of(this.openLinks, crawlId);
      let full = false;
      for (const row of await this.repo.targets(crawlId)) {
        if (!full && !this.known.set(row.url, toKnown(row))) full = true;
      }
      await this.repo.whileRunning(crawlId, async (repo) => {
        await repo.forgetWaiting(crawlId);
        const overflow: number[] = [];
        for (const row of await repo.waitingCounts(crawlId)) {
          const known = this.known.get(row.url);
          if (known !== undefined) this.known.set(row.url, { ...known, waitingLinks: row.links, lastWaitingLinkId: row.last_link_id });
          else overflow.push(row.id, row.links, row.last_link_id);
        }
        await repo.upsertWaiting(overflow);
      });
      this.stylesheetsParsed = await this.repo.stylesheetsParsed(crawlId);
      this.pages = await this.repo.pagesCrawled(crawlId);
    } catch (error) {
      // Half-rebuilt counts (every target at zero waiting links) must not pass for the crawl's: next time, again.
      this.known.clear();
      throw error;
    }
    this.knownFor = crawlId;
  }

  /**
   * A link's target when memory answers for it and it stays as it is (most links): no statement, no await.
   * Undefined when the store must be asked or written (target()).
   */
  private heldTarget(link: Pick<FoundLink, "url" | "internal" | "kind">, changes: BatchChanges): KnownTarget | undefined {
    const known = changes.targets.get(link.url) ?? this.known.get(link.url);
    if (known === undefined || (link.internal && link.kind === "anchor" && !known.asPage && known.state === "queued")) return undefined;
    return known;
  }

  /**
   * The frontier row of a link's target, created when new. An anchor turns a still-queued image or script
   * target into a page; a target already checked stays as it was.
   */
  private async target(
    s: BatchStore,
    crawlId: string,
    link: Pick<FoundLink, "url" | "internal" | "kind" | "verdict">,
    depth: number,
    changes: BatchChanges,
  ): Promise<KnownTarget> {
    return this.targetFrom(s, crawlId, link, depth, changes, await this.lookup(s, crawlId, link.url, changes));
  }

  /** target(), once what the crawl knows of the link's target is read. */
  private async targetFrom(
    s: BatchStore,
    crawlId: string,
    link: Pick<FoundLink, "url" | "internal" | "kind" | "verdict">,
    depth: number,
    changes: BatchChanges,
    known: KnownTarget | undefined,
  ): Promise<KnownTarget> {
    const wantsPage = link.internal && link.kind === "anchor";
    // With every target in memory, the batch holds its target rows to its end (batch-writes.ts); else the store decides.
    const held = this.known.complete;
    if (known === undefined && link.verdict !== undefined) {
      // Judged without a request: recorded done with its verdict.
      const { status_code, is_broken } = link.verdict;
      const id = held
        ? changes.writes.addTarget(link.url, link.internal, false, depth, link.verdict, null)
        : (await s.repo.upsertDone(crawlId, link.url, link.internal, depth, link.verdict, null))!;
      known = { id, state: "done", asPage: false, statusCode: status_code, isBroken: is_broken, waitingLinks: 0, lastWaitingLinkId: 0 };
      changes.targets.set(link.url, known);
    } else if (known === undefined) {
      const id = held
        ? changes.writes.addTarget(link.url, link.internal, wantsPage, depth, null, null)
        : await s.repo.insertTarget(crawlId, link.url, link.internal, wantsPage, depth);
      known = { id, state: "queued", asPage: wantsPage, statusCode: 0, isBroken: false, waitingLinks: 0, lastWaitingLinkId: 0 };
      changes.targets.set(link.url, known);
    } else if (wantsPage && !known.asPage && known.state === "queued") {
      if (held) changes.writes.changeTarget(known.id, "queued", true, null, null);
      else await s.repo.promoteToPage(known.id);
      known = { ...known, asPage: true };
      changes.targets.set(link.url, known);
    }
    return known;
  }

  /**
   * A queued target got its verdict: the links waiting for it count now; when it is broken, they are listed as
   * broken links at the batch's end (listWaiting), once the batch's own links are in the store.
   */
  private countWaiting(url: string, queued: KnownTarget, verdict: LinkVerdict, changes: BatchChanges): void {
    if (queued.waitingLinks > 0) {
      changes.count(verdict.status_code, verdict.is_broken, queued.waitingLinks);
      if (verdict.is_broken) changes.brokenWaiting.push({ url, target: queued });
      changes.waiting.add(url);
    }
    changes.targets.set(url, {
      ...queued,
      state: "done",
      statusCode: verdict.status_code,
      isBroken: verdict.is_broken,
      waitingLinks: 0,
      lastWaitingLinkId: 0,
    });
  }

  /**
   * Lists the links that waited for the batch's broken targets as broken links, to be dated with the others
   * (listBrokenLater): every chain (links.waiting_prev_id, newest first) read in one statement, each checked
   * against the count kept with its head.
   */
  private async listWaiting(s: BatchStore, changes: BatchChanges): Promise<void> {
    if (changes.brokenWaiting.length === 0) return;
    const chains = new Map<number, WaitingLink[]>();
    for (const link of await s.repo.waitingChains(changes.brokenWaiting.map(({ target }) => target.lastWaitingLinkId))) {
      const chain = chains.get(link.head);
      if (chain === undefined) chains.set(link.head, [link]);
      else chain.push(link);
    }
    for (const { url, target } of changes.brokenWaiting) {
      const chain = (chains.get(target.lastWaitingLinkId) ?? []).sort((a, b) => b.id - a.id).slice(0, target.waitingLinks);
      if (chain.length !== target.waitingLinks)
        throw new BatchAccountingError(`waiting links of target ${target.id}: chain holds ${chain.length}, count says ${target.waitingLinks}`);
      for (const link of chain) changes.brokenLater.push(link.id, target.id, url, link.source_url, link.fragment);
    }
  }

  /**
   * Lists the batch's broken links not dated yet (countLink, listWaiting), their dates read together: the links in
   * order, as many at a time as name DATED_TOGETHER target URLs, so each run's are all held when it is dated.
   */
  private async listBrokenLater(s: BatchStore, changes: BatchChanges): Promise<void> {
    const later = changes.brokenLater;
    const since = this.brokenSince();
    for (let from = 0; from < later.length; ) {
      const urls = new Set<string>();
      let to = from;
      for (; to < later.length; to += 5) {
        const url = later[to + 2] as string;
        if (urls.size === DATED_TOGETHER && !urls.has(url)) break;
        urls.add(url);
      }
      await since.readAhead(urls, s.openLinks);
      for (let i = from; i < to; i += 5) {
        const link = { source_url: later[i + 3] as string, fragment: later[i + 4] as string };
        const when = since.of(later[i + 2] as string, link, s.openLinks);
        changes.brokenLinks.push(later[i]!, later[i + 1]!, typeof when === "string" ? when : await when);
      }
      from = to;
    }
  }

  /**
   * Records one parsed page's links (written with the batch's, batch-writes.ts) and counts those whose target is
   * already checked. Each link's id is known before it is written (the batch's next one, taken under its write
   * lock), so a link can join the chain of a queued target that an earlier link of the same page joined (with
   * check_fragments, `/a#x` and `/a#y` are two Links waiting for one target). Every link of every page passes
   * here: one whose target memory holds takes no await (heldTarget; a broken one not yet dated waits for the
   * batch's end, listBrokenLater).
   */
  private async recordLinks(s: BatchStore, crawlId: string, page: { url: string; links: FoundLink[] }, depth: number, changes: BatchChanges): Promise<void> {
    for (const link of page.links) {
      const pending = this.recordLink(s, crawlId, page.url, link, depth, changes);
      if (pending !== undefined) await pending;
    }
  }

  /** recordLinks for a reused page's links, each read into one record in turn instead of an object each. */
  private async recordReusedLinks(s: BatchStore, crawlId: string, pageUrl: string, rows: LinkRows, depth: number, changes: BatchChanges): Promise<void> {
    const link: FoundLink = { url: "", internal: false, kind: "anchor", text: "" };
    for (let i = 0; i < rows.count; i++) {
      rows.read(i, link);
      const pending = this.recordLink(s, crawlId, pageUrl, link, depth, changes);
      if (pending !== undefined) await pending;
    }
  }

  /**
   * One link of page `pageUrl`: its target found (or created), counted, and its row added to the batch's; a
   * promise only when the store must be asked.
   */
  private recordLink(s: BatchStore, crawlId: string, pageUrl: string, link: FoundLink, depth: number, changes: BatchChanges): Promise<void> | undefined {
    const target = this.heldTarget(link, changes);
    if (target === undefined) return this.target(s, crawlId, link, depth, changes).then((created) => this.addLink(pageUrl, link, created, changes));
    this.addLink(pageUrl, link, target, changes);
    return undefined;
  }

  /** recordLink once the link's target is known. */
  private addLink(pageUrl: string, link: FoundLink, target: KnownTarget, changes: BatchChanges): void {
    const { writes } = changes;
    const fragment = link.fragment === undefined ? "" : `#${link.fragment}`;
    this.countLink(pageUrl, link, fragment, writes.nextLinkId, target, changes, writes.asked);
    writes.addLink(pageUrl, target.id, link.text, link.kind, waitingPrevId(target), fragment);
  }

  /**
   * One link's accounting, `linkId` its id to be, once its target is known (created when new): counted when
   * checked, joined to the chain of a queued one, its fragment asked; one to a broken target is listed as a broken
   * link, at once when its date is known, else at the batch's end (listBrokenLater).
   */
  private countLink(
    pageUrl: string,
    link: FoundLink,
    fragment: string,
    linkId: number,
    target: KnownTarget,
    changes: BatchChanges,
    asked: (number | string)[],
  ): void {
    if (link.judgeFragment === true && !target.isBroken && target.state !== "skipped") asked.push(linkId, target.id, JSON.stringify([link.fragment]));
    if (target.state === "done") {
      changes.count(target.statusCode, target.isBroken, 1);
      if (!target.isBroken) return;
      const since = this.brokenSince().known(link.url, { source_url: pageUrl, fragment });
      if (since !== undefined) changes.brokenLinks.push(linkId, target.id, since);
      else changes.brokenLater.push(linkId, target.id, link.url, pageUrl, fragment);
    } else if (target.state === "queued") {
      changes.targets.set(link.url, { ...target, waitingLinks: target.waitingLinks + 1, lastWaitingLinkId: linkId });
      changes.waiting.add(link.url);
    }
  }

  /** What a batch of results means, written inside its transaction; returns the targets to check again. */
  private async recordBatch(s: BatchStore, crawlId: string, results: FrontierResult[], limits: PageLimits, changes: BatchChanges): Promise<FrontierTarget[]> {
    const redo: FrontierTarget[] = [];
    let pages = this.pages;
    // With every target in memory, memory decides each target's row (held to the batch's end); else the store does.
    const held = this.known.complete;
    const pageUrls = results.flatMap((result) => (result.kind === "checked" && result.page !== null ? [result.page.url] : []));
    await changes.writes.start(s.repo, crawlId, pageUrls, held);
    for (const result of results) {
      const { target } = result;
      if (result.kind === "skipped") {
        if (held) {
          const known = this.pulled(crawlId, target, changes);
          if (known.state !== "queued") continue;
          changes.writes.changeTarget(known.id, "skipped", known.asPage, null, null, result.reason);
        } else if (!(await s.repo.markSkipped(target.id, result.reason))) continue;
        changes.skipped++;
        const known = await this.lookup(s, crawlId, target.url, changes);
        if (known !== undefined) {
          changes.targets.set(target.url, { ...known, state: "skipped", waitingLinks: 0, lastWaitingLinkId: 0 });
          changes.waiting.add(target.url);
        }
        continue;
      }
      const { verdict } = result;
      // Not marked done when no longer queued as it was pulled. Still queued: an anchor found since it was pulled
      // made it a page, so checking it as a target was not enough. Otherwise it was recorded already (a replay
      // after a restart).
      if (held) {
        const known = this.pulled(crawlId, target, changes);
        if (known.state !== "queued") continue;
        if (known.asPage !== target.asPage) {
          redo.push({ ...target, asPage: true });
          continue;
        }
        changes.writes.changeTarget(known.id, "done", known.asPage, verdict, result.finalUrl);
      } else if (!(await s.repo.markDone(target, verdict, result.finalUrl))) {
        if (await s.repo.isQueued(target.id)) redo.push({ ...target, asPage: true });
        continue;
      }
      const queued = await this.lookup(s, crawlId, target.url, changes);
      if (queued === undefined) throw new Error(`target ${target.id} (${target.url}) is not in the frontier of crawl ${crawlId}`);
      this.countWaiting(target.url, queued, verdict, changes);
      if (result.redirectEnd !== null) {
        const end = result.redirectEnd;
        const before = await this.lookup(s, crawlId, end.url, changes);
        const id = held
          ? this.heldDone(end, target.depth, before, changes)
          : await s.repo.upsertDone(crawlId, end.url, end.internal, target.depth, end.verdict, end.url);
        if (id !== null) {
          const waiting =
            before?.state === "queued"
              ? before
              : { id, state: "queued" as const, asPage: false, statusCode: 0, isBroken: false, waitingLinks: 0, lastWaitingLinkId: 0 };
          this.countWaiting(end.url, { ...waiting, id }, end.verdict, changes);
        }
      }

      if (result.page === null) continue;
      // Kept even for a page past the limits: its ids still judge the fragments asked of it.
      const ids = result.page.ids;
      const idBytes = ids == null ? null : hashesToBytes(ids.hashes);
      if (ids != null) await s.fragments.insertPageIds(crawlId, result.page.url, idBytes, ids.gap);
      const stylesheet = result.page.stylesheet === true;
      // A stylesheet is not a page (pages_crawled), but CSS importing CSS is a trap like any other: its own budget.
      const full = stylesheet ? this.stylesheetsParsed + changes.stylesheetsAdded >= limits.maxPages : pages >= limits.maxPages;
      if (full || target.depth > limits.maxDepth) {
        changes.truncated = 1;
        continue;
      }
      // The page's links will be the batch's next ids: claimed with them, so a later crawl can read them back by id
      // (nothing else writes links meanwhile: the batch holds the write lock, or on PostgreSQL the link ids' lock).
      const excluded = result.page.excluded ?? 0;
      // The ids go with the page's record only: nothing reuses the page without one.
      const keptIds = ids != null && result.page.record != null ? { hashes: idBytes!, gap: ids.gap } : null;
      const reusedLinks = result.page.reusedLinks ?? null;
      const linkCount = reusedLinks === null ? result.page.links.length : reusedLinks.count;
      const claim = { cut: result.page.cut, record: result.page.record ?? null, excluded, linkCount, ids: keptIds };
      if (!changes.writes.claimPage(result.page.url, claim)) continue; // parsed under another URL
      if (stylesheet) {
        changes.stylesheetsAdded++;
      } else {
        pages++;
        changes.pagesAdded++;
      }
      if (result.page.cut) changes.pagesCut++;
      if (result.page.reused === true) changes.pagesReused++;
      changes.excluded += excluded;
      if (reusedLinks === null) await this.recordLinks(s, crawlId, result.page, target.depth + 1, changes);
      else await this.recordReusedLinks(s, crawlId, result.page.url, reusedLinks, target.depth + 1, changes);
    }
    await this.writeChanges(s, crawlId, changes);
    return redo;
  }

  /**
   * A pulled target as memory holds it (the batch's changes first), when memory holds every target: it must be
   * there, as pulled.
   */
  private pulled(crawlId: string, target: FrontierTarget, changes: BatchChanges): KnownTarget {
    const known = changes.targets.get(target.url) ?? this.known.get(target.url);
    if (known === undefined || known.id !== target.id) throw new Error(`target ${target.id} (${target.url}) is not in the frontier of crawl ${crawlId}`);
    return known;
  }

  /**
   * The store's upsertDone of a redirect's end, decided in memory (`before`: the end's target, if any): a new
   * target recorded done, a queued one marked done; its id, or null when it had a verdict already.
   */
  private heldDone(end: RedirectEnd, depth: number, before: KnownTarget | undefined, changes: BatchChanges): number | null {
    if (before === undefined) return changes.writes.addTarget(end.url, end.internal, false, depth, end.verdict, end.url);
    if (before.state !== "queued") return null;
    changes.writes.changeTarget(before.id, "done", before.asPage, end.verdict, end.url);
    return before.id;
  }

  /**
   * Writes what a batch counted: its held rows (batch-writes.ts), waiting links, broken links, status counts and
   * the crawl's counters. The one check of a batch's counts: the store's pages_crawled moved by exactly the pages
   * the batch claimed.
   */
  private async writeChanges(s: BatchStore, crawlId: string, changes: BatchChanges): Promise<void> {
    await changes.writes.write(s.repo, crawlId);
    await s.fragments.insertLinkFragments(crawlId, changes.writes.asked);
    await this.listWaiting(s, changes);
    await this.listBrokenLater(s, changes);
    await this.writeWaiting(s, changes);
    await s.repo.insertBrokenLinks(crawlId, changes.brokenLinks);
    await s.repo.addStatusCounts(
      crawlId,
      [...changes.statusCounts].flatMap(([key, links]) => [Math.floor(key / 2), key % 2, links]),
    );
    const pages = await s.repo.addCounts(crawlId, changes);
    if (pages !== this.pages + changes.pagesAdded) {
      throw new BatchAccountingError(`crawl ${crawlId}: the store counts ${pages} pages, the frontier ${this.pages} + ${changes.pagesAdded} from this batch`);
    }
  }

  /**
   * Records the entries of a site's sitemaps, once the pages reachable by links have all been crawled: one
   * Link of kind `sitemap` per (sitemap, entry), counted like any link. An entry no page led to becomes a new
   * target at UNLINKED_DEPTH, checked like an image (not parsed): the crawl's orphan pages. `warnings` join the
   * crawl's (merged per cause, within their budget) in the same transaction, with the counts `sitemap_urls` and
   * `orphan_pages` (and the entries an ignore rule kept out, `excluded`, in `excluded_links`). Once per crawl
   * (sitemapsRecorded tells a resumed crawl).
   */
  async recordSitemaps(crawlId: string, lists: readonly SitemapList[], warnings: WarningTally, excluded = 0): Promise<void> {
    await this.use(crawlId);
    const changes = new BatchChanges();
    changes.excluded = excluded;
    await this.repo.whileRunning(crawlId, async (repo, tx) => {
      const s = batchStore(repo, tx);
      await changes.writes.start(repo, crawlId, [], this.known.complete);
      const listed = new Set<string>();
      let orphans = 0;
      for (const list of lists) {
        for (const url of list.urls) {
          if (listed.has(url)) continue;
          listed.add(url);
          if ((await this.lookup(s, crawlId, url, changes)) === undefined) orphans++;
        }
      }
      for (const list of lists) {
        const links: FoundLink[] = list.urls.map((url) => ({ url, internal: true, kind: "sitemap", text: "" }));
        await this.recordLinks(s, crawlId, { url: list.sitemapUrl, links }, UNLINKED_DEPTH, changes);
      }
      await this.writeChanges(s, crawlId, changes);
      await repo.setSitemapCounts(crawlId, listed.size, orphans);
      await s.warnings.replace(crawlId, mergeWarnings(await s.warnings.entries(crawlId), warnings));
    });
    this.keepCommitted(changes);
  }

  /** How the crawl `use` holds dates its broken links. */
  private brokenSince(): BrokenSince {
    if (this.since === null) throw new Error("the frontier holds no crawl");
    return this.since;
  }

  /** Since when `link` to the target at `url` of crawl `crawlId` is broken, as the crawl finds it broken now. */
  async brokenSinceOf(crawlId: string, url: string, link: LinkSource): Promise<string> {
    await this.use(crawlId);
    return this.brokenSince().of(url, link);
  }

  /** Pages the crawl has parsed so far (committed). */
  async pagesCrawled(crawlId: string): Promise<number> {
    return this.knownFor === crawlId ? this.pages : this.repo.pagesCrawled(crawlId);
  }

  /** Whether the crawl's sitemap entries were recorded already (by an earlier run of a resumed crawl). */
  async sitemapsRecorded(crawlId: string): Promise<boolean> {
    return (await this.repo.sitemapUrls(crawlId)) !== null;
  }

  /**
   * Adds `warnings` to the crawl's (merged per cause; plain text once), for what its end judgement cannot see:
   * in a fenced transaction of its own, or on `tx`, a fenced transaction of the caller's.
   */
  async addWarnings(crawlId: string, warnings: readonly WarningInput[], tx?: Db): Promise<void> {
    if (warnings.length === 0) return;
    const add = async (repo: WarningsRepo) => repo.replace(crawlId, mergeWarnings(await repo.entries(crawlId), warnings));
    if (tx !== undefined) await add(new WarningsRepo(tx));
    else await this.repo.whileRunning(crawlId, (_repo, own) => add(new WarningsRepo(own)));
  }

  /**
   * Keeps crawl_waiting for the targets the in-memory table does not hold (only ever on a crawl with more
   * targets than it holds): a row per such queued target with links, none for the others.
   */
  private async writeWaiting(s: BatchStore, changes: BatchChanges): Promise<void> {
    let added = 0;
    for (const url of changes.targets.keys()) if (this.known.get(url) === undefined) added++;
    if (this.known.complete && added <= this.known.room) return; // every one of them will be held
    const upserts: number[] = [];
    for (const url of changes.waiting) {
      if (this.known.get(url) !== undefined) continue;
      const target = changes.targets.get(url)!;
      if (target.state === "queued" && target.waitingLinks > 0) upserts.push(target.id, target.waitingLinks, target.lastWaitingLinkId);
      else await s.repo.deleteWaiting(target.id);
    }
    await s.repo.upsertWaiting(upserts);
  }
}
