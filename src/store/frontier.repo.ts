import type { Database, Statement } from "bun:sqlite";
import type { LinkVerdict } from "../core/link-outcome.ts";
import { requireRunning } from "./crawl-fence.ts";
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
 * the crawler's (crawler/frontier.ts), which runs these inside one `immediate` transaction per batch.
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

export class FrontierRepo {
  private readonly pullStatement: Statement<RawTarget, [string, number, number]>;
  private readonly markDoneStatement: Statement<unknown, [number | null, number, string | null, string | null, string | null, number, number]>;
  private readonly stillQueued: Statement<{ id: number }, [number]>;
  private readonly markSkippedStatement: Statement<unknown, [string, number]>;
  private readonly upsertDoneStatement: Statement<
    { id: number },
    [string, string, number, number, number | null, number, string | null, string | null, string | null]
  >;
  private readonly claimPageStatement: Statement<
    unknown,
    [
      string,
      string,
      number,
      string | null,
      string | null,
      string | null,
      number | null,
      number | null,
      number,
      number,
      number,
      Uint8Array | null,
      string | null,
    ]
  >;
  private readonly findTargetStatement: Statement<StoredTarget, [string, string]>;
  private readonly crawlTargets: Statement<StoredTarget, [string]>;
  private readonly waitingLinks: Statement<WaitingCount, [string]>;
  private readonly forgetWaitingStatement: Statement<unknown, [string]>;
  private readonly insertTargetStatement: Statement<{ id: number }, [string, string, number, number, number]>;
  private readonly promoteToPageStatement: Statement<unknown, [number]>;
  private readonly previousWaitingStatement: Statement<{ waiting_prev_id: number | null }, [number]>;
  private readonly nextLinkIdStatement: Statement<{ id: number }, []>;
  private readonly deleteWaitingStatement: Statement<unknown, [number]>;
  private readonly counters: Statement<{ pages_crawled: number }, [string]>;
  private readonly stylesheetsStatement: Statement<{ stylesheets: number }, [string]>;
  private readonly addCountsStatement: Statement<{ pages_crawled: number }, [number, number, number, number, number, number, number, number, string]>;
  private readonly insertLinksStatement: MultiRowInsert;
  private readonly upsertWaitingStatement: MultiRowInsert;
  private readonly insertBrokenLinksStatement: MultiRowInsert;
  private readonly addStatusCountsStatement: MultiRowInsert;
  private readonly inTransaction: { immediate: (work: () => unknown) => unknown };

