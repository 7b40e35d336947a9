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
  /** Its link rows, when they were read ahead with it (readAhead); links() reads them otherwise. */
  readLinks?: StoredPageLinkRow[];
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
/** Targets read in one statement at most. */
const TARGETS_PER_READ = 1000;
/** Stored pages read ahead and not asked for yet, held at most (a crawl's pull is 256 targets). */
const MAX_PAGES_AHEAD = 4096;
/** Link rows read ahead with one pull's pages at most (~2–3 MiB); pages past it read theirs when asked. */
const LINKS_AHEAD = 16_384;

/** A page read ahead: its row, and its links when they were read with it. */
interface AheadPage {
  row: StoredPageRow & { url: string };
  links: StoredPageLinkRow[] | undefined;
}

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
  /** Pages read ahead (readAhead) by URL until storedPage takes them; null for one that cannot be reused. */
  private readonly ahead = new Map<string, AheadPage | null>();

  constructor(
    private readonly repo: PageReuseRepo,
    /** The previous completed crawl of the domain. */
    readonly previousCrawlId: string,
    /** The crawls check fragments: links keep theirs, and some wait for a verdict against their page's ids. */
    private readonly fragments: boolean,
    /** Link rows read ahead with one pull's pages at most. */
    private readonly linksAhead = LINKS_AHEAD,
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

  /**
   * Reads the previous crawl's pages at `urls` (the targets the crawl just pulled) in one statement, for
   * storedPage to find: on PostgreSQL every statement is a round trip, and a page asked for alone is one more each.
   */
  async readAhead(urls: readonly string[]): Promise<void> {
    const wanted = urls.filter((url) => !this.ahead.has(url));
    if (wanted.length === 0) return;
    const rows = await this.repo.pages(this.previousCrawlId, wanted);
    const found = new Map<string, AheadPage>(rows.map((row) => [row.url, { row, links: undefined }]));
    await this.readLinksAhead(found);
    await this.readTargetsAhead(found);
    if (this.ahead.size + wanted.length > MAX_PAGES_AHEAD) this.ahead.clear();
    for (const url of wanted) this.ahead.set(url, found.get(url) ?? null);
  }

  /** The link rows of `pages`, in one statement, for as many of them as `linksAhead` allows (in id order). */
  private async readLinksAhead(pages: Map<string, AheadPage>): Promise<void> {
    const chosen: AheadPage[] = [];
    let rows = 0;
    for (const page of [...pages.values()].sort((a, b) => a.row.first_link_id - b.row.first_link_id)) {
      if (page.row.link_count === 0) page.links = [];
      else if (rows + page.row.link_count <= this.linksAhead) {
        chosen.push(page);
        rows += page.row.link_count;
      }
    }
    if (chosen.length === 0) return;
    const read = await this.repo.linksOfPages(
      this.previousCrawlId,
      chosen.map((page) => [page.row.first_link_id, page.row.link_count, page.row.url] as const),
    );
    // Rows in id order, pages in first-id order and their ranges apart: each page's rows are the next run of them.
    let at = 0;
    for (const page of chosen) {
      const end = page.row.first_link_id + page.row.link_count;
      while (at < read.length && read[at]!.id < page.row.first_link_id) at++;
      const start = at;
      while (at < read.length && read[at]!.id < end) at++;
      page.links = read.slice(start, at);
    }
  }

  /**
   * The targets the links read ahead name and that are not held yet, TARGETS_PER_READ a statement, so links()
   * finds them all held: a page's new targets were a round trip per page.
   */
  private async readTargetsAhead(pages: Map<string, AheadPage>): Promise<void> {
    const unheld = new Set<number>();
    for (const page of pages.values()) for (const link of page.links ?? []) if (!this.targets.has(link.target_id)) unheld.add(link.target_id);
    if (unheld.size > 0) await this.readTargets([...unheld]);
  }

  /** The previous crawl's page at `url`, when it can stand for this crawl's reading of it under `limits`. */
  async storedPage(url: string, limits: ReadLimits): Promise<StoredPage | null> {
    const ahead = this.ahead.get(url);
    if (ahead !== undefined) this.ahead.delete(url);
    const row = ahead !== undefined ? (ahead?.row ?? null) : await this.repo.page(this.previousCrawlId, url);
    if (row === null || row.links_found > limits.maxLinksPerPage || row.body_bytes > limits.maxBodyBytes) return null;
    // A page without its ids cannot stand for one read with check_fragments.
    if (this.fragments && row.id_hashes === null) return null;
    const page = toStoredPage(url, row);
    if (ahead?.links !== undefined) page.readLinks = ahead.links;
    return page;
  }

  /** The stored page's links as this crawl records them; null when they are no longer all there (pruned meanwhile). */
  async links(page: StoredPage): Promise<ReusedLinks | null> {
    const rows = page.readLinks ?? (await this.repo.links(this.previousCrawlId, page.firstLinkId, page.linkCount, page.url));
    if (rows.length !== page.linkCount) return null;
    // Held targets are answered at once; those not yet held are read together. Taken before that read, which may
    // let go of what is held (MAX_HELD_TARGETS) and with it this page's other targets.
    const found: (HeldTarget | null | undefined)[] = rows.map((row) => this.targets.get(row.target_id));
    const unheld = new Set<number>();
    for (let i = 0; i < rows.length; i++) if (found[i] === undefined) unheld.add(rows[i]!.target_id);
    if (unheld.size > 0) {
      const read = await this.readTargets([...unheld]);
      for (let i = 0; i < rows.length; i++) found[i] ??= read.get(rows[i]!.target_id) ?? null;
    }
    const targets: HeldTarget[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const { fragment, on_page: onPage } = rows[i]!;
      const target = found[i];
      if (target == null || onPage !== 1 || (!this.fragments && fragment !== "")) return null;
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

  /** Targets `ids`, read from the store and held; null for one that is gone. */
  private async readTargets(ids: readonly number[]): Promise<Map<number, HeldTarget | null>> {
    const read = new Map<number, HeldTarget | null>();
    // Bounded: a page's links are at most max_links_per_page, so its new targets come in a few statements.
    for (let at = 0; at < ids.length; at += TARGETS_PER_READ) {
      for (const row of await this.repo.targets(ids.slice(at, at + TARGETS_PER_READ))) {
        const { id, url, internal, error, is_broken: isBroken, warning } = row;
        // Judged without a request there, so again here, with the verdict (muted alike: the same rules) it got.
        const verdict = error !== null && isUncheckableVerdict(0, error) ? { status_code: 0, is_broken: isBroken === 1, error, warning } : undefined;
        read.set(id, { url, internal: internal === 1, verdict });
      }
    }
    if (this.targets.size + ids.length > MAX_HELD_TARGETS) this.targets.clear();
    for (const id of ids) {
      const target = read.get(id) ?? null;
      read.set(id, target);
      this.targets.set(id, target);
    }
    return read;
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
