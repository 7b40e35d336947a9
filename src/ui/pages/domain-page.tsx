/** @jsxImportSource hono/jsx */
import type { DomainView } from "../../services/domain-view.ts";
import type { CrawlBriefView, CrawlSummaryView } from "../../services/crawl-view.ts";
import { count } from "../format.ts";
import { safeHref } from "../safe-url.ts";
import { can, type Viewer } from "../ui-env.ts";
import { DomainSettings, OptionBoxes, RefusedHere, type DomainDraft, type DomainForm } from "../components/domain-settings.tsx";
import { Columns, Csrf, CrawlStatusBadge, Notice, StatusBadge } from "../components/layout.tsx";
import type { Problem } from "../form-problem.ts";
import { Ago, Time } from "../components/local-time.tsx";
import { Breakable } from "../components/crawled-url.tsx";
import { ConfirmPage } from "../components/confirm-page.tsx";
import { FormError } from "../components/form-error.tsx";
import { FAILURE_WORDS, FailureReason, LastCompleted } from "../components/crawl-outcome.tsx";

/**
 * A domain's page: the verification methods and the verify button, starting a crawl, recent crawls, then its
 * settings (domain-settings.tsx). Forms are shown only to keys that may use them.
 */

const VERIFY_NEXT = "Publish one of the verification records below, then press Verify.";

/** What a notice says, from the domain as it is now; undefined for a notice that is not ours. */
function noticeText(notice: string, domain: DomainView): string | undefined {
  const root = domain.root_url;
  const next = domain.verified ? "" : ` ${VERIFY_NEXT}`;
  switch (notice) {
    case "added":
      return `Domain added. Crawls begin at ${root}.${next}`;
    case "added-https":
      return `Domain added. ${root} answered over HTTPS, so that is the start page.${next}`;
    case "added-http":
      return `Domain added. https://${domain.name}/ did not answer, but ${new URL(root).origin}/ did: the start page is ${root}, over plain HTTP. Change it under Start page if that is wrong.${next}`;
    case "added-unreachable":
      return `Domain added, but neither https:// nor http:// answered on ${domain.name} yet: the start page is ${root}. Change it under Start page if the site uses plain HTTP.${next}`;
    case "verified":
      return "Domain verified: it can be crawled now.";
    case "root":
      return `Start page saved: crawls begin at ${root}.`;
    case "schedule":
      return "Schedule saved.";
    case "schedule-cleared":
      return "Schedule cleared.";
    case "options":
      return "Default options saved.";
    case "rules":
      return "Ignore rules saved: crawls started from now on use them.";
    default:
      return undefined;
  }
}

export interface DomainPageProps {
  viewer: Viewer;
  domain: DomainView;
  crawls: CrawlSummaryView[] | null;
  notice?: string;
  /** A refused form: which one and why. */
  refused?: { form: DomainForm; problem: Problem };
  draft?: DomainDraft;
  preview?: { cron: string; timezone: string | null };
  /** The domain's pending or running crawl: Start crawl is disabled while it runs. */
  active: CrawlSummaryView | null;
  /** The newest crawl when it failed, with the last completed one's numbers to show beside it. */
  failed: { crawl: CrawlBriefView; lastCompleted: CrawlSummaryView | null; lastCompletedPages: number | null } | null;
}

function VerifyPanel(props: DomainPageProps) {
  const { viewer, domain } = props;
  const methods = domain.verification.methods;
  const suggestion = props.refused?.form === "verify" ? props.refused.problem.suggestedRootUrl : undefined;
  return (
    <section class="panel" aria-labelledby="verify">
      <h2 id="verify">Prove this site is yours</h2>
      <p>Publish any one of these, then press Verify. Each method's reason is shown when it fails.</p>
      <RefusedHere refused={props.refused} form="verify" />
      {suggestion !== undefined && can(viewer, "domains:write") && (
        <form method="post" action={`/ui/domains/${domain.id}/root`}>
          <Csrf viewer={viewer} />
          <input type="hidden" name="root_url" value={suggestion} />
          <button type="submit">Use {suggestion} as the start page</button>
        </form>
      )}
      <h3>DNS TXT record</h3>
      <p>
        Name <code>{methods.dns_txt.name}</code>, value <code>{methods.dns_txt.value}</code>
      </p>
      <h3>File on the site</h3>
      <p>
        At{" "}
        <code class="url">
          <Breakable text={methods.http_file.url} />
        </code>{" "}
        serve exactly:
      </p>
      <pre>{methods.http_file.body}</pre>
      <h3>Meta tag in the start page's head</h3>
      <pre>{methods.meta_tag.html}</pre>
      {can(viewer, "domains:write") && (
        <form method="post" action={`/ui/domains/${domain.id}/verify`}>
          <Csrf viewer={viewer} />
          <button type="submit">Verify</button>
        </form>
      )}
    </section>
  );
}

