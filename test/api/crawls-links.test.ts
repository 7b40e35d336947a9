import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { forEachStore } from "../helpers/stores.ts";

/**
 * GET /crawls/{id}/links and /broken over a real finished crawl of a small loopback site (names resolved by a
 * test table: site.test and ext.test are two servers, down.test has nothing listening). One request in flight
 * makes discovery order deterministic, so paging, filters and shapes can be checked item by item.
 */

forEachStore("crawl links and broken links", (store) => {
  let svc: TestService;
  let site: LoopbackSite;
  let ext: LoopbackSite;
  let crawlId: string;
  /** The crawl's start: the domain's first crawl, so every broken link is broken since then. */
  let startedAt: string;
  let ORIGIN: string;
  let EXT: string;
  let DOWN: string;

  const BOT_WALL = "HTTP 403: the site refuses automated checks; the link was not judged broken";

  /** The recorded links in discovery order: [source path, target, status, broken, text, kind, final_url, error, warning]. */
  function links() {
    return [
      ["/", `${ORIGIN}/a`, 200, false, "A", "anchor", `${ORIGIN}/a`, null, null],
      ["/", `${ORIGIN}/missing`, 404, true, "Missing", "anchor", `${ORIGIN}/missing`, null, null],
      ["/", `${EXT}/`, 403, false, "Partner", "anchor", `${EXT}/`, null, BOT_WALL],
      ["/", `${ORIGIN}/b`, 200, false, "B", "anchor", `${ORIGIN}/b`, null, null],
      ["/a", `${ORIGIN}/missing`, 404, true, "Missing again", "anchor", `${ORIGIN}/missing`, null, null],
      ["/a", `${ORIGIN}/logo.png`, 200, false, "", "image", `${ORIGIN}/logo.png`, null, null],
      ["/a", `${DOWN}/`, 0, true, "Down", "anchor", null, expect.stringContaining("refused"), null],
      ["/b", `${ORIGIN}/a`, 200, false, "Back to A", "anchor", `${ORIGIN}/a`, null, null],
    ] as const;
  }

  type Link = { url: string; source_url: string; status_code: number; is_broken: boolean; link_text: string };

  function expected() {
    return links().map(([source, url, status_code, is_broken, link_text, kind, final_url, error, warning]) => ({
      url,
      source_url: `${ORIGIN}${source}`,
      status_code,
      is_broken,
      link_text,
      kind,
      final_url,
      error,
      warning,
      broken_since: is_broken ? startedAt : null,
    }));
  }

  async function page(path: string) {
    const res = await svc.call("GET", `/crawls/${crawlId}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    return res.json as { data: Partial<Link>[]; meta: Record<string, number> };
  }

  beforeAll(async () => {
    const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
    site = await startLoopbackSite({
      "/": () => html(`<a href="/a">A</a> <a href="/missing">Missing</a> <a href="${EXT}/">Partner</a> <a href="/b">B</a>`),
      "/a": () => html(`<a href="/missing">Missing again</a> <img src="/logo.png"> <a href="${DOWN}/">Down</a>`),
      "/b": () => html(`<a href="/a">Back to A</a>`),
      "/logo.png": { body: new Uint8Array([137, 80, 78, 71]), headers: { "content-type": "image/png" } },
    });
    ext = await startLoopbackSite({ "/": { status: 403, body: "no bots" } });
    const refused = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const refusedPort = refused.port;
    refused.stop(true);
    ORIGIN = `http://site.test:${site.port}`;
    EXT = `http://ext.test:${ext.port}`;
    DOWN = `http://down.test:${refusedPort}`;
    svc = await startTestService(
      { crawler: { concurrency: 1 } },
      { resolve: tableResolver({ "site.test": "127.0.0.1", "ext.test": "127.0.0.1", "down.test": "127.0.0.1" }), store },
    );
    const domain = await svc.runtime.domains.add({ name: `site.test:${site.port}`, root_url: `${ORIGIN}/` }, true);
    crawlId = await startCrawl(svc, domain.id, { scan_images: true, follow_external: true });
    startedAt = (await waitForCrawl(svc, crawlId)).started_at;
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.stop();
    await ext?.stop();
  });

  describe("GET /crawls/{id}/links", () => {
    test("every checked link in discovery order, with the spec's fields and the extras", async () => {
      const res = await page("/links");
      expect(res.meta).toEqual({ page: 1, limit: 20, total: 8 });
      expect(res.data).toEqual(expected());
    });

    test("pages are slices of the same order; past the end: data [] with the true total", async () => {
      const all = expected();
      expect(await page("/links?limit=3")).toEqual({ data: all.slice(0, 3), meta: { page: 1, limit: 3, total: 8 } });
      expect(await page("/links?limit=3&page=2")).toEqual({ data: all.slice(3, 6), meta: { page: 2, limit: 3, total: 8 } });
      expect(await page("/links?limit=3&page=3")).toEqual({ data: all.slice(6), meta: { page: 3, limit: 3, total: 8 } });
      expect(await page("/links?limit=3&page=4")).toEqual({ data: [], meta: { page: 4, limit: 3, total: 8 } });
      expect(await page("/links?limit=8")).toEqual({ data: all, meta: { page: 1, limit: 8, total: 8 } });
      expect(await page("/links?limit=1&page=8")).toEqual({ data: all.slice(7), meta: { page: 8, limit: 1, total: 8 } });
      expect(await page("/links?limit=100&page=2")).toEqual({ data: [], meta: { page: 2, limit: 100, total: 8 } });
    });

    test("status_code keeps links whose final status is that code (0: no answer)", async () => {
      const urls = async (query: string) => (await page(`/links?${query}`)).data.map((l) => `${l.source_url} ${l.url}`);
      expect(await urls("status_code=404")).toEqual([`${ORIGIN}/ ${ORIGIN}/missing`, `${ORIGIN}/a ${ORIGIN}/missing`]);
      expect(await urls("status_code=0")).toEqual([`${ORIGIN}/a ${DOWN}/`]);
      expect((await page("/links?status_code=200")).meta.total).toBe(4);
      expect(await page("/links?status_code=500")).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
    });

    test("is_broken=true / false split the links; totals count the filtered links", async () => {
      const all = expected();
      expect(await page("/links?is_broken=true")).toEqual({ data: all.filter((l) => l.is_broken), meta: { page: 1, limit: 20, total: 3 } });
      expect(await page("/links?is_broken=false")).toEqual({ data: all.filter((l) => !l.is_broken), meta: { page: 1, limit: 20, total: 5 } });
    });

    test("filters combine, with paging", async () => {
      expect((await page("/links?status_code=403&is_broken=false")).data.map((l) => l.url)).toEqual([`${EXT}/`]);
      expect(await page("/links?status_code=404&is_broken=false")).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
      const second = await page("/links?status_code=404&is_broken=true&limit=1&page=2");
      expect(second.meta).toEqual({ page: 2, limit: 1, total: 2 });
      expect(second.data.map((l) => l.source_url)).toEqual([`${ORIGIN}/a`]);
    });
  });

  describe("GET /crawls/{id}/broken", () => {
    test("only broken links, in discovery order, without is_broken; meta.total_broken", async () => {
      const res = await page("/broken");
      const broken = expected()
        .filter((l) => l.is_broken)
        .map(({ is_broken: _, ...rest }) => rest);
      expect(res).toEqual({ data: broken, meta: { page: 1, limit: 20, total_broken: 3 } });
      for (const item of res.data) expect(Object.hasOwn(item, "is_broken")).toBe(false);
    });

    test("pages; past the end: data [] with the true total_broken", async () => {
      expect((await page("/broken?limit=2&page=2")).data.map((l) => l.url)).toEqual([`${DOWN}/`]);
      expect(await page("/broken?limit=2&page=3")).toEqual({ data: [], meta: { page: 3, limit: 2, total_broken: 3 } });
    });

    test("the crawl detail's counters match the links", async () => {
      const res = await svc.call("GET", `/crawls/${crawlId}`);
      expect(res.json.data).toMatchObject({ status: "completed", total_links: 8, broken_links: 3, pages_crawled: 3, truncated: false, error: null });
    });
  });
});
