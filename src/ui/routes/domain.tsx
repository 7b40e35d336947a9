/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { CrawlInProgressError, type ErrorStatus } from "../../core/errors.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { DomainsService, SchemeChoice } from "../../services/domains.service.ts";
import { ConfirmPage } from "../components/confirm-page.tsx";
import { DomainPage, type DomainPageProps } from "../components/domain-page.tsx";
import type { DomainDraft, DomainForm } from "../components/domain-settings.tsx";
import { optionsFrom } from "../crawl-option-fields.ts";
import { problemOf } from "../form-problem.ts";
import { renderPage } from "../render.ts";
import { can, type UiEnv, type Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { overviewWithError } from "./overview.tsx";

/**
 * A domain's page and its forms: add (a URL or a host), verify, start a crawl, the start page, the schedule
 * (previewed before saving), default options, ignore rules, and delete (after a confirmation page). Every change
 * is a plain form posted here and answered with a redirect, or with the page again saying in plain words what
 * was wrong, beside the form, with what was typed still in it.
 */

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** A textarea's lines: one pattern per line, blank lines and surrounding spaces dropped. */
const lines = (value: string) =>
  value
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** Why each form is refused, in the sentence that starts its message. */
const REFUSED: Record<DomainForm, string> = {
  verify: "The domain could not be verified: none of the three proofs was found.",
  crawl: "The crawl was not started.",
  root: "The start page was not saved.",
  schedule: "The schedule was not saved.",
  options: "The default options were not saved.",
  rules: "The ignore rules were not saved.",
};

/** The notice that says how a typed site's start page was chosen. */
const ADDED_NOTICE: Record<SchemeChoice["kind"], string> = {
  as_typed: "added",
  https: "added-https",
  http: "added-http",
  unreachable: "added-unreachable",
};

type Status = 200 | ErrorStatus;

export function domainRouter(domains: DomainsService, crawls: CrawlsService) {
  const router = new Hono<UiEnv>();

  const page = (c: Context<UiEnv>, viewer: Viewer, id: string, extra: Partial<DomainPageProps> = {}, status: Status = 200) => {
    const domain = domains.get(id);
    const readable = can(viewer, "crawls:read");
    const recent = readable ? crawls.list({ domainId: domain.id }, 1, 10).items : null;
    const active = crawls.active(domain.id);
    const newest = recent?.[0];
    let failed: DomainPageProps["failed"] = null;
    if (newest !== undefined && newest.status === "failed") {
      const lastCompleted = crawls.lastCompleted(domain.id);
      failed = { crawl: crawls.brief(newest.id), lastCompleted, lastCompletedPages: lastCompleted === null ? null : crawls.brief(lastCompleted.id).pages_crawled };
    }
    return renderPage(c, <DomainPage viewer={viewer} domain={domain} crawls={recent} active={active} failed={failed} {...extra} />, status);
  };

  /** Runs the change of `form` and redirects where it says; a refused one shows the page again with the reason and the draft. */
  const change = async (c: Context<UiEnv>, viewer: Viewer, id: string, form: DomainForm, work: () => string | Promise<string>, draft?: DomainDraft) => {
    let location: string;
    try {
      location = await work();
    } catch (error) {
      const { problem, status } = problemOf(error, REFUSED[form]);
      return page(c, viewer, id, { refused: { form, problem }, draft }, status);
    }
    return c.redirect(location, 303);
  };

  router.get("/ui/domains/:id", (c) => {
    const viewer = requireUiScope(c, "domains:read");
    const cron = c.req.query("cron");
    const timezone = c.req.query("timezone")?.trim() || null;
    const preview = cron !== undefined && cron.trim() !== "" ? { cron: cron.trim().slice(0, 200), timezone } : undefined;
    return page(c, viewer, c.req.param("id"), { notice: c.req.query("notice"), preview });
  });

  router.post("/ui/domains", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const form = await c.req.parseBody({ all: true });
    const name = text(form.name).slice(0, 2048);
    const root = text(form.root_url).slice(0, 2048);
    try {
      const { domain, choice } = await domains.addSite(name, root === "" ? null : root);
      return c.redirect(`/ui/domains/${domain.id}?notice=${ADDED_NOTICE[choice.kind]}`, 303);
    } catch (error) {
      const { problem, status } = problemOf(error, "The site was not added.");
      return renderPage(c, overviewWithError(domains, crawls, viewer, problem, { name, root_url: root }), status);
    }
  });

  router.post("/ui/domains/:id/verify", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    return change(c, viewer, id, "verify", async () => {
      await domains.verify(id);
      return `/ui/domains/${id}?notice=verified`;
    });
  });

  router.post("/ui/domains/:id/root", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const rootUrl = text((await c.req.parseBody({ all: true })).root_url).slice(0, 2048);
    return change(
      c,
      viewer,
      id,
      "root",
      async () => {
        await domains.edit(id, { root_url: rootUrl });
        return `/ui/domains/${id}?notice=root`;
      },
      { root_url: rootUrl },
    );
  });

  router.post("/ui/domains/:id/schedule", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const form = await c.req.parseBody({ all: true });
    if (form.action === "clear") {
      return change(c, viewer, id, "schedule", () => {
        domains.update(id, { schedule: null, schedule_timezone: null });
        return `/ui/domains/${id}?notice=schedule-cleared`;
      });
    }
    const cron = text(form.cron).slice(0, 200);
    const timezone = text(form.timezone).slice(0, 100);
    // Shows the next runs of what was typed without saving it (a POST, so the form token stays out of URLs).
    if (form.action === "preview" && cron !== "") return page(c, viewer, id, { preview: { cron, timezone: timezone === "" ? null : timezone } });
    return change(
      c,
      viewer,
      id,
      "schedule",
      () => {
        domains.update(id, { schedule: cron === "" ? null : cron, schedule_timezone: timezone === "" ? null : timezone });
        return `/ui/domains/${id}?notice=${cron === "" ? "schedule-cleared" : "schedule"}`;
      },
      { cron, timezone },
    );
  });

  router.post("/ui/domains/:id/options", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    return change(c, viewer, id, "options", () => {
      domains.update(id, { default_options: options });
      return `/ui/domains/${id}?notice=options`;
    });
  });

  router.post("/ui/domains/:id/rules", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const form = await c.req.parseBody({ all: true });
    // Bounded before splitting: the service refuses more than 100 patterns of 500 characters anyway.
    const exclude = text(form.exclude).slice(0, 100_000);
    const mute = text(form.mute).slice(0, 100_000);
    return change(
      c,
      viewer,
      id,
      "rules",
      () => {
        domains.update(id, { ignore_rules: { exclude: lines(exclude), mute: lines(mute) } });
        return `/ui/domains/${id}?notice=rules`;
      },
      { exclude, mute },
    );
  });

  router.post("/ui/domains/:id/crawls", async (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    try {
      return c.redirect(`/ui/crawls/${crawls.start(id, options, "dashboard").id}`, 303);
    } catch (error) {
      // A start that raced another: said in words; the page links the running crawl beside the form.
      if (!(error instanceof CrawlInProgressError)) return change(c, viewer, id, "crawl", () => Promise.reject(error));
      const problem = { message: "The crawl was not started: a crawl of this domain is already in progress. Open it from the link below.", lines: [] };
      return page(c, viewer, id, { refused: { form: "crawl", problem } }, 409);
    }
  });

  router.get("/ui/domains/:id/delete", (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const domain = domains.get(c.req.param("id"));
    return renderPage(c, <DeleteDomainPage viewer={viewer} domain={domain} crawls={crawls} />);
  });

  router.post("/ui/domains/:id/delete", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const domain = domains.get(c.req.param("id"));
    try {
      await domains.delete(domain.id);
    } catch (error) {
      if (!(error instanceof CrawlInProgressError)) throw error;
      return renderPage(c, <DeleteDomainPage viewer={viewer} domain={domain} crawls={crawls} />, 409);
    }
    return c.redirect("/?notice=deleted", 303);
  });

  return router;
}

