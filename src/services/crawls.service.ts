import type { CrawlOptions } from "../core/crawl-options.ts";
import { hasNoRules } from "../core/ignore-rules.ts";
import { ConflictError, CrawlInProgressError, DomainNotVerifiedError, NotFoundError } from "../core/errors.ts";
import { describeWarnings, warningCauses } from "../core/crawl-warnings.ts";
import { canonicalId, newId } from "../core/ids.ts";
import { isActive } from "../core/crawl-life.ts";
import { verdictLoadRhythm } from "../core/gc-rhythm.ts";
import { monotonicNow } from "../core/clock.ts";
import { failCrawl } from "../crawler/crawl-transitions.ts";
import { comparedWith } from "../crawler/open-links.ts";
import type { CrawlFilter, CrawlRecord, CrawlsRepo } from "../store/crawls.repo.ts";
import type { LinkRecord } from "../store/link-record.ts";
import type { LinkFilter, LinksRepo } from "../store/links.repo.ts";
import type { CrawlTrigger } from "../store/schema.ts";
import type {
  BrokenLinkView,
  ChangeKind,
  CrawlBriefView,
  ChangeView,
  CrawlDetailView,
  CrawlProgressView,
  CrawlRunOptions,
  CrawlSummaryView,
  CrawlView,
  LinkView,
  OrphanPageView,
} from "./crawl-view.ts";
import { CrawlResults } from "./crawl-results.ts";
import type { DomainsService, Page } from "./domains.service.ts";

/**
 * Crawls as use-cases: start one for a verified domain, read crawls and their links, cancel one. Running them is
 * the crawl pool's job; this service only tells it that there is work (`wake`) or that a crawl was cancelled.
 */

/** What the service needs from whatever runs crawls. */
export interface CrawlRunner {
  /** A crawl became pending. */
  wake(): void;
  /** A running crawl was marked failed/cancelled: stop working on it. */
  cancel(crawlId: string): void;
  /** Why the crawl cannot make progress right now (its store refuses writes: a full disk), or null. */
  stalled(crawlId: string): string | null;
}

export interface CrawlsServiceDeps {
  repo: CrawlsRepo;
  links: LinksRepo;
  domains: DomainsService;
  runner: CrawlRunner;
}

/**
 * One page of changes, with what it was compared against and the count of each kind; `final` is false while the
 * crawl runs (what it has not found broken yet counts as not checked until it ends).
 */
export type ChangesPage = Page<ChangeView> & { againstCrawlId: string | null; newBroken: number; fixed: number; notChecked: number; final: boolean };

export class CrawlsService {
  /** The crawl's results grouped by target: sorted, numbered pages, a target's every link, hosts, filtered streams. */
  readonly results: CrawlResults;

  constructor(private readonly deps: CrawlsServiceDeps) {
    this.results = new CrawlResults(deps.links, (id) => this.require(id));
  }

  /** Queues a crawl of a verified domain with no crawl in progress; `full` reads every page, reusing none (crawler/page-reuse.ts). */
  async start(domainId: string, options: CrawlOptions, trigger: CrawlTrigger = "api", how: { full?: boolean } = {}): Promise<CrawlView> {
    const domain = await this.deps.domains.require(domainId);
    if (domain.verified_at === null) {
      throw new DomainNotVerifiedError(`domain ${domain.name} is not verified; verify it before crawling`, [
        { field: "domain_id", message: "verify the domain with POST /domains/{id}/verify" },
      ]);
    }
    const id = newId();
    const outcome = await this.deps.repo.insertUnlessActive({
      id,
      domainId: domain.id,
      options,
      // The crawl keeps the rules of this moment: an edit of the domain's rules never changes a crawl under way.
      ignoreRules: domain.ignore_rules,
      full: how.full === true,
      trigger,
      createdAt: new Date().toISOString(),
    });
    if (!outcome.inserted) throw new CrawlInProgressError(domain.id, outcome.activeId);
    // Read before waking the runner: a new crawl is answered as `pending` (docs/api.md), even if a slot takes it at once.
    const row = await this.require(id);
    this.deps.runner.wake();
    return { id: row.id, domain_id: row.domain_id, status: row.status, options: runOptions(row), trigger: row.trigger, created_at: row.created_at };
  }

  async list(filter: CrawlFilter, page: number, limit: number): Promise<Page<CrawlSummaryView>> {
    const items = (await this.deps.repo.page(filter, (page - 1) * limit, limit)).map(toSummary);
    return { items, total: await this.deps.repo.count(filter) };
  }

  /** Targets the crawl has yet to check. */
  async queued(id: string): Promise<number> {
    return this.deps.repo.queuedCount((await this.require(id)).id);
  }

  /** A crawl's detail, with why it is waiting when the runner knows it cannot make progress. */
  async get(id: string): Promise<CrawlDetailView> {
    const row = await this.require(id);
    const warnings = await this.deps.repo.warnings.entries(row.id);
    return {
      ...toBrief(row, this.waitingReason(row)),
      warnings: describeWarnings(warnings),
      warning_causes: warningCauses(warnings),
      node: row.status === "running" ? ((await this.deps.repo.runningNode(row.id)) ?? null) : null,
      progress: await this.progressOf(row),
    };
  }

