import type { LinkVerdict } from "../core/link-outcome.ts";
import { requireRunning, type CrawlFence } from "./crawl-fence.ts";
import type { Db, SqlValue } from "./db.ts";
import { MultiRowInsert } from "./multi-row-insert.ts";
import type { PageIdsGap } from "../core/fragment-gap.ts";
import type { TargetState } from "./schema.ts";

/** What a claimed page keeps besides its URL: whether it was cut, what the next crawl needs to reuse it, where its links are. */
export interface PageClaim {
  cut: boolean;
  /** Validators, body hash and size, links before gating; null when none are kept (stylesheets, `check`). */
  record: { etag: string | null; lastModified: string | null; bodyHash: string; bodyBytes: number; linksFound: number } | null;
  excluded: number;
  firstLinkId: number;
  linkCount: number;
  /** With `check_fragments`: the page's ids (page-ids.ts bytes) and their gap, kept with it for the next crawl. */
  ids: { hashes: Uint8Array; gap: PageIdsGap | null } | null;
}

/**
 * The statements behind a crawl's frontier and the results the crawler records: targets, links, the crawl's
 * counters and the rows that keep them (broken_links, crawl_status_counts, crawl_waiting). No rules here: what a
 * batch of results means (which targets become pages, the page limits, what counts, what is checked again) is
 * the crawler's (crawler/frontier.ts), which runs these inside one immediate, fenced transaction per batch
 * (`whileRunning`), on the repo the transaction hands it.
 *
 * Nothing here reads links by target (links have no such index; see schema.ts): links waiting for a queued
 * target are chained through links.waiting_prev_id, whose head the crawler keeps.
 */

/** A frontier row handed to the crawler. */
export interface FrontierTarget {
  id: number;
  url: string;
  internal: boolean;
  asPage: boolean;
  depth: number;
}

interface RawTarget {
  id: number;
  url: string;
  internal: number;
  as_page: number;
  depth: number;
}

function toTarget(raw: RawTarget): FrontierTarget {
  return { id: raw.id, url: raw.url, internal: raw.internal === 1, asPage: raw.as_page === 1, depth: raw.depth };
}

/** A crawl_targets row with its waiting links (crawl_waiting), as the store holds it. */
export interface StoredTarget {
  id: number;
  url: string;
  state: TargetState;
  as_page: number;
  status_code: number | null;
  is_broken: number | null;
  waiting_links: number | null;
  last_waiting_link_id: number | null;
}

/** The links waiting for one queued target, counted from the links themselves. */
export interface WaitingCount {
  id: number;
  url: string;
  links: number;
  last_link_id: number;
}

/** A link waiting for a target (its page and fragment), and the newest link of its chain. */
export interface WaitingLink {
  head: number;
  id: number;
  source_url: string;
  fragment: string;
}

/**
 * `rows` as JSON text for dialect.jsonRows. JSON.stringify escapes a lone surrogate (`\ud800`), which PostgreSQL's
 * JSON refuses, where a bound parameter would carry U+FFFD: such strings are made well-formed first (rare: the
 * test also meets a literal backslash-u, and only costs the slower pass).
 */
function rowsJson(rows: readonly (readonly SqlValue[])[]): string {
  const json = JSON.stringify(rows);
  if (!/\\u[dD][89a-fA-F]/.test(json)) return json;
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === "string" ? value.toWellFormed() : value));
}

/** The ids the next link and the next target get (nextIds). */
export interface NextIds {
  links: number;
  crawl_targets: number;
}

// In this order everywhere: on PostgreSQL each table's lock is taken in it.
const ID_TABLES = ["links", "crawl_targets"] as const;

/** What a batch adds to a crawl's counters. */
export interface CounterDelta {
  pagesAdded: number;
  total: number;
  broken: number;
  skipped: number;
  /** Links an `exclude` ignore rule kept out of the batch's pages. */
  excluded: number;
  /** 1 when the batch left a page unparsed for a limit. */
  truncated: number;
  pagesCut: number;
  /** Pages whose links came from the previous crawl. */
  pagesReused: number;
}

const STORED_TARGET_COLUMNS = `t.id, t.url, t.state, t.as_page, t.status_code, t.is_broken,
  w.links AS waiting_links, w.last_link_id AS last_waiting_link_id
  FROM crawl_targets t LEFT JOIN crawl_waiting w ON w.target_id = t.id`;

