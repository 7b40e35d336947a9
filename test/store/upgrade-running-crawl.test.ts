import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Migration 0004 dropped the index on links.target_id: the crawler now counts the links waiting for a verdict
 * and chains them through links.waiting_prev_id (which the migration fills in), and lists broken links and
 * per-status totals in tables of their own. A crawl that an older release left half-done must resume
 * under the new schema and end exactly like an uninterrupted crawl: every waiting link counted once, with
 * its target's verdict, the broken ones listed.
 *
 * The half-done store is made by today's crawler, stopped mid-way, then taken back to schema 0003 (the tables
 * 0004 added dropped, links rebuilt as 0001 made them, with its target index): crawls, targets, pages and
 * links mean the same in both schemas, so this is the store the older release would have left.
 */

const PAGES = 150;
const CRAWLER = { allowed_cidrs: ["127.0.0.1/32"], allow_private_networks: false };

let site: LoopbackSite;
let dir: string;
beforeAll(async () => {
  site = await startMeshSite(PAGES);
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-upgrade-running-"));
});
afterAll(async () => {
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Takes a store of today's schema back to 0003_schedules. */
function downgradeTo0003(path: string): void {
  const db = new Database(path);
  try {
    db.exec("PRAGMA foreign_keys = OFF");
    db.transaction(() => {
      db.exec("DROP TABLE sign_in_failures;"); // 0017
      db.exec("DROP TABLE ended_sessions; DROP TABLE rate_buckets;"); // 0016
      db.exec("DROP TABLE cluster_nodes; DROP TABLE work_leases; DROP TABLE schedule_runs; DROP TABLE store_secrets;"); // 0015
      db.exec(
        `${["etag", "last_modified", "body_hash", "body_bytes", "links_found", "excluded_links", "first_link_id", "link_count", "id_hashes", "ids_gap"]
          .map((column) => `ALTER TABLE crawl_pages DROP COLUMN ${column};`)
          .join(" ")} ALTER TABLE crawls DROP COLUMN pages_reused;`,
      ); // 0014
      db.exec("ALTER TABLE crawls DROP COLUMN excluded_links; ALTER TABLE domains DROP COLUMN ignore_rules;"); // 0012
      db.exec("DROP TABLE crawl_warnings;"); // 0010 (it dropped crawls.warnings, which 0005 had added)
      db.exec("DROP TABLE unchecked_links; ALTER TABLE crawl_pages DROP COLUMN cut;"); // 0009; broken_links (and its broken_since) go below
      db.exec("DROP TABLE store_identity;"); // 0008
      db.exec("ALTER TABLE crawls DROP COLUMN failure; ALTER TABLE crawls DROP COLUMN pages_cut;");
      db.exec("DROP TABLE broken_links; DROP TABLE crawl_status_counts; DROP TABLE crawl_waiting;");
      db.exec("DROP TABLE link_fragments; DROP TABLE crawl_page_ids;"); // 0006; links' fragment columns go with the rebuild below
      db.exec("DROP INDEX crawl_targets_unlinked_idx; ALTER TABLE crawls DROP COLUMN sitemap_urls; ALTER TABLE crawls DROP COLUMN orphan_pages;"); // 0007
      db.exec("DROP INDEX webhook_deliveries_crawl_idx; DROP INDEX webhook_deliveries_created_idx;");
      // 0011: no channels, and deliveries back to a webhook's alone (foreign keys are off: the attempts stay).
      db.exec("DROP TABLE channel_domains; DROP TABLE channels;");
      db.exec(`CREATE TABLE old_deliveries (
        id text PRIMARY KEY NOT NULL, webhook_id text NOT NULL, event text NOT NULL, payload text NOT NULL,
        state text DEFAULT 'pending' NOT NULL, attempts integer DEFAULT 0 NOT NULL, next_attempt_at text, last_error text,
        last_status_code integer, created_at text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL, delivered_at text,
        FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON UPDATE no action ON DELETE cascade)`);
      db.exec(`INSERT INTO old_deliveries SELECT id, webhook_id, event, payload, state, attempts, next_attempt_at, last_error, last_status_code,
        created_at, delivered_at FROM webhook_deliveries WHERE webhook_id IS NOT NULL`);
      db.exec("DROP TABLE webhook_deliveries; ALTER TABLE old_deliveries RENAME TO webhook_deliveries");
      db.exec("CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (state, next_attempt_at)");
      db.exec("CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at)");
      // 0013: links.fragment goes with the rebuild below; link_fragments, crawl_page_ids and unchecked_links went above.
      db.exec(`CREATE TABLE old_links (
        id integer PRIMARY KEY AUTOINCREMENT NOT NULL, crawl_id text NOT NULL, source_url text NOT NULL,
        target_id integer NOT NULL, link_text text NOT NULL, kind text NOT NULL,
        FOREIGN KEY (crawl_id) REFERENCES crawls(id) ON UPDATE no action ON DELETE cascade,
        FOREIGN KEY (target_id) REFERENCES crawl_targets(id) ON UPDATE no action ON DELETE cascade)`);
      db.exec("INSERT INTO old_links SELECT id, crawl_id, source_url, target_id, link_text, kind FROM links");
      db.exec("DROP TABLE links; ALTER TABLE old_links RENAME TO links");
      db.exec("CREATE INDEX links_target_idx ON links (target_id); CREATE INDEX links_crawl_order_idx ON links (crawl_id, id)");
      db.exec("DELETE FROM schema_migrations WHERE tag > '0003_schedules'");
    })();
  } finally {
    db.close();
  }
}

/** What a finished crawl shows: its counters, every link, its broken links and one status-code listing. */
async function report(svc: TestService, id: string) {
  const key = (link: any) => `${link.source_url} ${link.url} ${link.status_code} ${link.link_text}`;
  const detail = await waitForCrawl(svc, id, 60_000);
  const notFound = await svc.call("GET", `/crawls/${id}/links?status_code=404&limit=1`);
  return {
    counts: {
      status: detail.status,
      pages_crawled: detail.pages_crawled,
      total_links: detail.total_links,
      broken_links: detail.broken_links,
      skipped_links: detail.skipped_links,
      not_found: notFound.json.meta.total,
    },
    links: (await readAll(svc, `/crawls/${id}/links`)).map((link) => `${key(link)} ${link.is_broken}`).sort(),
    broken: (await readAll(svc, `/crawls/${id}/broken`)).map(key).sort(),
  };
}

test("a crawl left half-done under schema 0003 resumes under 0004 and ends like an uninterrupted crawl", async () => {
  let reference: Awaited<ReturnType<typeof report>>;
  const plain = await startTestService({ crawler: CRAWLER });
  try {
    reference = await report(plain, await startCrawl(plain, await verifiedDomain(plain, site.url("/")), { scan_images: true }));
  } finally {
    await plain.stop();
  }
  expect(reference.counts).toMatchObject({ status: "completed", pages_crawled: PAGES + 1 });
  expect(reference.counts.broken_links).toBeGreaterThan(0);
  expect(reference.counts.not_found).toBeGreaterThan(0);

  const path = join(dir, "store.db");
  const first = await startTestService({ storage: { path }, crawler: { ...CRAWLER, concurrency: 2, per_host_concurrency: 2 } });
  let crawlId: string;
  try {
    crawlId = await startCrawl(first, await verifiedDomain(first, site.url("/")), { scan_images: true });
    for (let i = 0; i < 400 && (await first.runtime.crawls.get(crawlId)).pages_crawled < 40; i++) await Bun.sleep(25);
  } finally {
    await first.stop(); // the crawl stays running, to resume at the next start
  }
  const halfway = new Database(path, { readonly: true });
  try {
    const crawl = halfway.query("SELECT status, pages_crawled FROM crawls WHERE id = ?").get(crawlId!) as any;
    expect(crawl.status).toBe("running");
    expect(crawl.pages_crawled).toBeGreaterThanOrEqual(40);
    expect(crawl.pages_crawled).toBeLessThan(PAGES);
    // The point of the test: links are waiting for targets still queued, some of them chained.
    const waiting = halfway
      .query(`SELECT COUNT(*) AS n, COUNT(l.waiting_prev_id) AS chained FROM links l JOIN crawl_targets t ON t.id = l.target_id
              WHERE l.crawl_id = ? AND t.state = 'queued'`)
      .get(crawlId!) as { n: number; chained: number };
    expect(waiting.n).toBeGreaterThan(0);
    expect(waiting.chained).toBeGreaterThan(0);
  } finally {
    halfway.close();
  }
  downgradeTo0003(path);

  const second = await startTestService({ storage: { path }, crawler: CRAWLER });
  try {
    const resumed = await report(second, crawlId!);
    expect(resumed.counts).toEqual(reference.counts);
    expect(resumed.links).toEqual(reference.links);
    expect(resumed.broken).toEqual(reference.broken);
  } finally {
    await second.stop();
  }
}, 15_000); // a reference crawl, then one stopped halfway and resumed under the new schema
