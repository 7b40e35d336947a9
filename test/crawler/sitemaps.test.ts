import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * `use_sitemap` over real sockets: robots.txt's Sitemap lines and /sitemap.xml are read, an index leads to its
 * children (one of them gzip, one missing), every in-scope entry is checked once, entries on other hosts and
 * entries robots.txt disallows are left out, a broken entry is a broken link whose source is the sitemap, and
 * the entries no crawled page links to are the orphan pages (checked, not parsed).
 */

const urlset = (urls: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
${urls.map((u) => `  <url><loc>${u}</loc><lastmod>2026-01-01</lastmod><image:image><image:loc>https://img.example/x.png</image:loc></image:image></url>`).join("\n")}
</urlset>`;

let site: LoopbackSite;
let svc: TestService;
let crawl: any;
let links: any[];
let orphans: any[];
let broken: any[];

beforeAll(async () => {
  const page = (body: string) => ({ body });
  site = await startLoopbackSite({
    "/robots.txt": (_req, s) =>
      new Response(`User-agent: *\nDisallow: /private\nSitemap: ${s.url("/sitemap-index.xml")}\nSitemap: https://elsewhere.example/sitemap.xml\n`),
    "/": page(`<a href="/a">A</a> <a href="/b">B</a>`),
    "/a": page(`<a href="/">home</a>`),
    "/b": page("b"),
    "/orphan1": page(`<a href="/from-orphan">never followed</a>`),
    "/orphan2": page("orphan 2"),
    "/orphan-default": page("orphan from /sitemap.xml"),
    "/sitemap-index.xml": (_req, s) =>
      new Response(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <sitemap><loc>${s.url("/sitemap-pages.xml")}</loc></sitemap>
          <sitemap><loc>${s.url("/sitemap-more.xml.gz")}</loc></sitemap>
          <sitemap><loc>${s.url("/sitemap-gone.xml")}</loc></sitemap>
        </sitemapindex>`,
        { headers: { "content-type": "application/xml" } },
      ),
    "/sitemap-pages.xml": (_req, s) =>
      new Response(
        urlset([s.url("/"), s.url("/a"), s.url("/orphan1"), s.url("/broken-entry"), "https://other.example/x", s.url("/private/p"), s.url("/orphan1")]),
        { headers: { "content-type": "application/xml" } },
      ),
    "/sitemap-more.xml.gz": (_req, s) => new Response(gzipSync(urlset([s.url("/b"), s.url("/orphan2")])), { headers: { "content-type": "application/gzip" } }),
    "/sitemap.xml": (_req, s) => new Response(urlset([s.url("/orphan-default"), s.url("/a")]), { headers: { "content-type": "application/xml" } }),
  });
  svc = await startTestService();
  const id = await startCrawl(svc, await verifiedDomain(svc, site.url("/")), { use_sitemap: true });
  crawl = await waitForCrawl(svc, id);
  links = await readAll(svc, `/crawls/${id}/links`);
  orphans = await readAll(svc, `/crawls/${id}/orphans`);
  broken = await readAll(svc, `/crawls/${id}/broken`);
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

const path = (url: string) => new URL(url).pathname;

test("the crawl counts the pages its sitemaps list and the orphans among them", () => {
  expect(crawl).toMatchObject({ status: "completed", pages_crawled: 3, sitemap_urls: 7, orphan_pages: 4, broken_links: 1 });
  expect(crawl.options.use_sitemap).toBe(true);
});

test("every in-scope entry is a Link of kind sitemap from its sitemap, once per (sitemap, entry)", () => {
  const fromSitemaps = links.filter((link) => link.kind === "sitemap").map((link) => `${path(link.source_url)} → ${path(link.url)}`);
  expect(fromSitemaps.sort()).toEqual(
    [
      "/sitemap-pages.xml → /",
      "/sitemap-pages.xml → /a",
      "/sitemap-pages.xml → /orphan1",
      "/sitemap-pages.xml → /broken-entry",
      "/sitemap-more.xml.gz → /b",
      "/sitemap-more.xml.gz → /orphan2",
      "/sitemap.xml → /orphan-default",
      "/sitemap.xml → /a",
    ].sort(),
  );
  expect(links.every((link) => new URL(link.url).host === site.host)).toBe(true);
});

test("the orphan pages are the entries no crawled page links to, with their verdicts", () => {
  expect(orphans.map((o) => `${path(o.url)} ${o.status_code} ${o.is_broken}`).sort()).toEqual(
    ["/broken-entry 404 true", "/orphan-default 200 false", "/orphan1 200 false", "/orphan2 200 false"].sort(),
  );
});

test("a broken entry is a broken link whose source is the sitemap", () => {
  expect(broken.map((link) => `${path(link.source_url)} → ${path(link.url)} ${link.status_code} ${link.kind}`)).toEqual([
    "/sitemap-pages.xml → /broken-entry 404 sitemap",
  ]);
});

test("each target is fetched once; orphans are checked but not parsed; disallowed and off-site entries are not fetched", () => {
  const count = (line: string) => site.requests.filter((request) => request === line).length;
  expect(count("GET /a")).toBe(1);
  expect(count("GET /b")).toBe(1);
  expect(site.requests.filter((request) => request.endsWith(" /orphan1"))).toEqual(["HEAD /orphan1"]);
  expect(site.requests.some((request) => request.includes("/from-orphan"))).toBe(false);
  expect(site.requests.some((request) => request.includes("/private"))).toBe(false);
  for (const sitemap of ["/sitemap-index.xml", "/sitemap-pages.xml", "/sitemap-more.xml.gz", "/sitemap-gone.xml", "/sitemap.xml"]) {
    expect(count(`GET ${sitemap}`)).toBe(1);
  }
});

test("a missing child sitemap and a sitemap on another host are crawl warnings", () => {
  expect(crawl.warnings).toEqual([
    `1 sitemap name points off the crawled site; not read (https://elsewhere.example/sitemap.xml in ${site.origin}/robots.txt)`,
    "1 sitemap entry is not on the crawled site; not checked (https://other.example/x)",
    `1 named sitemap could not be read; its entries were not read (${site.url("/sitemap-gone.xml")} answered HTTP 404)`,
  ]);
  expect(crawl.warning_causes).toEqual([
    { cause: "sitemap_off_site", count: 1 },
    { cause: "sitemap_entries_off_site", count: 1 },
    { cause: "sitemap_failed", count: 1 },
  ]);
});