// No conflict check: a page's links are recorded once (crawl_pages claim) and deduped per target (and fragment)
// before. A batch's links go together, each row naming its page; 1,000 rows of 6 values a statement.
const INSERT_LINKS = new MultiRowInsert(
  "INSERT INTO links (crawl_id, source_url, target_id, link_text, kind, waiting_prev_id, fragment) VALUES",
  "(?1, ?, ?, ?, ?, ?, ?)",
  1,
  "",
  1000,
);
// The same rows as one JSON array (dialect.rowsAsJson), up to 5,000 a statement.
const LINKS_AS_JSON = 5000;
const LINK_COLUMNS = ["text", "bigint", "text", "text", "bigint", "text"] as const;
// A batch's new targets, in the order of the ids the batch gave them (nextIds).
const INSERT_TARGETS = new MultiRowInsert(
  "INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth, state, status_code, is_broken, error, warning, final_url) VALUES",
  "(?1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  1,
  "",
  1000,
);
// A batch's changes to queued targets, one row each: typed values (PostgreSQL cannot type a bare parameter in VALUES).
// "Still queued" is compared with a column of v, not a constant: statistics from the previous crawl's end know no
// queued target, and PostgreSQL then scanned the whole table once per row (docs/decisions.md, "A re-audit on PostgreSQL").
const UPDATE_QUEUED_TARGETS = new MultiRowInsert(
  "WITH v (id, as_page, state, status_code, is_broken, error, warning, final_url, was) AS (VALUES",
  "(CAST(? AS bigint), CAST(? AS bigint), CAST(? AS text), CAST(? AS bigint), CAST(? AS bigint), CAST(? AS text), CAST(? AS text), CAST(? AS text), 'queued')",
  0,
  `) UPDATE crawl_targets SET state = v.state, as_page = v.as_page, status_code = v.status_code, is_broken = v.is_broken, error = v.error,
     warning = v.warning, final_url = v.final_url
   FROM v WHERE crawl_targets.id = v.id AND crawl_targets.state = v.was`,
  1000,
);
const CLAIM_PAGES = new MultiRowInsert(
  `INSERT INTO crawl_pages (crawl_id, url, cut, etag, last_modified, body_hash, body_bytes, links_found, excluded_links, first_link_id, link_count,
     id_hashes, ids_gap) VALUES`,
  "(?1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  1,
  "ON CONFLICT DO NOTHING",
  1000,
);
const UPSERT_WAITING = new MultiRowInsert(
  "INSERT INTO crawl_waiting (target_id, links, last_link_id) VALUES",
  "(?, ?, ?)",
  0,
  "ON CONFLICT (target_id) DO UPDATE SET links = excluded.links, last_link_id = excluded.last_link_id",
);
const INSERT_BROKEN_LINKS = new MultiRowInsert("INSERT INTO broken_links (crawl_id, link_id, target_id, broken_since) VALUES", "(?1, ?, ?, ?)", 1);
const ADD_STATUS_COUNTS = new MultiRowInsert(
  "INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links) VALUES",
  "(?1, ?, ?, ?)",
  1,
  "ON CONFLICT (crawl_id, status_code, is_broken) DO UPDATE SET links = crawl_status_counts.links + excluded.links",
);

export class FrontierRepo {
  constructor(
    private readonly db: Db,
    private readonly fence: CrawlFence = requireRunning,
  ) {}

