import type { Database, Statement } from "bun:sqlite";
import type { LinkVerdict } from "../core/link-outcome.ts";
import { KnownTargets, type KnownTarget } from "./known-targets.ts";
import { MultiRowInsert } from "./multi-row-insert.ts";
import type { StoredLinkKind, TargetState } from "./schema.ts";

/**
 * The crawler's side of the store: the frontier of one crawl and the results it records. Every batch of results
 * is one transaction that marks targets done, records new targets and links, and moves the crawl's counters by
 * exactly what it wrote, so a crash between batches loses only work that was never committed and a replayed
 * result changes nothing (its target is no longer `queued`). Counting rules (CONTRACT "Crawls and links"):
 * a Link counts once its target has a verdict; a robots-skipped target is never fetched nor linked, only counted.
 *
 * Nothing here reads links by target (links have no such index; see schema.ts): a link to a checked target is
 * counted as it is written; links to a queued target are counted in memory and chained through
 * links.waiting_prev_id until the target's verdict counts them all (and, when it is broken, follows the chain
 * to list them). The in-memory table of the crawl's targets (known-targets.ts) holds those counts: writing
 * them to the store with every batch cost a 50k-page crawl 10 % of its time. They are rebuilt from the links
 * when a crawl resumes, and only targets beyond what the table holds keep theirs in `crawl_waiting`.
 * What a batch learns about targets stays in the batch until it commits, then joins the table, so a
 * rolled-back batch leaves it as the store is.
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
  /** Set for a link judged without a request (an href that cannot be checked): its target is recorded done. */
  verdict?: LinkVerdict;
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
      /** The parsed page behind the target (its final URL and links, and whether its body was cut), when it was one. */
      page: { url: string; links: FoundLink[]; cut: boolean } | null;
    }
  /** robots.txt refused the target; `reason` says how. */
  | { kind: "skipped"; target: FrontierTarget; reason: string };

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

/** A crawl_targets row with its waiting links, as the store holds it. */
interface StoredTarget {
  id: number;
  url: string;
  state: TargetState;
  as_page: number;
  status_code: number | null;
  is_broken: number | null;
  waiting_links: number | null;
  last_waiting_link_id: number | null;
}

function toKnown(row: StoredTarget): KnownTarget {
  return {
    id: row.id,
    state: row.state,
    asPage: row.as_page === 1,
    statusCode: row.status_code ?? 0,
    isBroken: row.is_broken === 1,
    waitingLinks: row.waiting_links ?? 0,
    lastWaitingLinkId: row.last_waiting_link_id ?? 0,
  };
}

/**
 * Targets of one crawl held in memory (47–93 bytes each, ~18 MiB at the limit; known-targets.ts). A crawl
 * with more distinct targets asks the store about the rest, one lookup per link.
 */
export const MAX_KNOWN_TARGETS = 1 << 18;

const STORED_TARGET_COLUMNS = `t.id, t.url, t.state, t.as_page, t.status_code, t.is_broken,
  w.links AS waiting_links, w.last_link_id AS last_waiting_link_id
  FROM crawl_targets t LEFT JOIN crawl_waiting w ON w.target_id = t.id`;

/** What one batch changes, kept apart until its transaction commits. */
class BatchChanges {
  /** Targets whose state the batch changed (or created), by URL: they join the known table after the commit. */
  readonly targets = new Map<string, KnownTarget>();
  /** URLs whose crawl_waiting row must be written (upserted while queued with links, deleted otherwise). */
  readonly waiting = new Set<string>();
  /** Pairs of (link id, target id) of links that became broken links. */
  readonly brokenLinks: number[] = [];
  /** Links counted, by status code * 2 + broken. */
  readonly statusCounts = new Map<number, number>();
  pagesAdded = 0;
  total = 0;
  broken = 0;
  skipped = 0;
  truncated = 0;
  pagesCut = 0;

  /** Counts `links` links whose target has verdict `statusCode`/`isBroken`. */
  count(statusCode: number, isBroken: boolean, links: number): void {
    this.total += links;
    if (isBroken) this.broken += links;
    const key = statusCode * 2 + (isBroken ? 1 : 0);
    this.statusCounts.set(key, (this.statusCounts.get(key) ?? 0) + links);
  }
}

