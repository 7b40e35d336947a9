/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { STATUS_OF } from "../../api/error-envelope.ts";
import { AppError } from "../../core/errors.ts";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { DomainPage, type DomainPageProps } from "../components/domain-page.tsx";
import { optionsFrom } from "../crawl-option-fields.ts";
import { renderPage } from "../render.ts";
import { can, type UiEnv, type Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { overviewWithError } from "./overview.tsx";

/**
 * A domain's page: how to prove ownership (the three methods with the exact record, file and tag) and the
 * verify button with each method's reason when it fails; the schedule with its next runs (previewed before
 * saving); default crawl options; starting a crawl; its recent crawls. Every change is a plain form posted
 * here and answered with a redirect (or the page again, saying what was wrong).
 */

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

export function domainRouter(domains: DomainsService, crawls: CrawlsService) {
  const router = new Hono<UiEnv>();

  const page = (c: Context<UiEnv>, viewer: Viewer, id: string, extra: Partial<DomainPageProps> = {}, status: 200 | 400 | 403 | 404 | 409 | 422 = 200) => {
    const domain = domains.get(id);
    const recent = can(viewer, "crawls:read") ? crawls.list({ domainId: domain.id }, 1, 10).items : null;
    return renderPage(c, <DomainPage viewer={viewer} domain={domain} crawls={recent} {...extra} />, status);
  };

  /** Runs a change and redirects where it says; a refused one shows the page again with the service's reason. */
  const change = async (c: Context<UiEnv>, viewer: Viewer, id: string, work: () => string | Promise<string>) => {
    let location: string;
    try {
      location = await work();
    } catch (error) {
      if (!(error instanceof AppError) || error.code === "forbidden" || error.code === "not_found") throw error;
      return page(c, viewer, id, { error: { message: error.message, details: error.details } }, STATUS_OF[error.code] as 400);
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
    const name = text(form.name);
    const root = text(form.root_url);
    try {
      const domain = await domains.add({ name, ...(root === "" ? {} : { root_url: root }) });
      return c.redirect(`/ui/domains/${domain.id}?notice=added`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === "forbidden") throw error;
      const detail = error.details?.map((d) => String(d.message ?? "")).filter((m) => m !== "").join("; ");
      const message = detail ? `${error.message}: ${detail}` : error.message;
      return renderPage(c, overviewWithError(domains, crawls, viewer, message, name), STATUS_OF[error.code]);
    }
  });

  router.post("/ui/domains/:id/verify", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    return change(c, viewer, id, async () => {
      await domains.verify(id);
      return `/ui/domains/${id}?notice=verified`;
    });
  });

  router.post("/ui/domains/:id/schedule", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const form = await c.req.parseBody({ all: true });
    if (form.action === "clear") {
      return change(c, viewer, id, () => {
        domains.update(id, { schedule: null, schedule_timezone: null });
        return `/ui/domains/${id}?notice=schedule-cleared`;
      });
    }
    const cron = text(form.cron);
    const timezone = text(form.timezone);
    // Shows the next runs of what was typed without saving it (a POST, so the form token stays out of URLs).
    if (form.action === "preview" && cron !== "") return page(c, viewer, id, { preview: { cron: cron.slice(0, 200), timezone: timezone === "" ? null : timezone } });
    return change(c, viewer, id, () => {
      domains.update(id, { schedule: cron === "" ? null : cron.slice(0, 200), schedule_timezone: timezone === "" ? null : timezone.slice(0, 100) });
      return `/ui/domains/${id}?notice=${cron === "" ? "schedule-cleared" : "schedule"}`;
    });
  });

  router.post("/ui/domains/:id/options", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    return change(c, viewer, id, () => {
      domains.update(id, { default_options: options });
      return `/ui/domains/${id}?notice=options`;
    });
  });

  router.post("/ui/domains/:id/crawls", async (c) => {
    const viewer = requireUiScope(c, "crawls:write");
    const id = c.req.param("id");
    const options = optionsFrom(await c.req.parseBody({ all: true }));
    return change(c, viewer, id, () => `/ui/crawls/${crawls.start(id, options).id}`);
  });

  return router;
}
