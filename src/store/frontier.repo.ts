import type { Database, Statement } from "bun:sqlite";
import type { LinkVerdict } from "../core/link-outcome.ts";
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

export class FrontierRepo {
  private readonly pullStatement: Statement<RawTarget, [string, number, number]>;
  private readonly markDone: Statement<unknown, [number | null, number, string | null, string | null, string | null, number]>;
  private readonly markSkipped: Statement<unknown, [number]>;
  private readonly linksTo: Statement<{ n: number }, [number]>;
  private readonly settleTarget: Statement<
    { id: number },
    [string, string, number, number, number | null, number, string | null, string | null, string]
  >;
  private readonly claimPage: Statement<unknown, [string, string]>;
  private readonly upsertTarget: Statement<{ id: number; state: string; is_broken: number | null }, [string, string, number, number, number]>;
  private readonly insertLink: Statement<unknown, [string, string, number, string, string]>;
  private readonly counters: Statement<{ pages_crawled: number }, [string]>;
  private readonly addCounts: Statement<unknown, [number, number, number, number, number, string]>;
  private readonly commitBatch: (crawlId: string, results: FrontierResult[], limits: PageLimits) => void;

  constructor(private readonly sqlite: Database) {
    this.pullStatement = sqlite.prepare(
      `SELECT id, url, internal, as_page, depth FROM crawl_targets
       WHERE crawl_id = ?1 AND state = 'queued' AND id > ?2 ORDER BY id LIMIT ?3`,
    );
    this.markDone = sqlite.prepare(
      `UPDATE crawl_targets SET state = 'done', status_code = ?1, is_broken = ?2, error = ?3, warning = ?4, final_url = ?5
       WHERE id = ?6 AND state = 'queued'`,
    );
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
    // A later anchor turns a still-queued image/script target into a page; a checked one stays as it was.
    this.upsertTarget = sqlite.prepare(
      `INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (crawl_id, url) DO UPDATE SET as_page = CASE WHEN state = 'queued' THEN MAX(as_page, excluded.as_page) ELSE as_page END
       RETURNING id, state, is_broken`,
    );
    this.insertLink = sqlite.prepare(
      `INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING`,
    );
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
    this.upsertTarget.get(crawlId, rootUrl, 1, 1, 0);
  }

  /** Up to `limit` queued targets after `afterId`, in discovery order. */
  pull(crawlId: string, afterId: number, limit: number): FrontierTarget[] {
    return this.pullStatement.all(crawlId, afterId, limit).map(toTarget);
  }

  /** Records a batch of results in one transaction. */
  commit(crawlId: string, results: FrontierResult[], limits: PageLimits): void {
    if (results.length > 0) this.commitBatch(crawlId, results, limits);
  }

  private record(crawlId: string, results: FrontierResult[], limits: PageLimits): void {
    let pages = this.counters.get(crawlId)?.pages_crawled ?? 0;
    let pagesAdded = 0;
    let total = 0;
    let broken = 0;
    let skipped = 0;
    let truncated = 0;
    for (const result of results) {
      if (result.kind === "skipped") {
        skipped += this.markSkipped.run(result.target.id).changes;
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
      ).changes;
      if (changed === 0) continue; // already recorded (a replay after a restart)
      const waiting = this.linksTo.get(target.id)?.n ?? 0;
      total += waiting;
      if (verdict.is_broken) broken += waiting;
      if (result.redirectEnd !== null) {
        const end = result.redirectEnd;
        const settled = this.settleTarget.get(
          crawlId, end.url, end.internal ? 1 : 0, target.depth,
          end.verdict.status_code, end.verdict.is_broken ? 1 : 0, end.verdict.error, end.verdict.warning, end.url,
        );
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
        const row = this.upsertTarget.get(crawlId, link.url, link.internal ? 1 : 0, link.internal && link.kind === "anchor" ? 1 : 0, target.depth + 1)!;
        if (this.insertLink.run(crawlId, result.page.url, row.id, link.text, link.kind).changes === 0) continue;
        if (row.state !== "done") continue;
        total++;
        if (row.is_broken === 1) broken++;
      }
    }
    this.addCounts.run(pagesAdded, total, broken, skipped, truncated, crawlId);
  }
}
