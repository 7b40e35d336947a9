import { afterAll, beforeAll, expect, test } from "bun:test";
import { CLOSED_FROM, NEW_BROKEN_FROM } from "../../src/store/changes.repo.ts";
import { RetentionRepo } from "../../src/store/retention.repo.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, type Route, startLoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * What changed since the last audit: two crawls of a site where, in between, one broken page was fixed and
 * another broke. GET /crawls/{id}/changes lists the newly broken link then the fixed one, meta names the crawl
 * compared against, and new_broken_links is in the crawl detail.
 */

let site: LoopbackSite;
let svc: TestService;
let first: any;
let second: any;
let night = 1;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: `<a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a> <a href="/d">D</a>` },
    "/a": () => new Response("a", { status: night === 1 ? 404 : 200 }),
    "/b": () => new Response("b", { status: 200 }),
    "/c": () => new Response("c", { status: night === 1 ? 200 : 500 }),
    "/d": () => new Response("d", { status: 410 }),
  });
  svc = await startTestService();
  const domainId = await verifiedDomain(svc, site.url("/"));
  first = await waitForCrawl(svc, await startCrawl(svc, domainId));
  night = 2;
  second = await waitForCrawl(svc, await startCrawl(svc, domainId));
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

test("the second crawl: /c newly broken, /a fixed, /d broken both times and not listed", async () => {
  expect(second).toMatchObject({ broken_links: 2, new_broken_links: 1 });
  const res = await svc.call("GET", `/crawls/${second.id}/changes`);
  expect(res.status).toBe(200);
  expect(res.json.meta).toEqual({ page: 1, limit: 20, total: 2, against_crawl_id: first.id, new_broken: 1, fixed: 1, not_checked: 0, final: true });
  expect(res.json.data.map((item: any) => [item.change, item.url, item.status_code])).toEqual([
    ["new_broken", site.url("/c"), 500],
    ["fixed", site.url("/a"), 404], // as it was when it was last broken
  ]);
  const pageTwo = await svc.call("GET", `/crawls/${second.id}/changes?limit=1&page=2`);
  expect(pageTwo.json.data.map((item: any) => item.change)).toEqual(["fixed"]);
  expect((await svc.call("GET", `/crawls/${second.id}/changes?page=3&limit=1`)).json.data).toEqual([]);
});

test("the first crawl of a domain has nothing to compare with: every broken link is new", async () => {
  expect(first).toMatchObject({ broken_links: 2, new_broken_links: 2 });
  const res = await svc.call("GET", `/crawls/${first.id}/changes`);
  expect(res.json.meta).toMatchObject({ against_crawl_id: null, new_broken: 2, fixed: 0 });
});

test("crawls carry who started them", () => {
  expect(first.trigger).toBe("api");
});

test("bad paging and unknown ids", async () => {
  expectErrorEnvelope(await svc.call("GET", `/crawls/${second.id}/changes?limit=0`), 400, "invalid_request");
  expectErrorEnvelope(await svc.call("GET", "/crawls/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f/changes"), 404, "not_found");
});

test("once the crawl compared against is pruned, the changes compare with what is left (a page read before is not kept)", async () => {
  expect((await svc.call("GET", `/crawls/${second.id}/changes`)).json.meta.against_crawl_id).toBe(first.id);
  const prune = new RetentionRepo(svc.runtime.store.db);
  for (let step = 0; step < 100 && !(await prune.pruneStep(first.id, 1_000)).finished; step++);
  expect((await svc.call("GET", `/crawls/${first.id}`)).status).toBe(404);
  const res = await svc.call("GET", `/crawls/${second.id}/changes`);
  expect(res.json.meta).toEqual({ page: 1, limit: 20, total: 2, against_crawl_id: null, new_broken: 2, fixed: 0, not_checked: 0, final: true });
  expect(res.json.data.map((item: any) => [item.change, item.url])).toEqual([
    ["new_broken", site.url("/c")],
    ["new_broken", site.url("/d")],
  ]);
});

test("a target broken on many pages: changes are the (page, URL) pairs, each crawl's broken links read once", async () => {
  // Pages 1–30 link the broken page the first night, pages 11–40 the second: 10 pairs new, 10 fixed, 20 in both.
  let round = 1;
  const linked = (n: number) => (round === 1 ? n <= 30 : n > 10);
  const routes: Record<string, Route> = {
    "/": { body: Array.from({ length: 40 }, (_, i) => `<a href="/p${i + 1}">p${i + 1}</a>`).join(" ") },
    "/gone": { status: 404 },
  };
  for (let n = 1; n <= 40; n++) {
    routes[`/p${n}`] = () => new Response(linked(n) ? `<a href="/gone">gone</a>` : "fine", { headers: { "content-type": "text/html" } });
  }
  const many = await startLoopbackSite(routes);
  try {
    const domainId = await verifiedDomain(svc, many.url("/"));
    const before = await waitForCrawl(svc, await startCrawl(svc, domainId));
    round = 2;
    const after = await waitForCrawl(svc, await startCrawl(svc, domainId));
    expect(after).toMatchObject({ broken_links: 30, new_broken_links: 10 });
    const res = await svc.call("GET", `/crawls/${after.id}/changes?limit=100`);
    expect(res.json.meta).toMatchObject({ against_crawl_id: before.id, total: 20, new_broken: 10, fixed: 10 });
    const sources = (change: string) =>
      res.json.data
        .filter((item: any) => item.change === change)
        .map((item: any) => Number(new URL(item.source_url).pathname.slice(2)))
        .sort((a: number, b: number) => a - b);
    expect(sources("new_broken")).toEqual([31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);
    expect(sources("fixed")).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  } finally {
    await many.stop();
  }

  // The other crawl's pairs are one list built per statement, not a lookup per link through the target (quadratic in
  // a template's broken link: every broken link of that target read again for each one).
  for (const from of [NEW_BROKEN_FROM, CLOSED_FROM]) {
    const plan = (
      svc.runtime.store.sqlite!.query(`EXPLAIN QUERY PLAN SELECT COUNT(*) ${from}`).all({ from: "a", other: "b", fragments: true }) as { detail: string }[]
    ).map((row) => row.detail);
    expect(plan.some((detail) => detail.startsWith("LIST SUBQUERY"))).toBe(true);
    expect(plan.some((detail) => detail.includes("CORRELATED"))).toBe(false);
  }
});