  /**
   * Runs `work` in one transaction, on a repo over it. Immediate (SQLite) because the crawler reads before it
   * writes, and a deferred transaction whose snapshot went stale while another connection wrote (the API,
   * another crawl) fails at its first write with SQLITE_BUSY, which the busy timeout cannot wait out. Taking
   * the write lock first makes it wait its turn instead. Fenced: nothing is written for a crawl that is no longer
   * running (crawl-fence.ts; CrawlEndedError).
   */
  whileRunning<T>(crawlId: string, work: (repo: FrontierRepo, tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction(
      async (tx) => {
        await this.fence(tx, crawlId);
        return work(new FrontierRepo(tx, this.fence), tx);
      },
      { immediate: true },
    );
  }

  /** Up to `limit` queued targets after `afterId`, in discovery order. */
  async pull(crawlId: string, afterId: number, limit: number): Promise<FrontierTarget[]> {
    const rows = await this.db.all<RawTarget>(
      `SELECT id, url, internal, as_page, depth FROM crawl_targets
       WHERE crawl_id = $crawl AND state = 'queued' AND id > $after ORDER BY id LIMIT $limit`,
      { crawl: crawlId, after: afterId, limit },
    );
    return rows.map(toTarget);
  }

  /** Marks `target` done with its verdict; false when it is no longer queued as it was pulled (or as a page, when it became one). */
  async markDone(target: FrontierTarget, verdict: LinkVerdict, finalUrl: string | null): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE crawl_targets SET state = 'done', status_code = $status, is_broken = $broken, error = $error, warning = $warning, final_url = $final
       WHERE id = $id AND state = 'queued' AND as_page = $page`,
      {
        status: verdict.status_code,
        broken: verdict.is_broken ? 1 : 0,
        error: verdict.error,
        warning: verdict.warning,
        final: finalUrl,
        id: target.id,
        page: target.asPage ? 1 : 0,
      },
    );
    return result.changes > 0;
  }

  /** Whether target `id` is still queued. */
  async isQueued(id: number): Promise<boolean> {
    return (await this.db.get("SELECT id FROM crawl_targets WHERE id = $id AND state = 'queued'", { id })) !== undefined;
  }

  /** Marks a queued target skipped with `reason`; false when it was not queued. */
  async markSkipped(id: number, reason: string): Promise<boolean> {
    const result = await this.db.run("UPDATE crawl_targets SET state = 'skipped', warning = $reason WHERE id = $id AND state = 'queued'", { reason, id });
    return result.changes > 0;
  }

  /**
   * Records `verdict` for `url`, which may not be in the frontier yet (inserted done) or may be queued there
   * (marked done); its id, or null when it already had a verdict.
   */
  async upsertDone(crawlId: string, url: string, internal: boolean, depth: number, verdict: LinkVerdict, finalUrl: string | null): Promise<number | null> {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, error, warning, final_url)
       VALUES ($crawl, $url, $internal, $depth, 'done', $status, $broken, $error, $warning, $final)
       ON CONFLICT (crawl_id, url) DO UPDATE SET state = 'done', status_code = excluded.status_code, is_broken = excluded.is_broken,
         error = excluded.error, warning = excluded.warning, final_url = excluded.final_url
       WHERE crawl_targets.state = 'queued'
       RETURNING id`,
      {
        crawl: crawlId,
        url,
        internal: internal ? 1 : 0,
        depth,
        status: verdict.status_code,
        broken: verdict.is_broken ? 1 : 0,
        error: verdict.error,
        warning: verdict.warning,
        final: finalUrl,
      },
    );
    return row?.id ?? null;
  }

  /** Inserts a queued target; its id. */
  async insertTarget(crawlId: string, url: string, internal: boolean, asPage: boolean, depth: number): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      "INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth) VALUES ($crawl, $url, $internal, $page, $depth) RETURNING id",
      { crawl: crawlId, url, internal: internal ? 1 : 0, page: asPage ? 1 : 0, depth },
    );
    return row!.id;
  }

  /** Makes queued target `id` a page. */
  async promoteToPage(id: number): Promise<void> {
    await this.db.run("UPDATE crawl_targets SET as_page = 1 WHERE id = $id AND state = 'queued'", { id });
  }

  /** One target of the crawl by URL, with its waiting links as crawl_waiting holds them. */
  async findTarget(crawlId: string, url: string): Promise<StoredTarget | null> {
    return (await this.db.get<StoredTarget>(`SELECT ${STORED_TARGET_COLUMNS} WHERE t.crawl_id = $crawl AND t.url = $url`, { crawl: crawlId, url })) ?? null;
  }

  /** Every target of the crawl (waiting counts left null: a resume counts them from the links, waitingCounts). */
  targets(crawlId: string): Promise<StoredTarget[]> {
    return this.db.all<StoredTarget>(
      `SELECT id, url, state, as_page, status_code, is_broken, NULL AS waiting_links, NULL AS last_waiting_link_id
       FROM crawl_targets WHERE crawl_id = $crawl`,
      { crawl: crawlId },
    );
  }

  /** The links waiting for each queued target of the crawl, counted from the links: its newest one heads the chain. */
  waitingCounts(crawlId: string): Promise<WaitingCount[]> {
    return this.db.all<WaitingCount>(
      `SELECT t.id, t.url, COUNT(*) AS links, MAX(l.id) AS last_link_id
       FROM links l JOIN crawl_targets t ON t.id = l.target_id
       WHERE l.crawl_id = $crawl AND t.state = 'queued' GROUP BY t.id, t.url`,
      { crawl: crawlId },
    );
  }

  /** Deletes the crawl's crawl_waiting rows. */
  async forgetWaiting(crawlId: string): Promise<void> {
    await this.db.run("DELETE FROM crawl_waiting WHERE target_id IN (SELECT id FROM crawl_targets WHERE crawl_id = $crawl)", { crawl: crawlId });
  }

  /** Writes crawl_waiting rows, flat (target id, links, last link id) triples. */
  upsertWaiting(rows: readonly number[]): Promise<void> {
    return UPSERT_WAITING.run(this.db, [], rows);
  }

  /** Deletes the crawl_waiting row of target `id`. */
  async deleteWaiting(id: number): Promise<void> {
    await this.db.run("DELETE FROM crawl_waiting WHERE target_id = $id", { id });
  }

  /**
   * Every link of the chains (links.waiting_prev_id) whose newest links are `heads`, each with its chain's head,
   * in one statement (per 1,000 heads).
   */
  async waitingChains(heads: readonly number[]): Promise<WaitingLink[]> {
    const links: WaitingLink[] = [];
    for (let at = 0; at < heads.length; at += 1000) {
      const some = heads.slice(at, at + 1000);
      // Each step goes to an older link (l.id < c.id), so the recursion ends however the rows stand.
      const rows = await this.db.all<WaitingLink>(
        `WITH RECURSIVE chain (head, id, prev, source_url, fragment) AS (
           SELECT id, id, waiting_prev_id, source_url, fragment FROM links WHERE id IN (${some.map((_, i) => this.db.dialect.param(i + 1)).join(", ")})
           UNION ALL
           SELECT c.head, l.id, l.waiting_prev_id, l.source_url, l.fragment FROM chain c JOIN links l ON l.id = c.prev AND l.id < c.id
         )
         SELECT head, id, source_url, fragment FROM chain`,
        some,
      );
      for (const row of rows) links.push(row);
    }
    return links;
  }

  /**
   * The ids the next link and the next target inserted get; only meaningful inside the transaction that inserts
   * them, whose inserts then get consecutive ids from them (dialect.nextIds: on PostgreSQL, under the tables'
   * locks to the commit).
   */
  async nextIds(): Promise<NextIds> {
    let row: NextIds | undefined;
    for (const statement of this.db.dialect.nextIds(ID_TABLES)) row = await this.db.get<NextIds>(statement);
    return row!;
  }

  /** nextIds() again, later in a transaction that took them (its locks held): the read alone. */
  async nextIdsAgain(): Promise<NextIds> {
    return (await this.db.get<NextIds>(this.db.dialect.nextIds(ID_TABLES).at(-1)!))!;
  }

  /** Inserts links, flat (source url, target id, text, kind, waiting_prev_id, fragment) rows, in order (their ids). */
  async insertLinks(crawlId: string, rows: readonly SqlValue[]): Promise<void> {
    if (!this.db.dialect.rowsAsJson) return INSERT_LINKS.run(this.db, [crawlId], rows);
    const perStatement = LINKS_AS_JSON * 6;
    for (let at = 0; at < rows.length; at += perStatement) {
      const some: SqlValue[][] = [];
      for (let i = at; i < Math.min(rows.length, at + perStatement); i += 6) some.push(rows.slice(i, i + 6));
      const text = `INSERT INTO links (crawl_id, source_url, target_id, link_text, kind, waiting_prev_id, fragment)
        SELECT ${this.db.dialect.param(1)}, r0, r1, r2, r3, r4, r5 FROM ${this.db.dialect.jsonRows(2, LINK_COLUMNS)} AS rows ORDER BY n`;
      const written = await this.db.run(text, [crawlId, rowsJson(some)]);
      if (written.changes !== some.length) throw new Error(`expected ${some.length} links written, got ${written.changes}`);
    }
  }

  /**
   * Inserts targets, flat (url, internal, as_page, depth, state, status_code, is_broken, error, warning, final_url)
   * rows, in the order of their ids (nextIds).
   */
  insertTargets(crawlId: string, rows: readonly SqlValue[]): Promise<void> {
    return INSERT_TARGETS.run(this.db, [crawlId], rows);
  }

  /**
   * Sets targets still queued to what flat (id, as_page, state, status_code, is_broken, error, warning,
   * final_url) rows say; the rows changed (a target no longer queued is left as it is).
   */
  updateQueuedTargets(rows: readonly SqlValue[]): Promise<number> {
    return UPDATE_QUEUED_TARGETS.write(this.db, [], rows);
  }

  /**
   * Claims parsed pages or stylesheets of the crawl, with what each keeps (PageClaim), flat (url, cut, etag, last_modified, body_hash, body_bytes, links_found,
   * excluded_links, first_link_id, link_count, id_hashes, ids_gap) rows; the pages claimed (one parsed already is not).
   */
  claimPages(crawlId: string, rows: readonly SqlValue[]): Promise<number> {
    return CLAIM_PAGES.write(this.db, [crawlId], rows);
  }

  /** Which of `urls` the crawl has claimed as pages already. */
  async claimedPages(crawlId: string, urls: readonly string[]): Promise<Set<string>> {
    if (urls.length === 0) return new Set();
    const rows = await this.db.all<{ url: string }>(`SELECT url FROM crawl_pages WHERE crawl_id = $crawl AND ${this.db.dialect.textIn("url", "urls")}`, {
      crawl: crawlId,
      urls: JSON.stringify(urls),
    });
    return new Set(rows.map((row) => row.url));
  }

  /** Lists broken links, flat (link id, target id, broken since) triples. */
  insertBrokenLinks(crawlId: string, rows: readonly SqlValue[]): Promise<void> {
    return INSERT_BROKEN_LINKS.run(this.db, [crawlId], rows);
  }

  /** Adds to the links counted per status, flat (status code, broken 0/1, links) triples. */
  addStatusCounts(crawlId: string, rows: readonly number[]): Promise<void> {
    return ADD_STATUS_COUNTS.run(this.db, [crawlId], rows);
  }

  /** Pages the crawl has parsed so far. */
  async pagesCrawled(crawlId: string): Promise<number> {
    return (await this.db.get<{ pages_crawled: number }>("SELECT pages_crawled FROM crawls WHERE id = $crawl", { crawl: crawlId }))?.pages_crawled ?? 0;
  }

  /** Stylesheets the crawl has parsed so far (claimed in crawl_pages without counting as pages). */
  async stylesheetsParsed(crawlId: string): Promise<number> {
    // crawl_pages holds parsed pages and parsed stylesheets; pages_crawled counts only the pages.
    const row = await this.db.get<{ stylesheets: number }>(
      "SELECT (SELECT COUNT(*) FROM crawl_pages WHERE crawl_id = $crawl) - pages_crawled AS stylesheets FROM crawls WHERE id = $crawl",
      { crawl: crawlId },
    );
    return row?.stylesheets ?? 0;
  }

  /** How many pages the crawl's sitemaps list; null until they were read. */
  async sitemapUrls(crawlId: string): Promise<number | null> {
    return (await this.db.get<{ n: number | null }>("SELECT sitemap_urls AS n FROM crawls WHERE id = $crawl", { crawl: crawlId }))?.n ?? null;
  }

  /** Sets how many pages the crawl's sitemaps list and how many of them no crawled page links to. */
  async setSitemapCounts(crawlId: string, listed: number, orphans: number): Promise<void> {
    await this.db.run("UPDATE crawls SET sitemap_urls = $listed, orphan_pages = $orphans WHERE id = $crawl", { listed, orphans, crawl: crawlId });
  }

  /** Moves the crawl's counters by `delta`; its pages_crawled after the move. */
  async addCounts(crawlId: string, delta: CounterDelta): Promise<number> {
    const row = await this.db.get<{ pages_crawled: number }>(
      `UPDATE crawls SET pages_crawled = pages_crawled + $pages, total_links = total_links + $total, broken_links = broken_links + $broken,
       skipped_links = skipped_links + $skipped, truncated = ${this.db.dialect.greatest}(truncated, $truncated), pages_cut = pages_cut + $cut,
       excluded_links = excluded_links + $excluded, pages_reused = pages_reused + $reused
       WHERE id = $crawl RETURNING pages_crawled`,
      {
        pages: delta.pagesAdded,
        total: delta.total,
        broken: delta.broken,
        skipped: delta.skipped,
        truncated: delta.truncated,
        cut: delta.pagesCut,
        excluded: delta.excluded,
        reused: delta.pagesReused,
        crawl: crawlId,
      },
    );
    return row!.pages_crawled;
  }
}
