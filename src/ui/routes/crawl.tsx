/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import type { Child } from "hono/jsx";
import { NotFoundError } from "../../core/errors.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { CrawlBriefView, CrawlDetailView } from "../../services/crawl-view.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { BrokenTargets } from "../components/broken-targets.tsx";
import { Changes, CHANGES_PER_PAGE } from "../components/crawl-changes.tsx";
import { isActive, progressOf, type LiveProgress } from "../components/crawl-progress.tsx";
import { TargetSources } from "../components/target-sources.tsx";
import { filtersFrom, repoFilter, sortingOf, viewFrom, type Filters } from "../crawl-filters.ts";
import { SOURCE_SORTS, TARGET_SORTS } from "../../services/crawl-results.ts";
import { showAgain, type Problem } from "../form-problem.ts";
import { CrawlPage, type LastCompletedCrawl } from "../pages/crawl-page.tsx";
import { RecentRates } from "../recent-rates.ts";
import type { UiEnv, Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { crawlReport, filteredCrawlReport, reportResponse, type DownloadFormat } from "./crawl-report.ts";

/**
 * A crawl's page: live progress while it runs (a small JSON endpoint polled by the script, or a page refresh
 * without it), then its broken links grouped by target URL (one row per thing to fix, the pages linking to it
 * folded inside, all of them a page of their own), filtered by status, class, kind, internal/external, host and
 * a URL search, sorted by a column, in numbered pages, grouped by host; what changed since the previous crawl;
 * report downloads, of the whole crawl or of what the filters select; cancel.
 */

/** Hosts listed in the host summary (the rest are reached through the host filter). */
const HOSTS_SHOWN = 20;

/** A crawl page's numbers and table, read so that they agree (see `consistentRead`). */
interface CrawlRead {
  crawl: CrawlDetailView;
  progress: LiveProgress | null;
  lastCompleted: LastCompletedCrawl;
  notChecked: number;
  asOf: string;
}

export function crawlRouter(crawls: CrawlsService, domains: DomainsService) {
  const router = new Hono<UiEnv>();
  const rates = new RecentRates();

  /** The live numbers of an active crawl (each read is a sample of its recent rate); null once it ended. */
  const liveProgress = async (crawl: CrawlBriefView) => {
    if (!isActive(crawl)) {
      rates.forget(crawl.id);
      return null;
    }
    const frontier = await crawls.progress(crawl.id);
    return progressOf(crawl, frontier, rates.observe(crawl.id, crawl.pages_crawled, frontier?.targets_checked ?? 0));
  };

  /**
   * The crawl, then `table` read from the store, then the crawl's counts again: a running crawl's batches land
   * between reads, and the table must show what the counters say. Counts only grow while it runs, so equal
   * counts before and after mean the table saw that same state; after three tries the page says when it read.
   */
  const consistentRead = async <T,>(id: string, table: (crawl: CrawlDetailView) => Promise<T>): Promise<CrawlRead & { table: T }> => {
    let crawl = await crawls.get(id);
    let rows = await table(crawl);
    for (let attempt = 0; attempt < 3 && isActive(crawl); attempt++) {
      const again = await crawls.brief(id);
      if (again.status === crawl.status && again.broken_links === crawl.broken_links) break;
      crawl = await crawls.get(id);
      rows = await table(crawl);
    }
    const lastCompleted = crawl.status === "failed" ? await lastCompletedOf(crawl.domain_id) : null;
    const progress = await liveProgress(crawl);
    return { crawl, table: rows, progress, lastCompleted, notChecked: await crawls.notCheckedCount(crawl.id), asOf: new Date().toISOString() };
  };

  const lastCompletedOf = async (domainId: string): Promise<LastCompletedCrawl> => {
    const last = await crawls.lastCompleted(domainId);
    return { crawl: last, pages: last === null ? null : (await crawls.brief(last.id)).pages_crawled };
  };

  /** The grouped listing of crawl `crawl` under the filters and view of `query`. */
  const targetsBody = async (crawl: CrawlDetailView, query: Record<string, string>) => {
    const filters = filtersFrom(query);
    const view = viewFrom(query, TARGET_SORTS);
    const filter = repoFilter(filters);
    const page = await crawls.results.targets(crawl.id, filter, sortingOf(view), view.page, view.size);
    const hosts = await crawls.results.hosts(crawl.id, { ...filter, host: undefined }, HOSTS_SHOWN);
    return <BrokenTargets crawl={crawl} filters={filters} view={{ ...view, page: page.page }} page={page} hosts={hosts} />;
  };

  /** The crawl's page around `body`; a running crawl's reloads itself (for a browser without the script). */
  const crawlPage = (c: Context<UiEnv>, viewer: Viewer, read: CrawlRead, body: Child, tab: "broken" | "changes", refused?: Problem) => {
    const head = { title: `Crawl of ${read.crawl.domain_name}`, ...(isActive(read.crawl) && { refreshSeconds: 5 }) };
    return c.render(<CrawlPage viewer={viewer} {...read} body={body} tab={tab} refused={refused} />, head);
  };

  router.get("/ui/crawls/:id", async (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const query = c.req.query();
    const read = await consistentRead(c.req.param("id"), (crawl) => targetsBody(crawl, query));
    return crawlPage(c, viewer, read, read.table, "broken");
  });

  router.get("/ui/crawls/:id/targets/:targetId", async (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const crawl = await crawls.brief(c.req.param("id"));
    const targetId = c.req.param("targetId");
    if (!/^\d{1,15}$/.test(targetId)) throw new NotFoundError("target", targetId);
    const target = await crawls.results.target(crawl.id, Number(targetId));
    const filters = filtersFrom(c.req.query());
    const view = viewFrom(c.req.query(), SOURCE_SORTS);
    const read = await consistentRead(crawl.id, async (current) => {
      const page = await crawls.results.sources(current.id, target.target_id, repoFilter(filters), sortingOf(view), view.page, view.size);
      return <TargetSources crawl={current} target={target} filters={filters} view={{ ...view, page: page.page }} page={page} />;
    });
    return crawlPage(c, viewer, read, read.table, "broken");
  });

  router.get("/ui/crawls/:id/changes", async (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
    const read = await consistentRead(c.req.param("id"), (crawl) => crawls.changes(crawl.id, page, CHANGES_PER_PAGE));
    return crawlPage(c, viewer, read, <Changes crawl={read.crawl} changes={read.table} page={page} />, "changes");
  });

  router.get("/ui/crawls/:id/progress.json", async (c) => {
    requireUiScope(c, "crawls:read");
    const crawl = await crawls.brief(c.req.param("id"));
    const progress = (await liveProgress(crawl)) ?? progressOf(crawl, null, null);
    return c.json({ ...progress, as_of: new Date().toISOString() });
  });

  for (const format of ["csv", "json", "jsonl"] as const satisfies DownloadFormat[]) {
    // Without filters the whole crawl, as ever; with any, exactly the links they select.
    router.get(`/ui/crawls/:id/report.${format}`, async (c) => {
      requireUiScope(c, "crawls:read");
      const id = (await crawls.brief(c.req.param("id"))).id;
      const filters: Filters = filtersFrom(c.req.query());
      const report =
        Object.keys(filters).length === 0 ? await crawlReport(crawls, domains, id) : await filteredCrawlReport(crawls, domains, id, repoFilter(filters));
      return reportResponse(c, report, format, id);
    });
  }

  router.post("/ui/crawls/:id/cancel", async (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    try {
      await crawls.cancel(id);
    } catch (error) {
      return showAgain(c, error, "The crawl was not cancelled.", async (problem) => {
        const read = await consistentRead(id, (crawl) => targetsBody(crawl, {}));
        return crawlPage(c, viewer, read, read.table, "broken", problem);
      });
    }
    return c.redirect(`/ui/crawls/${id}`, 303);
  });

  return router;
}
