import { afterEach, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The limits that end or cut a crawl (CONTRACT "Crawls and links"): max_pages ends it completed and
 * truncated, max_depth leaves deep pages checked but unparsed, max_duration ends it failed with an error
 * that says so, and a 429 with Retry-After is asked again before it is judged.
 */

let svc: TestService | undefined;
let site: LoopbackSite | undefined;
afterEach(async () => {
  await svc?.stop();
  await site?.stop();
  svc = site = undefined;
});

/** A chain of pages /p/0 → /p/1 → … → /p/(n-1), each also linking to a broken target. */
function chainSite(n: number, delayMs = 0): Promise<LoopbackSite> {
  return startLoopbackSite(
    {},
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        const match = /^\/p\/(\d+)$/.exec(path);
        if (path === "/") return new Response(`<a href="/p/0">start</a>`, { headers: { "content-type": "text/html" } });
        if (match === null) return new Response("nope", { status: 404 });
        if (delayMs > 0) await Bun.sleep(delayMs);
        const i = Number(match[1]);
        const next = i + 1 < n ? `<a href="/p/${i + 1}">next</a>` : "";
        return new Response(`${next}<a href="/missing/${i}">missing</a>`, { headers: { "content-type": "text/html" } });
      },
    },
  );
}

test("max_pages: the crawl ends completed with truncated true, every found link still checked", async () => {
  site = await chainSite(10);
  svc = await startTestService({ crawler: { max_pages: 3 } });
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const crawl = await waitForCrawl(svc, id);
  // Pages "/", /p/0, /p/1 parsed; /p/2 and /missing/1 checked but /p/2 not parsed.
  expect(crawl).toMatchObject({ status: "completed", truncated: true, pages_crawled: 3, total_links: 5, broken_links: 2, error: null });
  const links = await readAll(svc, `/crawls/${id}/links`);
  expect(links.map((link) => link.url)).toContain(site.url("/p/2"));
  expect(links.map((link) => link.url)).not.toContain(site.url("/p/3"));
});

test("max_depth: pages deeper than the limit are checked, not parsed", async () => {
  site = await chainSite(10);
  svc = await startTestService({ crawler: { max_depth: 2 } });
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const crawl = await waitForCrawl(svc, id);
  // Depth 0 "/", 1 /p/0, 2 /p/1 parsed; /p/2 (depth 3) checked only.
  expect(crawl).toMatchObject({ status: "completed", truncated: true, pages_crawled: 3 });
});

test("max_duration: the crawl ends failed with an error naming the limit; what it found stays readable", async () => {
  site = await chainSite(100, 300);
  // A chain of 100 pages at 300 ms each takes 30 s: 3 s leaves room for a slow start and cannot finish it.
  svc = await startTestService({ crawler: { max_duration: "3s" } });
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const crawl = await waitForCrawl(svc, id, 15_000);
  expect(crawl.status).toBe("failed");
  expect(crawl.error).toBe("crawl exceeded its maximum duration of 3 s (crawler.max_duration)");
  expect(crawl.completed_at).not.toBeNull();
  expect(crawl.pages_crawled).toBeGreaterThan(0);
  expect(crawl.pages_crawled).toBeLessThan(100);
  const links = await readAll(svc, `/crawls/${id}/links`);
  expect(links.length).toBe(crawl.total_links);
}, 20_000);

test("429 with Retry-After is retried before judging; the link ends with the later answer", async () => {
  let busy = 2;
  site = await startLoopbackSite({
    "/": { body: `<a href="/busy">Busy</a> <a href="/always-busy">Always busy</a>` },
    "/busy": () =>
      busy-- > 0
        ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
        : new Response("<p>ok</p>", { headers: { "content-type": "text/html" } }),
    "/always-busy": () => new Response("slow down", { status: 429, headers: { "retry-after": "0" } }),
  });
  svc = await startTestService();
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  await waitForCrawl(svc, id);
  const links = await readAll(svc, `/crawls/${id}/links`);
  expect(links.find((link) => link.url === site!.url("/busy"))).toMatchObject({ status_code: 200, is_broken: false });
  // An internal page that keeps refusing is broken (bot walls are only forgiven on external targets).
  expect(links.find((link) => link.url === site!.url("/always-busy"))).toMatchObject({ status_code: 429, is_broken: true });
  // First answer plus three retries, then judged.
  expect(site.requests.filter((line) => line === "GET /always-busy")).toHaveLength(4);
});

test("accept_status: configured codes are never broken", async () => {
  site = await startLoopbackSite({
    "/": { body: `<a href="/teapot">Teapot</a> <a href="/gone">Gone</a>` },
    "/teapot": { status: 418 },
    "/gone": { status: 410 },
  });
  svc = await startTestService({ crawler: { accept_status: [418] } });
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const crawl = await waitForCrawl(svc, id);
  expect(crawl).toMatchObject({ total_links: 2, broken_links: 1 });
});
