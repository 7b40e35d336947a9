import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A soft 404 found broken (soft_404_broken) is checked by a later crawl only when that crawl's soft-404 probe
 * could tell a missing page from a real one: a crawl whose probe was blind (here: the site answers missing URLs
 * with a different page each time) sees the link answer 200 like any page, and must list it as not checked,
 * never as fixed, and carry its broken_since. Over real crawls of one loopback site whose not-found handling
 * changes between crawls.
 */

let svc: TestService;
let site: LoopbackSite;
/** How the site answers a path it has no page for. */
let missing: "not_found_page" | "random" = "not_found_page";
/** /gone-1 is a real page (the link is fixed). */
let restored = false;

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
const NAV = `<nav><a href="/">Home</a> <a href="/real">Docs</a></nav><footer>© Example Corp — all rights reserved</footer>`;
const layout = (title: string, main: string) => `<!doctype html><html><head><title>${title}</title></head><body>${NAV}<main>${main}</main></body></html>`;
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];
const babble = () => Array.from({ length: 60 }, () => WORDS[Math.floor(Math.random() * WORDS.length)]).join(" ");

function fallback(request: Request): Response {
  if (missing === "random") return html(`<title>${babble().slice(0, 30)}</title><p>${babble()}</p>`);
  const path = new URL(request.url).pathname;
  return html(layout("Page not found", `<h1>Oops</h1><p>Sorry, the page ${path} does not exist on this site. Try the search box or go back home.</p>`));
}

beforeAll(async () => {
  site = await startLoopbackSite(
    {
      "/": () => html(layout("Example home", `<p>Welcome to the example site, a place with many pages about many things.</p><a href="/gone-1">old</a>`)),
      "/real": () => html(layout("Documentation", `<p>${"The documentation explains every option in detail. ".repeat(30)}</p>`)),
      "/gone-1": (request) => (restored ? html(layout("Old news", `<p>${"The old page is back with all of its news. ".repeat(20)}</p>`)) : fallback(request)),
    },
    { fallback },
  );
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

async function changes(crawlId: string): Promise<{ meta: any; items: [string, string][] }> {
  const res = await svc.call("GET", `/crawls/${crawlId}/changes?limit=100`);
  expect(res.status).toBe(200);
  return { meta: res.json.meta, items: res.json.data.map((item: any) => [item.change, new URL(item.url).pathname]) };
}

test("a crawl whose probe could not tell lists an earlier soft 404 as not checked, never fixed; the next crawl that can tell carries its date", async () => {
  const domainId = await verifiedDomain(svc, site.url("/"));
  const crawl = async () => waitForCrawl(svc, await startCrawl(svc, domainId, { soft_404_broken: true }));

  const first = await crawl();
  expect(first).toMatchObject({ status: "completed", broken_links: 1, new_broken_links: 1, warnings: [] });

  missing = "random";
  const blind = await crawl();
  expect(blind).toMatchObject({ status: "completed", broken_links: 0, new_broken_links: 0 });
  expect(blind.warnings.some((w: string) => w.includes("with a different page each time"))).toBe(true);
  expect(await changes(blind.id)).toEqual({
    meta: { page: 1, limit: 100, total: 1, against_crawl_id: first.id, new_broken: 0, fixed: 0, not_checked: 1, final: true },
    items: [["not_checked", "/gone-1"]],
  });

  missing = "not_found_page";
  const again = await crawl();
  expect(again).toMatchObject({ status: "completed", broken_links: 1, new_broken_links: 0, warnings: [] });
  const broken = await readAll(svc, `/crawls/${again.id}/broken`);
  expect(broken.map((link) => [new URL(link.url).pathname, link.broken_since])).toEqual([["/gone-1", first.started_at]]);

  // A probe that can tell, and the page is real again: fixed.
  restored = true;
  const fixed = await crawl();
  expect(fixed).toMatchObject({ status: "completed", broken_links: 0, warnings: [] });
  expect((await changes(fixed.id)).items).toEqual([["fixed", "/gone-1"]]);
}, 30_000); // four crawls of a three-page site
