import type { FragmentGap, PageIdsGap } from "../core/fragment-gap.ts";
import { requireRunning, type CrawlFence } from "./crawl-fence.ts";
import type { Db, SqlValue } from "./db.ts";
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

const INSERT_FRAGMENTS = new MultiRowInsert("INSERT INTO link_fragments (crawl_id, link_id, target_id, fragments) VALUES", "(?1, ?, ?, ?)", 1);

export class FragmentsRepo {
  constructor(
    private readonly db: Db,
    private readonly fence: CrawlFence = requireRunning,
  ) {}

  /** Remembers the fragments of links just written; `values` holds [link id, target id, JSON fragments] per link. */
  async insertLinkFragments(crawlId: string, values: readonly SqlValue[]): Promise<void> {
    if (values.length > 0) await INSERT_FRAGMENTS.run(this.db, [crawlId], values);
  }

  /**
   * Stores a page's id hashes (null: not an HTML page of the site) under its final URL, unless some are stored
   * already (a page reached twice), in a fenced transaction of its own (crawl-fence.ts); within a frontier batch,
   * already fenced, insertPageIds.
   */
  savePageIds(crawlId: string, url: string, idHashes: Uint8Array | null, gap: PageIdsGap | null): Promise<void> {
    return this.immediate(crawlId, (repo) => repo.insertPageIds(crawlId, url, idHashes, gap));
  }

  /** savePageIds on the Db of the caller's (fenced) transaction. */
  async insertPageIds(crawlId: string, url: string, idHashes: Uint8Array | null, gap: PageIdsGap | null): Promise<void> {
    await this.db.run("INSERT INTO crawl_page_ids (crawl_id, url, id_hashes, gap) VALUES ($crawl, $url, $ids, $gap) ON CONFLICT DO NOTHING", {
      crawl: crawlId,
      url,
      ids: idHashes,
      gap,
    });
  }

  /** Up to `limit` targets whose page must be fetched for its ids: the URL to fetch and the page URL to store under. */
  pagesToFetch(crawlId: string, limit: number): Promise<{ url: string; page_url: string }[]> {
    // Checked, not broken, 2xx targets whose page has no stored ids: asked with HEAD, or never parsed.
    return this.db.all(
      `SELECT DISTINCT t.url, COALESCE(t.final_url, t.url) AS page_url
       FROM link_fragments f JOIN crawl_targets t ON t.id = f.target_id
       WHERE f.crawl_id = $crawl AND f.gap IS NULL AND t.state = 'done' AND t.is_broken = 0 AND t.status_code BETWEEN 200 AND 299
         AND NOT EXISTS (SELECT 1 FROM crawl_page_ids p WHERE p.crawl_id = f.crawl_id AND p.url = COALESCE(t.final_url, t.url))
       LIMIT $limit`,
      { crawl: crawlId, limit },
    );
  }

  /** Up to `limit` links waiting for a fragment verdict after link `afterLinkId`, in link order (those left without one skipped). */
  pending(crawlId: string, afterLinkId: number, limit: number): Promise<PendingFragments[]> {
    return this.db.all<PendingFragments>(
      `SELECT f.link_id, f.target_id, f.fragments, t.state, t.status_code, t.is_broken, COALESCE(t.final_url, t.url) AS page_url,
         t.url, l.fragment, l.source_url
       FROM link_fragments f JOIN crawl_targets t ON t.id = f.target_id JOIN links l ON l.id = f.link_id
       WHERE f.crawl_id = $crawl AND f.link_id > $after AND f.gap IS NULL ORDER BY f.link_id LIMIT $limit`,
      { crawl: crawlId, after: afterLinkId, limit },
    );
  }

  /** The stored ids of the page at `url`, or null when none are stored. */
  async pageIds(crawlId: string, url: string): Promise<StoredPageIds | null> {
    return (
      (await this.db.get<StoredPageIds>("SELECT id_hashes, gap FROM crawl_page_ids WHERE crawl_id = $crawl AND url = $url", { crawl: crawlId, url })) ?? null
    );
  }

