import type { Database } from "bun:sqlite";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { endedEvents, SAMPLE_LINKS, startedEvent } from "../core/crawl-events.ts";
import { LinkMarks, type LinkMarksOptions } from "./link-marks.ts";
import { OutboxRepo } from "./outbox.repo.ts";
import type { CrawlStatus, CrawlTrigger, StoredLinkKind } from "./schema.ts";

/**
 * Queries on crawls and their links for the API and the crawl pool; no rules here (services/crawls.service.ts
 * holds them). Written in SQL over bun:sqlite because the list and link queries combine optional filters and
 * joins; `query()` caches each distinct statement, so a request pays for execution, not compilation.
 * The crawler's own writes (frontier, verdicts) live in frontier.repo.ts. State changes that clients hear
 * about (a crawl starts running, a crawl ends) queue their webhook deliveries in the same transaction.
 */

/** A crawl row joined with its domain's name. */
export interface CrawlRecord {
  id: string;
  domain_id: string;
  domain_name: string;
  root_url: string;
  status: CrawlStatus;
  options: CrawlOptions;
  trigger: CrawlTrigger;
  new_broken_links: number | null;
  error: string | null;
  truncated: boolean;
  pages_crawled: number;
  total_links: number;
  broken_links: number;
  skipped_links: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/** A recorded link with its target's verdict. */
export interface LinkRecord {
  url: string;
  source_url: string;
  status_code: number;
  is_broken: boolean;
  link_text: string;
  kind: StoredLinkKind;
  final_url: string | null;
  error: string | null;
  warning: string | null;
}

/** `new_broken`: broken now, not broken (or absent) before; `fixed`: broken before, not broken (or absent) now. */
export type ChangeKind = "new_broken" | "fixed";

/**
 * Broken links of crawl `from` whose (source page, URL) pair is not broken in crawl `other`: read from this
 * crawl for new_broken, from the previous one for fixed. Without a previous crawl every broken link is new.
 * Both sides come from broken_links, so the cost follows the broken links, not all of them.
 */
const CHANGE_FROM = `FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
  WHERE b.crawl_id = $from
    AND NOT EXISTS (
      SELECT 1 FROM crawl_targets ot JOIN broken_links ob ON ob.target_id = ot.id JOIN links o ON o.id = ob.link_id
      WHERE ot.crawl_id = $other AND ot.url = t.url AND o.source_url = l.source_url
    )`;

function changeSides(crawlId: string, against: string | null, kind: ChangeKind): { from: string; other: string | null } {
  if (kind === "new_broken") return { from: crawlId, other: against };
  return { from: against ?? "", other: crawlId };
}

export interface CrawlFilter {
  domainId?: string;
  status?: CrawlStatus;
}

export interface LinkFilter {
  statusCode?: number;
  isBroken?: boolean;
}

const CRAWL_COLUMNS = `c.id, c.domain_id, d.name AS domain_name, d.root_url, c.status, c.options, c.trigger, c.new_broken_links, c.error, c.truncated,
  c.pages_crawled, c.total_links, c.broken_links, c.skipped_links, c.created_at, c.started_at, c.completed_at`;

type RawCrawl = Omit<CrawlRecord, "options" | "truncated"> & { options: string; truncated: number };
type RawLink = Omit<LinkRecord, "is_broken"> & { is_broken: number };

function toCrawl(raw: RawCrawl | null): CrawlRecord | undefined {
  if (raw === null) return undefined;
  return { ...raw, options: JSON.parse(raw.options) as CrawlOptions, truncated: raw.truncated === 1 };
}

function toLink({ url, source_url, status_code, is_broken, link_text, kind, final_url, error, warning }: RawLink): LinkRecord {
  return { url, source_url, status_code, is_broken: is_broken === 1, link_text, kind, final_url, error, warning };
}

const LINK_COLUMNS = "t.url, l.source_url, t.status_code, t.is_broken, l.link_text, l.kind, t.final_url, t.error, t.warning";

/** Links read per query when a whole crawl is streamed. */
const STREAM_BATCH = 1_000;

/** The WHERE clause and parameters of a crawl filter. */
function crawlWhere(filter: CrawlFilter): { sql: string; params: Record<string, string> } {
  const clauses: string[] = [];
  const params: Record<string, string> = {};
  if (filter.domainId !== undefined) {
    clauses.push("c.domain_id = $domainId");
    params.domainId = filter.domainId;
  }
  if (filter.status !== undefined) {
    clauses.push("c.status = $status");
    params.status = filter.status;
  }
  return { sql: clauses.length === 0 ? "" : `WHERE ${clauses.join(" AND ")}`, params };
}

/** Only links whose target has been checked are results; queued and robots-skipped ones are not yet, or never. */
function linkWhere(filter: LinkFilter): { sql: string; params: Record<string, string | number> } {
  const clauses = ["l.crawl_id = $crawlId", "t.state = 'done'"];
  const params: Record<string, string | number> = {};
  if (filter.statusCode !== undefined) {
    clauses.push("t.status_code = $statusCode");
    params.statusCode = filter.statusCode;
  }
  if (filter.isBroken !== undefined) {
    clauses.push("t.is_broken = $isBroken");
    params.isBroken = filter.isBroken ? 1 : 0;
  }
  return { sql: `WHERE ${clauses.join(" AND ")}`, params };
}

export class CrawlsRepo {
  private readonly outbox: OutboxRepo;
  private readonly marks: LinkMarks;

