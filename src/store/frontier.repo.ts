import type { Database, Statement } from "bun:sqlite";
import type { LinkVerdict } from "../core/link-outcome.ts";
import { RecentMap } from "./recent-map.ts";
import type { StoredLinkKind } from "./schema.ts";

/**
 * The crawler's side of the store: the frontier of one crawl and the results it records. Every batch of results
 * is one transaction that marks targets done, records new targets and links, and moves the crawl's counters by
 * exactly what it wrote, so a crash between batches loses only work that was never committed and a replayed
 * result changes nothing (its target is no longer `queued`). Counting rules (CONTRACT "Crawls and links"):
 * a Link counts once its target has a verdict; a robots-skipped target is never fetched nor linked, only counted.
 */

/** A frontier row handed to the crawler. */
export interface FrontierTarget {
  id: number;
  url: string;
  internal: boolean;
  asPage: boolean;
  depth: number;
}

/** A link found on a parsed page, already gated by the crawl's options. */
export interface FoundLink {
  url: string;
  internal: boolean;
  kind: StoredLinkKind;
  text: string;
}

/** One finished piece of work, in the order it should be recorded. */
export type FrontierResult =
  | {
      kind: "checked";
      target: FrontierTarget;
      verdict: LinkVerdict;
      finalUrl: string | null;
      /** Where a page's redirects ended, with that URL's own verdict: recorded so it is not fetched again. */
      redirectEnd: { url: string; internal: boolean; verdict: LinkVerdict } | null;
      /** The parsed page behind the target (its final URL and links), when it was one. */
      page: { url: string; links: FoundLink[] } | null;
    }
  | { kind: "skipped"; target: FrontierTarget };

/** The page limits the recording step applies. */
export interface PageLimits {
  maxPages: number;
  maxDepth: number;
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

/**
 * Frontier rows remembered per generation (two generations, so at most twice this many). A site's shared links
 * (navigation, footer, assets) are hit on every page and stay; a link seen on one page only ages out. Larger
 * tables cost memory for no fewer lookups: 100,000 rows held a 50k-page crawl's worker heap ~45 MiB higher.
 */
const REMEMBERED_PER_GENERATION = 8_192;

/** What recording a link needs to know about its target. */
interface KnownTarget {
  id: number;
  state: string;
  isBroken: number | null;
  asPage: number;
}

export class FrontierRepo {
  private readonly known: RecentMap<string, KnownTarget>;
  private knownFor: string | null = null;
  private readonly pullStatement: Statement<RawTarget, [string, number, number]>;
  private readonly markDone: Statement<unknown, [number | null, number, string | null, string | null, string | null, number, number]>;
  private readonly stillQueued: Statement<{ id: number }, [number]>;
  private readonly markSkipped: Statement<unknown, [number]>;
  private readonly linksTo: Statement<{ n: number }, [number]>;
  private readonly settleTarget: Statement<
    { id: number },
    [string, string, number, number, number | null, number, string | null, string | null, string]
  >;
  private readonly claimPage: Statement<unknown, [string, string]>;
  private readonly findTarget: Statement<KnownTarget, [string, string]>;
  private readonly insertTarget: Statement<{ id: number }, [string, string, number, number, number]>;
  private readonly promoteToPage: Statement<unknown, [number]>;
  private readonly insertLink: Statement<unknown, [string, string, number, string, string]>;
  private readonly counters: Statement<{ pages_crawled: number }, [string]>;
  private readonly addCounts: Statement<unknown, [number, number, number, number, number, string]>;
  private readonly commitBatch: { immediate: (crawlId: string, results: FrontierResult[], limits: PageLimits) => FrontierTarget[] };

