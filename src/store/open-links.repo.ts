import { breakageCause, type BreakageCause } from "../core/breakage-cause.ts";
import type { Db } from "./db.ts";
import { keysetBatches } from "./keyset-batches.ts";
import { MultiRowInsert } from "./multi-row-insert.ts";
import type { StoredLinkKind, TargetState } from "./schema.ts";

/**
 * The statements behind a domain's open links, the broken links its crawls have found and no later crawl has
 * checked and found good: a crawl's are its broken links plus its unchecked links (store/schema.ts
 * `unchecked_links`), and the next crawl of the domain starts from those of the previous ended one. The rules
 * (what carries, what a crawl checked) are the crawler's (crawler/broken-since.ts, crawler/open-links.ts);
 * nothing here decides.
 */

/** A crawl an open-link decision is made against. */
export interface CrawlRef {
  id: string;
  started_at: string;
  /** It ran with check_fragments: its Links keep their URL's fragment (links.fragment). */
  fragments: boolean;
}

/** Who a link is besides its target's URL: the page it is on and its fragment ("" or `#…`, as links.fragment). */
export interface LinkSource {
  source_url: string;
  fragment: string;
}

/**
 * An open link of a crawl, as the next crawl judges it and copies it when it goes unchecked: `url` is its
 * target's URL, `fragment` the rest of the Link's URL.
 */
export interface OpenLinkRecord {
  url: string;
  fragment: string;
  source_url: string;
  kind: StoredLinkKind;
  internal: boolean;
  link_text: string;
  status_code: number;
  final_url: string | null;
  error: string | null;
  warning: string | null;
  cause: BreakageCause;
  broken_since: string;
}

/** What a crawl made of a target, as far as open links care. */
export interface TargetReach {
  state: TargetState;
  is_broken: boolean;
}

type RawCrawlRef = Omit<CrawlRef, "fragments"> & { fragments: number };
type RawBrokenOpen = Omit<OpenLinkRecord, "internal" | "cause"> & { pos: number; internal: number; fragment_broken: number };
type RawUncheckedOpen = Omit<OpenLinkRecord, "internal"> & { pos: number; internal: number };

/** Rows read per query when a crawl's open links are walked. */
const BATCH = 1_000;

function toCrawlRef(row: RawCrawlRef | undefined): CrawlRef | undefined {
  return row === undefined ? undefined : { id: row.id, started_at: row.started_at, fragments: row.fragments === 1 };
}

const INSERT_UNCHECKED = new MultiRowInsert(
  `INSERT INTO unchecked_links (crawl_id, source_url, url, fragment, kind, internal, link_text, status_code, final_url, error, warning, cause, broken_since) VALUES`,
  "(?1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  1,
);

/** Every row `read(afterPos)` gives, batch after batch in `pos` order, until a batch comes back short. */
async function* keysetRows<T extends { pos: number }>(read: (afterPos: number) => Promise<T[]>): AsyncGenerator<T> {
  for await (const rows of keysetBatches(read, BATCH, (row) => row.pos)) yield* rows;
}

export class OpenLinksRepo {
  constructor(private readonly db: Db) {}

  /** Whether crawl `p` ran with check_fragments (options written before the option existed lack it). */
  private get fragments(): string {
    return this.db.dialect.jsonFlag("p.options", "check_fragments");
  }

  /** The crawl itself, with its start (its creation time while it has not started). */
  async crawl(crawlId: string): Promise<CrawlRef | undefined> {
    const row = await this.db.get<RawCrawlRef>(
      `SELECT p.id, COALESCE(p.started_at, p.created_at) AS started_at, ${this.fragments} AS fragments FROM crawls p WHERE p.id = $crawl`,
      { crawl: crawlId },
    );
    return toCrawlRef(row);
  }

