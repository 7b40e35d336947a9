import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * robots.txt applies to every request, redirect hops included: a link that redirects into a disallowed path
 * is recorded with the redirect's own answer and a warning, and the disallowed URL is never fetched or parsed.
 */

let site: LoopbackSite;
let svc: TestService;
let crawl: any;
let links: any[];

beforeAll(async () => {
  const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
  site = await startLoopbackSite({
    "/robots.txt": { body: "User-agent: *\nDisallow: /private\n", headers: { "content-type": "text/plain" } },
    "/": () => html(`<a href="/go">Go</a> <a href="/private/direct">Direct</a>`),
    "/go": () => new Response(null, { status: 301, headers: { location: "/private/page" } }),
    "/private/page": () => html(`<a href="/private/deeper">deeper</a>`),
  });
  svc = await startTestService();
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  crawl = await waitForCrawl(svc, id);
  links = await readAll(svc, `/crawls/${id}/links`);
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

test("the disallowed redirect target is never requested", () => {
  expect(site.requests.filter((line) => line.includes("/private"))).toEqual([]);
});

test("the redirecting link is recorded with the 301 and a warning; the disallowed link is skipped", () => {
  expect(crawl).toMatchObject({ status: "completed", pages_crawled: 1, total_links: 1, broken_links: 0, skipped_links: 1 });
  expect(links).toHaveLength(1);
  expect(links[0]).toMatchObject({ url: site.url("/go"), status_code: 301, is_broken: false, final_url: site.url("/go") });
  expect(links[0].warning).toBe(`redirects to ${site.url("/private/page")}, which robots.txt disallows; not followed`);
});
