import type { CrawlsRepo, CrawlRecord } from "../store/crawls.repo.ts";
import { PageReuseRepo, type StoredPageLinkRow, type StoredPageRow } from "../store/page-reuse.repo.ts";
import type { Db } from "../store/db.ts";
import { isUncheckableVerdict } from "./classify.ts";
import { fragmentsToJudge } from "./fragments.ts";
import { hashesFromBytes, type PageIds } from "./page-ids.ts";
import type { FoundLink, LinkRows } from "./frontier.ts";
import type { LinkVerdict } from "../core/link-outcome.ts";
import { previousCovers } from "./reuse-cover.ts";

/**
 * Incremental audits (docs/decisions.md, "Incremental audits"): a page the previous completed crawl of the
 * domain read is asked with its validators, and when it answers 304, or a body whose hash is the stored one, its
 * links are that crawl's rows instead of a parse. Only when that crawl's options cover this one's
 * (reuse-cover.ts); the targets themselves are checked by every crawl, so only the reading of pages is saved.
 */

/** What a page read whole leaves for the next crawl: its validators, its body's hash and size, its links before gating. */
export interface PageRecord {
  etag: string | null;
  lastModified: string | null;
  bodyHash: string;
  bodyBytes: number;
  linksFound: number;
}

/** A page of the previous crawl that this crawl may reuse. */
export interface StoredPage {
  url: string;
  record: PageRecord;
  /** The status its target got there: what a 304 stands for. */
  statusCode: number;
  excluded: number;
  firstLinkId: number;
  linkCount: number;
  /** Its ids, when the previous crawl checked fragments (and so does this one: reuse-cover.ts). */
  ids: PageIds | null;
}

/**
 * A reused page's links, as the previous crawl recorded them (already gated), read one at a time into a record
 * the frontier owns (no object per link), and the links its ignore rules kept out.
 */
export interface ReusedLinks extends LinkRows {
  excluded: number;
}

/** The limits a page is read under: a stored page that this crawl would cut is read again. */
export interface ReadLimits {
  maxLinksPerPage: number;
  maxBodyBytes: number;
}

/** Hashes a body as it streams in (SHA-256 of the decoded bytes, hex), with its size. */
export class BodyHash {
  private readonly hasher = new Bun.CryptoHasher("sha256");
  bytes = 0;

  update(chunk: Uint8Array): void {
    this.hasher.update(chunk);
    this.bytes += chunk.length;
  }

  digest(): string {
    return this.hasher.digest("hex");
  }
}

/** The request headers asking `page` only if it changed; empty when it had no validators. */
export function conditionalHeaders(page: StoredPage): Record<string, string> {
  const headers: Record<string, string> = {};
  if (page.record.etag !== null) headers["if-none-match"] = page.record.etag;
  if (page.record.lastModified !== null) headers["if-modified-since"] = page.record.lastModified;
  return headers;
}

/** Targets of the previous crawl held at most (a page's links mostly name targets other pages named): ~10 MiB. */
const MAX_HELD_TARGETS = 1 << 16;

/** A target of the previous crawl as its links name it: one per target, however many links share it. */
interface HeldTarget {
  url: string;
  internal: boolean;
  /** The verdict of a target judged without a request there (an href that cannot be checked), given again here. */
  verdict: LinkVerdict | undefined;
}

/** The previous crawl's pages, as one crawl reuses them. */
export class PageReuse {
  /** Targets of the previous crawl by id; null for one that is gone. */
  private readonly targets = new Map<number, HeldTarget | null>();

  constructor(
    private readonly repo: PageReuseRepo,
    /** The previous completed crawl of the domain. */
    readonly previousCrawlId: string,
    /** The crawls check fragments: links keep theirs, and some wait for a verdict against their page's ids. */
    private readonly fragments: boolean,
  ) {}

