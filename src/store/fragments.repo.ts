import type { Database, Statement } from "bun:sqlite";
import type { FragmentGap, PageIdsGap } from "../core/fragment-gap.ts";
import { requireRunning } from "./crawl-fence.ts";
import { MultiRowInsert } from "./multi-row-insert.ts";

/**
 * The statements behind fragment checks (`check_fragments`): the fragments each link asks of its target page,
 * the ids of the crawl's pages, and the verdicts written at the crawl's end with the counters they move. The
 * rules are crawler/fragments.ts and crawler/fragment-check.ts; nothing here decides.
 */

/** A link waiting for its fragments to be judged, with what its target came to. */
export interface PendingFragments {
  link_id: number;
  target_id: number;
  /** JSON array of fragments as the URL parser writes them. */
  fragments: string;
  state: "queued" | "done" | "skipped";
  status_code: number | null;
  is_broken: number | null;
  /** Where the target's redirects ended (its own URL when they did not): the page whose ids count. */
  page_url: string;
  /** Who the link is, for its broken_since: its target's URL, its fragment (links.fragment) and the page it is on. */
  url: string;
  fragment: string;
  source_url: string;
}

/**
 * A page's stored ids: `id_hashes` holds their sorted 64-bit hashes (crawler/page-ids.ts), null when the page
 * turned out not to be an HTML page of the site; `gap` why some may be missing.
 */
export interface StoredPageIds {
  id_hashes: Uint8Array | null;
  gap: PageIdsGap | null;
}

/**
 * A link's fragment verdict as written: an error (the link becomes broken, since `brokenSince`), or a warning
 * with the gap that left it without a verdict (counted for the crawl's warnings).
 */
export type FragmentOutcome = { linkId: number; targetId: number; statusCode: number } & (
  | { error: string; warning: null; gap: null; brokenSince: string }
  /** `gap` null: no gap, a warning of its own (a fragment an ignore rule mutes). */
  | { error: null; warning: string; gap: FragmentGap | null }
);

/** How many of a crawl's links got no fragment verdict for one gap. */
export interface GapCount {
  gap: FragmentGap;
  links: number;
}

export class FragmentsRepo {
  private readonly insertFragments: MultiRowInsert;
  private readonly savePageIdsStatement: Statement<unknown, [string, string, Uint8Array | null, string | null]>;
  private readonly pagesToFetchStatement: Statement<{ url: string; page_url: string }, [string, number]>;
  private readonly pendingStatement: Statement<PendingFragments, [string, number, number]>;
  private readonly pageIdsStatement: Statement<StoredPageIds, [string, string]>;
  private readonly setOutcomeStatement: Statement<unknown, [string | null, string | null, number]>;
  private readonly insertBrokenStatement: Statement<unknown, [string, number, number, string]>;
  private readonly moveStatusCountStatement: Statement<unknown, [string, number, number]>;
  private readonly addStatusCountStatement: Statement<unknown, [string, number, number]>;
  private readonly addBrokenStatement: Statement<unknown, [number, string]>;
  private readonly markGapStatement: Statement<unknown, [string, number]>;
  private readonly forgetStatement: Statement<unknown, [string, number]>;
  private readonly gapCountsStatement: Statement<GapCount, [string]>;
  private readonly forgetLinksStatement: Statement<unknown, [string]>;
  private readonly forgetPagesStatement: Statement<unknown, [string]>;
  private readonly inTransaction: { immediate: (work: () => unknown) => unknown };

  constructor(private readonly sqlite: Database) {
    this.insertFragments = new MultiRowInsert(sqlite, "INSERT INTO link_fragments (crawl_id, link_id, target_id, fragments) VALUES", "(?1, ?, ?, ?)", 1);
    this.savePageIdsStatement = sqlite.prepare("INSERT INTO crawl_page_ids (crawl_id, url, id_hashes, gap) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING");
    // Checked, not broken, 2xx targets whose page has no stored ids: asked with HEAD, or never parsed.
    this.pagesToFetchStatement = sqlite.prepare(
      `SELECT DISTINCT t.url, COALESCE(t.final_url, t.url) AS page_url
       FROM link_fragments f JOIN crawl_targets t ON t.id = f.target_id
       WHERE f.crawl_id = ?1 AND f.gap IS NULL AND t.state = 'done' AND t.is_broken = 0 AND t.status_code BETWEEN 200 AND 299
         AND NOT EXISTS (SELECT 1 FROM crawl_page_ids p WHERE p.crawl_id = f.crawl_id AND p.url = COALESCE(t.final_url, t.url))
       LIMIT ?2`,
    );
    this.pendingStatement = sqlite.prepare(
      `SELECT f.link_id, f.target_id, f.fragments, t.state, t.status_code, t.is_broken, COALESCE(t.final_url, t.url) AS page_url,
         t.url, l.fragment, l.source_url
       FROM link_fragments f JOIN crawl_targets t ON t.id = f.target_id JOIN links l ON l.id = f.link_id
       WHERE f.crawl_id = ?1 AND f.link_id > ?2 AND f.gap IS NULL ORDER BY f.link_id LIMIT ?3`,
    );
    this.pageIdsStatement = sqlite.prepare("SELECT id_hashes, gap FROM crawl_page_ids WHERE crawl_id = ?1 AND url = ?2");
    this.setOutcomeStatement = sqlite.prepare("UPDATE links SET fragment_error = ?1, fragment_warning = ?2 WHERE id = ?3");
    this.insertBrokenStatement = sqlite.prepare("INSERT OR IGNORE INTO broken_links (crawl_id, link_id, target_id, broken_since) VALUES (?1, ?2, ?3, ?4)");
    this.moveStatusCountStatement = sqlite.prepare(
      "UPDATE crawl_status_counts SET links = links - ?3 WHERE crawl_id = ?1 AND status_code = ?2 AND is_broken = 0",
    );
    this.addStatusCountStatement = sqlite.prepare(
      `INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links) VALUES (?1, ?2, 1, ?3)
       ON CONFLICT (crawl_id, status_code, is_broken) DO UPDATE SET links = links + excluded.links`,
    );
    this.addBrokenStatement = sqlite.prepare("UPDATE crawls SET broken_links = broken_links + ?1 WHERE id = ?2");
    this.markGapStatement = sqlite.prepare("UPDATE link_fragments SET gap = ?1 WHERE link_id = ?2");
    // A row with a gap stays until the crawl's warnings have counted it (forgetCrawl).
    this.forgetStatement = sqlite.prepare("DELETE FROM link_fragments WHERE crawl_id = ?1 AND link_id <= ?2 AND gap IS NULL");
    this.gapCountsStatement = sqlite.prepare("SELECT gap, COUNT(*) AS links FROM link_fragments WHERE crawl_id = ?1 AND gap IS NOT NULL GROUP BY gap");
    this.forgetLinksStatement = sqlite.prepare("DELETE FROM link_fragments WHERE crawl_id = ?1");
    this.forgetPagesStatement = sqlite.prepare("DELETE FROM crawl_page_ids WHERE crawl_id = ?1");
    this.inTransaction = sqlite.transaction((work: () => unknown) => work());
  }