describe("without use_sitemap", () => {
  test("no sitemap is read and the counts are null", async () => {
    const id = await startCrawl(svc, (await svc.call("GET", `/crawls/${crawl.id}`)).json.data.domain_id);
    const plain = await waitForCrawl(svc, id);
    expect(plain).toMatchObject({ status: "completed", sitemap_urls: null, orphan_pages: null, broken_links: 0 });
    const res = await svc.call("GET", `/crawls/${id}/orphans`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
  });
});

describe("GET /crawls/{id}/orphans parameters", () => {
  test("pages with the contract's envelope and limits", async () => {
    const res = await svc.call("GET", `/crawls/${crawl.id}/orphans?page=2&limit=3`);
    expect(res.status).toBe(200);
    expect(res.json.meta).toEqual({ page: 2, limit: 3, total: 4 });
    expect(res.json.data).toHaveLength(1);
    const past = await svc.call("GET", `/crawls/${crawl.id}/orphans?page=9`);
    expect(past.json).toEqual({ data: [], meta: { page: 9, limit: 20, total: 4 } });
  });

  test("bad paging is a 400, an unknown or malformed id a 404, no key a 401", async () => {
    for (const query of ["limit=0", "limit=101", "page=0", "page=x", "limit=1.5"]) {
      const error = expectErrorEnvelope(await svc.call("GET", `/crawls/${crawl.id}/orphans?${query}`), 400, "invalid_request");
      expect(error.details?.length).toBeGreaterThan(0);
    }
    expectErrorEnvelope(await svc.call("GET", "/crawls/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f/orphans"), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", "/crawls/not-a-uuid/orphans"), 404, "not_found");
    expectErrorEnvelope(await svc.call("GET", `/crawls/${crawl.id}/orphans`, { key: null }), 401, "unauthorized");
    expectErrorEnvelope(await svc.call("GET", `/crawls/${crawl.id}/orphans`, { key: await svc.keyWith("domains:read") }), 403, "forbidden");
  });

  test("the OpenAPI document describes the endpoint and the new fields", async () => {
    const doc = (await svc.call("GET", "/openapi.json")).json;
    expect(doc.paths["/v1/crawls/{id}/orphans"].get.responses["200"]).toBeDefined();
    expect(doc.components.schemas.OrphanPage.properties.url).toBeDefined();
    expect(doc.components.schemas.CrawlDetail.properties.orphan_pages).toBeDefined();
    expect(doc.components.schemas.CrawlOptions.properties.use_sitemap).toBeDefined();
    expect(doc.components.schemas.Link.properties.kind.enum).toContain("sitemap");
  });
});

describe("a start page that gives nothing to crawl", () => {
  test("fails the crawl without reading the sitemaps", async () => {
    const down = await startLoopbackSite({
      "/": { status: 500, body: "down" },
      "/sitemap.xml": (_r, s) => new Response(urlset([s.url("/x")]), { headers: { "content-type": "application/xml" } }),
    });
    try {
      const failed = await waitForCrawl(svc, await startCrawl(svc, await verifiedDomain(svc, down.url("/")), { use_sitemap: true }));
      expect(failed).toMatchObject({ status: "failed", failure: "start_page", sitemap_urls: null, orphan_pages: null });
      expect(down.requests.some((line) => line.includes("sitemap") || line.endsWith(" /x"))).toBe(false);
    } finally {
      await down.stop();
    }
  });
});