  constructor(private readonly sqlite: Database) {
    this.pullStatement = sqlite.prepare(
      `SELECT id, url, internal, as_page, depth FROM crawl_targets
       WHERE crawl_id = ?1 AND state = 'queued' AND id > ?2 ORDER BY id LIMIT ?3`,
    );
    this.markDoneStatement = sqlite.prepare(
      `UPDATE crawl_targets SET state = 'done', status_code = ?1, is_broken = ?2, error = ?3, warning = ?4, final_url = ?5
       WHERE id = ?6 AND state = 'queued' AND as_page = ?7`,
    );
    this.stillQueued = sqlite.prepare("SELECT id FROM crawl_targets WHERE id = ?1 AND state = 'queued'");
    this.markSkippedStatement = sqlite.prepare("UPDATE crawl_targets SET state = 'skipped', warning = ?1 WHERE id = ?2 AND state = 'queued'");
    this.upsertDoneStatement = sqlite.prepare(
      `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, error, warning, final_url)
       VALUES (?1, ?2, ?3, ?4, 'done', ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (crawl_id, url) DO UPDATE SET state = 'done', status_code = excluded.status_code, is_broken = excluded.is_broken,
         error = excluded.error, warning = excluded.warning, final_url = excluded.final_url
       WHERE state = 'queued'
       RETURNING id`,
    );
    this.claimPageStatement = sqlite.prepare(
      `INSERT INTO crawl_pages (crawl_id, url, cut, etag, last_modified, body_hash, body_bytes, links_found, excluded_links, first_link_id, link_count, id_hashes, ids_gap)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT DO NOTHING`,
    );
    this.findTargetStatement = sqlite.prepare(`SELECT ${STORED_TARGET_COLUMNS} WHERE t.crawl_id = ?1 AND t.url = ?2`);
    // Without crawl_waiting: a resume counts the waiting links from the links themselves (waitingCounts).
    this.crawlTargets = sqlite.prepare(
      `SELECT id, url, state, as_page, status_code, is_broken, NULL AS waiting_links, NULL AS last_waiting_link_id
       FROM crawl_targets WHERE crawl_id = ?1`,
    );
    // Every link to a still-queued target is waiting for it; its newest one heads the chain.
    this.waitingLinks = sqlite.prepare(
      `SELECT t.id, t.url, COUNT(*) AS links, MAX(l.id) AS last_link_id
       FROM links l JOIN crawl_targets t ON t.id = l.target_id
       WHERE l.crawl_id = ?1 AND t.state = 'queued' GROUP BY t.id`,
    );
    this.forgetWaitingStatement = sqlite.prepare("DELETE FROM crawl_waiting WHERE target_id IN (SELECT id FROM crawl_targets WHERE crawl_id = ?1)");
    this.insertTargetStatement = sqlite.prepare("INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id");
    this.promoteToPageStatement = sqlite.prepare("UPDATE crawl_targets SET as_page = 1 WHERE id = ?1 AND state = 'queued'");
    this.previousWaitingStatement = sqlite.prepare("SELECT waiting_prev_id FROM links WHERE id = ?1");
    this.deleteWaitingStatement = sqlite.prepare("DELETE FROM crawl_waiting WHERE target_id = ?1");
    // AUTOINCREMENT: one more than the largest id the table ever held (sqlite_sequence), or than any it holds.
    this.nextLinkIdStatement = sqlite.prepare(
      "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'links'), 0), COALESCE((SELECT MAX(id) FROM links), 0)) + 1 AS id",
    );
    this.counters = sqlite.prepare("SELECT pages_crawled FROM crawls WHERE id = ?1");
    // crawl_pages holds parsed pages and parsed stylesheets; pages_crawled counts only the pages.
    this.stylesheetsStatement = sqlite.prepare(
      "SELECT (SELECT COUNT(*) FROM crawl_pages WHERE crawl_id = ?1) - pages_crawled AS stylesheets FROM crawls WHERE id = ?1",
    );
    this.addCountsStatement = sqlite.prepare(
      `UPDATE crawls SET pages_crawled = pages_crawled + ?1, total_links = total_links + ?2, broken_links = broken_links + ?3,
       skipped_links = skipped_links + ?4, truncated = MAX(truncated, ?5), pages_cut = pages_cut + ?6, excluded_links = excluded_links + ?7,
       pages_reused = pages_reused + ?8
       WHERE id = ?9 RETURNING pages_crawled`,
    );
    // No conflict check: a page's links are recorded once (crawl_pages claim) and deduped per target (and fragment) before.
    this.insertLinksStatement = new MultiRowInsert(
      sqlite,
      "INSERT INTO links (crawl_id, source_url, target_id, link_text, kind, waiting_prev_id, fragment) VALUES",
      "(?1, ?2, ?, ?, ?, ?, ?)",
      2,
    );
    this.upsertWaitingStatement = new MultiRowInsert(
      sqlite,
      "INSERT INTO crawl_waiting (target_id, links, last_link_id) VALUES",
      "(?, ?, ?)",
      0,
      "ON CONFLICT (target_id) DO UPDATE SET links = excluded.links, last_link_id = excluded.last_link_id",
    );
    this.insertBrokenLinksStatement = new MultiRowInsert(
      sqlite,
      "INSERT INTO broken_links (crawl_id, link_id, target_id, broken_since) VALUES",
      "(?1, ?, ?, ?)",
      1,
    );
    this.addStatusCountsStatement = new MultiRowInsert(
      sqlite,
      "INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links) VALUES",
      "(?1, ?, ?, ?)",
      1,
      "ON CONFLICT (crawl_id, status_code, is_broken) DO UPDATE SET links = links + excluded.links",
    );
    this.inTransaction = sqlite.transaction((work: () => unknown) => work());
  }

