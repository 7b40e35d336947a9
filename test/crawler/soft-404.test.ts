import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Soft 404s over real sockets. A site whose missing pages answer 200 with a "not found" page (which repeats the
 * path asked for): links to such pages carry a `soft_404:` warning, or are broken with soft_404_broken; real
 * pages that share its template, thin ones included, are not flagged, nor is the start page, and a soft 404's
 * own links are not followed. A site that answers 404 gets one probe and no warning. A single-page app that
 * answers every path with its start page gets no flag on any page, and a crawl warning that missing pages
 * answer 200.
 */

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
const NAV = `<nav><a href="/">Home</a> <a href="/real">Docs</a> <a href="/thin">Contact</a></nav><footer>© Example Corp — all rights reserved — made with care</footer>`;
const layout = (title: string, main: string) => `<!doctype html><html><head><title>${title}</title><script>var x = "${"noise ".repeat(20)}";</script></head><body>${NAV}<main>${main}</main></body></html>`;

let svc: TestService;
let soft: LoopbackSite;
let plain: LoopbackSite;
let spa: LoopbackSite;

function notFoundPage(request: Request): Response {
  const path = new URL(request.url).pathname;
  return html(layout("Page not found", `<h1>Oops</h1><p>Sorry, the page ${path} does not exist on this site. Try the search box or go back home.</p><a href="more/help.html">help</a>`));
}

beforeAll(async () => {
  soft = await startLoopbackSite(
    {
      "/": () => html(layout("Example home", `<p>Welcome to the example site, a place with many pages about many things.</p><a href="/gone-1">old</a> <a href="/gone/2?x=1">older</a> <a href="/moved">moved</a>`)),
      "/real": () => html(layout("Documentation", `<p>${"The documentation explains every option in detail. ".repeat(30)}</p>`)),
      "/thin": () => html(layout("Contact", "<p>Write to us.</p>")),
      "/moved": () => new Response(null, { status: 302, headers: { location: "/gone-3" } }),
    },
    { fallback: notFoundPage },
  );
  plain = await startLoopbackSite({
    "/": () => html(layout("Home", `<a href="/real">real</a> <a href="/missing">missing</a>`)),
    "/real": () => html(layout("Real", "<p>real page</p>")),
  });
  const shell = layout("My App", `<div id="root"></div><noscript>You need JavaScript to run this app.</noscript>`).replace("</main>", `<a href="/app/settings">Settings</a> <a href="/app/profile">Profile</a></main>`);
  spa = await startLoopbackSite({}, { fallback: () => html(shell) });
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
  for (const site of [soft, plain, spa]) await site?.stop();
});

async function crawlOf(site: LoopbackSite, options: Record<string, boolean> = {}) {
  const id = await startCrawl(svc, await domainOf(site), options);
  const crawl = await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  const byPath = Object.fromEntries(links.map((link) => [new URL(link.url).pathname + new URL(link.url).search, link]));
  return { crawl, links, byPath, broken: await readAll(svc, `/crawls/${id}/broken`) };
}

const domains = new Map<LoopbackSite, string>();
async function domainOf(site: LoopbackSite): Promise<string> {
  if (!domains.has(site)) domains.set(site, await verifiedDomain(svc, site.url("/")));
  return domains.get(site)!;
}

describe("a site whose missing pages answer 200", () => {
  test("links to its not-found page carry a soft_404 warning and are not broken", async () => {
    const { crawl, byPath } = await crawlOf(soft);
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    for (const path of ["/gone-1", "/gone/2?x=1", "/moved"]) {
      expect(byPath[path]).toMatchObject({ status_code: 200, is_broken: false });
      expect(byPath[path].warning).toStartWith("soft_404: ");
    }
    // Real pages with the same template, a thin one included, and the start page are not flagged.
    for (const path of ["/", "/real", "/thin"]) expect(byPath[path].warning).toBeNull();
    // One probe per crawl run.
    expect(soft.requests.filter((line) => line.startsWith("GET /linkpatrol-missing-"))).toHaveLength(1);
    // A soft 404's links (relative ones resolve under a URL that does not exist) are not followed.
    expect(soft.requests.some((line) => line.includes("/more/help.html"))).toBe(false);
  });

  test("with soft_404_broken they are broken links, listed by /broken", async () => {
    const { crawl, broken } = await crawlOf(soft, { soft_404_broken: true });
    expect(crawl.broken_links).toBe(3);
    expect(broken.map((link) => new URL(link.url).pathname).sort()).toEqual(["/gone-1", "/gone/2", "/moved"]);
    expect(broken.every((link) => link.status_code === 200 && link.warning.startsWith("soft_404: "))).toBe(true);
  });
});

describe("a site that answers 404", () => {
  test("gets one probe and no soft_404 warning", async () => {
    const { crawl, links } = await crawlOf(plain, { soft_404_broken: true });
    expect(crawl).toMatchObject({ status: "completed", broken_links: 3, warnings: [] }); // /missing, and /thin from two pages
    expect(links.filter((link) => link.warning !== null)).toEqual([]);
    expect(plain.requests.filter((line) => line.startsWith("GET /linkpatrol-missing-"))).toHaveLength(1);
    // Nothing to compare with, so the start page is not fetched a second time.
    expect(plain.requests.filter((line) => line === "GET /")).toHaveLength(1);
  });
});

describe("a single-page app that answers every path with its start page", () => {
  test("no page is flagged, and the crawl warns that missing pages answer 200", async () => {
    const { crawl, links } = await crawlOf(spa, { soft_404_broken: true });
    expect(crawl).toMatchObject({ status: "completed", broken_links: 0 });
    expect(links.length).toBeGreaterThan(2);
    expect(links.filter((link) => link.warning !== null)).toEqual([]);
    expect(crawl.warnings.some((w: string) => w.startsWith("the site answers HTTP 200 with its start page for a URL that does not exist"))).toBe(true);
  });
});