/** The confirmation of a domain's delete: what goes with it, and the running crawl that would stop it. */
function DeleteDomainPage(props: { viewer: Viewer; domain: ReturnType<DomainsService["get"]>; crawls: CrawlsService }) {
  const { domain } = props;
  const history = props.crawls.list({ domainId: domain.id }, 1, 1).total;
  const running = [...props.crawls.list({ domainId: domain.id, status: "running" }, 1, 1).items, ...props.crawls.list({ domainId: domain.id, status: "pending" }, 1, 1).items][0];
  return (
    <ConfirmPage viewer={props.viewer} title={`Delete ${domain.name}?`} action={`/ui/domains/${domain.id}/delete`} button="Delete domain and its history" back={`/ui/domains/${domain.id}`}>
      <p>
        This removes <strong>{domain.name}</strong> ({domain.root_url}) with its {history} crawl{history === 1 ? "" : "s"}, every link they found, and
        its schedule and rules. It cannot be undone; its webhooks are not touched.
      </p>
      {running !== undefined && (
        <p class="notice error" role="alert">
          A crawl of this domain is in progress: it cannot be deleted until that crawl ends.{" "}
          <a href={`/ui/crawls/${running.id}`}>Open the crawl to cancel it</a>, or wait for it to end.
        </p>
      )}
    </ConfirmPage>
  );
}
