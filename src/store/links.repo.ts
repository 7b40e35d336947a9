import { SAMPLE_LINKS } from "../core/crawl-events.ts";
import type { CrawlRecord } from "./crawls.repo.ts";
import type { Db, Dialect } from "./db.ts";
import { keysetBatches } from "./keyset-batches.ts";
import { LinkMarks, type LinkMarksOptions } from "./link-marks.ts";
import { LINK_COLUMNS, toLink, type LinkRecord, type RawLink } from "./link-record.ts";
import { OrphansRepo } from "./orphans.repo.ts";
import { ChangesRepo } from "./changes.repo.ts";
import { TargetResultsRepo } from "./target-results.repo.ts";
import { MAX_VERDICT_SPAN, TargetVerdicts } from "./target-verdicts.ts";
import type { StoredLinkKind } from "./schema.ts";

/**
 * Reading a crawl's links: pages of a listing (all links, by status code, broken or not), the whole crawl as a
 * stream, and the counts behind them (broken targets grouped are target-results.repo.ts) (what changed since the previous crawl is
 * changes.repo.ts). Only links whose target has a
 * verdict are results. Written in SQL over the store's Db (store/db.ts), the same on both stores. The crawler
 * writes links (frontier.repo.ts); crawls.repo.ts holds the crawl rows themselves.
 */

export interface LinkFilter {
  statusCode?: number;
  isBroken?: boolean;
}

/** A link as the whole-crawl stream reads it: the verdict comes from its target (target-verdicts.ts). */
interface StreamedLinkRow {
  id: number;
  target_id: number;
  source_url: string;
  link_text: string;
  kind: StoredLinkKind;
  fragment_error: string | null;
  fragment_warning: string | null;
  fragment: string;
}

/** Links read per query when a whole crawl is streamed. */
const STREAM_BATCH = 1_000;

/**
 * Only links whose target has been checked are results; queued and robots-skipped ones are not yet, or never.
 * `sql` selects the crawl's links after `$afterId`, `orderBy` puts them in id order (dialect.crawlRowsAfter).
 */
function linkWhere(dialect: Dialect, filter: LinkFilter): { sql: string; orderBy: string; params: Record<string, string | number> } {
  const crawl = dialect.crawlRowsAfter("l.crawl_id", "l.id", "$crawlId", "$afterId");
  const clauses = [crawl.where, "t.state = 'done'"];
  const params: Record<string, string | number> = {};
  if (filter.statusCode !== undefined) {
    clauses.push("t.status_code = $statusCode");
    params.statusCode = filter.statusCode;
  }
  if (filter.isBroken !== undefined) {
    clauses.push(filter.isBroken ? "(t.is_broken = 1 OR l.fragment_error IS NOT NULL)" : "t.is_broken = 0 AND l.fragment_error IS NULL");
  }
  return { sql: `WHERE ${clauses.join(" AND ")}`, orderBy: crawl.orderBy, params };
}

export class LinksRepo {
  private readonly marks: LinkMarks;
  private readonly maxVerdictSpan: number;
  /** The crawl's orphan pages: targets its sitemaps list that no crawled page links to. */
  readonly orphans: OrphansRepo;
  /** What changed between the crawl and the previous one of its domain. */
  readonly changes: ChangesRepo;
  /** The crawl's results grouped by target: sorted pages, a target's links, hosts, filtered streams. */
  readonly results: TargetResultsRepo;

  constructor(
    private readonly db: Db,
    options: { marks?: LinkMarksOptions; maxVerdictSpan?: number } = {},
  ) {
    this.marks = new LinkMarks(options.marks);
    this.maxVerdictSpan = options.maxVerdictSpan ?? MAX_VERDICT_SPAN;
    this.orphans = new OrphansRepo(db);
    this.changes = new ChangesRepo(db);
    this.results = new TargetResultsRepo(db);
  }