  /** The last crawl of the same domain that started and ended before this one was created. */
  async previousEnded(crawlId: string): Promise<CrawlRef | undefined> {
    // Crawls of a domain run one at a time, so the previous ended one is final while this one runs. One that never
    // started (cancelled while pending) checked nothing and is passed over.
    const row = await this.db.get<RawCrawlRef>(
      `SELECT p.id, p.started_at, ${this.fragments} AS fragments FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
       WHERE c.id = $crawl AND p.status IN ('completed', 'failed') AND p.started_at IS NOT NULL
         AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id < c.id))
       ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
      { crawl: crawlId },
    );
    return toCrawlRef(row);
  }

  /**
   * The links to the targets at `urls` (fragments apart) that crawl `crawlId` left open, in one statement: the
   * target's URL, the page each is on, its fragment, since when it is broken.
   */
  openSources(crawlId: string, urls: readonly string[]): Promise<(LinkSource & { url: string; broken_since: string | null })[]> {
    const { dialect } = this.db;
    return this.db.all(
      `SELECT t.url, l.source_url, l.fragment, b.broken_since FROM crawl_targets t
         JOIN broken_links b ${dialect.indexedBy("broken_links_target_idx")} ON b.target_id = t.id JOIN links l ON l.id = b.link_id
       WHERE t.crawl_id = $crawl AND ${dialect.textIn("t.url", "urls")}
       UNION ALL
       SELECT url, source_url, fragment, broken_since FROM unchecked_links WHERE crawl_id = $crawl AND ${dialect.textIn("url", "urls")}`,
      { crawl: crawlId, urls: JSON.stringify(urls) },
    );
  }

  /** Every open link of crawl `crawl`, its broken links then its unchecked ones, read in batches. */
  async *eachOpen(crawl: CrawlRef): AsyncGenerator<OpenLinkRecord> {
    const readBroken = (after: number) =>
      this.db.all<RawBrokenOpen>(
        `SELECT b.link_id AS pos, t.url, l.fragment, l.source_url, l.kind, t.internal, l.link_text, t.status_code, t.final_url,
           COALESCE(l.fragment_error, t.error) AS error, COALESCE(l.fragment_warning, t.warning) AS warning,
           CASE WHEN l.fragment_error IS NOT NULL AND t.is_broken = 0 THEN 1 ELSE 0 END AS fragment_broken, b.broken_since
         FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
         WHERE b.crawl_id = $crawl AND b.link_id > $after ORDER BY b.link_id LIMIT $limit`,
        { crawl: crawl.id, after, limit: BATCH },
      );
    for await (const { pos: _pos, fragment_broken, internal, ...row } of keysetRows(readBroken)) {
      yield {
        ...row,
        internal: internal === 1,
        cause: breakageCause({ status_code: row.status_code, fragment_broken: fragment_broken === 1 }),
        broken_since: row.broken_since ?? crawl.started_at,
      };
    }
    const readUnchecked = (after: number) =>
      this.db.all<RawUncheckedOpen>(
        `SELECT id AS pos, url, fragment, source_url, kind, internal, link_text, status_code, final_url, error, warning, cause, broken_since
         FROM unchecked_links WHERE crawl_id = $crawl AND id > $after ORDER BY id LIMIT $limit`,
        { crawl: crawl.id, after, limit: BATCH },
      );
    for await (const { pos: _pos, internal, ...row } of keysetRows(readUnchecked)) yield { ...row, internal: internal === 1 };
  }

  /** The crawl's broken links as (target URL, fragment, source page), read in batches. */
  async *brokenPairs(crawlId: string): AsyncGenerator<{ url: string; fragment: string; source_url: string }> {
    const read = (after: number) =>
      this.db.all<{ pos: number; url: string; fragment: string; source_url: string }>(
        `SELECT b.link_id AS pos, t.url, l.fragment, l.source_url FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
         WHERE b.crawl_id = $crawl AND b.link_id > $after ORDER BY b.link_id LIMIT $limit`,
        { crawl: crawlId, after, limit: BATCH },
      );
    yield* keysetRows(read);
  }

  /** What the crawl made of the targets at `urls` (one statement), by URL; a URL without a target is left out. */
  async targets(crawlId: string, urls: readonly string[]): Promise<Map<string, TargetReach>> {
    const rows = await this.db.all<{ url: string; state: TargetState; is_broken: number | null }>(
      `SELECT url, state, is_broken FROM crawl_targets WHERE crawl_id = $crawl AND ${this.db.dialect.textIn("url", "urls")}`,
      { crawl: crawlId, urls: JSON.stringify(urls) },
    );
    return new Map(rows.map((row) => [row.url, { state: row.state, is_broken: row.is_broken === 1 }]));
  }

  /** Of the pages (or stylesheets) at `urls`, those the crawl parsed (one statement), by URL, with whether their links were cut. */
  async pages(crawlId: string, urls: readonly string[]): Promise<Map<string, { cut: boolean }>> {
    const rows = await this.db.all<{ url: string; cut: number }>(
      `SELECT url, cut FROM crawl_pages WHERE crawl_id = $crawl AND ${this.db.dialect.textIn("url", "urls")}`,
      { crawl: crawlId, urls: JSON.stringify(urls) },
    );
    return new Map(rows.map((row) => [row.url, { cut: row.cut === 1 }]));
  }

  /** Records the open links the crawl did not check, in the order given. */
  insertUnchecked(crawlId: string, rows: readonly OpenLinkRecord[]): Promise<void> {
    const values = rows.flatMap((row) => [
      row.source_url,
      row.url,
      row.fragment,
      row.kind,
      row.internal ? 1 : 0,
      row.link_text,
      row.status_code,
      row.final_url,
      row.error,
      row.warning,
      row.cause,
      row.broken_since,
    ]);
    return INSERT_UNCHECKED.run(this.db, [crawlId], values);
  }
}
