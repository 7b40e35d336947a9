import type { CrawlRef, OpenLinksRepo } from "../store/open-links.repo.ts";

/**
 * `broken_since` of the links a crawl finds broken, decided when each is written: the previous ended crawl of the
 * domain left the link (source page, URL) open (broken, or carried unchecked: crawler/open-links.ts), so it
 * keeps the time it was first found broken; otherwise it broke in this crawl, and it is this crawl's start. A
 * crawl that did not check a link carries it unchanged; one that checked it and found it good closes it, so the
 * next time it breaks counts afresh. Nothing scans history: one lookup into the previous crawl per broken URL.
 */

/** URLs whose previous open links are kept looked up at once; a crawl's broken targets tend to come together. */
const CACHED_URLS = 4_096;

export class BrokenSince {
  /** Per URL, the previous crawl's open links to it by source page, with their broken_since; null for none. */
  private readonly open = new Map<string, Map<string, string> | null>();

  private constructor(
    private readonly repo: OpenLinksRepo,
    private readonly previous: CrawlRef | undefined,
    /** The crawl's own start: what a link newly broken in it gets. */
    readonly start: string,
  ) {}

  /** For crawl `crawlId`, against the previous ended crawl of its domain. */
  static of(repo: OpenLinksRepo, crawlId: string): BrokenSince {
    return new BrokenSince(repo, repo.previousEnded(crawlId), repo.startOf(crawlId) ?? new Date().toISOString());
  }

  /** Since when the link from `source` to `url` is broken, as this crawl finds it broken; `source` is read only when needed. */
  of(url: string, source: string | (() => string)): string {
    if (this.previous === undefined) return this.start;
    const open = this.openTo(url, this.previous);
    if (open === null) return this.start;
    return open.get(typeof source === "string" ? source : source()) ?? this.start;
  }

  private openTo(url: string, previous: CrawlRef): Map<string, string> | null {
    const cached = this.open.get(url);
    if (cached !== undefined) return cached;
    if (this.open.size >= CACHED_URLS) this.open.clear();
    const rows = this.repo.openSources(previous.id, url);
    const bySource = rows.length === 0 ? null : new Map(rows.map((row) => [row.source_url, row.broken_since ?? previous.started_at]));
    this.open.set(url, bySource);
    return bySource;
  }
}