  constructor(
    private readonly sqlite: Database,
    options: { rememberedPerGeneration?: number } = {},
  ) {
    this.known = new RecentMap(options.rememberedPerGeneration ?? REMEMBERED_PER_GENERATION);
    this.pullStatement = sqlite.prepare(
      `SELECT id, url, internal, as_page, depth FROM crawl_targets
       WHERE crawl_id = ?1 AND state = 'queued' AND id > ?2 ORDER BY id LIMIT ?3`,
    );
    this.markDone = sqlite.prepare(
      `UPDATE crawl_targets SET state = 'done', status_code = ?1, is_broken = ?2, error = ?3, warning = ?4, final_url = ?5
       WHERE id = ?6 AND state = 'queued' AND as_page = ?7`,
    );
    this.stillQueued = sqlite.prepare("SELECT id FROM crawl_targets WHERE id = ?1 AND state = 'queued'");
    this.markSkipped = sqlite.prepare("UPDATE crawl_targets SET state = 'skipped' WHERE id = ?1 AND state = 'queued'");
    this.linksTo = sqlite.prepare("SELECT COUNT(*) AS n FROM links WHERE target_id = ?1");
    // Records a verdict for a URL that may not be in the frontier yet, or is still queued there.
    this.settleTarget = sqlite.prepare(
      `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, error, warning, final_url)
       VALUES (?1, ?2, ?3, ?4, 'done', ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (crawl_id, url) DO UPDATE SET state = 'done', status_code = excluded.status_code, is_broken = excluded.is_broken,
         error = excluded.error, warning = excluded.warning, final_url = excluded.final_url
       WHERE state = 'queued'
       RETURNING id`,
    );
    this.claimPage = sqlite.prepare("INSERT INTO crawl_pages (crawl_id, url) VALUES (?1, ?2) ON CONFLICT DO NOTHING");
    this.findTarget = sqlite.prepare(
      "SELECT id, state, is_broken AS isBroken, as_page AS asPage FROM crawl_targets WHERE crawl_id = ?1 AND url = ?2",
    );
    this.insertTarget = sqlite.prepare(
      "INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
    );
    this.promoteToPage = sqlite.prepare("UPDATE crawl_targets SET as_page = 1 WHERE id = ?1 AND state = 'queued'");
    // No conflict check: a page's links are recorded once (crawl_pages claim) and deduped per target before.
    this.insertLink = sqlite.prepare("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES (?1, ?2, ?3, ?4, ?5)");
    this.counters = sqlite.prepare("SELECT pages_crawled FROM crawls WHERE id = ?1");
    this.addCounts = sqlite.prepare(
      `UPDATE crawls SET pages_crawled = pages_crawled + ?1, total_links = total_links + ?2, broken_links = broken_links + ?3,
       skipped_links = skipped_links + ?4, truncated = MAX(truncated, ?5) WHERE id = ?6`,
    );
    this.commitBatch = sqlite.transaction((crawlId: string, results: FrontierResult[], limits: PageLimits) =>
      this.record(crawlId, results, limits),
    );
  }

  /** Queues the crawl's root page unless it is already in the frontier (a resumed crawl). */
  seed(crawlId: string, rootUrl: string): void {
    this.sqlite.transaction(() => this.target(crawlId, { url: rootUrl, internal: true, kind: "anchor" }, 0)).immediate();
  }

  /** Up to `limit` queued targets after `afterId`, in discovery order. */
  pull(crawlId: string, afterId: number, limit: number): FrontierTarget[] {
    return this.pullStatement.all(crawlId, afterId, limit).map(toTarget);
  }

  /**
   * Records a batch of results in one transaction. Returns the targets whose result could not be recorded
   * because they became pages meanwhile: they must be checked again, as pages.
   */
  commit(crawlId: string, results: FrontierResult[], limits: PageLimits): FrontierTarget[] {
    if (results.length === 0) return [];
    try {
      // IMMEDIATE: the batch reads before it writes, and a deferred transaction whose snapshot went stale while
      // another connection wrote (the API, another crawl) fails at its first write with SQLITE_BUSY, which the
      // busy timeout cannot wait out. Taking the write lock first makes it wait its turn instead.
      return this.commitBatch.immediate(crawlId, results, limits);
    } catch (error) {
      this.known.clear(); // rolled back: what was remembered during the batch may not exist
      throw error;
    }
  }