  constructor(
    private readonly sqlite: Database,
    options: { marks?: LinkMarksOptions } = {},
  ) {
    this.outbox = new OutboxRepo(sqlite);
    this.marks = new LinkMarks(options.marks);
  }

  /** Inserts a pending crawl, or returns the id of the domain's active crawl when it already has one. */
  insertUnlessActive(row: { id: string; domainId: string; options: CrawlOptions; trigger: CrawlTrigger; createdAt: string }):
    | { inserted: true }
    | { inserted: false; activeId: string } {
    // The partial unique index decides, so an API request and the scheduler cannot both start a crawl.
    const result = this.sqlite
      .query(
        `INSERT INTO crawls (id, domain_id, status, options, trigger, created_at)
         VALUES ($id, $domainId, 'pending', $options, $trigger, $createdAt)
         ON CONFLICT DO NOTHING`,
      )
      .run({ id: row.id, domainId: row.domainId, options: JSON.stringify(row.options), trigger: row.trigger, createdAt: row.createdAt });
    if (result.changes === 1) return { inserted: true };
    return { inserted: false, activeId: this.activeCrawlId(row.domainId) ?? "unknown" };
  }

  /** The pending or running crawl of a domain, if any. */
  activeCrawlId(domainId: string): string | undefined {
    const row = this.sqlite
      .query<{ id: string }, { domainId: string }>(
        "SELECT id FROM crawls WHERE domain_id = $domainId AND status IN ('pending', 'running')",
      )
      .get({ domainId });
    return row?.id;
  }

  /** Targets still waiting to be checked (the frontier's size), for progress displays. */
  queuedCount(crawlId: string): number {
    return (
      this.sqlite
        .query<{ n: number }, { crawlId: string }>("SELECT COUNT(*) AS n FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'queued'")
        .get({ crawlId })?.n ?? 0
    );
  }

  /** The domain's newest crawl, if any. */
  lastCrawlId(domainId: string): string | undefined {
    return (
      this.sqlite
        .query<{ id: string }, { domainId: string }>("SELECT id FROM crawls WHERE domain_id = $domainId ORDER BY created_at DESC, id DESC LIMIT 1")
        .get({ domainId })?.id ?? undefined
    );
  }

  /** When the domain's newest scheduled crawl was created, if any (the scheduler's catch-up reads it). */
  lastScheduledAt(domainId: string): string | undefined {
    return (
      this.sqlite
        .query<{ at: string | null }, { domainId: string }>("SELECT MAX(created_at) AS at FROM crawls WHERE domain_id = $domainId AND trigger = 'schedule'")
        .get({ domainId })?.at ?? undefined
    );
  }

