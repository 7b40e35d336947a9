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

export class PageReuseRepo {
  constructor(private readonly db: Db) {}

  /** Page `url` of crawl `crawlId`, when that crawl kept what reusing it needs. */
  async page(crawlId: string, url: string): Promise<StoredPageRow | null> {
    // Only an HTML page read whole and judged without a warning, answered at its own URL (no redirect): its
    // links and its verdict are then the answer's and the body's alone.
    const row = await this.db.get<StoredPageRow>(
      `SELECT p.etag, p.last_modified, p.body_hash, p.body_bytes, p.links_found, p.excluded_links, p.first_link_id, p.link_count, p.id_hashes, p.ids_gap, t.status_code
       FROM crawl_pages p JOIN crawl_targets t ON t.crawl_id = p.crawl_id AND t.url = p.url
       WHERE p.crawl_id = $crawl AND p.url = $url AND p.cut = 0 AND p.body_hash IS NOT NULL AND p.first_link_id IS NOT NULL
         AND t.state = 'done' AND t.final_url = t.url AND t.warning IS NULL AND t.is_broken = 0`,
      { crawl: crawlId, url },
    );
    return row ?? null;
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

  /** Target `id` (of the crawl whose links named it); null when it is gone. */
  async target(id: number): Promise<StoredTargetRow | null> {
    const row = await this.db.get<StoredTargetRow>(
      `SELECT url, internal, CASE WHEN final_url IS NULL AND status_code = 0 THEN error END AS error,
         CASE WHEN final_url IS NULL AND status_code = 0 THEN is_broken END AS is_broken,
         CASE WHEN final_url IS NULL AND status_code = 0 THEN warning END AS warning
       FROM crawl_targets WHERE id = $id`,
      { id },
    );
    return row ?? null;
  }
}
