/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { Child } from "hono/jsx";
import { ConflictError, NotFoundError } from "../../core/errors.ts";
import { describeOptions } from "../../core/options-summary.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { CrawlBriefView, CrawlDetailView, CrawlSummaryView } from "../../services/crawl-view.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { BrokenTargets } from "../components/broken-targets.tsx";
import { Changes, CHANGES_PER_PAGE } from "../components/crawl-changes.tsx";
import { isActive, Progress, progressOf, type LiveProgress } from "../components/crawl-progress.tsx";
import { FailureReason, LastCompleted } from "../components/crawl-outcome.tsx";
import { Time } from "../components/local-time.tsx";
import { FormError } from "../components/form-error.tsx";
import { Csrf, CrawlStatusBadge, Layout } from "../components/layout.tsx";
import { TargetSources } from "../components/target-sources.tsx";
import { filtersFrom, repoFilter, sortingOf, viewFrom, type Filters } from "../crawl-filters.ts";
import { SOURCE_SORTS, TARGET_SORTS } from "../../store/target-results.repo.ts";
import { count, when } from "../format.ts";
import { RecentRates } from "../recent-rates.ts";
import { renderPage } from "../render.ts";
import { can, type UiEnv, type Viewer } from "../ui-env.ts";
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

/** Who started a crawl, in words. */
const STARTED_BY: Record<CrawlDetailView["trigger"], string> = {
  api: "started through the API",
  dashboard: "started from the dashboard",
  schedule: "started by the schedule",
};

/** The ignore rules a crawl ran with and what they kept out, when it had any. */
function IgnoredLine(props: { crawl: CrawlDetailView }) {
  const rules = props.crawl.options.ignore_rules;
  if (rules === undefined) return null;
  const list = (patterns: string[]) => (patterns.length === 0 ? "none" : patterns.join("  "));
  return (
    <p class="muted">
      Ignore rules of this crawl: not checked <code>{list(rules.exclude)}</code> ({count(props.crawl.excluded_links)} links kept out) · never counted
      broken <code>{list(rules.mute)}</code> (shown in the downloads with a warning).
    </p>
  );
}

/** The domain's last completed crawl, shown beside a failed one (null: none, or not needed). */
type LastCompletedCrawl = { crawl: CrawlSummaryView | null; pages: number | null } | null;

