import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { waitForCrawl, verifiedDomain } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A finished crawl leaves PostgreSQL's planner statistics of the tables it filled up to date (issue 43): a crawl
 * fills them within seconds, autovacuum analyzes up to a minute later, and listings planned blind in between
 * took seconds instead of milliseconds.
 */

const html = (links: string) => ({ body: `<html><body>${links}</body></html>` });

describe.skipIf(!HAS_POSTGRES)("a crawl on PostgreSQL", () => {
  let site: LoopbackSite;
  let svc: TestService;
  let sql: SQL;
  beforeAll(async () => {
    site = await startLoopbackSite({
      "/": html(`<a href="/a">a</a> <a href="/gone">gone</a>`),
      "/a": html(`<a href="/">home</a>`),
      "/gone": { status: 404 },
    });
    svc = await startTestService({}, { store: "postgres" });
    sql = new SQL(svc.config.storage.url!, { max: 1 });
  });
  afterAll(async () => {
    await sql?.close();
    await svc?.stop();
    site?.stop();
  }, 30_000);

  test("is followed by ANALYZE of the tables it filled", async () => {
    const analyzed = async () =>
      (await sql`SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL ORDER BY relname`).map((row: { relname: string }) => row.relname);
    expect(await analyzed()).toEqual([]);
    const domainId = await verifiedDomain(svc, site.url("/"));
    const started = await svc.call("POST", "/crawls", { body: { domain_id: domainId } });
    expect(started.status).toBe(201);
    const crawl = await waitForCrawl(svc, started.json.data.id);
    expect(crawl.status).toBe("completed");
    // The server publishes its statistics a moment after the statement: bounded polling.
    let names: string[] = [];
    for (let i = 0; i < 50 && names.length < 5; i++) {
      names = await analyzed();
      if (names.length < 5) await Bun.sleep(100);
    }
    expect(names).toEqual(["broken_links", "crawl_pages", "crawl_status_counts", "crawl_targets", "links"]);
  }, 30_000);
});
