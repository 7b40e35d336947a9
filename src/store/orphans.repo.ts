import { UNLINKED_DEPTH } from "../core/sitemap-entry.ts";
import type { Db } from "./db.ts";
import { keysetBatches } from "./keyset-batches.ts";

/**
 * Reading a crawl's orphan pages: the targets its sitemaps listed that no crawled page links to, stored at
 * UNLINKED_DEPTH and listed through their partial index (schema.ts, crawl_targets_unlinked_idx), so a page of
 * them costs the orphans before it, never the crawl's other targets. Only checked ones are results.
 */

/** An orphan page with its verdict. */
export interface OrphanRecord {
  url: string;
  status_code: number;
  is_broken: boolean;
  final_url: string | null;
  error: string | null;
  warning: string | null;
}

type RawOrphan = Omit<OrphanRecord, "is_broken"> & { is_broken: number; id: number };

// The depth is written into the text: SQLite uses a partial index only for a WHERE that names its condition.
const ORPHANS = `FROM crawl_targets WHERE crawl_id = $crawlId AND depth = ${UNLINKED_DEPTH} AND state = 'done'`;
const COLUMNS = "id, url, status_code, is_broken, final_url, error, warning";
const STREAM_BATCH = 1_000;

function toOrphan({ id: _id, is_broken, ...rest }: RawOrphan): OrphanRecord {
  return { ...rest, is_broken: is_broken === 1 };
}

export class OrphansRepo {
  constructor(private readonly db: Db) {}

  /** One page of the crawl's checked orphan pages, in discovery order. */
  async page(crawlId: string, offset: number, limit: number): Promise<OrphanRecord[]> {
    const rows = await this.db.all<RawOrphan>(`SELECT ${COLUMNS} ${ORPHANS} ORDER BY id LIMIT $limit OFFSET $offset`, { crawlId, limit, offset });
    return rows.map(toOrphan);
  }

  /** How many orphan pages of the crawl are checked. */
  async count(crawlId: string): Promise<number> {
    return (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n ${ORPHANS}`, { crawlId }))?.n ?? 0;
  }

  /** Every checked orphan page of the crawl in discovery order, a batch at a time (check's report). */
  async *each(crawlId: string): AsyncGenerator<OrphanRecord[]> {
    const sql = `SELECT ${COLUMNS} ${ORPHANS} AND id > $afterId ORDER BY id LIMIT ${STREAM_BATCH}`;
    for await (const rows of keysetBatches(
      (afterId) => this.db.all<RawOrphan>(sql, { crawlId, afterId }),
      STREAM_BATCH,
      (row) => row.id,
    )) {
      yield rows.map(toOrphan);
    }
  }
}
