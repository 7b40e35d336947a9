/** @jsxImportSource hono/jsx */
import type { CrawlOptions } from "../../core/crawl-options.ts";
import type { ErrorDetail } from "../../core/errors.ts";
import type { DomainView } from "../../services/domain-view.ts";
import type { CrawlSummaryView } from "../../services/crawl-view.ts";
import { nextRunOf, scheduleProblem } from "../../services/schedule.ts";
import { OPTION_LABELS } from "../crawl-option-fields.ts";
import { count, relative, when } from "../format.ts";
import { safeHref } from "../safe-url.ts";
import { can, type Viewer } from "../ui-env.ts";
import { FormError } from "./form-error.tsx";
import { Csrf, CrawlStatusBadge, Layout, StatusBadge } from "./layout.tsx";

/**
 * A domain's page: the verification methods and the verify button, starting a crawl, recent crawls, the
 * schedule with its next runs (previewed before saving), default options. Forms are shown only to keys that
 * may use them.
 */

const NOTICES: Record<string, string> = {
  added: "Domain added. Publish one of the verification records below, then press Verify.",
  verified: "Domain verified: it can be crawled now.",
  schedule: "Schedule saved.",
  "schedule-cleared": "Schedule cleared.",
  options: "Default options saved.",
};

/** The next `n` runs of a schedule, or null with the reason it cannot run. */
function nextRuns(cron: string, timezone: string | null, n = 5): { runs: string[]; problem: string | null } {
  const problem = scheduleProblem(cron, timezone);
  if (problem !== null) return { runs: [], problem };
  const runs: string[] = [];
  let from = new Date();
  for (let i = 0; i < n; i++) {
    const next = nextRunOf(cron, timezone, from);
    if (next === null) break;
    runs.push(next.toISOString());
    from = next;
  }
  return { runs, problem: null };
}

export interface DomainPageProps {
  viewer: Viewer;
  domain: DomainView;
  crawls: CrawlSummaryView[] | null;
  notice?: string;
  error?: { message: string; details?: ErrorDetail[] };
  preview?: { cron: string; timezone: string | null };
}

function OptionBoxes(props: { options: CrawlOptions | null; prefix: string }) {
  return (
    <div class="row">
      {OPTION_LABELS.map(([name, label]) => (
        <label class="check" for={`${props.prefix}-${name}`}>
          <input type="checkbox" id={`${props.prefix}-${name}`} name={name} value="on" checked={props.options?.[name] === true} />
          {label}
        </label>
      ))}
    </div>
  );
}