  /**
   * Runs `work` in one IMMEDIATE transaction. Immediate because the crawler reads before it writes, and a
   * deferred transaction whose snapshot went stale while another connection wrote (the API, another crawl)
   * fails at its first write with SQLITE_BUSY, which the busy timeout cannot wait out. Taking the write lock
   * first makes it wait its turn instead. Fenced: nothing is written for a crawl that is no longer running
   * (crawl-fence.ts; CrawlEndedError).
   */
  whileRunning<T>(crawlId: string, work: () => T): T {
    return this.inTransaction.immediate(() => {
      requireRunning(this.sqlite, crawlId);
      return work();
    }) as T;
  }

  /** Up to `limit` queued targets after `afterId`, in discovery order. */
  pull(crawlId: string, afterId: number, limit: number): FrontierTarget[] {
    return this.pullStatement.all(crawlId, afterId, limit).map(toTarget);
  }

  /** Marks `target` done with its verdict; false when it is no longer queued as it was pulled (or as a page, when it became one). */
  markDone(target: FrontierTarget, verdict: LinkVerdict, finalUrl: string | null): boolean {
    const { status_code, is_broken, error, warning } = verdict;
    return this.markDoneStatement.run(status_code, is_broken ? 1 : 0, error, warning, finalUrl, target.id, target.asPage ? 1 : 0).changes > 0;
  }

  /** Whether target `id` is still queued. */
  isQueued(id: number): boolean {
    return this.stillQueued.get(id) !== null;
  }

  /** Marks a queued target skipped with `reason`; false when it was not queued. */
  markSkipped(id: number, reason: string): boolean {
    return this.markSkippedStatement.run(reason, id).changes > 0;
  }

  /**
   * Records `verdict` for `url`, which may not be in the frontier yet (inserted done) or may be queued there
   * (marked done); its id, or null when it already had a verdict.
   */
  upsertDone(crawlId: string, url: string, internal: boolean, depth: number, verdict: LinkVerdict, finalUrl: string | null): number | null {
    const { status_code, is_broken, error, warning } = verdict;
    return this.upsertDoneStatement.get(crawlId, url, internal ? 1 : 0, depth, status_code, is_broken ? 1 : 0, error, warning, finalUrl)?.id ?? null;
  }

  /** Inserts a queued target; its id. */
  insertTarget(crawlId: string, url: string, internal: boolean, asPage: boolean, depth: number): number {
    return this.insertTargetStatement.get(crawlId, url, internal ? 1 : 0, asPage ? 1 : 0, depth)!.id;
  }

  /** Makes queued target `id` a page. */
  promoteToPage(id: number): void {
    this.promoteToPageStatement.run(id);
  }

  /**
   * Claims `url` as a parsed page or stylesheet of the crawl (`cut`: its links were cut short); false when it was
   * parsed already (reached under another URL).
   */
  claimPage(crawlId: string, url: string, claim: PageClaim): boolean {
    const { record } = claim;
    return (
      this.claimPageStatement.run(
        crawlId,
        url,
        claim.cut ? 1 : 0,
        record?.etag ?? null,
        record?.lastModified ?? null,
        record?.bodyHash ?? null,
        record?.bodyBytes ?? null,
        record?.linksFound ?? null,
        claim.excluded,
        claim.firstLinkId,
        claim.linkCount,
        claim.ids?.hashes ?? null,
        claim.ids?.gap ?? null,
      ).changes > 0
    );
  }