  /**
   * One page of a crawl's checked links matching `filter`, in discovery order. Broken links are paged through
   * their own index; for the other listings deep pages start from a remembered position (link-marks.ts)
   * instead of walking every row before them, and a running crawl's positions are remembered for 5 s at a time.
   * `preparePage` finds those positions without holding the caller's thread for long.
   */
  async page(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number, limit: number): Promise<LinkRecord[]> {
    if (filter.isBroken === true) return this.brokenLinks(crawl.id, filter.statusCode, offset, limit);
    const listing = this.listing(crawl, filter);
    const start = await this.marks.seek(listing.key, offset, listing.find, listing.moving);
    const rows = await this.db.all<RawLink>(
      `SELECT ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
       ${listing.where} ORDER BY ${listing.orderBy} LIMIT $limit OFFSET $skip`,
      { ...listing.params, afterId: start.afterId, skip: start.skip, limit },
    );
    return rows.map(toLink);
  }

  /** Finds, a slice at a time, the remembered positions page() needs for a page at `offset`. */
  async preparePage(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number): Promise<void> {
    if (filter.isBroken === true) return;
    const listing = this.listing(crawl, filter);
    await this.marks.reach(listing.key, offset, listing.find, listing.moving);
  }

  /** A link listing of a crawl: its key among remembered positions, its WHERE clause and how to find a position. */
  private listing(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter) {
    const where = linkWhere(this.db.dialect, filter);
    const params = { ...where.params, crawlId: crawl.id };
    // Every stride-th row of the next stride × count, numbered in the statement.
    const findMarks = `SELECT id FROM (
         SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM (
           SELECT l.id FROM links l JOIN crawl_targets t ON t.id = l.target_id ${where.sql} ORDER BY ${where.orderBy} LIMIT $rows
         ) walked
       ) numbered WHERE n % $stride = 0 ORDER BY id`;
    return {
      key: `${crawl.id}|${filter.statusCode ?? ""}|${filter.isBroken ?? ""}`,
      moving: crawl.status === "pending" || crawl.status === "running",
      where: where.sql,
      orderBy: where.orderBy,
      params,
      find: async (afterId: number, stride: number, count: number) =>
        (await this.db.all<{ id: number }>(findMarks, { ...params, afterId, stride, rows: stride * count })).map((row) => row.id),
    };
  }

  /** One page of a crawl's broken links (with status `statusCode`, when given), in discovery order. */
  private async brokenLinks(crawlId: string, statusCode: number | undefined, offset: number, limit: number): Promise<LinkRecord[]> {
    const byStatus = statusCode === undefined ? "" : "JOIN crawl_targets bt ON bt.id = b.target_id AND bt.status_code = $statusCode";
    const rows = await this.db.all<RawLink>(
      `SELECT ${LINK_COLUMNS} FROM (
         SELECT b.link_id, b.broken_since FROM broken_links b ${byStatus} WHERE b.crawl_id = $crawlId ORDER BY b.link_id LIMIT $limit OFFSET $offset
       ) b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = l.target_id
       ORDER BY b.link_id`,
      { crawlId, limit, offset, ...(statusCode === undefined ? {} : { statusCode }) },
    );
    return rows.map(toLink);
  }

  /**
   * Every checked link of a crawl in discovery order, read in batches so memory stays flat. Each link takes its
   * verdict from the crawl's targets held in arrays (target-verdicts.ts) rather than from a join per link;
   * a crawl whose targets are too many for them is joined in SQL. Meant for an ended crawl (check's report):
   * on a running one, links to targets checked after the call began are left out. `betweenBatches` runs after
   * each batch of verdicts loaded (the caller's GC rhythm). The links come a batch at a time: one await per
   * batch, none per link.
   */
  async *each(crawlId: string, betweenBatches?: () => void): AsyncGenerator<LinkRecord[]> {
    const verdicts = await TargetVerdicts.load(this.db, crawlId, this.maxVerdictSpan, betweenBatches);
    if (verdicts === null) {
      yield* this.eachJoined(crawlId);
      return;
    }
    const crawlLinks = this.db.dialect.crawlRowsAfter("crawl_id", "id", "$crawlId", "$afterId");
    const batch = `SELECT id, target_id, source_url, link_text, kind, fragment_error, fragment_warning, fragment FROM links
       WHERE ${crawlLinks.where} ORDER BY ${crawlLinks.orderBy} LIMIT ${STREAM_BATCH}`;
    // The broken_since of a batch's broken links: at most one row per link of the batch, through their own index.
    const sinceOf = `SELECT link_id, broken_since FROM broken_links WHERE crawl_id = $crawlId AND link_id > $afterId AND link_id <= $lastId`;
    const read = (afterId: number) => this.db.all<StreamedLinkRow>(batch, { crawlId, afterId });
    let afterId = 0;
    for await (const rows of keysetBatches(read, STREAM_BATCH, (row) => row.id)) {
      if (rows.length === 0) continue;
      const lastId = rows[rows.length - 1]!.id;
      const since = new Map<number, string | null>();
      for (const row of await this.db.all<{ link_id: number; broken_since: string | null }>(sinceOf, { crawlId, afterId, lastId })) {
        since.set(row.link_id, row.broken_since);
      }
      afterId = lastId;
      const links: LinkRecord[] = [];
      for (const row of rows) {
        // A fresh object per link: set in place rather than copied.
        const link = verdicts.link(row.target_id, row.source_url, row.link_text, row.kind, row.fragment);
        if (link === undefined) continue;
        if (row.fragment_error !== null) {
          link.is_broken = true;
          link.error = row.fragment_error;
        } else if (row.fragment_warning !== null) link.warning = row.fragment_warning;
        if (link.is_broken) link.broken_since = since.get(row.id) ?? null;
        links.push(link);
      }
      yield links;
    }
  }