  /**
   * The frontier row of a link's target, created when new. An anchor turns a still-queued image or script
   * target into a page; a target already checked stays as it was. Rows are remembered, since one target is
   * linked from many pages and a lookup per link would dominate the crawl's cost.
   */
  private target(crawlId: string, link: Pick<FoundLink, "url" | "internal" | "kind">, depth: number): KnownTarget {
    if (this.knownFor !== crawlId) {
      this.known.clear();
      this.knownFor = crawlId;
    }
    const wantsPage = link.internal && link.kind === "anchor";
    let known = this.known.get(link.url) ?? this.findTarget.get(crawlId, link.url) ?? undefined;
    if (known === undefined) {
      const { id } = this.insertTarget.get(crawlId, link.url, link.internal ? 1 : 0, wantsPage ? 1 : 0, depth)!;
      known = { id, state: "queued", isBroken: null, asPage: wantsPage ? 1 : 0 };
    } else if (wantsPage && known.asPage === 0 && known.state === "queued") {
      this.promoteToPage.run(known.id);
      known = { ...known, asPage: 1 };
    }
    this.known.set(link.url, known);
    return known;
  }

  private record(crawlId: string, results: FrontierResult[], limits: PageLimits): FrontierTarget[] {
    const redo: FrontierTarget[] = [];
    let pages = this.counters.get(crawlId)?.pages_crawled ?? 0;
    let pagesAdded = 0;
    let total = 0;
    let broken = 0;
    let skipped = 0;
    let truncated = 0;
    for (const result of results) {
      if (result.kind === "skipped") {
        skipped += this.markSkipped.run(result.target.id).changes;
        this.known.delete(result.target.url);
        continue;
      }
      const { target, verdict } = result;
      const changed = this.markDone.run(
        verdict.status_code,
        verdict.is_broken ? 1 : 0,
        verdict.error,
        verdict.warning,
        result.finalUrl,
        target.id,
        target.asPage ? 1 : 0,
      ).changes;
      if (changed === 0) {
        // Still queued: an anchor found since it was pulled made it a page, so checking it as a target was not
        // enough. Otherwise it was recorded already (a replay after a restart).
        if (this.stillQueued.get(target.id) !== null) redo.push({ ...target, asPage: true });
        continue;
      }
      this.known.set(target.url, { id: target.id, state: "done", isBroken: verdict.is_broken ? 1 : 0, asPage: target.asPage ? 1 : 0 });
      const waiting = this.linksTo.get(target.id)?.n ?? 0;
      total += waiting;
      if (verdict.is_broken) broken += waiting;
      if (result.redirectEnd !== null) {
        const end = result.redirectEnd;
        const settled = this.settleTarget.get(
          crawlId, end.url, end.internal ? 1 : 0, target.depth,
          end.verdict.status_code, end.verdict.is_broken ? 1 : 0, end.verdict.error, end.verdict.warning, end.url,
        );
        this.known.delete(end.url);
        if (settled !== null) {
          const endWaiting = this.linksTo.get(settled.id)?.n ?? 0;
          total += endWaiting;
          if (end.verdict.is_broken) broken += endWaiting;
        }
      }

      if (result.page === null) continue;
      if (pages >= limits.maxPages || target.depth > limits.maxDepth) {
        truncated = 1;
        continue;
      }
      if (this.claimPage.run(crawlId, result.page.url).changes === 0) continue; // parsed under another URL
      pages++;
      pagesAdded++;
      for (const link of result.page.links) {
        const known = this.target(crawlId, link, target.depth + 1);
        this.insertLink.run(crawlId, result.page.url, known.id, link.text, link.kind);
        if (known.state !== "done") continue;
        total++;
        if (known.isBroken === 1) broken++;
      }
    }
    this.addCounts.run(pagesAdded, total, broken, skipped, truncated, crawlId);
    return redo;
  }
}
