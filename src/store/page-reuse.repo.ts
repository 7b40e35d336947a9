import type { Db } from "./db.ts";
import type { PageIdsGap, StoredLinkKind } from "./schema.ts";

/**
 * What an earlier crawl kept of its pages for a later one to reuse (crawler/page-reuse.ts decides when): a page's
 * validators, body hash and link range (crawl_pages), and its links with their targets' URLs. By primary key and
 * by the links' crawl order index only: no index on links.source_url (see schema.ts, links).
 */

/** A page of an earlier crawl as reuse reads it, with the status its own target got there. */
export interface StoredPageRow {
  etag: string | null;
  last_modified: string | null;
  body_hash: string;
  body_bytes: number;
  links_found: number;
  excluded_links: number;
  first_link_id: number;
  link_count: number;
  /** The page's ids (`check_fragments`), null without them. */
  id_hashes: Uint8Array | null;
  ids_gap: PageIdsGap | null;
  status_code: number;
}

/** One link of such a page: its target's id, text, kind, fragment, and 1 when it is on the page asked for. */
export interface StoredPageLinkRow {
  target_id: number;
  link_text: string;
  kind: StoredLinkKind;
  fragment: string;
  on_page: number;
}

/**
 * A target of that crawl: URL, internal 0/1, and for one judged without an answer (no final URL, status 0) its
 * error, is_broken and warning; null for the others.
 */
export interface StoredTargetRow {
  url: string;
  internal: number;
  error: string | null;
  is_broken: number | null;
  warning: string | null;
}

/**
 * A stored page that can be reused: only an HTML page read whole and judged without a warning, answered at its own
 * URL (no redirect): its links and its verdict are then the answer's and the body's alone.
 */
const REUSABLE_PAGES = `SELECT p.url, p.etag, p.last_modified, p.body_hash, p.body_bytes, p.links_found, p.excluded_links, p.first_link_id, p.link_count,
     p.id_hashes, p.ids_gap, t.status_code
   FROM crawl_pages p JOIN crawl_targets t ON t.crawl_id = p.crawl_id AND t.url = p.url
   WHERE p.crawl_id = $crawl AND p.cut = 0 AND p.body_hash IS NOT NULL AND p.first_link_id IS NOT NULL
     AND t.state = 'done' AND t.final_url = t.url AND t.warning IS NULL AND t.is_broken = 0`;

export class PageReuseRepo {
  constructor(private readonly db: Db) {}

  /** Page `url` of crawl `crawlId`, when that crawl kept what reusing it needs. */
  async page(crawlId: string, url: string): Promise<StoredPageRow | null> {
    return (await this.db.get<StoredPageRow & { url: string }>(`${REUSABLE_PAGES} AND p.url = $url`, { crawl: crawlId, url })) ?? null;
  }

  /** page() for each of `urls` in one statement: the pages found, each with its URL (one that cannot be reused is left out). */
  pages(crawlId: string, urls: readonly string[]): Promise<(StoredPageRow & { url: string })[]> {
    return this.db.all<StoredPageRow & { url: string }>(`${REUSABLE_PAGES} AND ${this.db.dialect.textIn("p.url", "urls")}`, {
      crawl: crawlId,
      urls: JSON.stringify(urls),
    });
  }

  /** The links `first`..`first + count - 1` of crawl `crawlId`, in the page's order (fewer when they are gone); `sourceUrl` the page they must be on. */
  links(crawlId: string, first: number, count: number, sourceUrl: string): Promise<StoredPageLinkRow[]> {
    // By id range (on SQLite `+` keeps the planner off the crawl index, which would add a lookup per row); targets
    // apart, as a page's links mostly point at the same few (page-reuse.ts keeps them).
    return this.db.all<StoredPageLinkRow>(
      `SELECT l.target_id, l.link_text, l.kind, l.fragment, CASE WHEN l.source_url = $source THEN 1 ELSE 0 END AS on_page
       FROM links l WHERE ${this.db.dialect.noIndex("l.crawl_id")} = $crawl AND l.id >= $first AND l.id < $end ORDER BY l.id`,
      { crawl: crawlId, first, end: first + count, source: sourceUrl },
    );
  }

  /**
   * links() for several pages in one statement: `pages` as [first link id, link count, page URL]; the rows of all of
   * them in id order, each with its id.
   */
  async linksOfPages(crawlId: string, pages: readonly (readonly [number, number, string])[]): Promise<(StoredPageLinkRow & { id: number })[]> {
    const { dialect } = this.db;
    // CROSS JOIN: SQLite then loops over the ranges and seeks each in the key (left to choose, it scanned every
    // link in id order and matched each against the ranges). The LIMIT is the rows asked for, never fewer: it
    // tells PostgreSQL how few rows come back, whose estimate otherwise passed jit_above_cost (a compile each
    // time: 53 ms a statement against 13); so no ORDER BY (it would sort them all first), sorted here instead.
    const rows = await this.db.all<StoredPageLinkRow & { id: number }>(
      `SELECT l.id, l.target_id, l.link_text, l.kind, l.fragment, CASE WHEN l.source_url = r.r2 THEN 1 ELSE 0 END AS on_page
       FROM ${dialect.jsonRows(1, ["bigint", "bigint", "text"])} AS r CROSS JOIN links l
       WHERE l.id >= r.r0 AND l.id < r.r0 + r.r1 AND ${dialect.noIndex("l.crawl_id")} = ${dialect.param(2)} LIMIT ${dialect.param(3)}`,
      [JSON.stringify(pages), crawlId, pages.reduce((sum, page) => sum + page[1], 0)],
    );
    return rows.sort((a, b) => a.id - b.id);
  }

  /**
   * Targets `ids` (of the crawl whose links named them) in one statement, each with its id; one that is gone is
   * left out. One round trip for a page's new targets rather than one each: on PostgreSQL every statement is one.
   */
  targets(ids: readonly number[]): Promise<(StoredTargetRow & { id: number })[]> {
    return this.db.all<StoredTargetRow & { id: number }>(
      `SELECT t.id, t.url, t.internal, CASE WHEN t.final_url IS NULL AND t.status_code = 0 THEN t.error END AS error,
         CASE WHEN t.final_url IS NULL AND t.status_code = 0 THEN t.is_broken END AS is_broken,
         CASE WHEN t.final_url IS NULL AND t.status_code = 0 THEN t.warning END AS warning
       FROM crawl_targets t WHERE ${this.db.dialect.idIn("t.id", "ids")}`,
      { ids: JSON.stringify(ids) },
    );
  }
}
