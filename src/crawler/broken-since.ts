import type { CrawlRef, LinkSource, OpenLinksRepo } from "../store/open-links.repo.ts";
import { linkKey, matchFragments } from "./open-links.ts";

/**
 * `broken_since` of a link found broken: kept from the previous ended crawl when it left the link open, else this
 * crawl's start. Looked up in the previous crawl by broken URL, a batch's URLs in one statement (readAhead);
 * nothing scans history (open-links.ts).
 */

/** URLs whose previous open links are kept looked up at once; a crawl's broken targets tend to come together. */
const CACHED_URLS = 4_096;
/** URLs whose previous open links are read in one statement at most. */
const OPEN_SOURCES_PER_READ = 500;
/** URLs a caller may have read ahead at once and find all held after (readAhead): within CACHED_URLS. */
export const DATED_TOGETHER = OPEN_SOURCES_PER_READ;

export class BrokenSince {
  /** Per target URL, the previous crawl's open links to it by linkKey, with their broken_since; null for none. */
  private readonly open = new Map<string, Map<string, string> | null>();

  private constructor(
    private readonly repo: OpenLinksRepo,
    private readonly previous: CrawlRef | undefined,
    /** The crawl's own start: what a link newly broken in it gets. */
    readonly start: string,
    /** Whether links are matched with their fragments against the previous crawl's. */
    private readonly withFragments: boolean,
  ) {}

  /** For crawl `crawlId`, against the previous ended crawl of its domain. */
  static async of(repo: OpenLinksRepo, crawlId: string): Promise<BrokenSince> {
    const crawl = await repo.crawl(crawlId);
    const previous = await repo.previousEnded(crawlId);
    const withFragments = crawl !== undefined && previous !== undefined && matchFragments(crawl, previous);
    return new BrokenSince(repo, previous, crawl?.started_at ?? new Date().toISOString(), withFragments);
  }

  /**
   * Since when the link to the target at `url` is broken, as this crawl finds it broken; `link` (its page and
   * fragment) is read only when needed. A string at once when nothing need be read (no previous crawl, or the
   * target's open links known): a batch awaits only the lookups it needs. Inside a transaction, `repo` is the
   * one over it (a SqliteDb's other statements wait for its commit).
   */
  of(url: string, link: LinkSource | ((repo: OpenLinksRepo) => Promise<LinkSource>), repo = this.repo): string | Promise<string> {
    if (this.previous === undefined) return this.start;
    const cached = this.open.get(url);
    if (cached === null || (cached !== undefined && typeof link !== "function")) return this.since(url, cached, link as LinkSource);
    return this.lookUp(url, this.previous, link, repo);
  }

  /** of() when nothing need be read: the date, or undefined when the previous crawl must be asked first. */
  known(url: string, link: LinkSource): string | undefined {
    if (this.previous === undefined) return this.start;
    const cached = this.open.get(url);
    return cached === undefined ? undefined : this.since(url, cached, link);
  }

  private async lookUp(
    url: string,
    previous: CrawlRef,
    link: LinkSource | ((repo: OpenLinksRepo) => Promise<LinkSource>),
    repo: OpenLinksRepo,
  ): Promise<string> {
    const open = await this.openTo(url, previous, repo);
    if (open === null) return this.start;
    return this.since(url, open, typeof link === "function" ? await link(repo) : link);
  }

  private since(url: string, open: Map<string, string> | null, link: LinkSource): string {
    if (open === null) return this.start;
    return open.get(linkKey(url, link, this.withFragments)) ?? this.start;
  }

  private async openTo(url: string, previous: CrawlRef, repo: OpenLinksRepo): Promise<Map<string, string> | null> {
    const cached = this.open.get(url);
    if (cached !== undefined) return cached;
    await this.read([url], previous, repo);
    return this.open.get(url) ?? null;
  }

  /**
   * Reads the previous crawl's open links to those of `urls` not looked up yet, OPEN_SOURCES_PER_READ URLs a
   * statement, so the lookups of of() that follow need none: a batch's broken targets come together, and on
   * PostgreSQL a statement per URL is a round trip per URL. Up to DATED_TOGETHER URLs are all held after it;
   * of more, the earliest may have been let go (of() then reads them again, one at a time).
   */
  async readAhead(urls: Iterable<string>, repo = this.repo): Promise<void> {
    if (this.previous === undefined) return;
    const wanted = [...new Set(urls)].filter((url) => !this.open.has(url));
    for (let at = 0; at < wanted.length; at += OPEN_SOURCES_PER_READ) await this.read(wanted.slice(at, at + OPEN_SOURCES_PER_READ), this.previous, repo);
  }

  private async read(urls: readonly string[], previous: CrawlRef, repo: OpenLinksRepo): Promise<void> {
    const rows = await repo.openSources(previous.id, urls);
    if (this.open.size + urls.length > CACHED_URLS) this.open.clear();
    const found = new Map<string, Map<string, string>>();
    for (const row of rows) {
      let byKey = found.get(row.url);
      if (byKey === undefined) {
        byKey = new Map();
        found.set(row.url, byKey);
      }
      const key = linkKey(row.url, row, this.withFragments);
      const since = row.broken_since ?? previous.started_at;
      const known = byKey.get(key);
      // ISO times: the earliest sorts first.
      if (known === undefined || since < known) byKey.set(key, since);
    }
    for (const url of urls) this.open.set(url, found.get(url) ?? null);
  }
}
