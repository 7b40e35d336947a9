/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { describeOptions } from "../../core/options-summary.ts";
import type { CrawlDetailView, CrawlSummaryView } from "../../services/crawl-view.ts";
import { isActive, Progress, type LiveProgress } from "../components/crawl-progress.tsx";
import { FailureReason, LastCompleted } from "../components/crawl-outcome.tsx";
import { Time } from "../components/local-time.tsx";
import { FormError } from "../components/form-error.tsx";
import { Csrf, CrawlStatusBadge } from "../components/layout.tsx";
import type { Problem } from "../form-problem.ts";
import { count } from "../format.ts";
import { can, type Viewer } from "../ui-env.ts";

/**
 * A crawl's page around its table (the grouped broken links, one target's links, or the changes): when and how it
 * ran, why it failed beside the last completed crawl, live progress or the final numbers, cancel, downloads.
 */

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
      Ignore rules of this crawl: not checked <code>{list(rules.exclude)}</code> ({count(props.crawl.excluded_links)} links kept out) · never counted broken{" "}
      <code>{list(rules.mute)}</code> (shown in the downloads with a warning).
    </p>
  );
}

/** The domain's last completed crawl, shown beside a failed one (null: none, or not needed). */
export type LastCompletedCrawl = { crawl: CrawlSummaryView | null; pages: number | null } | null;

export function CrawlPage(props: {
  viewer: Viewer;
  crawl: CrawlDetailView;
  progress: LiveProgress | null;
  lastCompleted: LastCompletedCrawl;
  /** Links found broken before that this ended crawl did not check (outside its broken count). */
  notChecked: number;
  body: Child;
  tab: "broken" | "changes";
  refused?: Problem;
  /** When the counts and the table were read (a running crawl's page says so above the table). */
  asOf?: string;
}) {
  const { viewer, crawl } = props;
  const active = isActive(crawl);
  return (
    <>
      <p>
        <a href={`/ui/domains/${crawl.domain_id}`}>← {crawl.domain_name}</a>
      </p>
      <h1>
        Crawl of {crawl.domain_name} <CrawlStatusBadge status={crawl.status} failure={crawl.failure} />
      </h1>
      {props.refused !== undefined && <FormError problem={props.refused} />}
      <p class="muted">
        Created <Time iso={crawl.created_at} /> ({STARTED_BY[crawl.trigger]}) · started <Time iso={crawl.started_at} /> · ended{" "}
        <Time iso={crawl.completed_at} />
      </p>
      <p id="crawl-options">Checked: {describeOptions(crawl.options)}</p>
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
            As of <Time iso={props.asOf ?? null} seconds />: {count(crawl.broken_links)} broken link{crawl.broken_links === 1 ? "" : "s"} found so far, the same
            count as the progress above. The table refreshes with it while the crawl runs.{" "}
            <span data-stale hidden>
              It has found more since: reload the page, or close the open rows and leave the filter, to see them.
            </span>
          </p>
          {props.body}
        </div>
      ) : (
        props.body
      )}
    </>
  );
}
