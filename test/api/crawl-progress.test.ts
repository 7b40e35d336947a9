import { afterAll, beforeAll, expect, test } from "bun:test";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Crawl detail's `progress`: while a crawl runs, the distinct targets it has found, checked and still queued
 * (found = checked + queued, growing as pages are parsed); null once it has ended.
 */

const PAGES = 12;
let svc: TestService;
let site: LoopbackSite;

beforeAll(async () => {
  svc = await startTestService({ crawler: { per_host_concurrency: 1 } });
  site = await startLoopbackSite(
    { "/": { body: `<!doctype html><title>t</title><a href="/p/0">0</a> <a href="/missing">missing</a>` } },
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        if (!path.startsWith("/p/")) return new Response("not found", { status: 404 });
        await Bun.sleep(150);
        const n = Number(path.slice(3));
        const next = n + 1 < PAGES ? `<a href="/p/${n + 1}">next</a>` : "";
        return new Response(`<!doctype html><title>t</title>${next} <a href="/gone/${n}">gone</a>`, { headers: { "content-type": "text/html" } });
      },
    },
  );
});

afterAll(async () => {
  await svc.stop();
  await site.stop();
});

test("a running crawl's detail counts the targets found, checked and queued; an ended one has none", async () => {
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  const seen: { targets_found: number; targets_checked: number; targets_queued: number }[] = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const detail = (await svc.call("GET", `/crawls/${id}`)).json.data;
    if (detail.status !== "running" && detail.status !== "pending") break;
    if (detail.status === "running") seen.push(detail.progress);
    await Bun.sleep(100);
  }
  expect(seen.length).toBeGreaterThan(2);
  for (const p of seen) {
    expect(p.targets_found).toBe(p.targets_checked + p.targets_queued);
    expect(p.targets_checked).toBeGreaterThanOrEqual(0);
  }
  expect(seen.at(-1)!.targets_found).toBeGreaterThan(seen[0]!.targets_found); // the frontier grew as pages were parsed
  expect(seen.some((p) => p.targets_queued > 0)).toBe(true);
  const done = await waitForCrawl(svc, id);
  expect(done).toMatchObject({ status: "completed", progress: null });
  // The root's two links, then each page's "gone" link and (but the last) its link to the next.
  expect(done.total_links).toBe(2 + PAGES + (PAGES - 1));
}, 30_000);
