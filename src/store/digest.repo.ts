import type { Database } from "bun:sqlite";
import type { CrawlFailure } from "../core/crawl-failure.ts";
import { CHANGE_FROM } from "./links.repo.ts";

/**
 * The reads a crawl's notification digest is made of (notifications/digest.ts decides what goes in it): broken
 * targets that are new, still broken or fixed since the previous completed crawl, each with its first few
 * linking pages, read in one statement per list whatever the crawl's size; how long a link has been broken;
 * and how the domain's previous crawl ended. Run inside the transaction that ends the crawl, only when some
 * channel wants the digest.
 */

/** Which list of the digest: broken now and not before, broken in both, broken before and not now. */
export type DigestList = "new_broken" | "still_broken" | "fixed";

/** One linking page of a listed target; rows of one target come together, in discovery order. */
export interface DigestRow {
  url: string;
  status_code: number;
  error: string | null;
  source_url: string;
  link_text: string;
  /** How many links of the list point at this target. */
  links: number;
}

/** Broken links of crawl `$from` whose (URL, source page) pair is also broken in crawl `$other`. */
const STILL_FROM = `FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
  WHERE b.crawl_id = $from
    AND (t.url, l.source_url) IN (
      SELECT ot.url, o.source_url FROM broken_links ob JOIN links o ON o.id = ob.link_id JOIN crawl_targets ot ON ot.id = ob.target_id
      WHERE ob.crawl_id = $other
    )`;

/** The FROM clause and its two crawls for a list (links.repo.ts's CHANGE_FROM for the changes, so both agree). */
function listSides(list: DigestList, crawlId: string, previousId: string | null): { from: string; other: string | null; sql: string } {
  switch (list) {
    case "new_broken":
      return { from: crawlId, other: previousId, sql: CHANGE_FROM };
    case "fixed":
      return { from: previousId ?? "", other: crawlId, sql: CHANGE_FROM };
    case "still_broken":
      return { from: crawlId, other: previousId ?? "", sql: STILL_FROM };
  }
}

export class DigestRepo {
  constructor(private readonly sqlite: Database) {}

  /** How many links, and distinct target URLs, a list holds. */
  count(list: DigestList, crawlId: string, previousId: string | null): { links: number; targets: number } {
    const sides = listSides(list, crawlId, previousId);
    return (
      this.sqlite
        .query<{ links: number; targets: number }, { from: string; other: string | null }>(
          `SELECT COUNT(*) AS links, COUNT(DISTINCT t.url) AS targets ${sides.sql}`,
        )
        .get({ from: sides.from, other: sides.other }) ?? { links: 0, targets: 0 }
    );
  }

  /**
   * The first `maxTargets` targets of a list in discovery order, each with up to `maxSources` linking pages: one
   * pass over the list, numbering each target's links with window functions.
   */
  rows(list: DigestList, crawlId: string, previousId: string | null, maxTargets: number, maxSources: number): DigestRow[] {
    const sides = listSides(list, crawlId, previousId);
    return this.sqlite
      .query<DigestRow, { from: string; other: string | null; sources: number; rows: number }>(
        `WITH listed AS (
           SELECT b.link_id, t.url, t.status_code, COALESCE(l.fragment_error, t.error) AS error, l.source_url, l.link_text ${sides.sql}
         ), numbered AS (
           SELECT listed.*, ROW_NUMBER() OVER (PARTITION BY url ORDER BY link_id) AS nth,
                  COUNT(*) OVER (PARTITION BY url) AS links, MIN(link_id) OVER (PARTITION BY url) AS first
           FROM listed
         )
         SELECT url, status_code, error, source_url, link_text, links FROM numbered WHERE nth <= $sources
         ORDER BY first, nth LIMIT $rows`,
      )
      .all({ from: sides.from, other: sides.other, sources: maxSources, rows: maxTargets * maxSources });
  }

  /**
   * The domain's completed crawls up to and including `crawlId`, newest first (at most `max`), each saying whether
   * the (URL, source page) pair was broken in it: how long a link has been broken is read from this run.
   * SEAM(broken_since): the links' own `broken_since` column replaces this walk once the store keeps it.
   */
  brokenRun(crawlId: string, url: string, sourceUrl: string, max: number): { started_at: string; broken: boolean }[] {
    return this.sqlite
      .query<{ started_at: string; broken: number }, { crawlId: string; url: string; sourceUrl: string; max: number }>(
        `SELECT COALESCE(p.started_at, p.created_at) AS started_at,
                EXISTS (SELECT 1 FROM crawl_targets t JOIN broken_links b ON b.target_id = t.id JOIN links l ON l.id = b.link_id
                        WHERE t.crawl_id = p.id AND t.url = $url AND l.source_url = $sourceUrl) AS broken
         FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
         WHERE c.id = $crawlId AND p.status = 'completed' AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id <= c.id))
         ORDER BY p.created_at DESC, p.id DESC LIMIT $max`,
      )
      .all({ crawlId, url, sourceUrl, max })
      .map((row) => ({ started_at: row.started_at, broken: row.broken === 1 }));
  }

  /** How the domain's previous ended crawl (created before this one) ended, if it has one. */
  previousEnded(crawlId: string): { status: "completed" | "failed"; failure: CrawlFailure | null } | undefined {
    return (
      this.sqlite
        .query<{ status: "completed" | "failed"; failure: CrawlFailure | null }, { id: string }>(
          `SELECT p.status, p.failure FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
           WHERE c.id = $id AND p.status IN ('completed', 'failed') AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id < c.id))
           ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
        )
        .get({ id: crawlId }) ?? undefined
    );
  }
}
