import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { waitForCrawl, verifiedDomain } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A crawl keeps PostgreSQL's planner statistics of the tables it fills up to date (issue 43): it fills them within
 * seconds, autovacuum analyzes up to a minute later (or never, on a server without it), and listings planned
 * blind in between took seconds instead of milliseconds and filled the node's pool.
 */

const html = (links: string) => ({ body: `<html><body>${links}</body></html>` });

describe.skipIf(!HAS_POSTGRES)("a crawl on PostgreSQL", () => {
  let site: LoopbackSite;
  let svc: TestService;
  let sql: SQL;
  beforeAll(async () => {
    // 700 pages: past the first refresh while it runs (500 pages), then one at its end.
    const pages: Record<string, { body: string } | { status: number }> = {
      "/": html(`<a href="/p1">1</a> <a href="/gone">gone</a>`),
      "/gone": { status: 404 },
    };
    for (let i = 1; i < 700; i++) pages[`/p${i}`] = html(`<a href="/">home</a> <a href="/p${i + 1}">next</a> <a href="/p${(i * 7) % 700}">jump</a>`);
    site = await startLoopbackSite(pages);
    svc = await startTestService({}, { store: "postgres" });
    sql = new SQL(svc.config.storage.url!, { max: 1 });
  });
  afterAll(async () => {
    await sql?.close();
    await svc?.stop();
    site?.stop();
  }, 30_000);

  test("has the tables it fills analyzed while it grows and at its end", async () => {
    const analyzed = async () =>
      (await sql`SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL ORDER BY relname`).map((row: { relname: string }) => row.relname);
    const analyzeCount = async () =>
      Number(((await sql`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'links'`) as { analyze_count: string }[])[0]!.analyze_count);
    expect(await analyzed()).toEqual([]);
    const domainId = await verifiedDomain(svc, site.url("/"));
    const started = await svc.call("POST", "/crawls", { body: { domain_id: domainId } });
    expect(started.status).toBe(201);
    const crawl = await waitForCrawl(svc, started.json.data.id);
    expect(crawl.status).toBe("completed");
    expect(crawl.pages_crawled).toBe(700);
    // The server publishes its statistics a moment after the statement: bounded polling.
    let names: string[] = [];
    for (let i = 0; i < 50 && names.length < 5; i++) {
      names = await analyzed();
      if (names.length < 5) await Bun.sleep(100);
    }
    expect(names).toEqual(["broken_links", "crawl_pages", "crawl_status_counts", "crawl_targets", "links"]);
    // Once as it passed 500 pages, once at its end.
    let count = 0;
    for (let i = 0; i < 50 && count < 2; i++) {
      count = await analyzeCount();
      if (count < 2) await Bun.sleep(100);
    }
    expect(count).toBe(2);
  }, 60_000);
});
