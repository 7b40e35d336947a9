import { afterAll, beforeAll, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Cancelling is final: a crawl cancelled mid-batch (many pages finished and not yet written, more in flight) is
 * answered with counts that its worker never moves afterwards, and the warnings it had found stay. Over real
 * sockets, with the crawl in a worker thread of its own (so the worker keeps running while the API answers).
 * The site answers every unknown path with its start page, so the crawl records a warning as it starts. A second
 * cancelled crawl of the domain settles the links the first left open once, at its cancel: what it lists as not
 * checked then stays so, and no batch its worker still held lists any of them broken as well.
 */

const PAGES = 3_000;

let site: LoopbackSite;
let svc: TestService;
let domainId: string;

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = await startLoopbackSite(
    {},
    {
      fallback: async (request) => {
        const page = /^\/p\/(\d+)$/.exec(new URL(request.url).pathname);
        if (page === null) return html(`<a href="/p/0">Start</a>`); // the start page, for every other path
        await Bun.sleep(10);
        const i = Number(page[1]);
        if (i >= PAGES) return new Response("not found", { status: 404 });
        return html([(i + 1) % PAGES, (i * 7 + 3) % PAGES, (i * 13 + 5) % PAGES, PAGES + i].map((t) => `<a href="/p/${t}">Page ${t}</a>`).join(" "));
      },
    },
  );
  svc = await startTestService({ crawler: { concurrency: 16, per_host_concurrency: 16 } });
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

/** Waits until the crawl has crawled `pages` pages: well past its start, far from its end. */
async function cancelMidCrawl(id: string, pages: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await svc.call("GET", `/crawls/${id}`)).json.data.pages_crawled >= pages) return;
    await Bun.sleep(25);
  }
}

/** The crawl's worker stops (bounded wait), then a little longer than a batch waits to be written. */
async function workerGone(id: string): Promise<void> {
  for (let i = 0; i < 400 && svc.runtime.crawlPool.active.includes(id); i++) await Bun.sleep(25);
  expect(svc.runtime.crawlPool.active).not.toContain(id);
  await Bun.sleep(600);
}

/** What changed in a crawl, as GET /crawls/{id}/changes lists it: the meta and each item's kind and pair. */
async function changes(id: string) {
  const items = await readAll(svc, `/crawls/${id}/changes`);
  const { meta } = (await svc.call("GET", `/crawls/${id}/changes?limit=1`)).json;
  return { meta, items: items.map((item) => `${item.change} ${item.source_url} -> ${item.url}`) };
}

/** The numbers a client reads of a crawl. */
async function counts(id: string) {
  const detail = (await svc.call("GET", `/crawls/${id}`)).json.data;
  const links = (await svc.call("GET", `/crawls/${id}/links?limit=1`)).json.meta.total;
  const broken = (await svc.call("GET", `/crawls/${id}/broken?limit=1`)).json.meta.total_broken;
  const { status, failure, error, pages_crawled, total_links, broken_links, skipped_links, pages_cut, warnings, completed_at } = detail;
  return { status, failure, error, pages_crawled, total_links, broken_links, skipped_links, pages_cut, warnings, completed_at, links, broken };
}

test("the cancel answer's counts are final, and the warnings found so far are kept", async () => {
  domainId = await verifiedDomain(svc, site.url("/"));
  const id = await startCrawl(svc, domainId);
  await cancelMidCrawl(id, 100);
  const cancel = await svc.call("POST", `/crawls/${id}/cancel`);
  expect(cancel.status).toBe(200);
  const answered = await counts(id);
  expect(answered).toMatchObject({ status: "failed", failure: "cancelled", error: "cancelled" });
  expect(answered.pages_crawled).toBeGreaterThanOrEqual(100);
  expect(answered.pages_crawled).toBeLessThan(PAGES);
  expect(answered.warnings).toEqual([expect.stringContaining("the site answers HTTP 200 with its start page for a URL that does not exist")]);
  // The answer itself carries the same numbers.
  expect(cancel.json.data).toMatchObject({ pages_crawled: answered.pages_crawled, total_links: answered.total_links, warnings: answered.warnings });

  await workerGone(id);
  expect(await counts(id)).toEqual(answered);
  // What the counters say is what the store holds.
  expect(answered.links).toBe(answered.total_links);
  expect(answered.broken).toBe(answered.broken_links);
}, 60_000);

test("a cancel settles the links the previous crawl left open once: none not checked is broken too, and none moves", async () => {
  const previous = (await svc.call("GET", `/crawls?domain_id=${domainId}&limit=1`)).json.data[0];
  expect(previous).toMatchObject({ status: "failed", failure: "cancelled" });
  expect(previous.broken_links).toBeGreaterThan(0);
  const id = await startCrawl(svc, domainId);
  // Cancelled short of where the first crawl was: pages it found broken links on are left unread.
  await cancelMidCrawl(id, 20);
  expect((await svc.call("POST", `/crawls/${id}/cancel`)).status).toBe(200);
  const answered = await changes(id);
  expect(answered.meta).toMatchObject({ against_crawl_id: previous.id });
  expect(answered.meta.not_checked).toBeGreaterThan(0);

  await workerGone(id);
  expect(await changes(id)).toEqual(answered);
  // What is carried as not checked was not found broken by this crawl, in any batch.
  const broken = new Set((await readAll(svc, `/crawls/${id}/broken`)).map((link) => `${link.source_url} -> ${link.url}`));
  const notChecked = answered.items.filter((item) => item.startsWith("not_checked ")).map((item) => item.slice("not_checked ".length));
  expect(notChecked.length).toBe(answered.meta.not_checked);
  expect(notChecked.filter((pair) => broken.has(pair))).toEqual([]);
}, 60_000);
