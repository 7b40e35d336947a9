import type { Database, Statement } from "bun:sqlite";
import { breakageCause, type BreakageCause } from "../core/breakage-cause.ts";
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

/** Whether crawl `p` ran with check_fragments (options written before the option existed lack it). */
const FRAGMENTS = "COALESCE(json_extract(p.options, '$.check_fragments'), 0)";

function toCrawlRef(row: RawCrawlRef | null): CrawlRef | undefined {
  return row === null ? undefined : { id: row.id, started_at: row.started_at, fragments: row.fragments === 1 };
}

export class OpenLinksRepo {
  private readonly previousStatement: Statement<RawCrawlRef, [string]>;
  private readonly crawlStatement: Statement<RawCrawlRef, [string]>;
  private readonly sourcesStatement: Statement<LinkSource & { broken_since: string | null }, [string, string]>;
  private readonly linkSourceStatement: Statement<LinkSource, [number]>;
  private readonly brokenOpen: Statement<RawBrokenOpen, [string, number, number]>;
  private readonly uncheckedOpen: Statement<RawUncheckedOpen, [string, number, number]>;
  private readonly brokenPairsStatement: Statement<{ pos: number; url: string; fragment: string; source_url: string }, [string, number, number]>;
  private readonly targetStatement: Statement<{ state: TargetState; is_broken: number | null }, [string, string]>;
  private readonly pageStatement: Statement<{ cut: number }, [string, string]>;
  private readonly insertUncheckedStatement: MultiRowInsert;

  constructor(sqlite: Database) {
    // Crawls of a domain run one at a time, so the previous ended one is final while this one runs. One that never
    // started (cancelled while pending) checked nothing and is passed over.
    this.previousStatement = sqlite.prepare(
      `SELECT p.id, p.started_at, ${FRAGMENTS} AS fragments FROM crawls c JOIN crawls p ON p.domain_id = c.domain_id
       WHERE c.id = ?1 AND p.status IN ('completed', 'failed') AND p.started_at IS NOT NULL
         AND (p.created_at < c.created_at OR (p.created_at = c.created_at AND p.id < c.id))
       ORDER BY p.created_at DESC, p.id DESC LIMIT 1`,
    );
    this.crawlStatement = sqlite.prepare(
      `SELECT p.id, COALESCE(p.started_at, p.created_at) AS started_at, ${FRAGMENTS} AS fragments FROM crawls p WHERE p.id = ?1`,
    );
    this.sourcesStatement = sqlite.prepare(
      `SELECT l.source_url, l.fragment, b.broken_since FROM crawl_targets t
         JOIN broken_links b INDEXED BY broken_links_target_idx ON b.target_id = t.id JOIN links l ON l.id = b.link_id
       WHERE t.crawl_id = ?1 AND t.url = ?2
       UNION ALL
       SELECT source_url, fragment, broken_since FROM unchecked_links WHERE crawl_id = ?1 AND url = ?2`,
    );
    this.linkSourceStatement = sqlite.prepare("SELECT source_url, fragment FROM links WHERE id = ?1");
    this.brokenOpen = sqlite.prepare(
      `SELECT b.link_id AS pos, t.url, l.fragment, l.source_url, l.kind, t.internal, l.link_text, t.status_code, t.final_url,
         COALESCE(l.fragment_error, t.error) AS error, COALESCE(l.fragment_warning, t.warning) AS warning,
         (l.fragment_error IS NOT NULL AND t.is_broken = 0) AS fragment_broken, b.broken_since
       FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
       WHERE b.crawl_id = ?1 AND b.link_id > ?2 ORDER BY b.link_id LIMIT ?3`,
    );
    this.uncheckedOpen = sqlite.prepare(
      `SELECT id AS pos, url, fragment, source_url, kind, internal, link_text, status_code, final_url, error, warning, cause, broken_since
       FROM unchecked_links WHERE crawl_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3`,
    );
    this.brokenPairsStatement = sqlite.prepare(
      `SELECT b.link_id AS pos, t.url, l.fragment, l.source_url FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id
       WHERE b.crawl_id = ?1 AND b.link_id > ?2 ORDER BY b.link_id LIMIT ?3`,
    );
    this.targetStatement = sqlite.prepare("SELECT state, is_broken FROM crawl_targets WHERE crawl_id = ?1 AND url = ?2");
    this.pageStatement = sqlite.prepare("SELECT cut FROM crawl_pages WHERE crawl_id = ?1 AND url = ?2");
    this.insertUncheckedStatement = new MultiRowInsert(
      sqlite,
      `INSERT INTO unchecked_links (crawl_id, source_url, url, fragment, kind, internal, link_text, status_code, final_url, error, warning, cause, broken_since) VALUES`,
      "(?1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      1,
    );
  }