export class FrontierRepo {
  private readonly known: KnownTargets;
  private knownFor: string | null = null;
  private readonly pullStatement: Statement<RawTarget, [string, number, number]>;
  private readonly markDone: Statement<unknown, [number | null, number, string | null, string | null, string | null, number, number]>;
  private readonly stillQueued: Statement<{ id: number }, [number]>;
  private readonly markSkipped: Statement<unknown, [string, number]>;
  private readonly settleTarget: Statement<
    { id: number },
    [string, string, number, number, number | null, number, string | null, string | null, string | null]
  >;
  private readonly claimPage: Statement<unknown, [string, string]>;
  private readonly findTarget: Statement<StoredTarget, [string, string]>;
  private readonly crawlTargets: Statement<StoredTarget, [string]>;
  private readonly waitingLinks: Statement<{ id: number; url: string; links: number; last_link_id: number }, [string]>;
  private readonly forgetWaiting: Statement<unknown, [string]>;
  private readonly insertTarget: Statement<{ id: number }, [string, string, number, number, number]>;
  private readonly promoteToPage: Statement<unknown, [number]>;
  private readonly previousWaiting: Statement<{ waiting_prev_id: number | null }, [number]>;
  private readonly deleteWaiting: Statement<unknown, [number]>;
  private readonly counters: Statement<{ pages_crawled: number }, [string]>;
  private readonly addCounts: Statement<unknown, [number, number, number, number, number, number, string]>;
  private readonly insertLinks: MultiRowInsert;
  private readonly upsertWaiting: MultiRowInsert;
  private readonly insertBrokenLinks: MultiRowInsert;
  private readonly addStatusCounts: MultiRowInsert;
  private readonly commitBatch: {
    immediate: (crawlId: string, results: FrontierResult[], limits: PageLimits) => { redo: FrontierTarget[]; changes: BatchChanges };
  };

  constructor(
    private readonly sqlite: Database,
    options: { maxKnownTargets?: number } = {},
  ) {
    this.known = new KnownTargets(options.maxKnownTargets ?? MAX_KNOWN_TARGETS);
    this.pullStatement = sqlite.prepare(
      `SELECT id, url, internal, as_page, depth FROM crawl_targets
       WHERE crawl_id = ?1 AND state = 'queued' AND id > ?2 ORDER BY id LIMIT ?3`,
    );
    this.markDone = sqlite.prepare(
      `UPDATE crawl_targets SET state = 'done', status_code = ?1, is_broken = ?2, error = ?3, warning = ?4, final_url = ?5
       WHERE id = ?6 AND state = 'queued' AND as_page = ?7`,
    );
    this.stillQueued = sqlite.prepare("SELECT id FROM crawl_targets WHERE id = ?1 AND state = 'queued'");
    this.markSkipped = sqlite.prepare("UPDATE crawl_targets SET state = 'skipped', warning = ?1 WHERE id = ?2 AND state = 'queued'");
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
    this.findTarget = sqlite.prepare(`SELECT ${STORED_TARGET_COLUMNS} WHERE t.crawl_id = ?1 AND t.url = ?2`);
    // Waiting counts are rebuilt from the links by use(), so crawl_waiting is not read here.
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
    this.forgetWaiting = sqlite.prepare("DELETE FROM crawl_waiting WHERE target_id IN (SELECT id FROM crawl_targets WHERE crawl_id = ?1)");
    this.insertTarget = sqlite.prepare(
      "INSERT INTO crawl_targets (crawl_id, url, internal, as_page, depth) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
    );
    this.promoteToPage = sqlite.prepare("UPDATE crawl_targets SET as_page = 1 WHERE id = ?1 AND state = 'queued'");
    this.previousWaiting = sqlite.prepare("SELECT waiting_prev_id FROM links WHERE id = ?1");
    this.deleteWaiting = sqlite.prepare("DELETE FROM crawl_waiting WHERE target_id = ?1");
    this.counters = sqlite.prepare("SELECT pages_crawled FROM crawls WHERE id = ?1");
    this.addCounts = sqlite.prepare(
      `UPDATE crawls SET pages_crawled = pages_crawled + ?1, total_links = total_links + ?2, broken_links = broken_links + ?3,
       skipped_links = skipped_links + ?4, truncated = MAX(truncated, ?5), pages_cut = pages_cut + ?6 WHERE id = ?7`,
    );
    // No conflict check: a page's links are recorded once (crawl_pages claim) and deduped per target before.
    this.insertLinks = new MultiRowInsert(
      sqlite,
      "INSERT INTO links (crawl_id, source_url, target_id, link_text, kind, waiting_prev_id) VALUES",
      "(?1, ?2, ?, ?, ?, ?)",
      2,
    );
    this.upsertWaiting = new MultiRowInsert(
      sqlite,
      "INSERT INTO crawl_waiting (target_id, links, last_link_id) VALUES",
      "(?, ?, ?)",
      0,
      "ON CONFLICT (target_id) DO UPDATE SET links = excluded.links, last_link_id = excluded.last_link_id",
    );
    this.insertBrokenLinks = new MultiRowInsert(sqlite, "INSERT INTO broken_links (crawl_id, link_id, target_id) VALUES", "(?1, ?, ?)", 1);
    this.addStatusCounts = new MultiRowInsert(
      sqlite,
      "INSERT INTO crawl_status_counts (crawl_id, status_code, is_broken, links) VALUES",
      "(?1, ?, ?, ?)",
      1,
      "ON CONFLICT (crawl_id, status_code, is_broken) DO UPDATE SET links = links + excluded.links",
    );
    this.commitBatch = sqlite.transaction((crawlId: string, results: FrontierResult[], limits: PageLimits) =>
      this.record(crawlId, results, limits),
    );
  }

