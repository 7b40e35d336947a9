import { NotFoundError } from "../core/errors.ts";
import type { CrawlRecord } from "../store/crawls.repo.ts";
import type { LinkRecord } from "../store/link-record.ts";
import type { LinksRepo } from "../store/links.repo.ts";
import type {
  BrokenSourceRecord,
  BrokenTargetFilter,
  BrokenTargetRecord,
  HostSummaryRecord,
  SourceSort,
  Sorting,
  TargetSort,
} from "../store/target-results.repo.ts";

// The listing's vocabulary (filter, status classes, sort columns) is the repo's; the dashboard reads it from here.
export { SOURCE_SORTS, STATUS_CLASSES, TARGET_SORTS } from "../store/target-results.repo.ts";
export type {
  BrokenSourceRecord,
  BrokenTargetFilter,
  BrokenTargetRecord,
  HostSummaryRecord,
  SourceSort,
  Sorting,
  StatusClass,
  TargetSort,
} from "../store/target-results.repo.ts";

/**
 * A crawl's results grouped by target, for the dashboard: numbered pages of targets sorted by a column, every
 * link of one target in pages of its own, the hosts they are on, and the links a filter selects as a stream
 * (the filtered downloads). A page number past the end shows the last page.
 */

/** One numbered page: its rows, the row count, which page it is of how many, and the page size. */
export interface NumberedPage<T> {
  items: T[];
  total: number;
  page: number;
  pages: number;
  size: number;
}

/** A listed target with its first few linking pages. */
export type BrokenTargetView = BrokenTargetRecord & { sources: BrokenSourceRecord[] };

/** Where `page` (1-based, clamped into range) of `total` rows by `size` starts. */
export function pageOf(total: number, page: number, size: number): { page: number; pages: number; offset: number } {
  const pages = Math.max(1, Math.ceil(total / size));
  const clamped = Math.min(Math.max(1, Math.trunc(page) || 1), pages);
  return { page: clamped, pages, offset: (clamped - 1) * size };
}

export class CrawlResults {
  constructor(
    private readonly links: LinksRepo,
    private readonly require: (id: string) => Promise<CrawlRecord>,
  ) {}

  /** Page `page` of the targets `filter` selects, sorted by `sorting`, each with its first `sourcesPerTarget` linking pages. */
  async targets(
    id: string,
    filter: BrokenTargetFilter,
    sorting: Sorting<TargetSort>,
    page: number,
    size: number,
    sourcesPerTarget = 20,
  ): Promise<NumberedPage<BrokenTargetView> & { links: number }> {
    const crawl = await this.require(id);
    const repo = this.links.results;
    const counts = await repo.count(crawl.id, filter);
    const at = pageOf(counts.targets, page, size);
    const preview: Sorting<SourceSort> = { by: "found", descending: false };
    const rows = await repo.page(crawl.id, filter, sorting, at.offset, size);
    // One page's targets (a few dozen): their sources are asked for together, so PostgreSQL answers them in parallel.
    const items = await Promise.all(
      rows.map(async (row) => ({ ...row, sources: await repo.sources(crawl.id, row.target_id, filter, preview, 0, sourcesPerTarget) })),
    );
    return { items, total: counts.targets, page: at.page, pages: at.pages, size, links: counts.links };
  }

  /** The hosts of the targets `filter` selects, most targets first, at most `limit`, and how many hosts in all. */
  async hosts(id: string, filter: BrokenTargetFilter, limit: number): Promise<{ items: HostSummaryRecord[]; total: number }> {
    return this.links.results.hosts((await this.require(id)).id, filter, limit);
  }

  /** A checked target of the crawl; NotFoundError for any other id. */
  async target(id: string, targetId: number): Promise<Omit<BrokenTargetRecord, "links" | "broken_since">> {
    const found = await this.links.results.target((await this.require(id)).id, targetId);
    if (found === undefined) throw new NotFoundError("target", String(targetId));
    return found;
  }

  /** Page `page` of the links to a target that `filter` selects, sorted by `sorting`. */
  async sources(
    id: string,
    targetId: number,
    filter: BrokenTargetFilter,
    sorting: Sorting<SourceSort>,
    page: number,
    size: number,
  ): Promise<NumberedPage<BrokenSourceRecord>> {
    const crawl = await this.require(id);
    const total = await this.links.results.countSources(crawl.id, targetId, filter);
    const at = pageOf(total, page, size);
    return { items: await this.links.results.sources(crawl.id, targetId, filter, sorting, at.offset, size), total, page: at.page, pages: at.pages, size };
  }

  /** How many links `filter` selects, and how many of them are broken. */
  async linkCounts(id: string, filter: BrokenTargetFilter): Promise<{ links: number; broken: number }> {
    const { links, broken } = await this.links.results.count((await this.require(id)).id, filter);
    return { links, broken };
  }

  /** Every link `filter` selects, in discovery order, streamed a batch at a time. */
  async *allLinks(id: string, filter: BrokenTargetFilter): AsyncGenerator<LinkRecord[]> {
    yield* this.links.results.links((await this.require(id)).id, filter);
  }
}
