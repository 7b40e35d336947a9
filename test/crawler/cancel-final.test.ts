import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawl, verifiedDomain } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Cancelling is final: a crawl cancelled mid-batch (many pages finished and not yet written, more in flight) is
 * answered with counts that its worker never moves afterwards, and the warnings it had found stay. Over real
 * sockets, with the crawl in a worker thread of its own (so the worker keeps running while the API answers).
 * The site answers every unknown path with its start page, so the crawl records a warning as it starts.
 */

const PAGES = 3_000;

let site: LoopbackSite;
let svc: TestService;

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = await startLoopbackSite({}, {
    fallback: async (request) => {
      const page = /^\/p\/(\d+)$/.exec(new URL(request.url).pathname);
      if (page === null) return html(`<a href="/p/0">Start</a>`); // the start page, for every other path
      await Bun.sleep(10);
      const i = Number(page[1]);
      if (i >= PAGES) return new Response("not found", { status: 404 });
      return html([(i + 1) % PAGES, (i * 7 + 3) % PAGES, (i * 13 + 5) % PAGES, PAGES + i].map((t) => `<a href="/p/${t}">Page ${t}</a>`).join(" "));
    },
  });
  svc = await startTestService({ crawler: { concurrency: 16, per_host_concurrency: 16 } });
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

/** The numbers a client reads of a crawl. */
async function counts(id: string) {
  const detail = (await svc.call("GET", `/crawls/${id}`)).json.data;
  const links = (await svc.call("GET", `/crawls/${id}/links?limit=1`)).json.meta.total;
  const broken = (await svc.call("GET", `/crawls/${id}/broken?limit=1`)).json.meta.total_broken;
  const { status, failure, error, pages_crawled, total_links, broken_links, skipped_links, pages_cut, warnings, completed_at } = detail;
  return { status, failure, error, pages_crawled, total_links, broken_links, skipped_links, pages_cut, warnings, completed_at, links, broken };
}

test("the cancel answer's counts are final, and the warnings found so far are kept", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  // Mid-crawl: well past the start, far from the end.
  for (let i = 0; i < 600; i++) {
    if ((await svc.call("GET", `/crawls/${id}`)).json.data.pages_crawled >= 100) break;
    await Bun.sleep(25);
  }
  const cancel = await svc.call("POST", `/crawls/${id}/cancel`);
  expect(cancel.status).toBe(200);
  const answered = await counts(id);
  expect(answered).toMatchObject({ status: "failed", failure: "cancelled", error: "cancelled" });
  expect(answered.pages_crawled).toBeGreaterThanOrEqual(100);
  expect(answered.pages_crawled).toBeLessThan(PAGES);
  expect(answered.warnings).toEqual([expect.stringContaining("the site answers HTTP 200 with its start page for a URL that does not exist")]);
  // The answer itself carries the same numbers.
  expect(cancel.json.data).toMatchObject({ pages_crawled: answered.pages_crawled, total_links: answered.total_links, warnings: answered.warnings });

  // The worker stops (bounded wait), then a little longer than a batch waits to be written.
  for (let i = 0; i < 400 && svc.runtime.crawlPool.active.includes(id); i++) await Bun.sleep(25);
  expect(svc.runtime.crawlPool.active).not.toContain(id);
  await Bun.sleep(600);
  expect(await counts(id)).toEqual(answered);
  // What the counters say is what the store holds.
  expect(answered.links).toBe(answered.total_links);
  expect(answered.broken).toBe(answered.broken_links);
}, 60_000);