  /** Queues the crawl's root page unless it is already in the frontier (a resumed crawl). */
  seed(crawlId: string, rootUrl: string): void {
    this.use(crawlId);
    const changes = new BatchChanges();
    this.sqlite.transaction(() => this.target(crawlId, { url: rootUrl, internal: true, kind: "anchor" }, 0, changes)).immediate();
    this.remember(changes);
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
    this.use(crawlId);
    // IMMEDIATE: the batch reads before it writes, and a deferred transaction whose snapshot went stale while
    // another connection wrote (the API, another crawl) fails at its first write with SQLITE_BUSY, which the
    // busy timeout cannot wait out. Taking the write lock first makes it wait its turn instead.
    const { redo, changes } = this.commitBatch.immediate(crawlId, results, limits);
    this.remember(changes);
    return redo;
  }

  /** After a commit: what the batch learnt about targets joins the in-memory table. */
  private remember(changes: BatchChanges): void {
    for (const [url, target] of changes.targets) this.known.set(url, target);
  }

  /** What is known about `url` in this crawl: the batch's own changes first, then memory, then the store. */
  private lookup(crawlId: string, url: string, changes: BatchChanges): KnownTarget | undefined {
    const known = changes.targets.get(url) ?? this.known.get(url);
    if (known !== undefined || this.known.complete) return known;
    const stored = this.findTarget.get(crawlId, url);
    return stored === null ? undefined : toKnown(stored);
  }

  /**
   * Makes the in-memory table hold `crawlId`'s targets (all of them, for a resumed crawl, up to the table's
   * limit), with the links waiting for each one counted from the links themselves; targets beyond the limit
   * get theirs in crawl_waiting. Outside any batch, so it reads what is committed.
   */
  private use(crawlId: string): void {
    if (this.knownFor === crawlId) return;
    this.known.clear();
    this.knownFor = null;
    try {
      for (const row of this.crawlTargets.iterate(crawlId)) {
        if (!this.known.set(row.url, toKnown(row))) break;
      }
      this.sqlite
        .transaction(() => {
          this.forgetWaiting.run(crawlId);
          const overflow: number[] = [];
          for (const row of this.waitingLinks.iterate(crawlId)) {
            const known = this.known.get(row.url);
            if (known !== undefined) this.known.set(row.url, { ...known, waitingLinks: row.links, lastWaitingLinkId: row.last_link_id });
            else overflow.push(row.id, row.links, row.last_link_id);
          }
          this.upsertWaiting.run([], overflow);
        })
        .immediate();
    } catch (error) {
      // Half-rebuilt counts (every target at zero waiting links) must not pass for the crawl's: next time, again.
      this.known.clear();
      throw error;
    }
    this.knownFor = crawlId;
  }