  /** The crawl itself, with its start (its creation time while it has not started). */
  crawl(crawlId: string): CrawlRef | undefined {
    return toCrawlRef(this.crawlStatement.get(crawlId));
  }

  /** The last crawl of the same domain that started and ended before this one was created. */
  previousEnded(crawlId: string): CrawlRef | undefined {
    return toCrawlRef(this.previousStatement.get(crawlId));
  }

  /**
   * The links to the target at `url` (fragments apart) that crawl `crawlId` left open: the page each is on, its
   * fragment, since when it is broken.
   */
  openSources(crawlId: string, url: string): (LinkSource & { broken_since: string | null })[] {
    return this.sourcesStatement.all(crawlId, url);
  }

  /** The page link `linkId` was found on, and its fragment. */
  linkSource(linkId: number): LinkSource {
    return this.linkSourceStatement.get(linkId) ?? { source_url: "", fragment: "" };
  }

  /** Every open link of crawl `crawl`, its broken links then its unchecked ones, read in batches. */
  *eachOpen(crawl: CrawlRef): Generator<OpenLinkRecord> {
    const read = (afterPos: number) => this.brokenOpen.all(crawl.id, afterPos, BATCH);
    for (const rows of keysetBatches(read, BATCH, (row) => row.pos)) {
      for (const { pos: _pos, fragment_broken, internal, ...row } of rows) {
        yield {
          ...row,
          internal: internal === 1,
          cause: breakageCause({ status_code: row.status_code, fragment_broken: fragment_broken === 1 }),
          broken_since: row.broken_since ?? crawl.started_at,
        };
      }
    }
    const readUnchecked = (afterPos: number) => this.uncheckedOpen.all(crawl.id, afterPos, BATCH);
    for (const rows of keysetBatches(readUnchecked, BATCH, (row) => row.pos)) {
      for (const { pos: _pos, internal, ...row } of rows) yield { ...row, internal: internal === 1 };
    }
  }

  /** The crawl's broken links as (target URL, fragment, source page), read in batches. */
  *brokenPairs(crawlId: string): Generator<{ url: string; fragment: string; source_url: string }> {
    const read = (afterPos: number) => this.brokenPairsStatement.all(crawlId, afterPos, BATCH);
    for (const rows of keysetBatches(read, BATCH, (row) => row.pos)) yield* rows;
  }

  /** What the crawl made of the target at `url`, if it has one. */
  target(crawlId: string, url: string): TargetReach | undefined {
    const row = this.targetStatement.get(crawlId, url);
    return row === null ? undefined : { state: row.state, is_broken: row.is_broken === 1 };
  }

  /** Whether the crawl parsed the page (or stylesheet) at `url`, and whether its links were cut; undefined when it did not. */
  page(crawlId: string, url: string): { cut: boolean } | undefined {
    const row = this.pageStatement.get(crawlId, url);
    return row === null ? undefined : { cut: row.cut === 1 };
  }

  /** Records the open links the crawl did not check, in the order given. */
  insertUnchecked(crawlId: string, rows: readonly OpenLinkRecord[]): void {
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
    this.insertUncheckedStatement.run([crawlId], values);
  }
}
