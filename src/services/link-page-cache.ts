import type { CrawlRecord } from "../store/crawls.repo.ts";
import type { LinkFilter } from "../store/links.repo.ts";

/**
 * Recently read pages of crawls' link listings. A page is a function of the crawl's set of checked links, and
 * that set only grows: a link joins it when its target gets its one verdict, and `total_links` counts the set
 * in the same transaction. So (crawl, total_links) names one exact state of the listing, and a page remembered
 * under it is what reading it again would answer — for a running crawl too, until its next batch lands. Reading a
 * page of 100 links costs ~0.2 ms of SQLite and object building; a remembered page costs a map lookup, which
 * is what keeps a dashboard full of clients polling the same crawl cheap.
 */

/** Pages remembered at once per listing kind: ~40 KiB each at the maximum page size. */
const MAX_PAGES = 64;

export class LinkPageCache<T> {
  private readonly pages = new Map<string, T>();

  constructor(private readonly maxPages = MAX_PAGES) {}

  /**
   * The page at `offset` of `crawl`'s listing `variant` (what else the page depends on: a filter, the crawl
   * compared against), from memory or from `read`.
   */
  get(crawl: Pick<CrawlRecord, "id" | "status" | "total_links">, variant: string, offset: number, limit: number, read: () => T): T {
    const key = pageKey(crawl, variant, offset, limit);
    const hit = this.pages.get(key);
    if (hit !== undefined) {
      this.pages.delete(key); // re-inserted: the map's order is least recently used first
      this.pages.set(key, hit);
      return hit;
    }
    const page = read();
    if (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value!);
    this.pages.set(key, page);
    return page;
  }

  /** Whether the page is remembered. */
  has(crawl: Pick<CrawlRecord, "id" | "status" | "total_links">, variant: string, offset: number, limit: number): boolean {
    return this.pages.has(pageKey(crawl, variant, offset, limit));
  }
}

function pageKey(crawl: Pick<CrawlRecord, "id" | "status" | "total_links">, variant: string, offset: number, limit: number): string {
  // The status too: a running crawl's deep pages are placed from positions a few seconds old
  // (store/link-marks.ts), an ended crawl's exactly, so its end must not keep a page placed while it ran.
  return `${crawl.id}|${crawl.status}|${crawl.total_links}|${variant}|${offset}|${limit}`;
}

/** The variant key of a link filter. */
export function filterVariant(filter: LinkFilter): string {
  return `${filter.statusCode ?? ""}|${filter.isBroken ?? ""}`;
}