  /** One target of the crawl by URL, with its waiting links as crawl_waiting holds them. */
  findTarget(crawlId: string, url: string): StoredTarget | null {
    return this.findTargetStatement.get(crawlId, url);
  }

  /** Every target of the crawl (waiting counts left null). */
  targets(crawlId: string): IterableIterator<StoredTarget> {
    return this.crawlTargets.iterate(crawlId);
  }

  /** The links waiting for each queued target of the crawl, counted from the links. */
  waitingCounts(crawlId: string): IterableIterator<WaitingCount> {
    return this.waitingLinks.iterate(crawlId);
  }

  /** Deletes the crawl's crawl_waiting rows. */
  forgetWaiting(crawlId: string): void {
    this.forgetWaitingStatement.run(crawlId);
  }

  /** Writes crawl_waiting rows, flat (target id, links, last link id) triples. */
  upsertWaiting(rows: number[]): void {
    this.upsertWaitingStatement.run([], rows);
  }

  /** Deletes the crawl_waiting row of target `id`. */
  deleteWaiting(id: number): void {
    this.deleteWaitingStatement.run(id);
  }

  /** The link that waited for the same target before link `id` (links.waiting_prev_id); 0 when none. */
  previousWaiting(id: number): number {
    return this.previousWaitingStatement.get(id)?.waiting_prev_id ?? 0;
  }

  /** The id the next link inserted gets; only meaningful inside the transaction that inserts it (the write lock held). */
  nextLinkId(): number {
    return this.nextLinkIdStatement.get()!.id;
  }

  /**
   * Inserts the links of page `sourceUrl`, flat (target id, text, kind, waiting_prev_id, fragment) rows, 100 per
   * statement; `inserted(firstId, offset, rows)` tells the ids of each statement's rows.
   */
  insertLinks(crawlId: string, sourceUrl: string, rows: (number | string | null)[], inserted: (firstId: number, offset: number, rows: number) => void): void {
    this.insertLinksStatement.run([crawlId, sourceUrl], rows, inserted);
  }

  /** Lists broken links, flat (link id, target id, broken since) triples. */
  insertBrokenLinks(crawlId: string, rows: (number | string)[]): void {
    this.insertBrokenLinksStatement.run([crawlId], rows);
  }

  /** Adds to the links counted per status, flat (status code, broken 0/1, links) triples. */
  addStatusCounts(crawlId: string, rows: number[]): void {
    this.addStatusCountsStatement.run([crawlId], rows);
  }

  /** Pages the crawl has parsed so far. */
  pagesCrawled(crawlId: string): number {
    return this.counters.get(crawlId)?.pages_crawled ?? 0;
  }

  /** Stylesheets the crawl has parsed so far (claimed in crawl_pages without counting as pages). */
  stylesheetsParsed(crawlId: string): number {
    return this.stylesheetsStatement.get(crawlId)?.stylesheets ?? 0;
  }

  /** How many pages the crawl's sitemaps list; null until they were read. */
  sitemapUrls(crawlId: string): number | null {
    return this.sqlite.query<{ n: number | null }, [string]>("SELECT sitemap_urls AS n FROM crawls WHERE id = ?1").get(crawlId)?.n ?? null;
  }

  /** Sets how many pages the crawl's sitemaps list and how many of them no crawled page links to. */
  setSitemapCounts(crawlId: string, listed: number, orphans: number): void {
    this.sqlite.query("UPDATE crawls SET sitemap_urls = ?1, orphan_pages = ?2 WHERE id = ?3").run(listed, orphans, crawlId);
  }

  /** Moves the crawl's counters by `delta`; its pages_crawled after the move. */
  addCounts(crawlId: string, delta: CounterDelta): number {
    return this.addCountsStatement.get(
      delta.pagesAdded,
      delta.total,
      delta.broken,
      delta.skipped,
      delta.truncated,
      delta.pagesCut,
      delta.excluded,
      delta.pagesReused,
      crawlId,
    )!.pages_crawled;
  }
}
