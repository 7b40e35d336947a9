/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import type { DomainDraft, DomainForm } from "../components/domain-settings.tsx";
import { optionsFrom } from "../crawl-option-fields.ts";
import { showAgain, type Problem, type Refusal } from "../form-problem.ts";
import { DeleteDomainPage, DomainPage, type DomainPageProps } from "../pages/domain-page.tsx";
import { can, type UiEnv, type Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";

/**
 * A domain's page and its forms: verify, start a crawl, the start page, the schedule
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
const REFUSED: Record<DomainForm, string | Refusal> = {
  verify: "The domain could not be verified: none of the three proofs was found.",
  crawl: {
    sentence: "The crawl was not started.",
    // A start that raced another: said in words; the page links the running crawl beside the form.
    explained: { crawl_in_progress: "The crawl was not started: a crawl of this domain is already in progress. Open it from the link below." },
  },
  root: "The start page was not saved.",
  schedule: "The schedule was not saved.",
  options: "The default options were not saved.",
  rules: "The ignore rules were not saved.",
};

export function domainRouter(domains: DomainsService, crawls: CrawlsService) {
  const router = new Hono<UiEnv>();

  const page = async (c: Context<UiEnv>, viewer: Viewer, id: string, extra: Partial<DomainPageProps> = {}) => {
    const domain = await domains.get(id);
    const readable = can(viewer, "crawls:read");
    const recent = readable ? (await crawls.list({ domainId: domain.id }, 1, 10)).items : null;
    const active = await crawls.active(domain.id);
    const newest = recent?.[0];
    let failed: DomainPageProps["failed"] = null;
    if (newest !== undefined && newest.status === "failed") {
      const lastCompleted = await crawls.lastCompleted(domain.id);
      failed = {
        crawl: await crawls.brief(newest.id),
        lastCompleted,
        lastCompletedPages: lastCompleted === null ? null : (await crawls.brief(lastCompleted.id)).pages_crawled,
      };
    }
    return c.render(<DomainPage viewer={viewer} domain={domain} crawls={recent} active={active} failed={failed} {...extra} />, { title: domain.name });
  };

  /** Runs the change of `form` and redirects where it says; a refused one shows the page again with the reason and the draft. */
  const change = async (c: Context<UiEnv>, viewer: Viewer, id: string, form: DomainForm, work: () => string | Promise<string>, draft?: DomainDraft) => {
    try {
      return c.redirect(await work(), 303);
    } catch (error) {
      return showAgain(c, error, REFUSED[form], (problem) => page(c, viewer, id, { refused: { form, problem }, draft }));
    }
  };

  /** The confirmation of a domain's delete, with its history's size and the crawl that would stop it. */
  const deletePage = async (c: Context<UiEnv>, viewer: Viewer, domain: Awaited<ReturnType<DomainsService["get"]>>, refused?: Problem) => {
    const history = (await crawls.list({ domainId: domain.id }, 1, 1)).total;
    const running = [
      ...(await crawls.list({ domainId: domain.id, status: "running" }, 1, 1)).items,
      ...(await crawls.list({ domainId: domain.id, status: "pending" }, 1, 1)).items,
    ][0];
    return c.render(<DeleteDomainPage viewer={viewer} domain={domain} history={history} running={running} refused={refused} />, {
      title: `Delete ${domain.name}?`,
    });
  };

  router.get("/ui/domains/:id", (c) => {
    const viewer = requireUiScope(c, "domains:read");
    const cron = c.req.query("cron");
    const timezone = c.req.query("timezone")?.trim() || null;
    const preview = cron !== undefined && cron.trim() !== "" ? { cron: cron.trim().slice(0, 200), timezone } : undefined;
    return page(c, viewer, c.req.param("id"), { notice: c.req.query("notice"), preview });
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
      return change(c, viewer, id, "schedule", async () => {
        await domains.update(id, { schedule: null, schedule_timezone: null });
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
      async () => {
        await domains.update(id, { schedule: cron === "" ? null : cron, schedule_timezone: timezone === "" ? null : timezone });
        return `/ui/domains/${id}?notice=${cron === "" ? "schedule-cleared" : "schedule"}`;
      },
      { cron, timezone },
    );
  });

  router.post("/ui/domains/:id/options", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    return change(c, viewer, id, "options", async () => {
      await domains.update(id, { default_options: options });
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
      async () => {
        await domains.update(id, { ignore_rules: { exclude: lines(exclude), mute: lines(mute) } });
        return `/ui/domains/${id}?notice=rules`;
      },
      { exclude, mute },
    );
  });

  router.post("/ui/domains/:id/crawls", async (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    return change(c, viewer, id, "crawl", async () => `/ui/crawls/${(await crawls.start(id, options, "dashboard")).id}`);
  });

  router.get("/ui/domains/:id/delete", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    return deletePage(c, viewer, await domains.get(c.req.param("id")));
  });

  router.post("/ui/domains/:id/delete", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const domain = await domains.get(c.req.param("id"));
    try {
      await domains.delete(domain.id);
    } catch (error) {
      return showAgain(c, error, "The domain was not deleted.", (problem) => deletePage(c, viewer, domain, problem));
    }
    return c.redirect("/?notice=deleted", 303);
  });

  return router;
}
