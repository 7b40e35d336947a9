import type { Db } from "./db.ts";
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
 * The arrays span the crawl's target ids, ~20 bytes per target besides its URL, so `load` declines a crawl whose
 * span exceeds `maxSpan` and the caller joins in SQL instead. The URLs are kept as the text of each loaded batch
 * joined into one string, each URL a slice of it: a string of its own per target cost ~200 bytes of memory
 * where its characters are ~70 (200,000 targets: ~47 MiB against ~19 MiB; bench/README.md, "Memory").
 */

/** The default `maxSpan`: 262,144 targets, ~5 MiB of slots besides their URLs. */
export const MAX_VERDICT_SPAN = 1 << 18;

/** Rows read per query while loading. */
const LOAD_BATCH = 1_000;

interface VerdictRow {
  id: number;
  url: string;
  status_code: number;
  is_broken: number;
  final_url: string | null;
  error: string | null;
  warning: string | null;
}

/** final_url, error and warning of a target whose final URL is not its own URL or that has an error or warning. */
type Unusual = readonly [finalUrl: string | null, error: string | null, warning: string | null];

export class TargetVerdicts {
  private constructor(
    private readonly firstId: number,
    /** The URLs of one loaded batch each, joined. */
    private readonly texts: string[],
    /** Per slot: 1 + the index of its URL's text in `texts`, 0 for an id that is not a checked target. */
    private readonly textOf: Uint32Array,
    private readonly urlStart: Uint32Array,
    private readonly urlLength: Uint32Array,
    private readonly statusCodes: Int32Array,
    private readonly broken: Uint8Array,
    /** Most targets end where they point and have no error or warning; only the others have an entry. */
    private readonly unusual: Map<number, Unusual>,
  ) {}

  /**
   * The checked targets of `crawlId`, or null when their ids span more than `maxSpan`. `betweenBatches` runs after
   * each batch loaded: the caller's GC rhythm (core/gc-rhythm.ts `verdictLoadRhythm`); a repo decides no collection.
   */
  static async load(db: Db, crawlId: string, maxSpan = MAX_VERDICT_SPAN, betweenBatches: () => void = () => {}): Promise<TargetVerdicts | null> {
    const bounds = await db.get<{ first: number | null; last: number | null }>(
      "SELECT MIN(id) AS first, MAX(id) AS last FROM crawl_targets WHERE crawl_id = $crawlId AND state = 'done'",
      { crawlId },
    );
    const firstId = bounds?.first ?? 1;
    const span = bounds?.last == null ? 0 : bounds.last - firstId + 1;
    if (span > maxSpan) return null;
    const verdicts = new TargetVerdicts(
      firstId,
      [],
      new Uint32Array(span),
      new Uint32Array(span),
      new Uint32Array(span),
      new Int32Array(span),
      new Uint8Array(span),
      new Map(),
    );
    // Bounded by the span measured above: a target that turns done meanwhile (a crawl still running) must not
    // land outside the typed arrays, where its verdict would be dropped while its URL was kept.
    const sql = `SELECT id, url, status_code, is_broken, final_url, error, warning FROM crawl_targets
       WHERE crawl_id = $crawlId AND state = 'done' AND id > $afterId AND id <= $lastId ORDER BY id LIMIT ${LOAD_BATCH}`;
    const lastId = firstId + span - 1;
    const read = (afterId: number) => db.all<VerdictRow>(sql, { crawlId, afterId, lastId });
    for await (const rows of keysetBatches(read, LOAD_BATCH, (row) => row.id)) {
      verdicts.add(rows);
      betweenBatches();
    }
    return verdicts;
  }

  /** Takes one loaded batch: its URLs become one text, the rest goes to the slots. */
  private add(rows: VerdictRow[]): void {
    const urls: string[] = [];
    const text = this.texts.length + 1;
    let offset = 0;
    for (const { id, url, status_code: statusCode, is_broken: isBroken, final_url: finalUrl, error, warning } of rows) {
      const slot = id - this.firstId;
      urls.push(url);
      this.textOf[slot] = text;
      this.urlStart[slot] = offset;
      this.urlLength[slot] = url.length;
      offset += url.length;
      this.statusCodes[slot] = statusCode;
      this.broken[slot] = isBroken;
      if (finalUrl !== url || error !== null || warning !== null) this.unusual.set(slot, [finalUrl, error, warning]);
    }
    // join() copies the URLs into one new string, so the strings the rows were read as can go.
    this.texts.push(urls.join(""));
  }

  /**
   * A link to target `targetId` with its verdict, or undefined when that is not a checked target of this crawl;
   * its URL is the target's followed by `fragment` (links.fragment: "" or `#…`), its final URL the target's.
   */
  link(targetId: number, sourceUrl: string, linkText: string, kind: StoredLinkKind, fragment = ""): LinkRecord | undefined {
    const slot = targetId - this.firstId;
    const text = this.textOf[slot];
    if (text === undefined || text === 0) return undefined;
    const start = this.urlStart[slot]!;
    const url = this.texts[text - 1]!.slice(start, start + this.urlLength[slot]!);
    const unusual = this.unusual.get(slot);
    return {
      url: fragment === "" ? url : url + fragment,
      source_url: sourceUrl,
      status_code: this.statusCodes[slot]!,
      is_broken: this.broken[slot] === 1,
      link_text: linkText,
      kind,
      final_url: unusual === undefined ? url : unusual[0],
      error: unusual === undefined ? null : unusual[1],
      warning: unusual === undefined ? null : unusual[2],
      broken_since: null,
    };
  }
}