  findById(id: string): CrawlRecord | undefined {
    return toCrawl(
      this.sqlite
        .query<RawCrawl, { id: string }>(`SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id WHERE c.id = $id`)
        .get({ id }),
    );
  }

  /** One page of crawls matching `filter`, newest first (UUIDv7 ids break ties in creation order). */
  page(filter: CrawlFilter, offset: number, limit: number): CrawlRecord[] {
    const where = crawlWhere(filter);
    return this.sqlite
      .query<RawCrawl, Record<string, string | number>>(
        `SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id ${where.sql}
         ORDER BY c.created_at DESC, c.id DESC LIMIT $limit OFFSET $offset`,
      )
      .all({ ...where.params, limit, offset })
      .map((raw) => toCrawl(raw)!);
  }

  count(filter: CrawlFilter): number {
    const where = crawlWhere(filter);
    return (
      this.sqlite
        .query<{ n: number }, Record<string, string>>(`SELECT COUNT(*) AS n FROM crawls c ${where.sql}`)
        .get(where.params)?.n ?? 0
    );
  }

  /**
   * One page of a crawl's checked links matching `filter`, in discovery order. Broken links are paged through
   * their own index; for the other listings deep pages start from a remembered position (link-marks.ts)
   * instead of walking every row before them, and a running crawl's positions are remembered for 5 s at a time. `prepareLinks` finds those positions without holding the caller's thread for long.
   */
  links(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number, limit: number): LinkRecord[] {
    if (filter.isBroken === true) return this.brokenLinks(crawl.id, filter.statusCode, offset, limit);
    const listing = this.listing(crawl, filter);
    const start = this.marks.seek(listing.key, offset, listing.find, listing.moving);
    return this.sqlite
      .query<RawLink, Record<string, string | number>>(
        `SELECT ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id ${listing.where} AND l.id > $afterId
         ORDER BY l.id LIMIT $limit OFFSET $skip`,
      )
      .all({ ...listing.params, afterId: start.afterId, skip: start.skip, limit })
      .map(toLink);
  }

