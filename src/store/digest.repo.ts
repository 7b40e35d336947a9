import type { CrawlFailure } from "../core/crawl-life.ts";
import type { Db } from "./db.ts";
import { ChangesRepo, CLOSED_FROM, matchedFragment, NEW_BROKEN_FROM, OPEN_PAIRS, type ComparedCrawl } from "./changes.repo.ts";

/**
 * The reads a crawl's notification digest is made of (notifications/digest.ts decides what goes in it): broken
 * targets that are new, still broken or fixed against the previous ended crawl, over each crawl's open links
 * (changes.repo.ts, so a digest and the crawl's changes agree), each with its first few linking pages and the
 * `broken_since` the crawl recorded, read in one statement per list whatever the crawl's size; how many open
 * links the crawl did not check; and how the domain's previous crawl ended. Run inside the transaction that
 * ends the crawl, after its open links are settled, only when some channel wants the digest.
 */

/** Which list of the digest: broken now and not open before, broken now and open before, open before and checked good now. */
export type DigestList = "new_broken" | "still_broken" | "fixed";

/** One linking page of a listed target; rows of one target come together, in discovery order. */
export interface DigestRow {
  url: string;
  status_code: number;
  error: string | null;
  source_url: string;
  link_text: string;
  /** Since when this link is broken (null for a fixed one read from a row recorded before broken_since existed). */
  broken_since: string | null;
  /** How many links of the list point at this target. */
  links: number;
}

/** A broken link's columns as a list's rows: `part` and `pos` give discovery order. */
const BROKEN_COLUMNS = `0 AS part, b.link_id AS pos, t.url || l.fragment AS url, t.status_code AS status_code,
  COALESCE(l.fragment_error, t.error) AS error, l.source_url AS source_url, l.link_text AS link_text, b.broken_since AS broken_since`;

/** Broken links of crawl `$from` that were open in crawl `$other` too (broken, or carried unchecked). */
const STILL_BROKEN_FROM = `FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
  WHERE b.crawl_id = $from AND (t.url, ${matchedFragment("l.fragment")}, l.source_url) IN (${OPEN_PAIRS})`;

/** What a list's SELECT is bound to: the two crawls it reads, and whether their links match with fragments. */
type Sides = { from: string; other: string | null; fragments: boolean };

/** The list's rows as one SELECT with the two crawls it reads as `$from` and `$other`. */
function listed(list: DigestList, crawlId: string, against: ComparedCrawl | null): { sql: string } & Sides {
  const previousId = against?.id ?? null;
  const fragments = against?.fragments ?? false;
  switch (list) {
    case "new_broken":
      return { sql: `SELECT ${BROKEN_COLUMNS} ${NEW_BROKEN_FROM}`, from: crawlId, other: previousId, fragments };
    case "still_broken":
      return { sql: `SELECT ${BROKEN_COLUMNS} ${STILL_BROKEN_FROM}`, from: crawlId, other: previousId, fragments };
    case "fixed":
      // Open in the previous crawl and not open now: for an ended crawl, checked and found good.
      return {
        sql: `SELECT part, pos, url, status_code, error, source_url, link_text, broken_since ${CLOSED_FROM}`,
        from: previousId ?? "",
        other: crawlId,
        fragments,
      };
  }
}

export class DigestRepo {
  private readonly changes: ChangesRepo;

  constructor(private readonly db: Db) {
    this.changes = new ChangesRepo(db);
  }

  /** How many links, and distinct target URLs, a list holds. */
  async count(list: DigestList, crawlId: string, against: ComparedCrawl | null): Promise<{ links: number; targets: number }> {
    const { sql, ...sides } = listed(list, crawlId, against);
    return (
      (await this.db.get<{ links: number; targets: number }>(`SELECT COUNT(*) AS links, COUNT(DISTINCT url) AS targets FROM (${sql}) listed`, sides)) ?? {
        links: 0,
        targets: 0,
      }
    );
  }

  /**
   * The first `maxTargets` targets of a list in discovery order, each with up to `maxSources` linking pages: one
   * pass over the list, numbering each target's links with window functions.
   */
  rows(list: DigestList, crawlId: string, against: ComparedCrawl | null, maxTargets: number, maxSources: number): Promise<DigestRow[]> {
    const { sql, ...sides } = listed(list, crawlId, against);
    return this.db.all<DigestRow>(
      `WITH listed AS (${sql}), ordered AS (
         SELECT listed.*, ROW_NUMBER() OVER (ORDER BY part, pos) AS ord FROM listed
       ), numbered AS (
         SELECT ordered.*, ROW_NUMBER() OVER (PARTITION BY url ORDER BY ord) AS nth,
                COUNT(*) OVER (PARTITION BY url) AS links, MIN(ord) OVER (PARTITION BY url) AS first
         FROM ordered
       ), ranked AS (
         SELECT numbered.*, DENSE_RANK() OVER (ORDER BY first) AS target_rank FROM numbered
       )
       SELECT url, status_code, error, source_url, link_text, broken_since, links FROM ranked
       WHERE nth <= $sources AND target_rank <= $targets ORDER BY first, nth`,
      { ...sides, sources: maxSources, targets: maxTargets },
    );
  }

  /** How many open links crawl `crawlId` carried without checking them (changes.repo.ts's "not checked"). */
  notChecked(crawlId: string): Promise<number> {
    return this.changes.countUnchecked(crawlId);
  }

  /** How the domain's previous ended crawl (created before this one) ended, if it has one. */
  previousEnded(crawlId: string): Promise<{ status: "completed" | "failed"; failure: CrawlFailure | null } | undefined> {
    return this.db.get(
      `SELECT p.status, p.failure FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
       WHERE c.id = $id AND p.status IN ('completed', 'failed') AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id < c.id))
       ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
      { id: crawlId },
    );
  }
}
