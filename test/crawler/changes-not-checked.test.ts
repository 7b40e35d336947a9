import { beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { html, serviceWithSites } from "../helpers/service-with-sites.ts";

/**
 * A diff that never calls an unchecked link fixed, and `broken_since` carried from the first crawl that found a
 * link broken, over real crawls of loopback sites: a crawl with other options, a crawl cut by max_pages and a
 * crawl whose start page failed leave the links they did not check "not checked this time" (still open, their
 * date kept), while a crawl that checks a link and finds it good closes it, so its next breakage counts afresh.
 */

const fixture = serviceWithSites();
const { site } = fixture;

async function crawl(domainId: string, options: Record<string, boolean> = {}): Promise<any> {
  return waitForCrawl(fixture.svc, await startCrawl(fixture.svc, domainId, options));
}

async function changes(crawlId: string): Promise<{ meta: any; items: [string, string, string][] }> {
  const res = await fixture.svc.call("GET", `/crawls/${crawlId}/changes?limit=100`);
  expect(res.status).toBe(200);
  return { meta: res.json.meta, items: res.json.data.map((item: any) => [item.change, item.source_url, item.url]) };
}

/** broken_since of each broken link of a crawl, by "source → url". */
async function brokenSince(crawlId: string): Promise<Record<string, string>> {
  const broken = await readAll(fixture.svc, `/crawls/${crawlId}/broken`);
  for (const item of broken) expect(item).not.toHaveProperty("is_broken");
  return Object.fromEntries(broken.map((item) => [`${item.source_url} → ${item.url}`, item.broken_since]));
}

describe("a crawl with other options", () => {
  let s: LoopbackSite;
  let first: any;
  let second: any;
  let third: any;
  let sectionWritten = false;

  beforeAll(async () => {
    s = await site({
      "/": () => html(`<a href="/p">P</a> <a href="/gone">Gone</a> <img src="/turtle-star.png" alt="turtle"> <a href="/q#absent">Missing section</a>`),
      "/p": () => html(`<a href="/">home</a>`),
      "/q": () => html(sectionWritten ? `<h2 id="absent">now here</h2>` : `<h2 id="other">not it</h2>`),
      "/gone": { status: 404 },
      "/turtle-star.png": { status: 404 },
    });
    const domainId = await verifiedDomain(fixture.svc, s.url("/"));
    first = await crawl(domainId, { scan_images: true, check_fragments: true });
    second = await crawl(domainId); // the schedule's defaults: anchors only
    sectionWritten = true;
    third = await crawl(domainId, { scan_images: true, check_fragments: true });
  }, 30_000); // three crawls of a five-page site

  test("each crawl shows the options it ran with", () => {
    expect(first.options).toMatchObject({ scan_images: true, check_fragments: true, follow_external: false });
    expect(second.options).toMatchObject({ scan_images: false, check_fragments: false });
  });

  test("the anchors-only crawl lists the image and the #fragment as not checked, never as fixed", async () => {
    expect(first).toMatchObject({ broken_links: 3, new_broken_links: 3 });
    expect(second).toMatchObject({ broken_links: 1, new_broken_links: 0 });
    const { meta, items } = await changes(second.id);
    expect(meta).toEqual({ page: 1, limit: 100, total: 2, against_crawl_id: first.id, new_broken: 0, fixed: 0, not_checked: 2, final: true });
    expect(items).toHaveLength(2);
    expect(items[0]).toEqual(["not_checked", s.url("/"), s.url("/turtle-star.png")]);
    expect(items[1]![0]).toBe("not_checked");
    expect(items[1]![2]).toStartWith(s.url("/q")); // the Link of the missing #absent (with its fragment, where Links keep it)
  });

  test("a later crawl that checks them again carries the image's date past the crawl that did not, and calls the #fragment fixed", async () => {
    expect(third).toMatchObject({ broken_links: 2, new_broken_links: 0 });
    const { meta, items } = await changes(third.id);
    expect(meta).toMatchObject({ against_crawl_id: second.id, new_broken: 0, fixed: 1, not_checked: 0 });
    expect(items[0]![0]).toBe("fixed");
    expect(items[0]![2]).toStartWith(s.url("/q"));
    expect(await brokenSince(third.id)).toEqual({
      [`${s.url("/")} → ${s.url("/gone")}`]: first.started_at,
      [`${s.url("/")} → ${s.url("/turtle-star.png")}`]: first.started_at,
    });
  });

  test("Link items carry broken_since beside the spec's fields: null for a link that is not broken", async () => {
    const links = await readAll(fixture.svc, `/crawls/${third.id}/links`);
    for (const link of links) expect(link.broken_since).toBe(link.is_broken ? first.started_at : null);
    expect(links.some((link) => !link.is_broken)).toBe(true);
  });
});

test("a crawl cut by max_pages lists the links on pages it did not reach as not checked, and the next full crawl carries their date", async () => {
  const s = await site({
    "/": () => html(`<a href="/a">A</a>`),
    "/a": () => html(`<a href="/b">B</a>`),
    "/b": () => html(`<a href="/c">C</a>`),
    "/c": () => html(`<a href="/missing">Missing</a>`),
  });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  const full = await crawl(domainId);
  expect(full).toMatchObject({ broken_links: 1, truncated: false });
  const maxPages = fixture.svc.config.crawler.max_pages;
  // The service's page limit, read by each crawl job when it starts.
  fixture.svc.config.crawler.max_pages = 2;
  let cut: any;
  try {
    cut = await crawl(domainId);
  } finally {
    fixture.svc.config.crawler.max_pages = maxPages;
  }
  expect(cut).toMatchObject({ status: "completed", truncated: true, broken_links: 0, new_broken_links: 0 });
  const { meta, items } = await changes(cut.id);
  expect(meta).toMatchObject({ against_crawl_id: full.id, new_broken: 0, fixed: 0, not_checked: 1 });
  expect(items).toEqual([["not_checked", s.url("/c"), s.url("/missing")]]);

  const again = await crawl(domainId);
  expect(again).toMatchObject({ broken_links: 1, new_broken_links: 0 });
  expect(await brokenSince(again.id)).toEqual({ [`${s.url("/c")} → ${s.url("/missing")}`]: full.started_at });
  expect((await changes(again.id)).meta).toMatchObject({ new_broken: 0, fixed: 0, not_checked: 0 });
}, 30_000); // three crawls of a five-page site

test("broken in crawls 1–3 since crawl 1; fixed in 4; broken again in 5 since 5; a failed crawl in between carries it", async () => {
  const flaky = [500, 500, 500, 200, 500, 500, 500];
  let round = 0;
  const s = await site({
    // Round 6 (index 5): the site is down, the crawl fails at its start page and checks nothing.
    "/": () => (round === 5 ? new Response("down", { status: 503 }) : html(`<a href="/flaky">Flaky</a> <a href="/ok">OK</a>`)),
    "/ok": () => html("fine"),
    "/flaky": () => new Response("x", { status: flaky[round] }),
  });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  const crawls: any[] = [];
  for (round = 0; round < flaky.length; round++) crawls.push(await crawl(domainId));
  const pair = `${s.url("/")} → ${s.url("/flaky")}`;
  const [c1, c2, c3, c4, c5, c6, c7] = crawls;

  expect((await brokenSince(c2.id))[pair]).toBe(c1.started_at);
  expect((await brokenSince(c3.id))[pair]).toBe(c1.started_at);
  expect(c3.new_broken_links).toBe(0);

  expect(c4.broken_links).toBe(0);
  expect((await changes(c4.id)).items).toEqual([["fixed", s.url("/"), s.url("/flaky")]]);

  expect((await brokenSince(c5.id))[pair]).toBe(c5.started_at);
  expect(c5.new_broken_links).toBe(1);
  expect((await changes(c5.id)).items).toEqual([["new_broken", s.url("/"), s.url("/flaky")]]);

  expect(c6).toMatchObject({ status: "failed", failure: "start_page" });
  expect((await changes(c6.id)).items).toEqual([["not_checked", s.url("/"), s.url("/flaky")]]);

  expect((await brokenSince(c7.id))[pair]).toBe(c5.started_at);
  expect(c7.new_broken_links).toBe(0);
  expect((await changes(c7.id)).meta).toMatchObject({ against_crawl_id: c6.id, new_broken: 0, fixed: 0, not_checked: 0 });
}, 60_000); // seven crawls of a three-page site

test("more open links than one read batch: every unchecked one is listed, none called fixed, the checked ones still broken", async () => {
  // 1,200 broken images and 300 broken anchors over 3 pages: the settlement reads them 500 at a time.
  const images = (page: number) => Array.from({ length: 400 }, (_, i) => `<img src="/img-${page}-${i}.png" alt="">`).join(" ");
  const anchors = (page: number) => Array.from({ length: 100 }, (_, i) => `<a href="/gone-${page}-${i}">gone</a>`).join(" ");
  const s = await site({
    "/": () => html(`<a href="/p1">1</a> <a href="/p2">2</a> ${images(0)} ${anchors(0)}`),
    "/p1": () => html(`${images(1)} ${anchors(1)}`),
    "/p2": () => html(`${images(2)} ${anchors(2)}`),
  });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  const first = await crawl(domainId, { scan_images: true });
  expect(first).toMatchObject({ broken_links: 1_500, new_broken_links: 1_500 });
  const second = await crawl(domainId); // anchors only
  expect(second).toMatchObject({ broken_links: 300, new_broken_links: 0 });
  const res = await fixture.svc.call("GET", `/crawls/${second.id}/changes?limit=1`);
  expect(res.status).toBe(200);
  expect(res.json.meta).toMatchObject({ total: 1_200, new_broken: 0, fixed: 0, not_checked: 1_200, final: true });
  const listed = await readAll(fixture.svc, `/crawls/${second.id}/changes`);
  expect(listed.every((item) => item.change === "not_checked" && /\/img-\d-\d+\.png$/.test(item.url))).toBe(true);
  expect(new Set(listed.map((item) => `${item.source_url} ${item.url}`)).size).toBe(1_200);
  // The anchors, checked again and still broken, keep the first crawl's date.
  const since = Object.values(await brokenSince(second.id));
  expect(since).toHaveLength(300);
  expect(new Set(since)).toEqual(new Set([first.started_at]));
}, 60_000);

test("many broken targets at once: each link keeps the date of the first crawl that found it broken, a new link gets its own", async () => {
  // 1,200 broken anchors and 600 links judged broken without a request in the first crawl; in the second, 300 of
  // the anchors fixed, 300 new ones broken, and a page that newly links to 100 that stayed broken and to 100 new
  // unrequestable URLs: broken_since is read for hundreds of URLs at once, after a request or without one.
  let round = 0;
  const anchors = (prefix: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => `<a href="${prefix}-${from + i}">x</a>`).join(" ");
  const fixed = Object.fromEntries(
    Array.from({ length: 300 }, (_, i) => [`/a-1-${i}`, () => (round === 0 ? new Response("gone", { status: 404 }) : html("back"))]),
  );
  const s = await site({
    "/": () => html(`<a href="/p1">1</a> <a href="/p2">2</a>`),
    "/p1": () => html(`${anchors("/a-1", 0, 600)} ${anchors("http://[bad-host]/q", 0, 600)} ${round === 0 ? "" : anchors("/b-1", 0, 300)}`),
    "/p2": () =>
      html(round === 0 ? anchors("/a-2", 0, 600) : `${anchors("/a-2", 0, 600)} ${anchors("/a-1", 300, 400)} ${anchors("http://[bad-host]/r", 0, 100)}`),
    ...fixed,
  });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  const first = await crawl(domainId);
  expect(first).toMatchObject({ broken_links: 1_800, new_broken_links: 1_800 });
  round = 1;
  const second = await crawl(domainId);
  expect(second).toMatchObject({ broken_links: 2_000, new_broken_links: 500 });

  const since = await brokenSince(second.id);
  expect(Object.keys(since)).toHaveLength(2_000);
  const dates = (page: string, prefix: string, from: number, to: number) =>
    new Set(
      Array.from(
        { length: to - from },
        (_, i) => since[`${s.url(page)} → ${prefix.startsWith("/") ? s.url(`${prefix}-${from + i}`) : `${prefix}-${from + i}`}`],
      ),
    );
  expect(dates("/p1", "/a-1", 300, 600)).toEqual(new Set([first.started_at]));
  expect(dates("/p2", "/a-2", 0, 600)).toEqual(new Set([first.started_at]));
  expect(dates("/p1", "http://[bad-host]/q", 0, 600)).toEqual(new Set([first.started_at]));
  expect(dates("/p1", "/b-1", 0, 300)).toEqual(new Set([second.started_at]));
  expect(dates("/p2", "/a-1", 300, 400)).toEqual(new Set([second.started_at]));
  expect(dates("/p2", "http://[bad-host]/r", 0, 100)).toEqual(new Set([second.started_at]));
}, 60_000);

test("more links judged broken at once than the dates held: every one keeps the first crawl's date", async () => {
  // 5,000 unrequestable hrefs on one page, judged broken without a request in one batch of each crawl: more than
  // BrokenSince holds (4,096 URLs), so the batch dates them in runs.
  const hrefs = Array.from({ length: 5_000 }, (_, i) => `<a href="http://[bad-host]/u-${i}">x</a>`).join(" ");
  let round = 0;
  const s = await site({ "/": () => html(`${hrefs} ${round === 0 ? "" : `<a href="http://[bad-host]/new">x</a>`}`) });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  const first = await crawl(domainId);
  expect(first).toMatchObject({ broken_links: 5_000, new_broken_links: 5_000 });
  round = 1;
  const second = await crawl(domainId);
  expect(second).toMatchObject({ broken_links: 5_001, new_broken_links: 1 });
  const since = await brokenSince(second.id);
  expect(since[`${s.url("/")} → http://[bad-host]/new`]).toBe(second.started_at);
  delete since[`${s.url("/")} → http://[bad-host]/new`];
  expect(Object.keys(since)).toHaveLength(5_000);
  expect(new Set(Object.values(since))).toEqual(new Set([first.started_at]));
}, 60_000);
