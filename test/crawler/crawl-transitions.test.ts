import { afterEach, beforeEach, expect, test } from "bun:test";
import { completeCrawl, failCrawl } from "../../src/crawler/crawl-transitions.ts";
import { CrawlsRepo } from "../../src/store/crawls.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openStore, type Store } from "../../src/store/sqlite.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";

/**
 * A crawl's end is one transaction on the asynchronous store (docs/architecture.md, "Outbox, not
 * fire-and-forget"): its state, its counts, its warnings and its deliveries are written together, and a failure
 * anywhere in it leaves none of them. SQLite only until the warnings and open-links repos move onto the Db
 * (branch frontier-async); the claim's transaction runs on both engines (test/store/crawls-repo.test.ts).
 */

const CRAWL = "01a20460-0000-7000-8000-0000000000e1";
const ROOT = "http://site.test/";

let store: Store;
let crawls: CrawlsRepo;

beforeEach(() => {
  store = openStore(":memory:");
  migrate(store.sqlite);
  crawls = new CrawlsRepo(new SqliteDb(store.sqlite));
  const db = store.sqlite;
  db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'site.test', ?, 'tok')", [ROOT]);
  db.run(
    "INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES (?, 'd1', 'running', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    [CRAWL],
  );
  db.run(`INSERT INTO webhooks (id, url, name, events, secret, created_at)
    VALUES ('w1', 'https://hooks.example/in', NULL, '["crawl.completed","crawl.failed","broken_links.found"]', 's', '2026-01-01T00:00:00.000Z')`);
  // The start page and one broken link, as the frontier records them.
  const home = db.query<{ id: number }, [string, string]>(
    "INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url) VALUES (?, ?, 1, 0, 'done', 200, 0, ?2) RETURNING id",
  );
  home.get(CRAWL, ROOT);
  const missing = db
    .query<{ id: number }, [string, string]>(
      "INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url) VALUES (?, ?, 1, 1, 'done', 404, 1, ?2) RETURNING id",
    )
    .get(CRAWL, `${ROOT}missing`)!.id;
  const link = db
    .query<{ id: number }, [string, string, number]>(
      "INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES (?, ?, ?, 'Missing', 'anchor') RETURNING id",
    )
    .get(CRAWL, ROOT, missing)!.id;
  db.run("INSERT INTO broken_links (link_id, crawl_id, target_id, broken_since) VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z')", [link, CRAWL, missing]);
  db.run("UPDATE crawls SET pages_crawled = 1, total_links = 1, broken_links = 1 WHERE id = ?", [CRAWL]);
});
afterEach(() => store.close());

const deliveries = () => store.sqlite.query<{ event: string; payload: string }, []>("SELECT event, payload FROM webhook_deliveries ORDER BY event").all();

test("completing writes the end, the new broken links and the end's deliveries together, once", async () => {
  expect(await completeCrawl(crawls, CRAWL, { now: "2026-01-01T00:01:00.000Z" })).toBe(true);
  expect(await crawls.findById(CRAWL)).toMatchObject({ status: "completed", completed_at: "2026-01-01T00:01:00.000Z", new_broken_links: 1 });
  expect(deliveries().map((row) => row.event)).toEqual(["broken_links.found", "crawl.completed"]);
  const found = JSON.parse(deliveries()[0]!.payload);
  expect(found.data.sample_links).toEqual([{ url: `${ROOT}missing`, status_code: 404 }]);
  // Ended: a second end (a cancel arriving late) changes nothing and queues nothing.
  expect(await failCrawl(crawls, CRAWL, { kind: "cancelled" }, { now: "2026-01-01T00:02:00.000Z" })).toBe(false);
  expect(await completeCrawl(crawls, CRAWL, { now: "2026-01-01T00:02:00.000Z" })).toBe(false);
  expect(deliveries()).toHaveLength(2);
  expect((await crawls.findById(CRAWL))!.status).toBe("completed");
});

test("an end that fails part-way leaves nothing: the crawl still running, no delivery, no warning", async () => {
  // The digest's read of the channels fails inside the end's transaction, after the end and its deliveries were written.
  store.sqlite.run("DROP TABLE channel_domains");
  await expect(failCrawl(crawls, CRAWL, { kind: "failed", failure: "internal", error: "boom" }, { now: "2026-01-01T00:01:00.000Z" })).rejects.toThrow();
  expect(await crawls.findById(CRAWL)).toMatchObject({ status: "running", completed_at: null, error: null });
  expect(deliveries()).toEqual([]);
  expect(await crawls.warnings.entries(CRAWL)).toEqual([]);
  expect(store.sqlite.inTransaction).toBe(false);
});
