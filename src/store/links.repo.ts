import type { Database } from "bun:sqlite";
import { SAMPLE_LINKS } from "../core/crawl-events.ts";
import type { CrawlRecord } from "./crawls.repo.ts";
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
 * verdict are results. Written in SQL over bun:sqlite; `query()` caches each distinct statement. The crawler
 * writes links (frontier.repo.ts); crawls.repo.ts holds the crawl rows themselves.
 */

export interface LinkFilter {
  statusCode?: number;
  isBroken?: boolean;
}

/** A link as the whole-crawl stream reads it: the verdict comes from its target (target-verdicts.ts). */
type StreamedLinkRow = [
  id: number,
  targetId: number,
  sourceUrl: string,
  linkText: string,
  kind: StoredLinkKind,
  fragmentError: string | null,
  fragmentWarning: string | null,
  fragment: string,
];

/** Links read per query when a whole crawl is streamed. */
const STREAM_BATCH = 1_000;

/** Only links whose target has been checked are results; queued and robots-skipped ones are not yet, or never. */
function linkWhere(filter: LinkFilter): { sql: string; params: Record<string, string | number> } {
  const clauses = ["l.crawl_id = $crawlId", "t.state = 'done'"];
  const params: Record<string, string | number> = {};
  if (filter.statusCode !== undefined) {
    clauses.push("t.status_code = $statusCode");
    params.statusCode = filter.statusCode;
  }
  if (filter.isBroken !== undefined) {
    clauses.push(filter.isBroken ? "(t.is_broken = 1 OR l.fragment_error IS NOT NULL)" : "t.is_broken = 0 AND l.fragment_error IS NULL");
  }
  return { sql: `WHERE ${clauses.join(" AND ")}`, params };
}

/**
 * The broken_since of a crawl's broken links, asked for in increasing link id order: a merge with the crawl's
 * links as `each` streams them, reading the broken links' own index a batch at a time.
 */
class BrokenSinceCursor {
  private rows: [number, string | null][] = [];
  private index = 0;
  private afterId = 0;
  private exhausted = false;

  constructor(private readonly read: (afterId: number) => [number, string | null][]) {}