  /**
   * The frontier row of a link's target, created when new. An anchor turns a still-queued image or script
   * target into a page; a target already checked stays as it was.
   */
  private target(crawlId: string, link: Pick<FoundLink, "url" | "internal" | "kind" | "verdict">, depth: number, changes: BatchChanges): KnownTarget {
    const wantsPage = link.internal && link.kind === "anchor";
    let known = this.lookup(crawlId, link.url, changes);
    if (known === undefined && link.verdict !== undefined) {
      known = this.recordJudged(crawlId, link.url, link.internal, depth, link.verdict);
      changes.targets.set(link.url, known);
    } else if (known === undefined) {
      const { id } = this.insertTarget.get(crawlId, link.url, link.internal ? 1 : 0, wantsPage ? 1 : 0, depth)!;
      known = { id, state: "queued", asPage: wantsPage, statusCode: 0, isBroken: false, waitingLinks: 0, lastWaitingLinkId: 0 };
      changes.targets.set(link.url, known);
    } else if (wantsPage && !known.asPage && known.state === "queued") {
      this.promoteToPage.run(known.id);
      known = { ...known, asPage: true };
      changes.targets.set(link.url, known);
    }
    return known;
  }

  /** A new target judged without a request, recorded done with its verdict. */
  private recordJudged(crawlId: string, url: string, internal: boolean, depth: number, verdict: LinkVerdict): KnownTarget {
    const { status_code, is_broken, error, warning } = verdict;
    const { id } = this.settleTarget.get(crawlId, url, internal ? 1 : 0, depth, status_code, is_broken ? 1 : 0, error, warning, null)!;
    return { id, state: "done", asPage: false, statusCode: status_code, isBroken: is_broken, waitingLinks: 0, lastWaitingLinkId: 0 };
  }

  /** A queued target got its verdict: the links waiting for it count now, as broken links when it is broken. */
  private judge(url: string, queued: KnownTarget, verdict: LinkVerdict, changes: BatchChanges): void {
    if (queued.waitingLinks > 0) {
      changes.count(verdict.status_code, verdict.is_broken, queued.waitingLinks);
      if (verdict.is_broken) {
        for (const linkId of this.waitingChain(queued)) changes.brokenLinks.push(linkId, queued.id);
      }
      changes.waiting.add(url);
    }
    changes.targets.set(url, {
      ...queued,
      state: "done",
      statusCode: verdict.status_code,
      isBroken: verdict.is_broken,
      waitingLinks: 0,
      lastWaitingLinkId: 0,
    });
  }

  /** The ids of the links waiting for `target`, newest first (links.waiting_prev_id). */
  private waitingChain(target: KnownTarget): number[] {
    const ids: number[] = [];
    // Bounded by the count kept with the chain's head.
    for (let id = target.lastWaitingLinkId; id > 0 && ids.length < target.waitingLinks; ) {
      ids.push(id);
      id = this.previousWaiting.get(id)?.waiting_prev_id ?? 0;
    }
    if (ids.length !== target.waitingLinks) throw new Error(`waiting links of target ${target.id}: chain holds ${ids.length}, count says ${target.waitingLinks}`);
    return ids;
  }

  /** Records one parsed page's links (one statement per 100) and counts those whose target is already checked. */
  private recordLinks(crawlId: string, page: { url: string; links: FoundLink[] }, depth: number, changes: BatchChanges): void {
    const targets = page.links.map((link) => this.target(crawlId, link, depth, changes));
    const values = page.links.flatMap((link, i) => {
      const target = targets[i]!;
      const waitsOn = target.state === "queued" && target.lastWaitingLinkId > 0 ? target.lastWaitingLinkId : null;
      return [target.id, link.text, link.kind, waitsOn];
    });
    this.insertLinks.run([crawlId, page.url], values, (firstId, offset, rows) => {
      for (let i = offset; i < offset + rows; i++) {
        const target = targets[i]!;
        const linkId = firstId + (i - offset);
        if (target.state === "done") {
          changes.count(target.statusCode, target.isBroken, 1);
          if (target.isBroken) changes.brokenLinks.push(linkId, target.id);
        } else if (target.state === "queued") {
          const url = page.links[i]!.url;
          changes.targets.set(url, { ...target, waitingLinks: target.waitingLinks + 1, lastWaitingLinkId: linkId });
          changes.waiting.add(url);
        }
      }
    });
  }