function CrawlPage(props: {
  viewer: Viewer;
  crawl: CrawlDetailView;
  progress: LiveProgress | null;
  lastCompleted: LastCompletedCrawl;
  /** Links found broken before that this ended crawl did not check (outside its broken count). */
  notChecked: number;
  body: Child;
  tab: "broken" | "changes";
  error?: string;
  /** When the counts and the table were read (a running crawl's page says so above the table). */
  asOf?: string;
}) {
  const { viewer, crawl } = props;
  const active = isActive(crawl);
  return (
    <Layout title={`Crawl of ${crawl.domain_name}`} viewer={viewer} refreshSeconds={active ? 5 : undefined}>
      <p>
        <a href={`/ui/domains/${crawl.domain_id}`}>← {crawl.domain_name}</a>
      </p>
      <h1>
        Crawl of {crawl.domain_name} <CrawlStatusBadge status={crawl.status} failure={crawl.failure} />
      </h1>
      {props.error !== undefined && <FormError message={props.error} />}
      <p class="muted">
        Created <Time iso={crawl.created_at} /> ({STARTED_BY[crawl.trigger]}) · started <Time iso={crawl.started_at} /> · ended <Time iso={crawl.completed_at} />
      </p>
      <p id="crawl-options">
        Checked: {describeOptions(crawl.options)}
      </p>
      <IgnoredLine crawl={crawl} />
      {crawl.waiting_reason !== null && (
        <p class="notice error" role="status">
          {crawl.waiting_reason}
        </p>
      )}
      {crawl.status === "failed" && (
        <div class={crawl.failure === "cancelled" ? "notice" : "notice error"} id="crawl-outcome">
          <p>
            {crawl.failure === "cancelled" ? (
              "Cancelled: the counts and links below are what the crawl had found when it was cancelled, and final."
            ) : (
              <FailureReason failure={crawl.failure} error={crawl.error} />
            )}
          </p>
          {props.lastCompleted !== null && (
            <p>
              <LastCompleted crawl={props.lastCompleted.crawl} pages={props.lastCompleted.pages} />
            </p>
          )}
        </div>
      )}
      {crawl.warnings.length > 0 && (
        <ul class="notice">
          {crawl.warnings.map((warning) => (
            <li>{warning}</li>
          ))}
        </ul>
      )}
      {active ? (
        <Progress crawl={crawl} progress={props.progress!} />
      ) : (
        <dl class="stats">
          <div>
            <dt>Pages</dt>
            <dd>{count(crawl.pages_crawled)}</dd>
          </div>
          <div>
            <dt>Links</dt>
            <dd>{count(crawl.total_links)}</dd>
          </div>
          <div>
            <dt>Broken</dt>
            <dd>{count(crawl.broken_links)}</dd>
          </div>
          <div>
            <dt>New since previous</dt>
            <dd>{count(crawl.new_broken_links)}</dd>
          </div>
          {props.notChecked > 0 && (
            <div id="not-checked">
              <dt>Not checked this time</dt>
              <dd>
                <a href={`/ui/crawls/${crawl.id}/changes`}>{count(props.notChecked)}</a>
              </dd>
            </div>
          )}
        </dl>
      )}
      <div class="row">
        {active && can(viewer, "crawls:write") && (
          <form method="post" action={`/ui/crawls/${crawl.id}/cancel`} data-confirm="Cancel this crawl? What it found so far stays readable.">
            <Csrf viewer={viewer} />
            <button type="submit" class="danger">
              Cancel crawl
            </button>
          </form>
        )}
        <a class="button secondary" href={`/ui/crawls/${crawl.id}/report.csv`} download>
          Download CSV
        </a>{" "}
        <a class="button secondary" href={`/ui/crawls/${crawl.id}/report.json`} download>
          Download JSON
        </a>{" "}
        <a class="button secondary" href={`/ui/crawls/${crawl.id}/report.jsonl`} download>
          Download JSONL
        </a>
      </div>
      <nav class="pager" aria-label="Crawl views">
        {props.tab === "broken" ? <strong>Broken links</strong> : <a href={`/ui/crawls/${crawl.id}`}>Broken links</a>}
        {props.tab === "changes" ? <strong>Changes</strong> : <a href={`/ui/crawls/${crawl.id}/changes`}>Changes since previous crawl</a>}
      </nav>
      {active ? (
        <div id="live-results" data-broken-links={String(crawl.broken_links)}>
          <p class="muted as-of">
            As of <Time iso={props.asOf ?? null} seconds />: {count(crawl.broken_links)} broken link{crawl.broken_links === 1 ? "" : "s"} found so far, the
            same count as the progress above. The table refreshes with it while the crawl runs.{" "}
            <span data-stale hidden>
              It has found more since: reload the page, or close the open rows and leave the filter, to see them.
            </span>
          </p>
          {props.body}
        </div>
      ) : (
        props.body
      )}
    </Layout>
  );
}

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
  const liveProgress = (crawl: CrawlBriefView) => {
    if (!isActive(crawl)) {
      rates.forget(crawl.id);
      return null;
    }
    const frontier = crawls.progress(crawl.id);
    return progressOf(crawl, frontier, rates.observe(crawl.id, crawl.pages_crawled, frontier?.targets_checked ?? 0));
  };

  /**
   * The crawl, then `table` read from the store, then the crawl's counts again: a running crawl's batches land
   * between reads, and the table must show what the counters say. Counts only grow while it runs, so equal
   * counts before and after mean the table saw that same state; after three tries the page says when it read.
   */
  const consistentRead = <T,>(id: string, table: (crawl: CrawlDetailView) => T): CrawlRead & { table: T } => {
    let crawl = crawls.get(id);
    let rows = table(crawl);
    for (let attempt = 0; attempt < 3 && isActive(crawl); attempt++) {
      const again = crawls.brief(id);
      if (again.status === crawl.status && again.broken_links === crawl.broken_links) break;
      crawl = crawls.get(id);
      rows = table(crawl);
    }
    const lastCompleted = crawl.status === "failed" ? lastCompletedOf(crawl.domain_id) : null;
    return { crawl, table: rows, progress: liveProgress(crawl), lastCompleted, notChecked: crawls.notCheckedCount(crawl.id), asOf: new Date().toISOString() };
  };

  const lastCompletedOf = (domainId: string): LastCompletedCrawl => {
    const last = crawls.lastCompleted(domainId);
    return { crawl: last, pages: last === null ? null : crawls.brief(last.id).pages_crawled };
  };

  /** The grouped listing of crawl `crawl` under the filters and view of `query`. */
  const targetsBody = (crawl: CrawlDetailView, query: Record<string, string>) => {
    const filters = filtersFrom(query);
    const view = viewFrom(query, TARGET_SORTS);
    const filter = repoFilter(filters);
    const page = crawls.results.targets(crawl.id, filter, sortingOf(view), view.page, view.size);
    const hosts = crawls.results.hosts(crawl.id, { ...filter, host: undefined }, HOSTS_SHOWN);
    return <BrokenTargets crawl={crawl} filters={filters} view={{ ...view, page: page.page }} page={page} hosts={hosts} />;
  };

  router.get("/ui/crawls/:id", (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const query = c.req.query();
    const read = consistentRead(c.req.param("id"), (crawl) => targetsBody(crawl, query));
    return renderPage(c, <CrawlPage viewer={viewer} {...read} body={read.table} tab="broken" />);
  });

  router.get("/ui/crawls/:id/targets/:targetId", (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const crawl = crawls.get(c.req.param("id"));
    const targetId = c.req.param("targetId");
    if (!/^\d{1,15}$/.test(targetId)) throw new NotFoundError("target", targetId);
    const target = crawls.results.target(crawl.id, Number(targetId));
    const filters = filtersFrom(c.req.query());
    const view = viewFrom(c.req.query(), SOURCE_SORTS);
    const read = consistentRead(crawl.id, (current) => {
      const page = crawls.results.sources(current.id, target.target_id, repoFilter(filters), sortingOf(view), view.page, view.size);
      return <TargetSources crawl={current} target={target} filters={filters} view={{ ...view, page: page.page }} page={page} />;
    });
    return renderPage(c, <CrawlPage viewer={viewer} {...read} body={read.table} tab="broken" />);
  });

  router.get("/ui/crawls/:id/changes", (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
    const read = consistentRead(c.req.param("id"), (crawl) => crawls.changes(crawl.id, page, CHANGES_PER_PAGE));
    const body = <Changes crawl={read.crawl} changes={read.table} page={page} />;
    return renderPage(c, <CrawlPage viewer={viewer} {...read} body={body} tab="changes" />);
  });

  router.get("/ui/crawls/:id/progress.json", (c) => {
    requireUiScope(c, "crawls:read");
    const crawl = crawls.brief(c.req.param("id"));
    const progress = liveProgress(crawl) ?? progressOf(crawl, null, null);
    return c.json({ ...progress, as_of: new Date().toISOString() });
  });

  for (const format of ["csv", "json", "jsonl"] as const satisfies DownloadFormat[]) {
    // Without filters the whole crawl, as ever; with any, exactly the links they select.
    router.get(`/ui/crawls/:id/report.${format}`, (c) => {
      requireUiScope(c, "crawls:read");
      const id = crawls.get(c.req.param("id")).id;
      const filters: Filters = filtersFrom(c.req.query());
      const report = Object.keys(filters).length === 0 ? crawlReport(crawls, domains, id) : filteredCrawlReport(crawls, domains, id, repoFilter(filters));
      return reportResponse(c, report, format, id);
    });
  }

  router.post("/ui/crawls/:id/cancel", (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    try {
      crawls.cancel(id);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const read = consistentRead(id, (crawl) => targetsBody(crawl, {}));
      return renderPage(c, <CrawlPage viewer={viewer} {...read} body={read.table} tab="broken" error={error.message} />, 409);
    }
    return c.redirect(`/ui/crawls/${id}`, 303);
  });

  return router;
}