  /** broken_since of link `linkId`, or null when it is not among the broken links. */
  at(linkId: number): string | null {
    // Bounded: each turn moves past a row or reads the next batch, and the batches end.
    for (;;) {
      while (this.index < this.rows.length && this.rows[this.index]![0] < linkId) this.index++;
      if (this.index < this.rows.length) return this.rows[this.index]![0] === linkId ? this.rows[this.index]![1] : null;
      if (this.exhausted) return null;
      this.rows = this.read(this.afterId);
      this.index = 0;
      this.exhausted = this.rows.length < STREAM_BATCH;
      if (this.rows.length > 0) this.afterId = this.rows[this.rows.length - 1]![0];
    }
  }
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
    private readonly sqlite: Database,
    options: { marks?: LinkMarksOptions; maxVerdictSpan?: number } = {},
  ) {
    this.marks = new LinkMarks(options.marks);
    this.maxVerdictSpan = options.maxVerdictSpan ?? MAX_VERDICT_SPAN;
    this.orphans = new OrphansRepo(sqlite);
    this.changes = new ChangesRepo(sqlite);
    this.results = new TargetResultsRepo(sqlite);
  }

  /**
   * One page of a crawl's checked links matching `filter`, in discovery order. Broken links are paged through
   * their own index; for the other listings deep pages start from a remembered position (link-marks.ts)
   * instead of walking every row before them, and a running crawl's positions are remembered for 5 s at a time.
   * `preparePage` finds those positions without holding the caller's thread for long.
   */
  page(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number, limit: number): LinkRecord[] {
    if (filter.isBroken === true) return this.brokenLinks(crawl.id, filter.statusCode, offset, limit);
    const listing = this.listing(crawl, filter);
    const start = this.marks.seek(listing.key, offset, listing.find, listing.moving);
    return this.sqlite
      .query<RawLink, Record<string, string | number>>(
        `SELECT ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
         ${listing.where} AND l.id > $afterId ORDER BY l.id LIMIT $limit OFFSET $skip`,
      )
      .all({ ...listing.params, afterId: start.afterId, skip: start.skip, limit })
      .map(toLink);
  }

  /** Finds, a slice at a time, the remembered positions page() needs for a page at `offset`. */
  async preparePage(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number): Promise<void> {
    if (filter.isBroken === true) return;
    const listing = this.listing(crawl, filter);
    await this.marks.reach(listing.key, offset, listing.find, listing.moving);
  }

  /** A link listing of a crawl: its key among remembered positions, its WHERE clause and how to find a position. */
  private listing(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter) {
    const where = linkWhere(filter);
    const params = { ...where.params, crawlId: crawl.id };
    const findMark = this.sqlite.query<{ id: number }, Record<string, string | number>>(
      `SELECT l.id FROM links l JOIN crawl_targets t ON t.id = l.target_id ${where.sql} AND l.id > $afterId
       ORDER BY l.id LIMIT 1 OFFSET $skip`,
    );
    return {
      key: `${crawl.id}|${filter.statusCode ?? ""}|${filter.isBroken ?? ""}`,
      moving: crawl.status === "pending" || crawl.status === "running",
      where: where.sql,
      params,
      find: (afterId: number, skip: number) => findMark.get({ ...params, afterId, skip })?.id ?? null,
    };
  }

  /** One page of a crawl's broken links (with status `statusCode`, when given), in discovery order. */
  private brokenLinks(crawlId: string, statusCode: number | undefined, offset: number, limit: number): LinkRecord[] {
    const byStatus = statusCode === undefined ? "" : "JOIN crawl_targets bt ON bt.id = b.target_id AND bt.status_code = $statusCode";
    return this.sqlite
      .query<RawLink, Record<string, string | number>>(
        `SELECT ${LINK_COLUMNS} FROM (
           SELECT b.link_id, b.broken_since FROM broken_links b ${byStatus} WHERE b.crawl_id = $crawlId ORDER BY b.link_id LIMIT $limit OFFSET $offset
         ) b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = l.target_id
         ORDER BY b.link_id`,
      )
      .all({ crawlId, limit, offset, ...(statusCode === undefined ? {} : { statusCode }) })
      .map(toLink);
  }

  /**
   * Every checked link of a crawl in discovery order, read in batches so memory stays flat. Each link takes its
   * verdict from the crawl's targets held in arrays (target-verdicts.ts) rather than from a join per link;
   * a crawl whose targets are too many for them is joined in SQL. Meant for an ended crawl (check's report):
   * on a running one, links to targets checked after the call began are left out. `betweenBatches` runs after
   * each batch of verdicts loaded (the caller's GC rhythm).
   */
  *each(crawlId: string, betweenBatches?: () => void): Generator<LinkRecord> {
    const verdicts = TargetVerdicts.load(this.sqlite, crawlId, this.maxVerdictSpan, betweenBatches);
    if (verdicts === null) {
      yield* this.eachJoined(crawlId);
      return;
    }
    const batch = this.sqlite.query<StreamedLinkRow, { crawlId: string; afterId: number }>(
      `SELECT id, target_id, source_url, link_text, kind, fragment_error, fragment_warning, fragment FROM links WHERE crawl_id = $crawlId AND id > $afterId
       ORDER BY id LIMIT ${STREAM_BATCH}`,
    );
    const read = (afterId: number) => batch.values({ crawlId, afterId }) as StreamedLinkRow[];
    const sinceBatch = this.sqlite.query<[number, string | null], { crawlId: string; afterId: number }>(
      `SELECT link_id, broken_since FROM broken_links WHERE crawl_id = $crawlId AND link_id > $afterId ORDER BY link_id LIMIT ${STREAM_BATCH}`,
    );
    const since = new BrokenSinceCursor((afterId) => sinceBatch.values({ crawlId, afterId }) as [number, string | null][]);
    for (const rows of keysetBatches(read, STREAM_BATCH, (row) => row[0])) {
      for (const [id, targetId, sourceUrl, linkText, kind, fragmentError, fragmentWarning, fragment] of rows) {
        // A fresh object per link: set in place rather than copied.
        const link = verdicts.link(targetId, sourceUrl, linkText, kind, fragment);
        if (link === undefined) continue;
        if (fragmentError !== null) {
          link.is_broken = true;
          link.error = fragmentError;
        } else if (fragmentWarning !== null) link.warning = fragmentWarning;
        if (link.is_broken) link.broken_since = since.at(id);
        yield link;
      }
    }
  }

  /**
   * The crawl's broken links (those `each` marks broken) in discovery order, read in batches through the broken
   * links' own index: a report that shows only them costs their rows, not the whole crawl's.
   */
  *eachBroken(crawlId: string): Generator<LinkRecord> {
    yield* this.joinedBatches(
      `SELECT b.link_id AS id, ${LINK_COLUMNS} FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = l.target_id
       WHERE b.crawl_id = $crawlId AND b.link_id > $afterId ORDER BY b.link_id`,
      { crawlId },
    );
  }

  private *eachJoined(crawlId: string): Generator<LinkRecord> {
    const where = linkWhere({});
    yield* this.joinedBatches(
      `SELECT l.id, ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
       ${where.sql} AND l.id > $afterId ORDER BY l.id`,
      { ...where.params, crawlId },
    );
  }

  /** The links a query selects (with their id, after `$afterId`, in id order), read STREAM_BATCH at a time. */
  private *joinedBatches(sql: string, params: Record<string, string | number>): Generator<LinkRecord> {
    const batch = this.sqlite.query<RawLink & { id: number }, Record<string, string | number>>(`${sql} LIMIT ${STREAM_BATCH}`);
    for (const rows of keysetBatches(
      (afterId) => batch.all({ ...params, afterId }),
      STREAM_BATCH,
      (row) => row.id,
    )) {
      for (const row of rows) yield toLink(row);
    }
  }

  /**
   * How many checked links match `filter`, from counters written in the transactions that record the links:
   * the crawl's own for the common filters, crawl_status_counts for a status code.
   */
  count(crawl: Pick<CrawlRecord, "id" | "total_links" | "broken_links">, filter: LinkFilter): number {
    if (filter.statusCode === undefined) {
      if (filter.isBroken === undefined) return crawl.total_links;
      return filter.isBroken ? crawl.broken_links : crawl.total_links - crawl.broken_links;
    }
    const broken = filter.isBroken === undefined ? "" : "AND is_broken = $isBroken";
    return (
      this.sqlite
        .query<{ n: number }, Record<string, string | number>>(
          `SELECT COALESCE(SUM(links), 0) AS n FROM crawl_status_counts WHERE crawl_id = $crawlId AND status_code = $statusCode ${broken}`,
        )
        .get({ crawlId: crawl.id, statusCode: filter.statusCode, ...(filter.isBroken === undefined ? {} : { isBroken: filter.isBroken ? 1 : 0 }) })?.n ?? 0
    );
  }

  /**
   * The first broken link URLs of a crawl (with their fragment, when it is part of the Links' identity), in the
   * discovery order of their targets, for `broken_links.found`.
   */
  brokenSample(crawlId: string): { url: string; status_code: number }[] {
    return this.sqlite
      .query<{ url: string; status_code: number }, { crawlId: string; limit: number }>(
        `SELECT t.url || l.fragment AS url, t.status_code FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
         WHERE b.crawl_id = $crawlId GROUP BY b.target_id, l.fragment ORDER BY b.target_id, MIN(b.link_id) LIMIT $limit`,
      )
      .all({ crawlId, limit: SAMPLE_LINKS });
  }
}
