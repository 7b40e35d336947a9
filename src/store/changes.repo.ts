import type { Db } from "./db.ts";
import { LINK_COLUMNS, toLink, type LinkRecord, type RawLink } from "./link-record.ts";

/**
 * Reading what changed between a crawl and the previous ended crawl of its domain, per (source page, URL) pair,
 * over each crawl's open links: its broken links plus the unchecked links it carried (store/schema.ts
 * `unchecked_links`; which links those are is the crawler's rule, crawler/open-links.ts). Nothing here decides:
 * the three sets are plain set differences of what the crawls recorded.
 *
 * - newly broken: this crawl's broken links that were not open before it;
 * - gone from the open links: open before, neither broken in this crawl nor carried by it. For an ended crawl
 *   that is what it checked and found good (fixed); for a crawl still running, what it has not come to yet;
 * - unchecked: this crawl's unchecked links.
 *
 * The other crawl's pairs become one list the engine builds once per statement, so the cost follows the broken
 * links; a lookup per link through the target instead read every broken link of the same target again for each
 * one, quadratic in a template's broken link (bench/README.md, "Changes since the previous crawl").
 *
 * A link is matched by (target URL, fragment, source page), its fragment ("" or `#…`: links.fragment) counting
 * only when `$fragments` is true: the caller says so when both crawls kept fragments (crawler/open-links.ts,
 * matchFragments).
 */

/** A link's fragment as it counts in the match: `$fragments` says whether it does. */
export const matchedFragment = (fragment: string) => `CASE WHEN $fragments THEN ${fragment} ELSE '' END`;

/** The open links of crawl `$other` as (URL, fragment, source page); empty when `$other` is null. */
export const OPEN_PAIRS = `SELECT ot.url, ${matchedFragment("o.fragment")}, o.source_url
      FROM broken_links ob JOIN links o ON o.id = ob.link_id JOIN crawl_targets ot ON ot.id = ob.target_id WHERE ob.crawl_id = $other
    UNION ALL
    SELECT ou.url, ${matchedFragment("ou.fragment")}, ou.source_url FROM unchecked_links ou WHERE ou.crawl_id = $other`;

/** Broken links of crawl `$from` that were not open in crawl `$other`. Exported for the test that reads its plan. */
export const NEW_BROKEN_FROM = `FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
  WHERE b.crawl_id = $from AND (t.url, ${matchedFragment("l.fragment")}, l.source_url) NOT IN (${OPEN_PAIRS})`;

/**
 * Open links of crawl `$from` (its broken links, then its unchecked ones) that are not open in crawl `$other`,
 * as they were in `$from`; `part` and `pos` order them.
 */
export const CLOSED_FROM = `FROM (
    SELECT 0 AS part, b.link_id AS pos, ${LINK_COLUMNS}, t.url AS target_url, l.fragment
      FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id WHERE b.crawl_id = $from
    UNION ALL
    SELECT 1, u.id, u.url || u.fragment, u.source_url, u.status_code, 1, u.link_text, u.kind, u.final_url, u.error, u.warning, u.broken_since,
        u.url, u.fragment
      FROM unchecked_links u WHERE u.crawl_id = $from
  ) open WHERE (open.target_url, ${matchedFragment("open.fragment")}, open.source_url) NOT IN (${OPEN_PAIRS})`;

const UNCHECKED_COLUMNS =
  "u.url || u.fragment AS url, u.source_url, u.status_code, 1 AS is_broken, u.link_text, u.kind, u.final_url, u.error, u.warning, u.broken_since";

/** The crawl another is compared with, and whether their links match with fragments (open-links.ts, matchFragments). */
export interface ComparedCrawl {
  id: string;
  fragments: boolean;
}

type Sides = { from: string; other: string | null; fragments: boolean };

export class ChangesRepo {
  constructor(private readonly db: Db) {}

  /** One page of crawl `crawlId`'s broken links not open in crawl `against` (every one without it), in discovery order. */
  async newBroken(crawlId: string, against: ComparedCrawl | null, offset: number, limit: number): Promise<LinkRecord[]> {
    const rows = await this.db.all<RawLink>(`SELECT ${LINK_COLUMNS} ${NEW_BROKEN_FROM} ORDER BY b.link_id LIMIT $limit OFFSET $offset`, {
      ...sides(crawlId, against),
      limit,
      offset,
    });
    return rows.map(toLink);
  }

  async countNewBroken(crawlId: string, against: ComparedCrawl | null): Promise<number> {
    return (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n ${NEW_BROKEN_FROM}`, sides(crawlId, against)))?.n ?? 0;
  }

  /** One page of crawl `against`'s open links that crawl `crawlId` does not hold open, as they were in `against`. */
  async closed(crawlId: string, against: ComparedCrawl, offset: number, limit: number): Promise<LinkRecord[]> {
    const rows = await this.db.all<RawLink>(
      `SELECT url, source_url, status_code, is_broken, link_text, kind, final_url, error, warning, broken_since
       ${CLOSED_FROM} ORDER BY part, pos LIMIT $limit OFFSET $offset`,
      { from: against.id, other: crawlId, fragments: against.fragments, limit, offset },
    );
    return rows.map(toLink);
  }

  async countClosed(crawlId: string, against: ComparedCrawl): Promise<number> {
    return (
      (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n ${CLOSED_FROM}`, { from: against.id, other: crawlId, fragments: against.fragments }))?.n ?? 0
    );
  }

  /** One page of the open links crawl `crawlId` carried without checking them, as they were last found broken. */
  async unchecked(crawlId: string, offset: number, limit: number): Promise<LinkRecord[]> {
    const rows = await this.db.all<RawLink>(
      `SELECT ${UNCHECKED_COLUMNS} FROM unchecked_links u WHERE u.crawl_id = $crawlId ORDER BY u.id LIMIT $limit OFFSET $offset`,
      { crawlId, limit, offset },
    );
    return rows.map(toLink);
  }

  async countUnchecked(crawlId: string): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM unchecked_links WHERE crawl_id = $crawlId", { crawlId }))?.n ?? 0;
  }
}

/** The parameters of a comparison of crawl `crawlId` (`$from`) with crawl `against` (`$other`). */
function sides(crawlId: string, against: ComparedCrawl | null): Sides {
  return { from: crawlId, other: against?.id ?? null, fragments: against?.fragments ?? false };
}