export function DomainPage(props: DomainPageProps) {
  const { viewer, domain } = props;
  const methods = domain.verification.methods;
  const write = can(viewer, "domains:write");
  const scheduleShown = props.preview ?? (domain.schedule === null ? null : { cron: domain.schedule, timezone: domain.schedule_timezone });
  const runs = scheduleShown === null ? null : nextRuns(scheduleShown.cron, scheduleShown.timezone);
  const rootHref = safeHref(domain.root_url);
  return (
    <Layout title={domain.name} viewer={viewer}>
      <p>
        <a href="/">← Overview</a>
      </p>
      <h1>{domain.name}</h1>
      <p>
        Start page: {rootHref === undefined ? <code>{domain.root_url}</code> : <a class="url" href={rootHref} rel="noreferrer noopener">{domain.root_url}</a>}{" "}
        <StatusBadge status={domain.verified ? "verified" : "unverified"} />
        {domain.verified && (
          <span class="muted">
            {" "}
            by {domain.verified_by} on {when(domain.verified_at)}
          </span>
        )}
      </p>
      {props.notice !== undefined && NOTICES[props.notice] !== undefined && (
        <p class="notice success" role="status">
          {NOTICES[props.notice]}
        </p>
      )}
      {props.error !== undefined && <FormError message={props.error.message} details={props.error.details} />}

      {!domain.verified && (
        <section class="panel" aria-labelledby="verify">
          <h2 id="verify">Prove this site is yours</h2>
          <p>Publish any one of these, then press Verify. Each method's reason is shown when it fails.</p>
          <h3>DNS TXT record</h3>
          <p>
            Name <code>{methods.dns_txt.name}</code>, value <code>{methods.dns_txt.value}</code>
          </p>
          <h3>File on the site</h3>
          <p>
            At <code class="url">{methods.http_file.url}</code> serve exactly:
          </p>
          <pre>{methods.http_file.body}</pre>
          <h3>Meta tag in the start page's head</h3>
          <pre>{methods.meta_tag.html}</pre>
          {write && (
            <form method="post" action={`/ui/domains/${domain.id}/verify`}>
              <Csrf viewer={viewer} />
              <button type="submit">Verify</button>
            </form>
          )}
        </section>
      )}

      {can(viewer, "crawls:write") && (
        <section class="panel" aria-labelledby="start">
          <h2 id="start">Start a crawl</h2>
          {!domain.verified && <p class="muted">Verify the domain first.</p>}
          <form method="post" action={`/ui/domains/${domain.id}/crawls`}>
            <Csrf viewer={viewer} />
            <OptionBoxes options={domain.default_options} prefix="start" />
            <button type="submit" disabled={!domain.verified}>
              Start crawl
            </button>
          </form>
        </section>
      )}

      {props.crawls !== null && (
        <section aria-labelledby="crawls">
          <h2 id="crawls">Recent crawls</h2>
          {props.crawls.length === 0 ? (
            <p class="muted">No crawl yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Links</th>
                    <th scope="col" class="num">Broken</th>
                  </tr>
                </thead>
                <tbody>
                  {props.crawls.map((crawl) => (
                    <tr>
                      <td>
                        <a href={`/ui/crawls/${crawl.id}`}>{when(crawl.created_at)}</a>
                      </td>
                      <td>
                        <CrawlStatusBadge status={crawl.status} failure={crawl.failure} />
                      </td>
                      <td class="num">{count(crawl.total_links)}</td>
                      <td class="num">{count(crawl.broken_links)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}

      <section class="panel" aria-labelledby="schedule">
        <h2 id="schedule">Schedule</h2>
        <p>
          {domain.schedule === null ? (
            "No schedule: crawls start only when someone starts one."
          ) : (
            <>
              Runs <code>{domain.schedule}</code> ({domain.schedule_timezone ?? "server time"}); next {relative(domain.next_run_at)} ({when(domain.next_run_at)}).
            </>
          )}
        </p>
        {runs !== null && (
          <div aria-live="polite">
            {props.preview !== undefined && <h3>Preview of {props.preview.cron}</h3>}
            {runs.problem !== null ? (
              <p class="notice error">{runs.problem}</p>
            ) : (
              <ol>
                {runs.runs.map((run) => (
                  <li>{when(run)}</li>
                ))}
              </ol>
            )}
          </div>
        )}
        {write && (
          <form method="post" action={`/ui/domains/${domain.id}/schedule`}>
            <Csrf viewer={viewer} />
            <div class="row">
              <div>
                <label for="cron">Cron expression</label>
                <input id="cron" name="cron" type="text" placeholder="0 3 * * *" value={props.preview?.cron ?? domain.schedule ?? ""} />
              </div>
              <div>
                <label for="timezone">Time zone (IANA)</label>
                <input id="timezone" name="timezone" type="text" placeholder="Europe/Berlin" value={props.preview?.timezone ?? domain.schedule_timezone ?? ""} />
              </div>
              <button type="submit" name="action" value="preview" class="secondary">
                Preview
              </button>
              <button type="submit" name="action" value="set">
                Save schedule
              </button>
              {domain.schedule !== null && (
                <button type="submit" name="action" value="clear" class="secondary">
                  Clear schedule
                </button>
              )}
            </div>
          </form>
        )}
      </section>

      <section class="panel" aria-labelledby="defaults">
        <h2 id="defaults">Default options</h2>
        <p class="muted">Used by scheduled crawls, and preselected when starting one here.</p>
        {write ? (
          <form method="post" action={`/ui/domains/${domain.id}/options`}>
            <Csrf viewer={viewer} />
            <OptionBoxes options={domain.default_options} prefix="default" />
            <button type="submit">Save defaults</button>
          </form>
        ) : (
          <ul>
            {OPTION_LABELS.map(([name, label]) => (
              <li>
                {label}: {domain.default_options?.[name] === true ? "yes" : "no"}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}
