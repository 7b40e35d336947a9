import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Open links keep a Link's fragment (issues 39 and 38): with check_fragments, `/a.html#absent` and `/a.html#gone`
 * on one page are two Links, each broken, carried, dated and fixed on its own, over five real crawls of a
 * loopback site. A crawl without check_fragments does not check a missing fragment (it is carried, not fixed)
 * and matches the rest by the URL without its fragment, so a link to a missing page stays one open link
 * whichever way the option goes.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

let svc: TestService;
let site: LoopbackSite;
let absentWritten = false;
const crawls: any[] = [];

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => html(`<a href="/a.html#absent">absent</a> <a href="/a.html#gone">gone</a> <a href="/b.html#sec">b</a>`),
    "/a.html": () => html(absentWritten ? `<h2 id="absent">here now</h2>` : `<h2 id="present">P</h2>`),
    "/b.html": { status: 404 },
  });
  svc = await startTestService();
  const domainId = await verifiedDomain(svc, site.url("/"));
  const crawl = async (options: Record<string, boolean>) => crawls.push(await waitForCrawl(svc, await startCrawl(svc, domainId, options), 20_000));
  await crawl({ check_fragments: true });
  await crawl({ check_fragments: true });
  absentWritten = true;
  await crawl({ check_fragments: true });
  await crawl({}); // the schedule's defaults: fragments not checked
  await crawl({ check_fragments: true });
}, 60_000); // five crawls of a three-page site
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

/** A crawl's changes as [change, url] and their counts. */
async function changes(crawl: any): Promise<{ meta: any; items: [string, string][] }> {
  const res = await svc.call("GET", `/crawls/${crawl.id}/changes?limit=100`);
  expect(res.status).toBe(200);
  for (const item of res.json.data) expect(item.source_url).toBe(site.url("/"));
  return { meta: res.json.meta, items: res.json.data.map((item: any) => [item.change, item.url]) };
}

/** broken_since of each broken link of a crawl, by URL (all are on the root page). */
async function brokenSince(crawl: any): Promise<Record<string, string>> {
  return Object.fromEntries((await readAll(svc, `/crawls/${crawl.id}/broken`)).map((item) => [item.url, item.broken_since]));
}

test("crawl 2 finds the same fragments missing: nothing new, each dated from crawl 1", async () => {
  const [first, second] = crawls;
  expect(first).toMatchObject({ status: "completed", broken_links: 3, new_broken_links: 3 });
  expect(second).toMatchObject({ status: "completed", broken_links: 3, new_broken_links: 0 });
  expect(await changes(second)).toEqual({
    meta: expect.objectContaining({ against_crawl_id: first.id, total: 0, new_broken: 0, fixed: 0, not_checked: 0 }),
    items: [],
  });
  expect(await brokenSince(second)).toEqual({
    [site.url("/a.html#absent")]: first.started_at,
    [site.url("/a.html#gone")]: first.started_at,
    [site.url("/b.html#sec")]: first.started_at,
  });
});

test("crawl 3 finds #absent on the page: that Link fixed, its sibling #gone still broken since crawl 1", async () => {
  const [first, , third] = crawls;
  expect(third).toMatchObject({ broken_links: 2, new_broken_links: 0 });
  expect(await changes(third)).toEqual({
    meta: expect.objectContaining({ new_broken: 0, fixed: 1, not_checked: 0 }),
    items: [["fixed", site.url("/a.html#absent")]],
  });
  expect(await brokenSince(third)).toEqual({ [site.url("/a.html#gone")]: first.started_at, [site.url("/b.html#sec")]: first.started_at });
});

test("crawl 4 without check_fragments: #gone not checked, not fixed; the missing page is one open link, not new", async () => {
  const [first, , , fourth] = crawls;
  expect(fourth.options).toMatchObject({ check_fragments: false });
  expect(fourth).toMatchObject({ broken_links: 1, new_broken_links: 0 });
  expect(await changes(fourth)).toEqual({
    meta: expect.objectContaining({ new_broken: 0, fixed: 0, not_checked: 1 }),
    items: [["not_checked", site.url("/a.html#gone")]],
  });
  expect(await brokenSince(fourth)).toEqual({ [site.url("/b.html")]: first.started_at });
});

test("crawl 5 checks fragments again: both Links broken as before, nothing new or fixed, dates carried through crawl 4", async () => {
  const [first, , , , fifth] = crawls;
  expect(fifth).toMatchObject({ broken_links: 2, new_broken_links: 0 });
  expect((await changes(fifth)).meta).toMatchObject({ total: 0, new_broken: 0, fixed: 0, not_checked: 0 });
  expect(await brokenSince(fifth)).toEqual({ [site.url("/a.html#gone")]: first.started_at, [site.url("/b.html#sec")]: first.started_at });
});