  /** Where a pending or running crawl's frontier stands; null once it has ended. */
  async progress(id: string): Promise<CrawlProgressView | null> {
    return this.progressOf(await this.require(id));
  }

  /**
   * Counting a big crawl's frontier takes a while (~70 ms at 500,000 targets), and a running crawl changes the
   * store several times a second: a count is reused for ten times what it cost, at least a second, so reading
   * progress never takes more than a tenth of the thread (bench/README.md, "A running crawl's progress").
   */
  private readonly frontierMemo = new Map<string, { at: number; reuseMs: number; counts: { found: number; queued: number } }>();

  private async progressOf(row: CrawlRecord): Promise<CrawlProgressView | null> {
    if (row.status !== "pending" && row.status !== "running") {
      this.frontierMemo.delete(row.id);
      return null;
    }
    const now = monotonicNow();
    let memo = this.frontierMemo.get(row.id);
    if (memo === undefined || now - memo.at >= memo.reuseMs) {
      const counts = await this.deps.repo.frontierCounts(row.id);
      const cost = monotonicNow() - now;
      memo = { at: now, reuseMs: Math.max(1_000, cost * 10), counts };
      if (this.frontierMemo.size >= 256) this.frontierMemo.clear(); // crawls that ended unseen; bounded anyway
      this.frontierMemo.set(row.id, memo);
    }
    const { found, queued } = memo.counts;
    return { targets_found: found, targets_checked: found - queued, targets_queued: queued };
  }

  /** The domain's pending or running crawl, if it has one (at most one: the store enforces it). */
  async active(domainId: string): Promise<CrawlSummaryView | null> {
    return (await this.list({ domainId, status: "running" }, 1, 1)).items[0] ?? (await this.list({ domainId, status: "pending" }, 1, 1)).items[0] ?? null;
  }

  /** The domain's newest completed crawl: the numbers to show beside a failed one. */
  async lastCompleted(domainId: string): Promise<CrawlSummaryView | null> {
    return (await this.list({ domainId, status: "completed" }, 1, 1)).items[0] ?? null;
  }

  /** A crawl's detail without its warnings, which pages listing crawls never read. */
  async brief(id: string): Promise<CrawlBriefView> {
    const row = await this.require(id);
    return toBrief(row, this.waitingReason(row));
  }

  /** Why an active crawl waits, when the runner knows it cannot make progress; null otherwise. */
  private waitingReason(row: CrawlRecord): string | null {
    const stalled = isActive(row.status) ? this.deps.runner.stalled(row.id) : null;
    return stalled === null ? null : `paused: ${stalled}; it keeps what it has written and goes on by itself once that is resolved`;
  }

  /** One page of a crawl's links; a deep page's positions are found first without holding the thread long. */
  async links(id: string, filter: LinkFilter, page: number, limit: number): Promise<Page<LinkView>> {
    const offset = (page - 1) * limit;
    const before = await this.require(id);
    await this.deps.links.preparePage(before, filter, offset);
    // As it is now: a running crawl may have moved on while positions were found (an ended one's links never change).
    const crawl = isActive(before.status) ? await this.require(id) : before;
    return { items: (await this.deps.links.page(crawl, filter, offset, limit)).map(toLinkView), total: await this.deps.links.count(crawl, filter) };
  }

  /**
   * Every checked link of the crawl in discovery order, streamed from the store a batch at a time (each record is
   * a fresh object); an unknown crawl is refused at the first batch.
   */
  async *allLinks(id: string): AsyncGenerator<LinkView[]> {
    yield* this.deps.links.each((await this.require(id)).id, verdictLoadRhythm());
  }

  /** The crawl's broken links in discovery order, streamed through their own index (what allLinks marks broken). */
  async *allBrokenLinks(id: string): AsyncGenerator<LinkView[]> {
    yield* this.deps.links.eachBroken((await this.require(id)).id);
  }

  async broken(id: string, page: number, limit: number): Promise<Page<BrokenLinkView>> {
    const crawl = await this.require(id);
    const filter = { isBroken: true };
    const offset = (page - 1) * limit;
    return { items: (await this.deps.links.page(crawl, filter, offset, limit)).map(toBrokenLinkView), total: await this.deps.links.count(crawl, filter) };
  }

  /**
   * What changed against the previous ended crawl of the same domain, over the links each left open (its broken
   * links and those it carried unchecked; crawler/open-links.ts holds the rule): links newly broken, then links
   * fixed (checked and found good), then links not checked this time (still open), one page of all three in that
   * order. Without a previous crawl every broken link is new. While the crawl runs nothing is fixed yet: the
   * links open before it that it has not found broken are not checked (yet).
   */
  /**
   * How many links found broken before an ended crawl did not check (its "not checked this time"): they are not
   * in its broken_links, and the crawl page shows them beside that count so a drop never reads as fixes. 0 while
   * it runs (nothing is decided yet).
   */
  async notCheckedCount(id: string): Promise<number> {
    const crawl = await this.require(id);
    return isActive(crawl.status) ? 0 : this.deps.links.changes.countUnchecked(crawl.id);
  }

