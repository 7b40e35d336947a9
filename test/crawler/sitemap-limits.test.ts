import { afterAll, beforeAll, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from "../../src/crawler/sitemap-read.ts";

/**
 * Hostile and broken sitemaps over real sockets, each bounded and each a crawl warning: one longer than
 * SITEMAP_MAX_BYTES (entries before the cut are kept, none after), one listing 100k URLs (the first
 * SITEMAP_MAX_URLS are read), a gzip bomb (inflation stops at the cap), markup that breaks off mid-entry (the
 * half URL is not taken), and a file that is not XML at all. The crawl's memory must not follow the sizes.
 */

let site: LoopbackSite;
let svc: TestService;
let crawl: any;
let orphans: string[];
let rssGrowth: number;

const xmlResponse = (body: string | Uint8Array<ArrayBuffer>, type = "application/xml") => new Response(body, { headers: { "content-type": type } });

beforeAll(async () => {
  const origin = () => site.origin;
  const entry = (path: string) => `<url><loc>${origin()}${path}</loc></url>`;
  // 11 MiB: five entries, a comment past the cap, then one more entry that must never be read.
  const big = () =>
    `<urlset>${[1, 2, 3, 4, 5].map((i) => entry(`/big-${i}`)).join("")}<!--${"x".repeat(SITEMAP_MAX_BYTES + 1024 * 1024)}-->${entry("/after-cut")}</urlset>`;
  // 100,000 entries: ten on the site, the rest on another host (read, but out of scope).
  const many = () => {
    const parts = ["<urlset>"];
    for (let i = 0; i < 100_000; i++) parts.push(i < 10 ? entry(`/m${i}`) : `<url><loc>https://other.example/p${i}</loc></url>`);
    parts.push(entry("/m-last"), "</urlset>");
    return parts.join("");
  };
  const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024));
  const bodies: Record<string, Uint8Array<ArrayBuffer>> = {};
  const encode = (text: string) => new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
  site = await startLoopbackSite(
    {
      "/": { body: "<p>no links at all</p>" },
      "/sitemap.xml": () =>
        xmlResponse(
          `<sitemapindex>${["/big.xml", "/many.xml", "/bomb.xml.gz", "/broken.xml", "/garbage.xml"].map((p) => `<sitemap><loc>${origin()}${p}</loc></sitemap>`).join("")}</sitemapindex>`,
        ),
      "/big.xml": () => xmlResponse(bodies.big!),
      "/many.xml": () => xmlResponse(bodies.many!),
      "/bomb.xml.gz": () => xmlResponse(bomb, "application/gzip"),
      "/broken.xml": () => xmlResponse(`<urlset><url><loc>${origin()}/before-damage</loc></url><url><loc>${origin()}/half-url-that-never-clo`),
      "/garbage.xml": () => xmlResponse("this is <not> a sitemap at all <<<< >>>"),
    },
    // Every listed page exists.
    { fallback: () => new Response("a page", { headers: { "content-type": "text/html" } }) },
  );
  // Built before the measurement, so it counts what the crawler holds rather than what this test serves.
  bodies.big = encode(big());
  bodies.many = encode(many());
  svc = await startTestService();
  const domainId = await verifiedDomain(svc, site.url("/"));
  // A first crawl without sitemaps starts the crawl worker, whose own memory is not the sitemaps'.
  await waitForCrawl(svc, await startCrawl(svc, domainId));
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  const id = await startCrawl(svc, domainId, { use_sitemap: true });
  crawl = await waitForCrawl(svc, id);
  rssGrowth = process.memoryUsage().rss - before;
  orphans = (await readAll(svc, `/crawls/${id}/orphans`)).map((o) => new URL(o.url).pathname);
}, 60_000); // builds and serves ~30 MB of sitemaps, and a 64 MiB gzip bomb's compressed form
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

test("entries before every limit are checked, none past it", () => {
  expect(crawl.status).toBe("completed");
  expect(orphans.sort()).toEqual(
    ["/before-damage", "/big-1", "/big-2", "/big-3", "/big-4", "/big-5", ...Array.from({ length: 10 }, (_, i) => `/m${i}`)].sort(),
  );
  expect(crawl).toMatchObject({ sitemap_urls: 16, orphan_pages: 16 });
  expect(site.requests.some((r) => r.includes("/after-cut") || r.includes("/m-last") || r.includes("/half-url"))).toBe(false);
});

test("each limit reached is a crawl warning naming the sitemap, one per cause", () => {
  const other = (i: number) => `https://other.example/p${i}`;
  expect(crawl.warnings).toEqual([
    `2 sitemaps are longer than ${SITEMAP_MAX_BYTES} bytes; entries past that point were not read (${site.url("/big.xml")}, ${site.url("/bomb.xml.gz")})`,
    `1 sitemap lists more than ${SITEMAP_MAX_URLS} URLs; the rest were not read (${site.url("/many.xml")})`,
    `${SITEMAP_MAX_URLS - 10} sitemap entries are not on the crawled site; not checked (first 5: ${[10, 11, 12, 13, 14].map(other).join(", ")})`,
    // The bomb inflates to NUL bytes: cut at the cap, and no markup.
    `2 sitemaps are neither a <urlset> nor a <sitemapindex>; nothing was read from them (${site.url("/bomb.xml.gz")}, ${site.url("/garbage.xml")})`,
  ]);
  expect(crawl.warning_causes).toEqual([
    { cause: "sitemap_cut", count: 2 },
    { cause: "sitemap_url_limit", count: 1 },
    { cause: "sitemap_entries_off_site", count: SITEMAP_MAX_URLS - 10 },
    { cause: "sitemap_not_a_sitemap", count: 2 },
  ]);
});

test("memory does not follow the sitemaps' sizes", () => {
  // ~30 MB served, a 64 MiB bomb: the reader holds at most one capped body at a time.
  expect(rssGrowth).toBeLessThan(160 * 1024 * 1024);
});
