import type { Database } from "bun:sqlite";
import { keysetBatches } from "./keyset-batches.ts";
import type { LinkRecord } from "./link-record.ts";
import type { StoredLinkKind } from "./schema.ts";

/**
 * The verdicts of one crawl's checked targets, held in arrays indexed by target id, for streaming all of the
 * crawl's links (links.repo.ts `each`). Every link needs its target's URL and verdict, and a site's links
 * point anywhere in it: joining each link with its target row in SQL is a b-tree lookup per link, and once a
 * crawl's targets outgrow the CPU's cache each lookup costs several cache misses and, beyond SQLite's page
 * cache, a read from the OS. An array slot and the URL it points at cost one or two (bench/README.md, "Why
 * check grows faster than the crawl").
 *
 * The arrays span the crawl's target ids, ~90 bytes per target (the URL string, its slot, the verdict), so
 * `load` declines a crawl whose span exceeds `maxSpan` and the caller joins in SQL instead.
 */

/** The default `maxSpan`: 262,144 targets, ~24 MiB at most. */
export const MAX_VERDICT_SPAN = 1 << 18;

/** Rows read per query while loading. */
const LOAD_BATCH = 1_000;

type VerdictRow = [id: number, url: string, statusCode: number, isBroken: number, finalUrl: string | null, error: string | null, warning: string | null];

/** final_url, error and warning of a target whose final URL is not its own URL or that has an error or warning. */
type Unusual = readonly [finalUrl: string | null, error: string | null, warning: string | null];

export class TargetVerdicts {
  private constructor(
    private readonly firstId: number,
    private readonly urls: (string | undefined)[],
    private readonly statusCodes: Int32Array,
    private readonly broken: Uint8Array,
    /** Most targets end where they point and have no error or warning; only the others have an entry. */
    private readonly unusual: (Unusual | undefined)[],
  ) {}

  /** The checked targets of `crawlId`, or null when their ids span more than `maxSpan`. */
  static load(sqlite: Database, crawlId: string, maxSpan = MAX_VERDICT_SPAN): TargetVerdicts | null {
    const bounds = sqlite
      .query<{ first: number | null; last: number | null }, { crawlId: string }>(
        "SELECT MIN(id) AS first, MAX(id) AS last FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'done'",
      )
      .get({ crawlId });
    const firstId = bounds?.first ?? 1;
    const span = bounds?.last == null ? 0 : bounds.last - firstId + 1;
    if (span > maxSpan) return null;
    const verdicts = new TargetVerdicts(
      firstId,
      Array.from({ length: span }, () => undefined),
      new Int32Array(span),
      new Uint8Array(span),
      Array.from({ length: span }, () => undefined),
    );
    // Bounded by the span measured above: a target that turns done meanwhile (a crawl still running) must not
    // land outside the typed arrays, where its verdict would be dropped while its URL was kept.
    const batch = sqlite.query<VerdictRow, { crawlId: string; afterId: number; lastId: number }>(
      `SELECT id, url, status_code, is_broken, final_url, error, warning FROM crawl_targets
       WHERE crawl_id = $crawlId AND state = 'done' AND id > $afterId AND id <= $lastId ORDER BY id LIMIT ${LOAD_BATCH}`,
    );
    const lastId = firstId + span - 1;
    const read = (afterId: number) => batch.values({ crawlId, afterId, lastId }) as VerdictRow[];
    for (const rows of keysetBatches(read, LOAD_BATCH, (row) => row[0])) {
      for (const row of rows) verdicts.set(row);
    }
    return verdicts;
  }

  private set([id, url, statusCode, isBroken, finalUrl, error, warning]: VerdictRow): void {
    const slot = id - this.firstId;
    this.urls[slot] = url;
    this.statusCodes[slot] = statusCode;
    this.broken[slot] = isBroken;
    if (finalUrl !== url || error !== null || warning !== null) this.unusual[slot] = [finalUrl, error, warning];
  }

  /** A link to target `targetId` with its verdict, or undefined when that is not a checked target of this crawl. */
  link(targetId: number, sourceUrl: string, linkText: string, kind: StoredLinkKind): LinkRecord | undefined {
    const slot = targetId - this.firstId;
    const url = this.urls[slot];
    if (url === undefined) return undefined;
    const unusual = this.unusual[slot];
    return {
      url,
      source_url: sourceUrl,
      status_code: this.statusCodes[slot]!,
      is_broken: this.broken[slot] === 1,
      link_text: linkText,
      kind,
      final_url: unusual === undefined ? url : unusual[0],
      error: unusual === undefined ? null : unusual[1],
      warning: unusual === undefined ? null : unusual[2],
    };
  }
}