function RecentCrawls(props: { crawls: CrawlSummaryView[] }) {
  return (
    <section aria-labelledby="crawls">
      <h2 id="crawls">Recent crawls</h2>
      {props.crawls.length === 0 ? (
        <p class="muted">No crawl yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <Columns names={["Started", "Status", "Outcome|hide-narrow", "Links|num", "Broken|num"]} />
            <tbody>
              {props.crawls.map((crawl) => (
                <tr>
                  <td>
                    <a href={`/ui/crawls/${crawl.id}`}>
                      <Time iso={crawl.created_at} />
                    </a>
                  </td>
                  <td>
                    <CrawlStatusBadge status={crawl.status} failure={crawl.failure} />
                  </td>
                  <td class="hide-narrow">{crawl.failure === null ? (crawl.status === "completed" ? "done" : "in progress") : FAILURE_WORDS[crawl.failure]}</td>
                  <td class="num">{count(crawl.total_links)}</td>
                  <td class="num">{count(crawl.broken_links)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The newest crawl failed: why, and the numbers of the last one that completed, so its zeros do not read as "all fine". */
function LatestFailed(props: NonNullable<DomainPageProps["failed"]>) {
  const cancelled = props.crawl.failure === "cancelled";
  return (
    <div class={cancelled ? "notice" : "notice error"} id="latest-failed" role="status">
      <p>
        The latest crawl (
        <a href={`/ui/crawls/${props.crawl.id}`}>
          started <Ago iso={props.crawl.created_at} />
        </a>
        ): <FailureReason failure={props.crawl.failure} error={props.crawl.error} />
      </p>
      <p>
        <LastCompleted crawl={props.lastCompleted} pages={props.lastCompletedPages} />
      </p>
    </div>
  );
}

/** Start a crawl: the options and the button, disabled (and saying why) while it cannot be used. */
function StartPanel(props: DomainPageProps) {
  const { viewer, domain, active } = props;
  const blocked = !domain.verified || active !== null;
  return (
    <section class="panel" aria-labelledby="start">
      <h2 id="start">Start a crawl</h2>
      <RefusedHere refused={props.refused} form="crawl" />
      {!domain.verified && (
        <p class="muted" id="start-blocked">
          Verify the domain first: only a verified domain can be crawled.
        </p>
      )}
      {domain.verified && active !== null && (
        <p class="notice" id="start-blocked" role="status">
          A crawl of this domain is {active.status === "pending" ? "waiting to start" : "running"} (created <Ago iso={active.created_at} />
          ): another can start once it ends. <a href={`/ui/crawls/${active.id}`}>View the running crawl</a>
        </p>
      )}
      <form method="post" action={`/ui/domains/${domain.id}/crawls`}>
        <Csrf viewer={viewer} />
        <OptionBoxes options={domain.default_options} prefix="start" />
        <button type="submit" disabled={blocked} aria-disabled={blocked ? "true" : undefined} aria-describedby={blocked ? "start-blocked" : undefined}>
          Start crawl
        </button>
      </form>
    </section>
  );
}

export function DomainPage(props: DomainPageProps) {
  const { viewer, domain } = props;
  const rootHref = safeHref(domain.root_url);
  return (
    <>
      <p>
        <a href="/">← Overview</a>
      </p>
      <h1>{domain.name}</h1>
      <p>
        Start page:{" "}
        {rootHref === undefined ? (
          <code class="url">
            <Breakable text={domain.root_url} />
          </code>
        ) : (
          <a class="url" href={rootHref} rel="noreferrer noopener">
            <Breakable text={domain.root_url} />
          </a>
        )}{" "}
        <StatusBadge status={domain.verified ? "verified" : "unverified"} />
        {domain.verified && (
          <span class="muted">
            {" "}
            by {domain.verified_by} on <Time iso={domain.verified_at} />
          </span>
        )}
      </p>
      <Notice text={props.notice === undefined ? undefined : noticeText(props.notice, domain)} />

      {!domain.verified && <VerifyPanel {...props} />}

      {props.failed !== null && <LatestFailed {...props.failed} />}

      {can(viewer, "crawls:write") && <StartPanel {...props} />}

      {props.crawls !== null && <RecentCrawls crawls={props.crawls} />}

      <DomainSettings viewer={viewer} domain={domain} refused={props.refused} draft={props.draft} preview={props.preview} />
    </>
  );
}

/** The confirmation of a domain's delete: what goes with it, and the running crawl that would stop it. */
export function DeleteDomainPage(props: { viewer: Viewer; domain: DomainView; history: number; running: CrawlSummaryView | undefined; refused?: Problem }) {
  const { domain, history, running } = props;
  return (
    <ConfirmPage
      viewer={props.viewer}
      title={`Delete ${domain.name}?`}
      action={`/ui/domains/${domain.id}/delete`}
      button="Delete domain and its history"
      back={`/ui/domains/${domain.id}`}
    >
      <p>
        This removes <strong>{domain.name}</strong> ({domain.root_url}) with its {history} crawl{history === 1 ? "" : "s"}, every link they found, and its
        schedule and rules. It cannot be undone; its webhooks are not touched.
      </p>
      {running !== undefined ? (
        <p class="notice error" role="alert">
          A crawl of this domain is in progress: it cannot be deleted until that crawl ends.{" "}
          <a href={`/ui/crawls/${running.id}`}>Open the crawl to cancel it</a>, or wait for it to end.
        </p>
      ) : (
        props.refused !== undefined && <FormError problem={props.refused} />
      )}
    </ConfirmPage>
  );
}