  /** Remembers the fragments of links just written; `values` holds [link id, target id, JSON fragments] per link. */
  insertLinkFragments(crawlId: string, values: (number | string)[]): void {
    if (values.length > 0) this.insertFragments.run([crawlId], values);
  }

  /**
   * Stores a page's id hashes (null: not an HTML page of the site) under its final URL, unless some are stored
   * already (a page reached twice); fenced (crawl-fence.ts).
   */
  savePageIds(crawlId: string, url: string, idHashes: Uint8Array | null, gap: PageIdsGap | null): void {
    const save = () => this.savePageIdsStatement.run(crawlId, url, idHashes, gap);
    // Within a frontier batch, the batch's transaction was fenced already.
    if (this.sqlite.inTransaction) save();
    else
      this.inTransaction.immediate(() => {
        requireRunning(this.sqlite, crawlId);
        save();
      });
  }

  /** Up to `limit` targets whose page must be fetched for its ids: the URL to fetch and the page URL to store under. */
  pagesToFetch(crawlId: string, limit: number): { url: string; page_url: string }[] {
    return this.pagesToFetchStatement.all(crawlId, limit);
  }

  /** Up to `limit` links waiting for a fragment verdict after link `afterLinkId`, in link order (those left without one skipped). */
  pending(crawlId: string, afterLinkId: number, limit: number): PendingFragments[] {
    return this.pendingStatement.all(crawlId, afterLinkId, limit);
  }

  /** The stored ids of the page at `url`, or null when none are stored. */
  pageIds(crawlId: string, url: string): StoredPageIds | null {
    return this.pageIdsStatement.get(crawlId, url);
  }

  /**
   * Writes verdicts and forgets the judged links, in one transaction: a link with an error becomes a broken
   * link (listed in broken_links, moved from its status code's working count to its broken one, counted in the
   * crawl's broken_links); a link with a gap keeps its row, marked, for gapCounts; every other waiting link up to
   * `judgedThrough` (judged in link order) is forgotten. Fenced: nothing is written once the crawl is no longer
   * running (crawl-fence.ts).
   */
  apply(crawlId: string, outcomes: readonly FragmentOutcome[], judgedThrough: number): void {
    this.inTransaction.immediate(() => {
      requireRunning(this.sqlite, crawlId);
      const brokenByStatus = new Map<number, number>();
      for (const outcome of outcomes) {
        this.setOutcomeStatement.run(outcome.error, outcome.warning, outcome.linkId);
        if (outcome.error === null) {
          if (outcome.gap !== null) this.markGapStatement.run(outcome.gap, outcome.linkId);
          continue;
        }
        if (this.insertBrokenStatement.run(crawlId, outcome.linkId, outcome.targetId, outcome.brokenSince).changes === 0) continue;
        brokenByStatus.set(outcome.statusCode, (brokenByStatus.get(outcome.statusCode) ?? 0) + 1);
      }
      let broken = 0;
      for (const [statusCode, links] of brokenByStatus) {
        this.moveStatusCountStatement.run(crawlId, statusCode, links);
        this.addStatusCountStatement.run(crawlId, statusCode, links);
        broken += links;
      }
      if (broken > 0) this.addBrokenStatement.run(broken, crawlId);
      this.forgetStatement.run(crawlId, judgedThrough);
    });
  }

  /** How many of the crawl's judged links got no verdict, per gap. */
  gapCounts(crawlId: string): GapCount[] {
    return this.gapCountsStatement.all(crawlId);
  }

  /**
   * Forgets what the crawl's fragment checks kept (the rows left with a gap, the pages' ids): its fragments are
   * judged. Fenced like every write of a crawl's worker (crawl-fence.ts): run it inside a transaction.
   */
  forgetCrawl(crawlId: string): void {
    requireRunning(this.sqlite, crawlId);
    this.forgetLinksStatement.run(crawlId);
    this.forgetPagesStatement.run(crawlId);
  }

  /** Runs `work` in one IMMEDIATE transaction (a savepoint inside one already open). */
  immediate<T>(work: () => T): T {
    return this.inTransaction.immediate(work) as T;
  }
}