  private record(crawlId: string, results: FrontierResult[], limits: PageLimits): { redo: FrontierTarget[]; changes: BatchChanges } {
    const changes = new BatchChanges();
    const redo: FrontierTarget[] = [];
    let pages = this.counters.get(crawlId)?.pages_crawled ?? 0;
    for (const result of results) {
      const { target } = result;
      if (result.kind === "skipped") {
        if (this.markSkipped.run(result.reason, target.id).changes === 0) continue;
        changes.skipped++;
        const known = this.lookup(crawlId, target.url, changes);
        if (known !== undefined) {
          changes.targets.set(target.url, { ...known, state: "skipped", waitingLinks: 0, lastWaitingLinkId: 0 });
          changes.waiting.add(target.url);
        }
        continue;
      }
      const { verdict } = result;
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
      const queued = this.lookup(crawlId, target.url, changes);
      if (queued === undefined) throw new Error(`target ${target.id} (${target.url}) is not in the frontier of crawl ${crawlId}`);
      this.judge(target.url, queued, verdict, changes);
      if (result.redirectEnd !== null) {
        const end = result.redirectEnd;
        const before = this.lookup(crawlId, end.url, changes);
        const settled = this.settleTarget.get(
          crawlId, end.url, end.internal ? 1 : 0, target.depth,
          end.verdict.status_code, end.verdict.is_broken ? 1 : 0, end.verdict.error, end.verdict.warning, end.url,
        );
        if (settled !== null) {
          const waiting = before?.state === "queued" ? before : { id: settled.id, state: "queued" as const, asPage: false, statusCode: 0, isBroken: false, waitingLinks: 0, lastWaitingLinkId: 0 };
          this.judge(end.url, { ...waiting, id: settled.id }, end.verdict, changes);
        }
      }

      if (result.page === null) continue;
      if (pages >= limits.maxPages || target.depth > limits.maxDepth) {
        changes.truncated = 1;
        continue;
      }
      if (this.claimPage.run(crawlId, result.page.url).changes === 0) continue; // parsed under another URL
      pages++;
      changes.pagesAdded++;
      if (result.page.cut) changes.pagesCut++;
      this.recordLinks(crawlId, result.page, target.depth + 1, changes);
    }
    this.writeWaiting(changes);
    this.insertBrokenLinks.run([crawlId], changes.brokenLinks);
    this.addStatusCounts.run(
      [crawlId],
      [...changes.statusCounts].flatMap(([key, links]) => [Math.floor(key / 2), key % 2, links]),
    );
    this.addCounts.run(changes.pagesAdded, changes.total, changes.broken, changes.skipped, changes.truncated, changes.pagesCut, crawlId);
    return { redo, changes };
  }

  /**
   * Keeps crawl_waiting for the targets the in-memory table does not hold (only ever on a crawl with more
   * targets than it holds): a row per such queued target with links, none for the others.
   */
  private writeWaiting(changes: BatchChanges): void {
    let added = 0;
    for (const url of changes.targets.keys()) if (this.known.get(url) === undefined) added++;
    if (this.known.complete && added <= this.known.room) return; // every one of them will be held
    const upserts: number[] = [];
    for (const url of changes.waiting) {
      if (this.known.get(url) !== undefined) continue;
      const target = changes.targets.get(url)!;
      if (target.state === "queued" && target.waitingLinks > 0) upserts.push(target.id, target.waitingLinks, target.lastWaitingLinkId);
      else this.deleteWaiting.run(target.id);
    }
    this.upsertWaiting.run([], upserts);
  }
}
