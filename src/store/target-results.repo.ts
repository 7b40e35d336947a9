import type { Db, Dialect } from "./db.ts";
import { keysetBatches } from "./keyset-batches.ts";
import { LINK_COLUMNS, toLink, type LinkRecord, type RawLink } from "./link-record.ts";
import type { StoredLinkKind } from "./schema.ts";

/**
 * A crawl's results grouped by target, as the dashboard reads them: pages of targets sorted by a whitelisted
 * column (offset paging, the target id as the tiebreak), the links of one target paged the same way, a summary
 * per host, and the links a filter selects streamed in batches (the filtered downloads). The rows are the
 * crawl's broken links (their own table, indexed by crawl and by target), or with the `warning` class its
 * links whose target or fragment carries a warning, broken or not: those are found by reading the crawl's links,
 * since links are not indexed by target (bench/README.md, "Results at scale").
 */

/** Classes of result a listing can be narrowed to: client errors, server errors, no HTTP answer, a warning. */
export const STATUS_CLASSES = ["4xx", "5xx", "network", "warning"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Which targets a grouped listing shows; the filters combine. */
export interface BrokenTargetFilter {
  statusCode?: number;
  statusClass?: StatusClass;
  kind?: StoredLinkKind;
  internal?: boolean;
  /** Matched case-insensitively (ASCII) anywhere in the target URL. */
  search?: string;
  /** The target URL's authority (host, and port when it has one), lowercase, as `hosts` names it. */
  host?: string;
}

/** Columns a target listing sorts by: discovery order, URL, host, status code, link count, broken since. */
export const TARGET_SORTS = ["found", "url", "host", "status", "links", "since"] as const;
export type TargetSort = (typeof TARGET_SORTS)[number];
/** Columns a target's links sort by: discovery order, source page, link text, kind, broken since. */
export const SOURCE_SORTS = ["found", "source", "text", "kind", "since"] as const;
export type SourceSort = (typeof SOURCE_SORTS)[number];

export interface Sorting<Column> {
  by: Column;
  descending: boolean;
}

/** A target with results and how many of its links the listing selects. */
export interface BrokenTargetRecord {
  target_id: number;
  url: string;
  host: string;
  status_code: number;
  error: string | null;
  warning: string | null;
  final_url: string | null;
  internal: boolean;
  /** False when the target answered fine: its links are listed for missing fragments or for a warning. */
  target_broken: boolean;
  links: number;
  /** The earliest broken_since of its broken links: how long some page has linked to it broken. */
  broken_since: string | null;
}

/** A page linking to a listed target. */
export interface BrokenSourceRecord {
  source_url: string;
  link_text: string;
  kind: StoredLinkKind;
  /** The link's own error (a missing fragment), when the target itself is fine. */
  fragment_error: string | null;
  /** The link's own warning (a fragment not proven missing). */
  fragment_warning: string | null;
  broken_since: string | null;
}

/** A host's share of a listing: its targets, and the links to them (one per linking page and target). */
export interface HostSummaryRecord {
  host: string;
  targets: number;
  links: number;
}

/** The authority of `t.url` (what follows `scheme://` up to the path), "" for a URL without one. */
function hostSql(dialect: Dialect): string {
  const scheme = dialect.position("t.url", "'://'");
  const rest = `substr(t.url, ${scheme} + 3)`;
  const slash = dialect.position(rest, "'/'");
  return `CASE WHEN ${scheme} = 0 THEN '' ELSE lower(substr(t.url, ${scheme} + 3, CASE WHEN ${slash} = 0 THEN length(t.url) ELSE ${slash} - 1 END)) END`;
}

/** The sort columns as the grouped rows `g` name them. */
const TARGET_ORDER: Record<TargetSort, string> = {
  found: "tid",
  url: "url",
  host: "host",
  status: "status_code",
  links: "links",
  since: "broken_since",
};

const SOURCE_ORDER: Record<SourceSort, string> = {
  found: "l.id",
  source: "l.source_url",
  text: "l.link_text",
  kind: "l.kind",
  since: "b.broken_since",
};

const CLASS_SQL: Record<Exclude<StatusClass, "warning">, string> = {
  "4xx": "t.status_code BETWEEN 400 AND 499",
  "5xx": "t.status_code BETWEEN 500 AND 599",
  network: "t.status_code = 0",
};

/** Links read per query when a listing's links are streamed. */
const STREAM_BATCH = 1_000;

type Params = Record<string, string | number>;
type RawTarget = Omit<BrokenTargetRecord, "internal" | "target_broken"> & { internal: number; target_broken: number };

/**
 * The rows of a listing: `b` broken_links (null for a warned link that is not broken), `l` its link and `t` its
 * target (each left out when `reads` says nothing reads it and no filter needs it), with every filter applied;
 * `targetId` narrows them to one target.
 */
function rowsOf(
  dialect: Dialect,
  crawlId: string,
  filter: BrokenTargetFilter,
  targetId?: number,
  reads: { links: boolean; target: boolean } = { links: true, target: true },
): { from: string; params: Params; linkId: string; targetId: string } {
  const clauses: string[] = [];
  const params: Params = { crawlId };
  let from: string;
  if (filter.statusClass === "warning") {
    from = `links l JOIN crawl_targets t ON t.id = l.target_id LEFT JOIN broken_links b ON b.link_id = l.id
      WHERE l.crawl_id = $crawlId AND t.state = 'done' AND (t.warning IS NOT NULL OR l.fragment_warning IS NOT NULL)`;
    if (targetId !== undefined) clauses.push("l.target_id = $targetId");
  } else {
    // One target's broken links through their target index; a whole crawl's through the crawl's.
    const index = targetId === undefined ? "broken_links_crawl_idx" : "broken_links_target_idx";
    // The link and target rows only when something reads them: each join is most of a count's time on a big crawl.
    const link = reads.links || filter.kind !== undefined ? "JOIN links l ON l.id = b.link_id" : "";
    const target = reads.target || targetSide(filter) ? "JOIN crawl_targets t ON t.id = b.target_id" : "";
    from = `broken_links b ${dialect.indexedBy(index)} ${link} ${target} WHERE b.crawl_id = $crawlId`;
    if (targetId !== undefined) clauses.push("b.target_id = $targetId");
    if (filter.statusClass !== undefined) clauses.push(CLASS_SQL[filter.statusClass]);
  }
  if (targetId !== undefined) params.targetId = targetId;
  if (filter.statusCode !== undefined) {
    clauses.push("t.status_code = $statusCode");
    params.statusCode = filter.statusCode;
  }
  if (filter.kind !== undefined) {
    clauses.push("l.kind = $kind");
    params.kind = filter.kind;
  }
  if (filter.internal !== undefined) {
    clauses.push("t.internal = $internal");
    params.internal = filter.internal ? 1 : 0;
  }
  if (filter.search !== undefined && filter.search !== "") {
    clauses.push(`t.url ${dialect.likeAnyCase} $search ESCAPE '\\'`);
    params.search = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  if (filter.host !== undefined) {
    clauses.push(`${hostSql(dialect)} = $host`);
    params.host = filter.host;
  }
  // The link id as the index read orders it, so a stream in discovery order needs no sort.
  const warning = filter.statusClass === "warning";
  return {
    from: `${from} ${clauses.map((c) => `AND ${c}`).join(" ")}`,
    params,
    linkId: warning ? "l.id" : "b.link_id",
    targetId: warning ? "l.target_id" : "b.target_id",
  };
}

/** Whether `filter` reads the target row. */
function targetSide(filter: BrokenTargetFilter): boolean {
  return filter.statusCode !== undefined || filter.statusClass !== undefined || filter.internal !== undefined || !!filter.search || filter.host !== undefined;
}

/**
 * ORDER BY `column` then the tiebreak. A column that may be null (broken_since: a warned link that is not broken)
 * puts its nulls where SQLite always has, first going up and last going down; PostgreSQL would do the opposite.
 */
function orderBy(column: string, sorting: Sorting<unknown>, tiebreak: string): string {
  const dir = sorting.descending ? "DESC" : "ASC";
  const nulls = column.endsWith("broken_since") ? (sorting.descending ? " NULLS LAST" : " NULLS FIRST") : "";
  return column === tiebreak ? `${tiebreak} ${dir}` : `${column} ${dir}${nulls}, ${tiebreak} ASC`;
}

export class TargetResultsRepo {
  constructor(private readonly db: Db) {}

  /**
   * One page of the targets `filter` selects, each with how many of its links it selects, sorted by `sorting`:
   * the rows are grouped (joining the target only when the filter or the sort reads it), then the page's
   * targets are read.
   */
  async page(crawlId: string, filter: BrokenTargetFilter, sorting: Sorting<TargetSort>, offset: number, limit: number): Promise<BrokenTargetRecord[]> {
    const host = hostSql(this.db.dialect);
    const sortsByTarget = sorting.by === "url" || sorting.by === "host" || sorting.by === "status";
    const rows = rowsOf(this.db.dialect, crawlId, filter, undefined, { links: false, target: sortsByTarget });
    // The target's columns are grouped by too (one value per target): PostgreSQL reads only grouped columns.
    const targetColumns = sortsByTarget ? `, t.url AS url, ${host} AS host, t.status_code AS status_code` : "";
    const targetGroup = sortsByTarget ? ", t.url, t.status_code" : "";
    const order = orderBy(TARGET_ORDER[sorting.by], sorting, "tid");
    const found = await this.db.all<RawTarget>(
      `SELECT t.id AS target_id, t.url, ${host} AS host, t.status_code, t.error, t.warning, t.final_url, t.internal, t.is_broken AS target_broken,
         g.links, g.broken_since
       FROM (SELECT ${rows.targetId} AS tid, COUNT(*) AS links, MIN(b.broken_since) AS broken_since ${targetColumns}
             FROM ${rows.from} GROUP BY ${rows.targetId}${targetGroup} ORDER BY ${order} LIMIT $limit OFFSET $offset) g
       JOIN crawl_targets t ON t.id = g.tid ORDER BY ${orderBy(`g.${TARGET_ORDER[sorting.by]}`, sorting, "g.tid")}`,
      { ...rows.params, limit, offset },
    );
    return found.map((row) => ({ ...row, internal: row.internal === 1, target_broken: row.target_broken === 1 }));
  }

  /** How many targets `filter` selects, and how many links (of them broken). */
  async count(crawlId: string, filter: BrokenTargetFilter): Promise<{ targets: number; links: number; broken: number }> {
    const rows = rowsOf(this.db.dialect, crawlId, filter, undefined, { links: false, target: false });
    const found = await this.db.get<{ targets: number; links: number; broken: number }>(
      `SELECT COUNT(DISTINCT ${rows.targetId}) AS targets, COUNT(*) AS links, COUNT(b.link_id) AS broken FROM ${rows.from}`,
      rows.params,
    );
    return { targets: found?.targets ?? 0, links: found?.links ?? 0, broken: found?.broken ?? 0 };
  }

  /** The hosts of the targets `filter` selects, most targets first, at most `limit`, and how many hosts in all. */
  async hosts(crawlId: string, filter: BrokenTargetFilter, limit: number): Promise<{ items: HostSummaryRecord[]; total: number }> {
    const host = hostSql(this.db.dialect);
    const rows = rowsOf(this.db.dialect, crawlId, filter, undefined, { links: false, target: true });
    const items = await this.db.all<HostSummaryRecord & { total: number }>(
      `SELECT ${host} AS host, COUNT(DISTINCT t.id) AS targets, COUNT(*) AS links, COUNT(*) OVER () AS total
       FROM ${rows.from} GROUP BY ${host} ORDER BY targets DESC, host ASC LIMIT $limit`,
      { ...rows.params, limit },
    );
    return { items: items.map(({ total: _total, ...summary }) => summary), total: items[0]?.total ?? 0 };
  }

  /** The target `targetId` of crawl `crawlId` when it has been checked, with its verdict; undefined otherwise. */
  async target(crawlId: string, targetId: number): Promise<Omit<BrokenTargetRecord, "links" | "broken_since"> | undefined> {
    const row = await this.db.get<Omit<RawTarget, "links" | "broken_since">>(
      `SELECT t.id AS target_id, t.url, ${hostSql(this.db.dialect)} AS host, t.status_code, t.error, t.warning, t.final_url, t.internal, t.is_broken AS target_broken
       FROM crawl_targets t WHERE t.id = $targetId AND t.crawl_id = $crawlId AND t.state = 'done'`,
      { crawlId, targetId },
    );
    return row === undefined ? undefined : { ...row, internal: row.internal === 1, target_broken: row.target_broken === 1 };
  }

  /** One page of the links to target `targetId` that `filter` selects, sorted by `sorting` (link id the tiebreak). */
  sources(
    crawlId: string,
    targetId: number,
    filter: BrokenTargetFilter,
    sorting: Sorting<SourceSort>,
    offset: number,
    limit: number,
  ): Promise<BrokenSourceRecord[]> {
    const rows = rowsOf(this.db.dialect, crawlId, filter, targetId);
    return this.db.all<BrokenSourceRecord>(
      `SELECT l.source_url, l.link_text, l.kind, l.fragment_error, l.fragment_warning, b.broken_since FROM ${rows.from}
       ORDER BY ${orderBy(SOURCE_ORDER[sorting.by], sorting, "l.id")} LIMIT $limit OFFSET $offset`,
      { ...rows.params, limit, offset },
    );
  }

  /** How many links to target `targetId` `filter` selects. */
  async countSources(crawlId: string, targetId: number, filter: BrokenTargetFilter): Promise<number> {
    const rows = rowsOf(this.db.dialect, crawlId, filter, targetId);
    return (await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${rows.from}`, rows.params))?.n ?? 0;
  }

  /** Every link `filter` selects, in discovery order, a batch of STREAM_BATCH at a time (memory stays at one batch). */
  async *links(crawlId: string, filter: BrokenTargetFilter): AsyncGenerator<LinkRecord[]> {
    const rows = rowsOf(this.db.dialect, crawlId, filter);
    const batch = `SELECT ${rows.linkId} AS id, ${LINK_COLUMNS} FROM ${rows.from} AND ${rows.linkId} > $afterId ORDER BY ${rows.linkId} LIMIT ${STREAM_BATCH}`;
    for await (const found of keysetBatches(
      (afterId) => this.db.all<RawLink & { id: number }>(batch, { ...rows.params, afterId }),
      STREAM_BATCH,
      (row) => row.id,
    )) {
      yield found.map(toLink);
    }
  }
}
