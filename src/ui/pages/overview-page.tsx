/** @jsxImportSource hono/jsx */
import type { DomainView } from "../../services/domain-view.ts";
import type { CrawlBriefView, CrawlSummaryView } from "../../services/crawl-view.ts";
import { Columns, Csrf, CrawlStatusBadge, Notice, StatusBadge } from "../components/layout.tsx";
import { TrendChart } from "../components/trend-chart.tsx";
import { count } from "../format.ts";
import { Ago } from "../components/local-time.tsx";
import { FailureReason } from "../components/crawl-outcome.tsx";
import { can, type Viewer } from "../ui-env.ts";
import { FormError } from "../components/form-error.tsx";
import type { Problem } from "../form-problem.ts";
import { PageLinks } from "../components/page-links.tsx";

/**
 * The overview at `/`: every domain with its verification state, its last crawl (status, when, pages, broken,
 * new since the previous one), its broken-link trend over the last crawls, and its next scheduled run; and the
 * form to add a domain.
 */

export const DOMAINS_PER_PAGE = 50;

interface DomainRow {
  domain: DomainView;
  last: CrawlBriefView | null;
  recent: CrawlSummaryView[];
  /** When the last crawl failed: the domain's last completed crawl, whose numbers the row shows instead. */
  completed: CrawlBriefView | null;
  /** Broken links found before that the shown crawl did not check (outside its broken count). */
  notChecked: number;
}

/** What was typed into the add form, shown again when it was refused. */
interface AddDraft {
  name: string;
  root_url: string;
}

const NOTICES: Record<string, string> = {
  deleted: "Domain deleted, with its crawls and their results.",
};

export function Overview(props: { viewer: Viewer; rows: DomainRow[]; total: number; page: number; notice?: string; error?: Problem; draft?: AddDraft }) {
  const { viewer, rows } = props;
  const pages = Math.max(1, Math.ceil(props.total / DOMAINS_PER_PAGE));
  return (
    <>
      <h1>Overview</h1>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {rows.length === 0 && <p>No domain yet. Add the site you want checked below, verify that it is yours, then start a crawl.</p>}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="muted">
              {count(props.total)} domain{props.total === 1 ? "" : "s"}
            </caption>
            <Columns
              names={["Domain", "Verified", "Last crawl", "Pages|num hide-narrow", "Broken|num", "New|num hide-narrow", "Trend", "Next run|hide-narrow"]}
            />
            <tbody>
              {rows.map(({ domain, last, recent, completed, notChecked }) => {
                // A failed crawl's counts say nothing about the site: the numbers are the last completed crawl's.
                const shown = last !== null && last.status === "failed" ? completed : last;
                return (
                  <tr>
                    <td class="url">
                      <a href={`/ui/domains/${domain.id}`}>{domain.name}</a>
                    </td>
                    <td>
                      <StatusBadge status={domain.verified ? "verified" : "unverified"} />
                    </td>
                    <td>
                      {last === null ? (
                        <span class="muted">never</span>
                      ) : (
                        <>
                          <a href={`/ui/crawls/${last.id}`}>
                            <CrawlStatusBadge status={last.status} failure={last.failure} />
                          </a>{" "}
                          <Ago iso={last.completed_at ?? last.started_at ?? last.created_at} />
                          {last.status === "failed" && (
                            <div class="crawl-failure">
                              <FailureReason failure={last.failure} error={last.error} />{" "}
                              {completed === null ? (
                                <span class="muted">No completed crawl yet.</span>
                              ) : (
                                <span class="muted">
                                  The numbers are from the <a href={`/ui/crawls/${completed.id}`}>last completed crawl</a>, <Ago iso={completed.completed_at} />
                                  .
                                </span>
                              )}
                            </div>
                          )}
                        </>
                      )}
                    </td>
                    <td class="num hide-narrow">{shown === null ? "—" : count(shown.pages_crawled)}</td>
                    <td class="num">
                      {shown === null ? "—" : count(shown.broken_links)}
                      {shown !== null && notChecked > 0 && (
                        <div class="muted not-checked">
                          <a href={`/ui/crawls/${shown.id}/changes`}>+{count(notChecked)} not checked</a>
                        </div>
                      )}
                    </td>
                    <td class="num hide-narrow">{shown === null ? "—" : count(shown.new_broken_links)}</td>
                    <td>
                      <TrendChart
                        values={recent
                          .filter((c) => c.status === "completed")
                          .map((c) => c.broken_links)
                          .reverse()}
                        label={`Broken links over the last completed crawls of ${domain.name}`}
                      />
                    </td>
                    <td class="hide-narrow">{domain.next_run_at === null ? <span class="muted">not scheduled</span> : <Ago iso={domain.next_run_at} />}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <PageLinks label="Domain pages" page={props.page} pages={pages} href={(page) => `/?page=${page}`} />
      {can(viewer, "domains:write") && (
        <section class="panel" aria-labelledby="add-domain">
          <h2 id="add-domain">Add a domain</h2>
          <p class="muted" id="add-domain-help">
            Paste the site's URL as your browser shows it (<code>http://intranet.lan:8080/docs/</code> keeps its scheme, port and path), or type a host: https
            is tried first, then http, and the page says which was chosen.
          </p>
          {props.error !== undefined && <FormError problem={props.error} />}
          <form method="post" action="/ui/domains">
            <Csrf viewer={viewer} />
            <div class="row">
              <div class="grow">
                <label for="domain-name">Domain or URL</label>
                <input
                  id="domain-name"
                  name="name"
                  type="text"
                  required
                  placeholder="https://docs.example.com/"
                  aria-describedby="add-domain-help"
                  value={props.draft?.name ?? ""}
                />
              </div>
              <div class="grow">
                <label for="domain-root">Start page (optional)</label>
                <input id="domain-root" name="root_url" type="text" placeholder="when it is not the URL above" value={props.draft?.root_url ?? ""} />
              </div>
              <button type="submit">Add domain</button>
            </div>
          </form>
        </section>
      )}
    </>
  );
}
