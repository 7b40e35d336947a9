import type { Database } from "bun:sqlite";
import type { CrawlFailure, StoredEnd } from "../core/crawl-life.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { hasNoRules, storedIgnoreRules, type IgnoreRules } from "../core/ignore-rules.ts";
import { withDefaultOptions } from "../core/stored-options.ts";
import type { CrawlEvent } from "../core/crawl-events.ts";
import { DigestRepo } from "./digest.repo.ts";
import { OpenLinksRepo } from "./open-links.repo.ts";
import { OutboxRepo } from "./outbox.repo.ts";
import { WarningsRepo } from "./warnings.repo.ts";
import type { CrawlStatus, CrawlTrigger, TargetState } from "./schema.ts";

/**
 * Queries on crawls for the API and the crawl pool; no rules here (services/crawls.service.ts holds them, and
 * crawler/crawl-transitions.ts those of a crawl's start and end). Written in SQL over bun:sqlite because the list
 * queries combine optional filters and joins; `query()` caches each distinct statement, so a request pays for
 * execution, not compilation. Reading a crawl's links is links.repo.ts; the crawler's own writes (frontier,
 * verdicts) are frontier.repo.ts. State changes that clients hear about (a crawl starts running, a crawl ends)
 * queue their webhook deliveries in the same `transaction`.
 */

/** A crawl row joined with its domain's name. */
export interface CrawlRecord {
  id: string;
  domain_id: string;
  domain_name: string;
  root_url: string;
  status: CrawlStatus;
  options: CrawlOptions;
  /** The domain's ignore rules when the crawl was created (kept in the stored options document). */
  ignore_rules: IgnoreRules;
  /** Asked to read every page in full (`full: true` at its start), never reusing the previous crawl's (crawler/page-reuse.ts). */
  full: boolean;
  trigger: CrawlTrigger;
  new_broken_links: number | null;
  error: string | null;
  failure: CrawlFailure | null;
  truncated: boolean;
  pages_cut: number;
  pages_crawled: number;
  total_links: number;
  broken_links: number;
  skipped_links: number;
  excluded_links: number;
  /** Pages whose links came from the previous crawl, not from parsing them (crawler/page-reuse.ts). */
  pages_reused: number;
  sitemap_urls: number | null;
  orphan_pages: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface CrawlFilter {
  domainId?: string;
  status?: CrawlStatus;
}

const CRAWL_COLUMNS = `c.id, c.domain_id, d.name AS domain_name, d.root_url, c.status, c.options, c.trigger, c.new_broken_links, c.error, c.failure, c.truncated,
  c.pages_cut, c.pages_crawled, c.total_links, c.broken_links, c.skipped_links, c.excluded_links, c.pages_reused, c.sitemap_urls, c.orphan_pages, c.created_at, c.started_at, c.completed_at`;

type RawCrawl = Omit<CrawlRecord, "options" | "ignore_rules" | "full" | "truncated"> & { options: string; truncated: number };

/** The stored options document: the flags, the ignore rules when the domain had any, and `full` when asked. */
type StoredCrawlOptions = Partial<CrawlOptions> & { ignore_rules?: Partial<IgnoreRules>; full?: boolean };

function toCrawl(raw: RawCrawl | null): CrawlRecord | undefined {
  if (raw === null) return undefined;
  const { ignore_rules, full, ...flags } = JSON.parse(raw.options) as StoredCrawlOptions;
  return {
    ...raw,
    options: withDefaultOptions(flags),
    ignore_rules: storedIgnoreRules(ignore_rules),
    full: full === true,
    truncated: raw.truncated === 1,
  };
}

/** The options document of a new crawl: rules and `full` are written only when there are some, so other crawls read as before. */
function storedOptions(options: CrawlOptions, rules: IgnoreRules, full: boolean): string {
  const document: StoredCrawlOptions = hasNoRules(rules) ? { ...options } : { ...options, ignore_rules: rules };
  if (full) document.full = true;
  return JSON.stringify(document);
}

/** The frontier row of one target, as read to judge a crawl's start page. */
export interface TargetRow {
  state: TargetState;
  status_code: number | null;
  is_broken: boolean;
  error: string | null;
  warning: string | null;
  final_url: string | null;
}

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

export class CrawlsRepo {
  /** The outbox, written in the transactions that change a crawl's state. */
  readonly outbox: OutboxRepo;
  /** The crawls' warnings, kept apart from their rows (warnings.repo.ts): no crawl list reads them. */
  readonly warnings: WarningsRepo;
  /** What an ended crawl's notification digest reads. */
  readonly digests: DigestRepo;
  /** The domain's open links, which a crawl's end settles in the same transaction (crawler/open-links.ts). */
  readonly openLinks: OpenLinksRepo;

  constructor(private readonly sqlite: Database) {
    this.outbox = new OutboxRepo(sqlite);
    this.warnings = new WarningsRepo(sqlite);
    this.digests = new DigestRepo(sqlite);
    this.openLinks = new OpenLinksRepo(sqlite);
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work)();
  }

