import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crawlGcRhythm } from "../../src/core/gc-rhythm.ts";
import { CrawlOptionsSchema } from "../../src/core/crawl-options.ts";
import { createLogger } from "../../src/core/logger.ts";
import { runCrawl } from "../../src/crawler/crawl.ts";
import { Frontier } from "../../src/crawler/frontier.ts";
import { DEFAULT_RETRY_POLICY } from "../../src/crawler/retry.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A real crawl of a small loopback site through the crawler's run and frontier, on SQLite and on PostgreSQL
 * (issue 43): the same pages, links, broken links, counts per status and sitemap entries on both stores.
 */

const CRAWL = "01a20460-0000-7000-8000-0000000000e1";

const html = (links: string) => ({ body: `<html><head><title>t</title></head><body>${links}</body></html>` });

let site: LoopbackSite;
beforeAll(async () => {
  site = await startLoopbackSite({
    "/": html(`<a href="/a">a</a> <a href="/b">b</a> <a href="/gone">gone</a> <img src="/i.png"> <a href="/a#top">a again</a>`),
    "/a": html(`<a href="/">home</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/moved">moved</a> <a href="/gone">gone</a>`),
    "/b": html(`<a href="/c">c</a> <a href="/d">d</a> <a href="/a">a</a>`),
    "/c": html(`<a href="/d">d</a> <a href="/missing">missing</a>`),
    "/d": html(`<a href="/">home</a> <a href="mailto:x@example.test">mail</a>`),
    "/moved": { status: 301, headers: { location: "/c" } },
    "/gone": { status: 410 },
    "/i.png": { body: new Uint8Array([137, 80, 78, 71]), headers: { "content-type": "image/png" } },
    "/sitemap.xml": {
      body: '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a</loc></url><url><loc>/orphan</loc></url></urlset>',
      headers: { "content-type": "application/xml" },
    },
    "/orphan": html(""),
  });
});
afterAll(() => site?.stop());

/** What each store holds once the crawl ran, by dialect. */
const found = new Map<string, unknown>();

async function crawl(db: TestDb["db"]): Promise<unknown> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', $host, $root, 'tok')", { host: site.host, root: site.url("/") });
  await db.run("INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES ($id, 'd1', 'running', '{}', '2026-01-01', '2026-01-01')", {
    id: CRAWL,
  });
  const { method: _m, maxRedirects: _r, ...fetch } = testFetchOptions();
  const options = CrawlOptionsSchema.parse({ scan_images: true, use_sitemap: true });
  const end = await runCrawl(
    { crawlId: CRAWL, rootUrl: site.url("/"), options, timeLeftMs: 30_000 },
    {
      frontier: new Frontier(db),
      check: { fetch, maxLinksPerPage: 1_000, acceptStatus: new Set(), retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 } },
      robots: null,
      concurrency: 4,
      perHost: 4,
      limits: { maxPages: 100, maxDepth: 10 },
      logger: createLogger("error"),
      gc: crawlGcRhythm(
        () => {},
        () => {},
      ),
      signal: new AbortController().signal,
    },
  );
  expect(end.kind).toBe("finished");
  const counts = await db.get(
    "SELECT pages_crawled, total_links, broken_links, skipped_links, truncated, sitemap_urls, orphan_pages FROM crawls WHERE id = $id",
    {
      id: CRAWL,
    },
  );
  const links = await db.all(
    `SELECT l.source_url, t.url, l.kind, l.link_text, t.status_code, t.is_broken, t.final_url
     FROM links l JOIN crawl_targets t ON t.id = l.target_id ORDER BY l.source_url, t.url, l.kind`,
  );
  const broken = await db.all(
    "SELECT l.source_url, t.url FROM broken_links b JOIN links l ON l.id = b.link_id JOIN crawl_targets t ON t.id = b.target_id ORDER BY 1, 2",
  );
  const statuses = await db.all("SELECT status_code, is_broken, links FROM crawl_status_counts WHERE links > 0 ORDER BY status_code, is_broken");
  const queued = await db.get("SELECT COUNT(*) AS n FROM crawl_targets WHERE state = 'queued'");
  return { counts, links, broken, statuses, queued };
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`a crawl on ${dialect.name}`, () => {
    let store: TestDb;
    beforeAll(async () => {
      store = await dialect.open();
    });
    afterAll(() => store?.close());

    test("runs to its end with every link counted and every target checked", async () => {
      const result = (await crawl(store.db)) as { counts: Record<string, number>; queued: { n: number } };
      expect(result.queued).toEqual({ n: 0 });
      expect(result.counts).toMatchObject({ pages_crawled: 5, total_links: 17, broken_links: 3, sitemap_urls: 2, orphan_pages: 1 });
      found.set(dialect.name, result);
    }, 30_000);
  });
}

test.skipIf(!DIALECTS.every((dialect) => dialect.available))("PostgreSQL holds exactly what SQLite holds", () => {
  expect(found.get("postgres")).toEqual(found.get("sqlite"));
});
