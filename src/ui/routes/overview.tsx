/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { CrawlsService } from "../../services/crawls.service.ts";
import type { DomainsService, SchemeChoice } from "../../services/domains.service.ts";
import { showAgain } from "../form-problem.ts";
import { DOMAINS_PER_PAGE, Overview } from "../pages/overview-page.tsx";
import type { UiEnv } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { pageQuery } from "./delivery-target.ts";

/** The overview at `/` and its form to add a site (a URL or a host). */

const TREND_CRAWLS = 10;

/** The notice that says how a typed site's start page was chosen. */
const ADDED_NOTICE: Record<SchemeChoice["kind"], string> = {
  as_typed: "added",
  https: "added-https",
  http: "added-http",
  unreachable: "added-unreachable",
};

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** The rows of the overview: each domain with its last crawl and its recent crawls for the trend. */
async function overviewRows(domains: DomainsService, crawls: CrawlsService, page: number) {
  const list = await domains.list(page, DOMAINS_PER_PAGE);
  const rows = await Promise.all(
    list.items.map(async (domain) => {
      const last = domain.last_crawl_id === null ? null : await crawls.brief(domain.last_crawl_id);
      const completed = last?.status === "failed" ? await crawls.lastCompleted(domain.id) : null;
      const shown = last?.status === "failed" ? completed : last;
      return {
        domain,
        last,
        recent: (await crawls.list({ domainId: domain.id }, 1, TREND_CRAWLS)).items,
        completed: completed === null ? null : await crawls.brief(completed.id),
        // Broken links the shown crawl did not check are outside its count: the row says so, or a drop reads as fixes.
        notChecked: shown === null ? 0 : await crawls.notCheckedCount(shown.id),
      };
    }),
  );
  return { rows, total: list.total };
}

export function overviewRouter(domains: DomainsService, crawls: CrawlsService) {
  const router = new Hono<UiEnv>();
  router.get("/", async (c) => {
    const viewer = requireUiScope(c, "domains:read");
    const page = pageQuery(c);
    const { rows, total } = await overviewRows(domains, crawls, page);
    return c.render(<Overview viewer={viewer} rows={rows} total={total} page={page} notice={c.req.query("notice")} />, { title: "Overview" });
  });
  router.get("/ui", (c) => c.redirect("/", 303));

  router.post("/ui/domains", async (c) => {
    const viewer = requireUiScope(c, "domains:write");
    const form = await c.req.parseBody({ all: true });
    const name = text(form.name).slice(0, 2048);
    const root = text(form.root_url).slice(0, 2048);
    try {
      const { domain, choice } = await domains.addSite(name, root === "" ? null : root);
      return c.redirect(`/ui/domains/${domain.id}?notice=${ADDED_NOTICE[choice.kind]}`, 303);
    } catch (error) {
      return showAgain(c, error, "The site was not added.", async (problem) => {
        const { rows, total } = await overviewRows(domains, crawls, 1);
        return c.render(<Overview viewer={viewer} rows={rows} total={total} page={1} error={problem} draft={{ name, root_url: root }} />, {
          title: "Overview",
        });
      });
    }
  });
  return router;
}