  /** Inserts a pending crawl, or returns the id of the domain's active crawl when it already has one. */
  insertUnlessActive(row: {
    id: string;
    domainId: string;
    options: CrawlOptions;
    ignoreRules: IgnoreRules;
    full?: boolean;
    trigger: CrawlTrigger;
    createdAt: string;
  }): { inserted: true } | { inserted: false; activeId: string } {
    // The partial unique index decides, so an API request and the scheduler cannot both start a crawl.
    const result = this.sqlite
      .query(
        `INSERT INTO crawls (id, domain_id, status, options, trigger, created_at)
         VALUES ($id, $domainId, 'pending', $options, $trigger, $createdAt)
         ON CONFLICT DO NOTHING`,
      )
      .run({
        id: row.id,
        domainId: row.domainId,
        options: storedOptions(row.options, row.ignoreRules, row.full === true),
        trigger: row.trigger,
        createdAt: row.createdAt,
      });
    if (result.changes > 0) return { inserted: true };
    return { inserted: false, activeId: this.activeCrawlId(row.domainId) ?? "unknown" };
  }

  /** The pending or running crawl of a domain, if any. */
  activeCrawlId(domainId: string): string | undefined {
    const row = this.sqlite
      .query<{ id: string }, { domainId: string }>("SELECT id FROM crawls WHERE domain_id = $domainId AND status IN ('pending', 'running')")
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

  /**
   * How many distinct targets the crawl has found and how many wait to be checked: one pass over the crawl's
   * entries of the state index, without reading the rows (bench/README.md, "A running crawl's progress").
   */
  frontierCounts(crawlId: string): { found: number; queued: number } {
    const rows = this.sqlite
      .query<{ state: string; n: number }, { crawlId: string }>("SELECT state, COUNT(*) AS n FROM crawl_targets WHERE crawl_id = $crawlId GROUP BY state")
      .all({ crawlId });
    return { found: rows.reduce((sum, row) => sum + row.n, 0), queued: rows.find((row) => row.state === "queued")?.n ?? 0 };
  }

  /** Whether the crawl has targets still waiting to be checked. */
  hasQueued(crawlId: string): boolean {
    return (
      this.sqlite
        .query<{ queued: number }, { crawlId: string }>("SELECT EXISTS (SELECT 1 FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'queued') AS queued")
        .get({ crawlId })?.queued === 1
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

  /** The newest completed crawl of `crawlId`'s domain created before it, if retention left one. */
  previousCompleted(crawlId: string): CrawlRecord | undefined {
    return toCrawl(
      this.sqlite
        .query<RawCrawl, { id: string }>(
          `SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id
           JOIN crawls this ON this.id = $id AND this.domain_id = c.domain_id
           WHERE c.status = 'completed' AND (c.created_at < this.created_at OR (c.created_at = this.created_at AND c.id < this.id))
           ORDER BY c.created_at DESC, c.id DESC LIMIT 1`,
        )
        .get({ id: crawlId }),
    );
  }

  findById(id: string): CrawlRecord | undefined {
    return toCrawl(
      this.sqlite.query<RawCrawl, { id: string }>(`SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id WHERE c.id = $id`).get({ id }),
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
    return this.sqlite.query<{ n: number }, Record<string, string>>(`SELECT COUNT(*) AS n FROM crawls c ${where.sql}`).get(where.params)?.n ?? 0;
  }

  /** Moves the oldest pending crawl to running; its id, or undefined when none waits. */
  claimOldestPending(now: string): string | undefined {
    return (
      this.sqlite
        .query<{ id: string }, { now: string }>(
          `UPDATE crawls SET status = 'running', started_at = COALESCE(started_at, $now)
           WHERE id = (SELECT id FROM crawls WHERE status = 'pending' ORDER BY created_at, id LIMIT 1)
           RETURNING id`,
        )
        .get({ now })?.id ?? undefined
    );
  }

  /** Queues `events` for the webhooks subscribed to them (the outbox); run inside the change's `transaction`. */
  queueDeliveries(events: CrawlEvent[], now: string): void {
    this.outbox.enqueue(events, now);
  }

  /** How many crawls are in each status (metrics). */
  countByStatus(): Record<string, number> {
    const rows = this.sqlite.query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM crawls GROUP BY status").all();
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  /** Ids of crawls left `running` (by a process that stopped), oldest first: they resume. */
  runningIds(): string[] {
    return this.sqlite
      .query<{ id: string }, []>("SELECT id FROM crawls WHERE status = 'running' ORDER BY started_at, id")
      .all()
      .map((row) => row.id);
  }

  /** Writes the end state of a crawl that is still pending or running; false when it had already ended (or is gone). */
  markEnded(id: string, end: StoredEnd & { now: string }): boolean {
    const result = this.sqlite
      .query(
        `UPDATE crawls SET status = $status, error = $error, failure = $failure, completed_at = $now
         WHERE id = $id AND status IN ('pending', 'running')`,
      )
      .run({ id, status: end.status, error: end.error, failure: end.failure, now: end.now });
    return result.changes > 0;
  }

  /** Sets how many of the crawl's broken links were not open before it (`new_broken_links`). */
  setNewBrokenLinks(id: string, count: number): void {
    this.sqlite.query("UPDATE crawls SET new_broken_links = $n WHERE id = $id").run({ id, n: count });
  }

  /** One target of a crawl by its normalised URL, if the frontier has it. */
  target(crawlId: string, url: string): TargetRow | undefined {
    const row = this.sqlite
      .query<Omit<TargetRow, "is_broken"> & { is_broken: number | null }, { crawlId: string; url: string }>(
        "SELECT state, status_code, is_broken, error, warning, final_url FROM crawl_targets WHERE crawl_id = $crawlId AND url = $url",
      )
      .get({ crawlId, url });
    return row === null ? undefined : { ...row, is_broken: row.is_broken === 1 };
  }
}
