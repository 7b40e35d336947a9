import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A target first found as an image and then, while its HEAD check is in flight, found as an anchor is a page:
 * the HEAD result is not recorded, and the target is fetched again with GET and parsed. Without that, whether
 * the page is parsed would depend on timing, and a resumed crawl could end with other totals.
 */

let site: LoopbackSite;
let svc: TestService;
let crawl: any;
let links: any[];

beforeAll(async () => {
  const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
  site = await startLoopbackSite({
    "/": () => html(`<img src="/p" alt="P as image"> <a href="/a">A</a>`),
    "/a": () => html(`<a href="/p">P as page</a>`),
    "/p": async (request) => {
      if (request.method === "HEAD") {
        // Still in flight when /a is recorded: answered once /a's anchor has made the queued /p a page (bounded).
        const promoted = svc.runtime.store.sqlite!.query("SELECT 1 FROM crawl_targets WHERE url = ? AND as_page = 1");
        for (let i = 0; i < 500 && promoted.get(site.url("/p")) === null; i++) await Bun.sleep(20);
      }
      return html(`<a href="/q">Q</a>`);
    },
    "/q": () => html("end"),
  });
  // header_timeout well above the held HEAD's wait, so the hold and not the crawler decides when it answers.
  svc = await startTestService({ crawler: { header_timeout: "30s" } });
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { scan_images: true });
  crawl = await waitForCrawl(svc, id);
  links = await readAll(svc, `/crawls/${id}/links`);
}, 20_000);
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

test("the target is parsed as a page after all", () => {
  expect(site.requests.filter((line) => line.endsWith(" /p"))).toEqual(["HEAD /p", "GET /p"]);
  expect(crawl).toMatchObject({ status: "completed", pages_crawled: 4, total_links: 4, broken_links: 0 });
  expect(links.map((link) => `${new URL(link.source_url).pathname} → ${new URL(link.url).pathname} (${link.kind})`).sort()).toEqual([
    "/ → /a (anchor)",
    "/ → /p (image)",
    "/a → /p (anchor)",
    "/p → /q (anchor)",
  ]);
});