  async changes(id: string, page: number, limit: number): Promise<ChangesPage> {
    const crawl = await this.require(id);
    const against = await comparedWith(this.deps.repo.openLinks, crawl.id);
    const final = !isActive(crawl.status);
    const repo = this.deps.links.changes;
    const closed = against === null ? 0 : await repo.countClosed(crawl.id, against);
    const readClosed = async (skip: number, count: number) => (against === null ? [] : repo.closed(crawl.id, against, skip, count));
    const sections: [ChangeKind, number, (skip: number, count: number) => Promise<LinkRecord[]>][] = [
      ["new_broken", await repo.countNewBroken(crawl.id, against), (skip, count) => repo.newBroken(crawl.id, against, skip, count)],
      ["fixed", final ? closed : 0, readClosed],
      ["not_checked", final ? await repo.countUnchecked(crawl.id) : closed, final ? (skip, count) => repo.unchecked(crawl.id, skip, count) : readClosed],
    ];
    const items: ChangeView[] = [];
    let skip = (page - 1) * limit;
    for (const [kind, total, read] of sections) {
      if (items.length >= limit) break;
      if (skip >= total) {
        skip -= total;
        continue;
      }
      items.push(...(await read(skip, Math.min(limit - items.length, total - skip))).map((link) => ({ change: kind, ...toLinkView(link) })));
      skip = 0;
    }
    const [newBroken, fixed, notChecked] = sections.map(([, total]) => total) as [number, number, number];
    return { items, total: newBroken + fixed + notChecked, againstCrawlId: against?.id ?? null, newBroken, fixed, notChecked, final };
  }

  /** One page of a crawl's orphan pages (listed in its sitemaps, linked from no crawled page) that are checked. */
  async orphans(id: string, page: number, limit: number): Promise<Page<OrphanPageView>> {
    const crawl = await this.require(id);
    return { items: await this.deps.links.orphans.page(crawl.id, (page - 1) * limit, limit), total: await this.deps.links.orphans.count(crawl.id) };
  }

  /** Every checked orphan page of a crawl, streamed a batch at a time (check's report). */
  async *allOrphans(id: string): AsyncGenerator<OrphanPageView[]> {
    yield* this.deps.links.orphans.each((await this.require(id)).id);
  }

  /**
   * Ends a pending or running crawl as cancelled (the spec's `failed`, failure "cancelled"); what it found, and its warnings, stay
   * readable, and its changes are settled (crawl-transitions.ts). The answer is final: the crawl's worker writes
   * nothing after this transaction (store/crawl-fence.ts).
   */
  async cancel(id: string): Promise<CrawlDetailView> {
    const crawl = await this.require(id);
    if (!(await failCrawl(this.deps.repo, crawl.id, { kind: "cancelled" }, { now: new Date().toISOString() }))) {
      const { status } = await this.require(id);
      throw new ConflictError(`crawl ${crawl.id} has already ended (${status})`, [{ field: "id", status }]);
    }
    this.deps.runner.cancel(crawl.id);
    return this.get(crawl.id);
  }

  private async require(id: string): Promise<CrawlRecord> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.deps.repo.findById(key);
    if (!row) throw new NotFoundError("crawl", id);
    return row;
  }
}

/** The options a crawl runs with as clients see them: the flags, and the ignore rules it was created with when it has some. */
function runOptions(row: CrawlRecord): CrawlRunOptions {
  return hasNoRules(row.ignore_rules) ? row.options : { ...row.options, ignore_rules: row.ignore_rules };
}

function toSummary(row: CrawlRecord): CrawlSummaryView {
  return {
    id: row.id,
    domain_id: row.domain_id,
    domain_name: row.domain_name,
    status: row.status,
    total_links: row.total_links,
    broken_links: row.broken_links,
    failure: row.failure,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}

function toBrief(row: CrawlRecord, waitingReason: string | null): CrawlBriefView {
  return {
    id: row.id,
    domain_id: row.domain_id,
    domain_name: row.domain_name,
    status: row.status,
    options: runOptions(row),
    total_links: row.total_links,
    broken_links: row.broken_links,
    pages_crawled: row.pages_crawled,
    skipped_links: row.skipped_links,
    excluded_links: row.excluded_links,
    pages_reused: row.pages_reused,
    sitemap_urls: row.sitemap_urls,
    orphan_pages: row.orphan_pages,
    new_broken_links: row.new_broken_links,
    trigger: row.trigger,
    truncated: row.truncated,
    pages_cut: row.pages_cut,
    error: row.error,
    failure: row.failure,
    waiting_reason: waitingReason,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}

function toLinkView(link: LinkRecord): LinkView {
  return { ...link };
}

function toBrokenLinkView(link: LinkRecord): BrokenLinkView {
  const { is_broken: _omitted, broken_since, ...rest } = link;
  // Every broken link has one (written with it; the migration gave older ones their crawl's start).
  return { ...rest, broken_since: broken_since ?? "" };
}
