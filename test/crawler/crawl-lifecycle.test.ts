import { afterEach, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * The crawl lifecycle as the pool runs it: pending crawls wait for a free worker, a running crawl's counts
 * grow while it runs and can be read, cancelling stops the worker and keeps what was found, and a domain is
 * not deleted from under a crawl.
 */

let svc: TestService | undefined;
const sites: LoopbackSite[] = [];
afterEach(async () => {
  await svc?.stop();
  await Promise.all(sites.splice(0).map((site) => site.stop()));
  svc = undefined;
});

/** A site of `pages` pages in a chain, each answering after `delayMs`. */
async function slowChain(pages: number, delayMs: number): Promise<LoopbackSite> {
  const site = await startLoopbackSite(
    {},
    {
      fallback: async (request) => {
        const match = /^\/(\d+)?$/.exec(new URL(request.url).pathname);
        if (match === null) return new Response("no", { status: 404 });
        const i = Number(match[1] ?? 0);
        await Bun.sleep(delayMs);
        const next = i + 1 < pages ? `<a href="/${i + 1}">next</a>` : "";
        return new Response(`${next}<a href="/missing">missing</a>`, { headers: { "content-type": "text/html" } });
      },
    },
  );
  sites.push(site);
  return site;
}

async function statusOf(id: string): Promise<any> {
  return (await svc!.call("GET", `/crawls/${id}`)).json.data;
}

test("with one worker, a second crawl stays pending until the first ends, then runs", async () => {
  svc = await startTestService({ crawler: { workers: 1 } });
  // 8 pages of 250 ms: the first crawl runs for 2 s at least, long after a slow worker start.
  const first = await startCrawl(svc, await verifiedDomain(svc, (await slowChain(8, 250)).url("/")));
  const second = await startCrawl(svc, await verifiedDomain(svc, (await slowChain(2, 0)).url("/")));
  // Bounded: 500 polls of 10 ms.
  for (let i = 0; i < 500 && (await statusOf(first)).status === "pending"; i++) await Bun.sleep(10);
  expect((await statusOf(first)).status).toBe("running");
  expect(await statusOf(second)).toMatchObject({ status: "pending", started_at: null, completed_at: null, pages_crawled: 0 });
  const firstDone = await waitForCrawl(svc, first);
  const secondDone = await waitForCrawl(svc, second);
  expect(firstDone).toMatchObject({ status: "completed", pages_crawled: 8 });
  expect(secondDone).toMatchObject({ status: "completed", pages_crawled: 2 });
  expect(Date.parse(secondDone.started_at)).toBeGreaterThanOrEqual(Date.parse(firstDone.completed_at));
}, 20_000);

test("results are readable while the crawl runs, and counts only grow", async () => {
  svc = await startTestService();
  const id = await startCrawl(svc, await verifiedDomain(svc, (await slowChain(20, 40)).url("/")));
  const seen: number[] = [];
  for (let i = 0; i < 200; i++) {
    const crawl = await statusOf(id);
    if (crawl.status !== "running" && crawl.status !== "pending") break;
    seen.push(crawl.total_links);
    const links = await svc.call("GET", `/crawls/${id}/links?limit=100`);
    expect(links.json.meta.total).toBeGreaterThanOrEqual(crawl.total_links);
    await Bun.sleep(40);
  }
  expect(seen.some((n) => n > 0)).toBe(true);
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  expect(await waitForCrawl(svc, id)).toMatchObject({ status: "completed", pages_crawled: 20, total_links: 39, broken_links: 20 });
}, 20_000);

test("cancelling a running crawl stops its worker; it ends failed/cancelled and keeps what it found", async () => {
  svc = await startTestService();
  const site = await slowChain(100, 100);
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  for (let i = 0; i < 100 && (await statusOf(id)).pages_crawled < 2; i++) await Bun.sleep(50);
  const cancelled = await svc.call("POST", `/crawls/${id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.json.data).toMatchObject({ status: "failed", error: "cancelled" });
  expect(cancelled.json.data.completed_at).not.toBeNull();
  // The worker stops asking: at most the requests already in flight arrive after the cancel.
  const requestsAtCancel = site.requests.length;
  await Bun.sleep(500);
  expect(site.requests.length).toBeLessThanOrEqual(requestsAtCancel + 1);
  const after = await statusOf(id);
  expect(after).toMatchObject({ status: "failed", error: "cancelled" });
  expect(after.pages_crawled).toBeGreaterThanOrEqual(2);
  expect((await readAll(svc, `/crawls/${id}/links`)).length).toBe(after.total_links);
}, 20_000);

test("a domain is not deleted while a crawl of it is in progress; afterwards its crawls go with it", async () => {
  svc = await startTestService();
  const domainId = await verifiedDomain(svc, (await slowChain(100, 100)).url("/"));
  const id = await startCrawl(svc, domainId);
  const refused = await svc.call("DELETE", `/domains/${domainId}`);
  expect(expectErrorEnvelope(refused, 409, "crawl_in_progress").details).toEqual([{ field: "domain_id", crawl_id: id }]);
  expect((await svc.call("POST", `/crawls/${id}/cancel`)).status).toBe(200);
  expect((await svc.call("DELETE", `/domains/${domainId}`)).status).toBe(204);
  expectErrorEnvelope(await svc.call("GET", `/crawls/${id}`), 404, "not_found");
});