  /**
   * The crawl's broken links (those `each` marks broken) in discovery order, read in batches through the broken
   * links' own index: a report that shows only them costs their rows, not the whole crawl's.
   */
  eachBroken(crawlId: string): AsyncGenerator<LinkRecord[]> {
    return this.joinedBatches(
      `SELECT b.link_id AS id, ${LINK_COLUMNS} FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = l.target_id
       WHERE b.crawl_id = $crawlId AND b.link_id > $afterId ORDER BY b.link_id`,
      { crawlId },
    );
  }

  private eachJoined(crawlId: string): AsyncGenerator<LinkRecord[]> {
    const where = linkWhere(this.db.dialect, {});
    return this.joinedBatches(
      `SELECT l.id, ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
       ${where.sql} ORDER BY ${where.orderBy}`,
      { ...where.params, crawlId },
    );
  }

  /** The links a query selects (with their id, after `$afterId`, in id order), read STREAM_BATCH at a time. */
  private async *joinedBatches(sql: string, params: Record<string, string | number>): AsyncGenerator<LinkRecord[]> {
    const batch = `${sql} LIMIT ${STREAM_BATCH}`;
    for await (const rows of keysetBatches(
      (afterId) => this.db.all<RawLink & { id: number }>(batch, { ...params, afterId }),
      STREAM_BATCH,
      (row) => row.id,
    )) {
      yield rows.map(toLink);
    }
  }

  /**
   * How many checked links match `filter`, from counters written in the transactions that record the links:
   * the crawl's own for the common filters, crawl_status_counts for a status code.
   */
  async count(crawl: Pick<CrawlRecord, "id" | "total_links" | "broken_links">, filter: LinkFilter): Promise<number> {
    if (filter.statusCode === undefined) {
      if (filter.isBroken === undefined) return crawl.total_links;
      return filter.isBroken ? crawl.broken_links : crawl.total_links - crawl.broken_links;
    }
    const broken = filter.isBroken === undefined ? "" : "AND is_broken = $isBroken";
    const row = await this.db.get<{ n: number }>(
      `SELECT COALESCE(SUM(links), 0) AS n FROM crawl_status_counts WHERE crawl_id = $crawlId AND status_code = $statusCode ${broken}`,
      { crawlId: crawl.id, statusCode: filter.statusCode, ...(filter.isBroken === undefined ? {} : { isBroken: filter.isBroken ? 1 : 0 }) },
    );
    return Number(row?.n ?? 0);
  }

  /**
   * The first broken link URLs of a crawl (with their fragment, when it is part of the Links' identity), in the
   * discovery order of their targets, for `broken_links.found`. The target's columns are grouped by too: one
   * value per target, and PostgreSQL reads only grouped columns.
   */
  brokenSample(crawlId: string): Promise<{ url: string; status_code: number }[]> {
    return this.db.all<{ url: string; status_code: number }>(
      `SELECT t.url || l.fragment AS url, t.status_code FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
       WHERE b.crawl_id = $crawlId GROUP BY b.target_id, l.fragment, t.url, t.status_code ORDER BY b.target_id, MIN(b.link_id) LIMIT $limit`,
      { crawlId, limit: SAMPLE_LINKS },
    );
  }
}
