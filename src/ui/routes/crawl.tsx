/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { Child } from "hono/jsx";
import { ConflictError } from "../../core/errors.ts";
import { describeOptions } from "../../core/options-summary.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { CrawlDetailView } from "../../services/crawl-view.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { BrokenTargets } from "../components/broken-targets.tsx";
import { Changes, CHANGES_PER_PAGE } from "../components/crawl-changes.tsx";
import { isActive, Progress, progressOf } from "../components/crawl-progress.tsx";
import { FormError } from "../components/form-error.tsx";
import { Csrf, Layout, StatusBadge } from "../components/layout.tsx";
import { filtersFrom, repoFilter } from "../crawl-filters.ts";
import { count, when } from "../format.ts";
import { renderPage } from "../render.ts";
import { can, type UiEnv, type Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { crawlReport, reportResponse } from "./crawl-report.ts";

/**
 * A crawl's page: live progress while it runs (a small JSON endpoint polled by the script, or a page refresh
 * without it), then its broken links grouped by target URL (one row per thing to fix, the pages linking to it
 * folded inside), filtered by status, kind, internal/external and a URL search, keyset-paged; what changed
 * since the previous crawl; report downloads; cancel.
 */

const TARGETS_PER_PAGE = 50;

function CrawlPage(props: { viewer: Viewer; crawl: CrawlDetailView; queued: number; body: Child; tab: "broken" | "changes"; error?: string }) {
  const { viewer, crawl } = props;
  const active = isActive(crawl);
  return (
    <Layout title={`Crawl of ${crawl.domain_name}`} viewer={viewer} refreshSeconds={active ? 5 : undefined}>
      <p>
        <a href={`/ui/domains/${crawl.domain_id}`}>← {crawl.domain_name}</a>
      </p>
      <h1>
        Crawl of {crawl.domain_name} <StatusBadge status={crawl.status} />
      </h1>
      {props.error !== undefined && <FormError message={props.error} />}
      <p class="muted">
        Created {when(crawl.created_at)} ({crawl.trigger}) · started {when(crawl.started_at)} · ended {when(crawl.completed_at)}
      </p>
      <p id="crawl-options">
        Checked: {describeOptions(crawl.options)}
      </p>
      {crawl.waiting_reason !== null && (
        <p class="notice error" role="status">
          {crawl.waiting_reason}
        </p>
      )}
      {crawl.error !== null && <p class="notice error">{crawl.error}</p>}
      {crawl.warnings.length > 0 && (
        <ul class="notice">
          {crawl.warnings.map((warning) => (
            <li>{warning}</li>
          ))}
        </ul>
      )}
      {active ? (
        <Progress crawl={crawl} queued={props.queued} />
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
        </a>
      </div>
      <nav class="pager" aria-label="Crawl views">
        {props.tab === "broken" ? <strong>Broken links</strong> : <a href={`/ui/crawls/${crawl.id}`}>Broken links</a>}
        {props.tab === "changes" ? <strong>Changes</strong> : <a href={`/ui/crawls/${crawl.id}/changes`}>Changes since previous crawl</a>}
      </nav>
      {props.body}
    </Layout>
  );
}

export function crawlRouter(crawls: CrawlsService, domains: DomainsService) {
  const router = new Hono<UiEnv>();

  router.get("/ui/crawls/:id", (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const crawl = crawls.get(c.req.param("id"));
    const filters = filtersFrom(c.req.query());
    const after = Math.max(0, Number.parseInt(c.req.query("after") ?? "0", 10) || 0);
    const page = crawls.brokenTargets(crawl.id, repoFilter(filters), after, TARGETS_PER_PAGE);
    const body = <BrokenTargets crawl={crawl} filters={filters} page={page} after={after} />;
    const queued = isActive(crawl) ? crawls.queued(crawl.id) : 0;
    return renderPage(c, <CrawlPage viewer={viewer} crawl={crawl} queued={queued} body={body} tab="broken" />);
  });

  router.get("/ui/crawls/:id/changes", (c) => {
    const viewer = requireUiScope(c, "crawls:read");
    const crawl = crawls.get(c.req.param("id"));
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
    const changes = crawls.changes(crawl.id, page, CHANGES_PER_PAGE);
    const body = <Changes crawl={crawl} changes={changes} page={page} />;
    return renderPage(c, <CrawlPage viewer={viewer} crawl={crawl} queued={0} body={body} tab="changes" />);
  });

  router.get("/ui/crawls/:id/progress.json", (c) => {
    requireUiScope(c, "crawls:read");
    const crawl = crawls.get(c.req.param("id"));
    return c.json(progressOf(crawl, isActive(crawl) ? crawls.queued(crawl.id) : 0));
  });

  router.get("/ui/crawls/:id/report.csv", (c) => {
    requireUiScope(c, "crawls:read");
    const id = c.req.param("id");
    return reportResponse(c, crawlReport(crawls, domains, id), "csv", crawls.get(id).id);
  });

  router.get("/ui/crawls/:id/report.json", (c) => {
    requireUiScope(c, "crawls:read");
    const id = c.req.param("id");
    return reportResponse(c, crawlReport(crawls, domains, id), "json", crawls.get(id).id);
  });

  router.post("/ui/crawls/:id/cancel", (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    try {
      crawls.cancel(id);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const crawl = crawls.get(id);
      const page = crawls.brokenTargets(crawl.id, {}, 0, TARGETS_PER_PAGE);
      const body = <BrokenTargets crawl={crawl} filters={{}} page={page} after={0} />;
      return renderPage(c, <CrawlPage viewer={viewer} crawl={crawl} queued={0} body={body} tab="broken" error={error.message} />, 409);
    }
    return c.redirect(`/ui/crawls/${id}`, 303);
  });

  return router;
}