  /**
   * The reuse a crawl gets: none when it asked for a full read, when the domain has no completed crawl before it
   * (never crawled, or retention pruned it), or when that crawl's options do not cover this one's.
   */
  static async forCrawl(db: Db, crawls: CrawlsRepo, crawl: CrawlRecord): Promise<PageReuse | null> {
    if (crawl.full) return null;
    const previous = await crawls.previousCompleted(crawl.id);
    if (previous === undefined) return null;
    const covered = previousCovers(
      { options: previous.options, ignoreRules: previous.ignore_rules },
      { options: crawl.options, ignoreRules: crawl.ignore_rules },
    );
    return covered ? new PageReuse(new PageReuseRepo(db), previous.id, crawl.options.check_fragments) : null;
  }

  /** The previous crawl's page at `url`, when it can stand for this crawl's reading of it under `limits`. */
  async storedPage(url: string, limits: ReadLimits): Promise<StoredPage | null> {
    const row = await this.repo.page(this.previousCrawlId, url);
    if (row === null || row.links_found > limits.maxLinksPerPage || row.body_bytes > limits.maxBodyBytes) return null;
    // A page without its ids cannot stand for one read with check_fragments.
    if (this.fragments && row.id_hashes === null) return null;
    return toStoredPage(url, row);
  }

  /** The stored page's links as this crawl records them; null when they are no longer all there (pruned meanwhile). */
  async links(page: StoredPage): Promise<ReusedLinks | null> {
    const rows = await this.repo.links(this.previousCrawlId, page.firstLinkId, page.linkCount, page.url);
    if (rows.length !== page.linkCount) return null;
    const targets: HeldTarget[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const { target_id: targetId, fragment, on_page: onPage } = rows[i]!;
      // Held targets are answered at once; only a target not yet held is read.
      let target = this.targets.get(targetId);
      if (target === undefined) target = await this.target(targetId);
      if (target === null || onPage !== 1 || (!this.fragments && fragment !== "")) return null;
      targets[i] = target;
    }
    // As gateLinks (crawl.ts) decides it for a parsed page, from the same page URL, ids and links.
    const judged = this.fragments ? fragmentsToJudge({ url: page.url, ids: page.ids }) : null;
    return {
      count: rows.length,
      excluded: page.excluded,
      read: (i, into) => readLink(rows[i]!, targets[i]!, judged, into),
    };
  }

  private async target(id: number): Promise<HeldTarget | null> {
    let target = this.targets.get(id);
    if (target !== undefined) return target;
    const row = await this.repo.target(id);
    if (this.targets.size >= MAX_HELD_TARGETS) this.targets.clear();
    if (row === null) target = null;
    else {
      const { url, internal, error, is_broken: isBroken, warning } = row;
      // Judged without a request there, so again here, with the verdict (muted alike: the same rules) it got.
      const verdict = error !== null && isUncheckableVerdict(0, error) ? { status_code: 0, is_broken: isBroken === 1, error, warning } : undefined;
      target = { url, internal: internal === 1, verdict };
    }
    this.targets.set(id, target);
    return target;
  }
}

/** Link `row` of a reused page into `into`, every field set. */
function readLink(row: StoredPageLinkRow, target: HeldTarget, judged: ((link: FoundLink, fragment: string) => boolean) | null, into: FoundLink): void {
  const { link_text: text, kind, fragment } = row;
  into.url = target.url;
  into.internal = target.internal;
  into.kind = kind;
  into.text = text;
  into.verdict = target.verdict;
  into.fragment = undefined;
  into.judgeFragment = undefined;
  // links.fragment is "" for none and "#…" for one (an empty fragment is "#").
  if (judged !== null && fragment !== "") {
    into.fragment = fragment.slice(1);
    if (judged(into, into.fragment)) into.judgeFragment = true;
  }
}

function toStoredPage(url: string, row: StoredPageRow): StoredPage {
  return {
    url,
    record: { etag: row.etag, lastModified: row.last_modified, bodyHash: row.body_hash, bodyBytes: row.body_bytes, linksFound: row.links_found },
    statusCode: row.status_code,
    excluded: row.excluded_links,
    firstLinkId: row.first_link_id,
    linkCount: row.link_count,
    ids: row.id_hashes === null ? null : { hashes: hashesFromBytes(row.id_hashes), gap: row.ids_gap },
  };
}