  /** Finds, a slice at a time, the remembered positions links() needs for a page at `offset`. */
  async prepareLinks(crawl: Pick<CrawlRecord, "id" | "status">, filter: LinkFilter, offset: number): Promise<void> {
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
           SELECT b.link_id FROM broken_links b ${byStatus} WHERE b.crawl_id = $crawlId ORDER BY b.link_id LIMIT $limit OFFSET $offset
         ) page JOIN links l ON l.id = page.link_id JOIN crawl_targets t ON t.id = l.target_id
         ORDER BY page.link_id`,
      )
      .all({ crawlId, limit, offset, ...(statusCode === undefined ? {} : { statusCode }) })
      .map(toLink);
  }

  /** Every checked link of a crawl in discovery order, read in batches so memory stays flat. */
  *eachLink(crawlId: string): Generator<LinkRecord> {
    const where = linkWhere({});
    const batch = this.sqlite.query<RawLink & { id: number }, Record<string, string | number>>(
      `SELECT l.id, ${LINK_COLUMNS} FROM links l JOIN crawl_targets t ON t.id = l.target_id ${where.sql} AND l.id > $afterId
       ORDER BY l.id LIMIT ${STREAM_BATCH}`,
    );
    for (let afterId = 0; ; ) {
      const rows = batch.all({ crawlId, afterId });
      for (const row of rows) yield toLink(row);
      if (rows.length < STREAM_BATCH) return;
      afterId = rows[rows.length - 1]!.id;
    }
  }

  /**
   * How many checked links match `filter`, from counters written in the transactions that record the links:
   * the crawl's own for the common filters, crawl_status_counts for a status code.
   */
  countLinks(crawl: Pick<CrawlRecord, "id" | "total_links" | "broken_links">, filter: LinkFilter): number {
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

  /** Moves the oldest pending crawl to running (queuing `crawl.started`) and returns it; undefined when none waits. */
  claimNextPending(now: string): CrawlRecord | undefined {
    return this.sqlite.transaction(() => {
      const claimed = this.sqlite
        .query<{ id: string }, { now: string }>(
          `UPDATE crawls SET status = 'running', started_at = COALESCE(started_at, $now)
           WHERE id = (SELECT id FROM crawls WHERE status = 'pending' ORDER BY created_at, id LIMIT 1)
           RETURNING id`,
        )
        .get({ now });
      if (claimed === null) return undefined;
      const crawl = this.findById(claimed.id)!;
      this.outbox.enqueue([startedEvent(crawl)], now);
      return crawl;
    })();
  }

  /** Ids of crawls left `running` (by a process that stopped), oldest first: they resume. */
  /** How many crawls are in each status (metrics). */
  countByStatus(): Record<string, number> {
    const rows = this.sqlite.query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM crawls GROUP BY status").all();
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  runningIds(): string[] {
    return this.sqlite
      .query<{ id: string }, []>("SELECT id FROM crawls WHERE status = 'running' ORDER BY started_at, id")
      .all()
      .map((row) => row.id);
  }

  /**
   * Ends a crawl that is still pending or running and queues its end events (crawl.completed and
   * broken_links.found, or crawl.failed); false when it had already ended (or is gone).
   */
  finish(id: string, outcome: { status: "completed" | "failed"; error: string | null; now: string }): boolean {
    return this.sqlite.transaction(() => {
      const result = this.sqlite
        .query(
          `UPDATE crawls SET status = $status, error = $error, completed_at = $now
           WHERE id = $id AND status IN ('pending', 'running')`,
        )
        .run({ id, status: outcome.status, error: outcome.error, now: outcome.now });
      if (result.changes !== 1) return false;
      if (outcome.status === "completed") {
        const previous = this.previousCompleted(id);
        const fresh = this.countChanges(id, previous?.id ?? null, "new_broken");
        this.sqlite.query("UPDATE crawls SET new_broken_links = $n WHERE id = $id").run({ id, n: fresh });
      }
      const crawl = this.findById(id)!;
      this.outbox.enqueue(endedEvents(crawl, crawl.broken_links > 0 ? this.brokenSample(id) : []), outcome.now);
      return true;
    })();
  }

  /** The last crawl of the same domain that completed before this one was created. */
  previousCompleted(crawlId: string): { id: string } | undefined {
    return (
      this.sqlite
        .query<{ id: string }, { id: string }>(
          `SELECT p.id FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
           WHERE c.id = $id AND p.status = 'completed' AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id < c.id))
           ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
        )
        .get({ id: crawlId }) ?? undefined
    );
  }

  /** Links that changed between `against` (or nothing) and this crawl, one page, in this crawl's discovery order. */
  changes(crawlId: string, against: string | null, kind: ChangeKind, offset: number, limit: number): LinkRecord[] {
    const { from, other } = changeSides(crawlId, against, kind);
    return this.sqlite
      .query<RawLink, { from: string; other: string | null; limit: number; offset: number }>(
        `SELECT ${LINK_COLUMNS}
         ${CHANGE_FROM} ORDER BY l.id LIMIT $limit OFFSET $offset`,
      )
      .all({ from, other, limit, offset })
      .map(toLink);
  }

  countChanges(crawlId: string, against: string | null, kind: ChangeKind): number {
    const { from, other } = changeSides(crawlId, against, kind);
    return this.sqlite.query<{ n: number }, { from: string; other: string | null }>(`SELECT COUNT(*) AS n ${CHANGE_FROM}`).get({ from, other })?.n ?? 0;
  }

  /** The first broken targets of a crawl, in discovery order, for `broken_links.found`. */
  private brokenSample(crawlId: string): { url: string; status_code: number }[] {
    return this.sqlite
      .query<{ url: string; status_code: number }, { crawlId: string; limit: number }>(
        `SELECT t.url, t.status_code FROM crawl_targets t
         WHERE t.id IN (SELECT target_id FROM broken_links WHERE crawl_id = $crawlId)
         ORDER BY t.id LIMIT $limit`,
      )
      .all({ crawlId, limit: SAMPLE_LINKS });
  }
}
