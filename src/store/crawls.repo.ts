import type { CrawlFailure, StoredEnd } from "../core/crawl-life.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { hasNoRules, storedIgnoreRules, type IgnoreRules } from "../core/ignore-rules.ts";
import { withDefaultOptions } from "../core/stored-options.ts";
import type { CrawlEvent } from "../core/crawl-events.ts";
import type { Db } from "./db.ts";
import { DigestRepo } from "./digest.repo.ts";
import { OpenLinksRepo } from "./open-links.repo.ts";
import { OutboxRepo } from "./outbox.repo.ts";
import { WarningsRepo } from "./warnings.repo.ts";
import type { CrawlStatus, CrawlTrigger, TargetState } from "./schema.ts";

/**
 * Queries on crawls for the API and the crawl pool; no rules here (services/crawls.service.ts holds them, and
 * crawler/crawl-transitions.ts those of a crawl's start and end). Written in SQL over the store's Db (store/db.ts),
 * the same on both stores, because the list queries combine optional filters and joins. Reading a crawl's links is
 * links.repo.ts; the crawler's own writes (frontier, verdicts) are frontier.repo.ts. State changes that clients
 * hear about (a crawl starts running, a crawl ends) queue their webhook deliveries in the same `transaction`, through
 * the repo over that transaction's Db (`over`).
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

function toCrawl(raw: RawCrawl | undefined): CrawlRecord | undefined {
  if (raw === undefined) return undefined;
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

  constructor(private readonly db: Db) {
    this.outbox = new OutboxRepo(db);
    this.digests = new DigestRepo(db);
    this.warnings = new WarningsRepo(db);
    this.openLinks = new OpenLinksRepo(db);
  }

  /** Runs `work` in one transaction, given this repo over the transaction's Db: every statement of the body goes through it. */
  transaction<T>(work: (crawls: CrawlsRepo, tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => work(new CrawlsRepo(tx), tx));
  }

  /** Inserts a pending crawl, or returns the id of the domain's active crawl when it already has one. */
  async insertUnlessActive(row: {
    id: string;
    domainId: string;
    options: CrawlOptions;
    ignoreRules: IgnoreRules;
    full?: boolean;
    trigger: CrawlTrigger;
    createdAt: string;
  }): Promise<{ inserted: true } | { inserted: false; activeId: string }> {
    // The partial unique index decides, so an API request and the scheduler (or two nodes) cannot both start a crawl.
    const result = await this.db.run(
      `INSERT INTO crawls (id, domain_id, status, options, trigger, created_at)
       VALUES ($id, $domainId, 'pending', $options, $trigger, $createdAt)
       ON CONFLICT DO NOTHING`,
      {
        id: row.id,
        domainId: row.domainId,
        options: storedOptions(row.options, row.ignoreRules, row.full === true),
        trigger: row.trigger,
        createdAt: row.createdAt,
      },
    );
    if (result.changes > 0) return { inserted: true };
    return { inserted: false, activeId: (await this.activeCrawlId(row.domainId)) ?? "unknown" };
  }

  /** The pending or running crawl of a domain, if any. */
  async activeCrawlId(domainId: string): Promise<string | undefined> {
    return (await this.db.get<{ id: string }>("SELECT id FROM crawls WHERE domain_id = $domainId AND status IN ('pending', 'running')", { domainId }))?.id;
  }

  /** Targets still waiting to be checked (the frontier's size), for progress displays. */
  async queuedCount(crawlId: string): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'queued'", { crawlId }))?.n ?? 0;
  }

  /**
   * How many distinct targets the crawl has found and how many wait to be checked: one pass over the crawl's
   * entries of the state index, without reading the rows (bench/README.md, "A running crawl's progress").
   */
  async frontierCounts(crawlId: string): Promise<{ found: number; queued: number }> {
    const rows = await this.db.all<{ state: string; n: number }>("SELECT state, COUNT(*) AS n FROM crawl_targets WHERE crawl_id = $crawlId GROUP BY state", {
      crawlId,
    });
    return { found: rows.reduce((sum, row) => sum + row.n, 0), queued: rows.find((row) => row.state === "queued")?.n ?? 0 };
  }

  /** Whether the crawl has targets still waiting to be checked. */
  async hasQueued(crawlId: string): Promise<boolean> {
    // A row or none, rather than EXISTS's value: SQLite answers 0/1, PostgreSQL a boolean.
    return (await this.db.get("SELECT 1 AS queued FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'queued' LIMIT 1", { crawlId })) !== undefined;
  }

  /**
   * The newest crawl of each of `domainIds` that has one, in one statement: a page of domains asked one statement a
   * domain, 20 round trips a page on PostgreSQL.
   */
  async lastCrawlIds(domainIds: readonly string[]): Promise<Map<string, string>> {
    if (domainIds.length === 0) return new Map();
    const rows = await this.db.all<{ domain_id: string; id: string | null }>(
      `SELECT d.id AS domain_id, (SELECT c.id FROM crawls c WHERE c.domain_id = d.id ORDER BY c.created_at DESC, c.id DESC LIMIT 1) AS id
       FROM domains d WHERE ${this.db.dialect.textIn("d.id", "ids")}`,
      { ids: JSON.stringify(domainIds) },
    );
    return new Map(rows.flatMap((row) => (row.id === null ? [] : [[row.domain_id, row.id] as const])));
  }

  /** When the domain's newest scheduled crawl was created, if any (the scheduler's catch-up reads it). */
  async lastScheduledAt(domainId: string): Promise<string | undefined> {
    const row = await this.db.get<{ at: string | null }>("SELECT MAX(created_at) AS at FROM crawls WHERE domain_id = $domainId AND trigger = 'schedule'", {
      domainId,
    });
    return row?.at ?? undefined;
  }

  /** The newest completed crawl of `crawlId`'s domain created before it, if retention left one. */
  async previousCompleted(crawlId: string): Promise<CrawlRecord | undefined> {
    return toCrawl(
      await this.db.get<RawCrawl>(
        `SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id
         JOIN crawls this ON this.id = $id AND this.domain_id = c.domain_id
         WHERE c.status = 'completed' AND (c.created_at < this.created_at OR (c.created_at = this.created_at AND c.id < this.id))
         ORDER BY c.created_at DESC, c.id DESC LIMIT 1`,
        { id: crawlId },
      ),
    );
  }

  async findById(id: string): Promise<CrawlRecord | undefined> {
    return toCrawl(await this.db.get<RawCrawl>(`SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id WHERE c.id = $id`, { id }));
  }

  /** The node holding a running crawl's lease (several nodes on one store), or undefined. */
  async runningNode(id: string): Promise<string | undefined> {
    return (await this.db.get<{ holder: string }>("SELECT holder FROM work_leases WHERE kind = 'crawl' AND key = $id", { id }))?.holder;
  }

  /** One page of crawls matching `filter`, newest first (UUIDv7 ids break ties in creation order). */
  async page(filter: CrawlFilter, offset: number, limit: number): Promise<CrawlRecord[]> {
    const where = crawlWhere(filter);
    const rows = await this.db.all<RawCrawl>(
      `SELECT ${CRAWL_COLUMNS} FROM crawls c JOIN domains d ON d.id = c.domain_id ${where.sql}
       ORDER BY c.created_at DESC, c.id DESC LIMIT $limit OFFSET $offset`,
      { ...where.params, limit, offset },
    );
    return rows.map((raw) => toCrawl(raw)!);
  }

  async count(filter: CrawlFilter): Promise<number> {
    const where = crawlWhere(filter);
    return (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM crawls c ${where.sql}`, where.params))?.n ?? 0;
  }

  /**
   * Moves the oldest pending crawl to running; its id, or undefined when none waits. On PostgreSQL the pending row
   * is locked as it is picked and rows another node is claiming are passed over (`dialect.skipLocked`), so two
   * nodes claiming at once take two crawls, never one twice.
   */
  async claimOldestPending(now: string): Promise<string | undefined> {
    const row = await this.db.get<{ id: string }>(
      `UPDATE crawls SET status = 'running', started_at = COALESCE(started_at, $now)
       WHERE id = (SELECT id FROM crawls WHERE status = 'pending' ORDER BY created_at, id LIMIT 1${this.db.dialect.skipLocked}) AND status = 'pending'
       RETURNING id`,
      { now },
    );
    return row?.id;
  }

  /** Whether some crawl waits to be claimed (a read: no lock taken). */
  async hasPending(): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS pending FROM crawls WHERE status = 'pending' LIMIT 1")) !== undefined;
  }

  /** Queues `events` for the webhooks subscribed to them (the outbox); run inside the change's `transaction`. */
  async queueDeliveries(events: CrawlEvent[], now: string): Promise<void> {
    await this.outbox.enqueue(events, now);
  }

  /** How many crawls are in each status (metrics). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.all<{ status: string; n: number }>("SELECT status, COUNT(*) AS n FROM crawls GROUP BY status");
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  /** Ids of crawls left `running` (by a process that stopped), oldest first: they resume. */
  async runningIds(): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>("SELECT id FROM crawls WHERE status = 'running' ORDER BY started_at, id");
    return rows.map((row) => row.id);
  }

  /** Writes the end state of a crawl that is still pending or running; false when it had already ended (or is gone). */
  async markEnded(id: string, end: StoredEnd & { now: string }): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE crawls SET status = $status, error = $error, failure = $failure, completed_at = $now
       WHERE id = $id AND status IN ('pending', 'running')`,
      { id, status: end.status, error: end.error, failure: end.failure, now: end.now },
    );
    return result.changes > 0;
  }

  /** Sets how many of the crawl's broken links were not open before it (`new_broken_links`). */
  async setNewBrokenLinks(id: string, count: number): Promise<void> {
    await this.db.run("UPDATE crawls SET new_broken_links = $n WHERE id = $id", { id, n: count });
  }

  /** One target of a crawl by its normalised URL, if the frontier has it. */
  async target(crawlId: string, url: string): Promise<TargetRow | undefined> {
    const row = await this.db.get<Omit<TargetRow, "is_broken"> & { is_broken: number | null }>(
      "SELECT state, status_code, is_broken, error, warning, final_url FROM crawl_targets WHERE crawl_id = $crawlId AND url = $url",
      { crawlId, url },
    );
    return row === undefined ? undefined : { ...row, is_broken: row.is_broken === 1 };
  }
}