  /**
   * Writes verdicts and forgets the judged links, in one transaction: a link with an error becomes a broken
   * link (listed in broken_links, moved from its status code's working count to its broken one, counted in the
   * crawl's broken_links); a link with a gap keeps its row, marked, for gapCounts; every other waiting link up to
   * `judgedThrough` (judged in link order) is forgotten. Fenced: nothing is written once the crawl is no longer
   * running (crawl-fence.ts).
   */
  apply(crawlId: string, outcomes: readonly FragmentOutcome[], judgedThrough: number): Promise<void> {
    return this.immediate(crawlId, async (_repo, tx) => {
      const brokenByStatus = new Map<number, number>();
      for (const outcome of outcomes) {
        await tx.run("UPDATE links SET fragment_error = $error, fragment_warning = $warning WHERE id = $id", {
          error: outcome.error,
          warning: outcome.warning,
          id: outcome.linkId,
        });
        if (outcome.error === null) {
          if (outcome.gap !== null) await tx.run("UPDATE link_fragments SET gap = $gap WHERE link_id = $id", { gap: outcome.gap, id: outcome.linkId });
          continue;
        }
        const listed = await tx.run(
          "INSERT INTO broken_links (crawl_id, link_id, target_id, broken_since) VALUES ($crawl, $link, $target, $since) ON CONFLICT DO NOTHING",
          { crawl: crawlId, link: outcome.linkId, target: outcome.targetId, since: outcome.brokenSince },
        );
        if (listed.changes === 0) continue;
        brokenByStatus.set(outcome.statusCode, (brokenByStatus.get(outcome.statusCode) ?? 0) + 1);
      }
      let broken = 0;
      for (const [status, links] of brokenByStatus) {
        await tx.run("UPDATE crawl_status_counts SET links = links - $links WHERE crawl_id = $crawl AND status_code = $status AND is_broken = 0", {
          crawl: crawlId,
          status,
          links,
        });
        await tx.run(
          `INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links) VALUES ($crawl, $status, 1, $links)
           ON CONFLICT (crawl_id, status_code, is_broken) DO UPDATE SET links = crawl_status_counts.links + excluded.links`,
          { crawl: crawlId, status, links },
        );
        broken += links;
      }
      if (broken > 0) await tx.run("UPDATE crawls SET broken_links = broken_links + $broken WHERE id = $crawl", { broken, crawl: crawlId });
      // A row with a gap stays until the crawl's warnings have counted it (forgetCrawl).
      await tx.run("DELETE FROM link_fragments WHERE crawl_id = $crawl AND link_id <= $through AND gap IS NULL", { crawl: crawlId, through: judgedThrough });
    });
  }

  /** How many of the crawl's judged links got no verdict, per gap. */
  gapCounts(crawlId: string): Promise<GapCount[]> {
    return this.db.all<GapCount>("SELECT gap, COUNT(*) AS links FROM link_fragments WHERE crawl_id = $crawl AND gap IS NOT NULL GROUP BY gap", {
      crawl: crawlId,
    });
  }

  /**
   * Forgets what the crawl's fragment checks kept (the rows left with a gap, the pages' ids): its fragments are
   * judged. Run it on the Db of a transaction fenced like every write of a crawl's worker (`immediate`).
   */
  async forgetCrawl(crawlId: string): Promise<void> {
    await this.db.run("DELETE FROM link_fragments WHERE crawl_id = $crawl", { crawl: crawlId });
    await this.db.run("DELETE FROM crawl_page_ids WHERE crawl_id = $crawl", { crawl: crawlId });
  }

  /** Runs `work` in one immediate transaction fenced for crawl `crawlId` (crawl-fence.ts), on a repo over it. */
  immediate<T>(crawlId: string, work: (repo: FragmentsRepo, tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction(
      async (tx) => {
        await this.fence(tx, crawlId);
        return work(new FragmentsRepo(tx, this.fence), tx);
      },
      { immediate: true },
    );
  }
}
