import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { DomainsRepo } from "../../src/store/domains.repo.ts";
import { RetentionRepo } from "../../src/store/retention.repo.ts";
import { WebhooksRepo } from "../../src/store/webhooks.repo.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/**
 * The retention repo answers alike on SQLite and PostgreSQL (issue 43): ended crawls past the age or count limit,
 * a crawl's rows deleted a chunk at a time (rows named by the dialect's row key), then the crawl with its ended
 * deliveries (found by the payload's crawl id), and old ended deliveries counted once each. Free pages are
 * SQLite's; PostgreSQL has none to give back.
 */

const DOMAIN = "01900000-0000-7000-8000-0000000000d1";
const HOOK = "01900000-0000-7000-8000-0000000000a1";
const crawlId = (n: number) => `01900000-0000-7000-8000-0000000000c${n}`;

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`retention repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: RetentionRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new RetentionRepo(store.db);
      const { db } = store;
      await new DomainsRepo(db).insertUnlessNameTaken({
        id: DOMAIN,
        name: "a.example",
        root_url: "https://a.example/",
        verification_token: "t",
        verified_at: null,
        verified_by: null,
        created_at: "2026-11-01T00:00:00.000Z",
      });
      await new WebhooksRepo(db).insert({
        id: HOOK,
        url: "https://hooks.example/in",
        name: null,
        events: [],
        secret: "s",
        createdAt: "2026-11-01T00:00:00.000Z",
      });
      // Crawls 1-3 ended on the 1st, 2nd and 3rd; crawl 4 still runs.
      for (const n of [1, 2, 3, 4]) {
        await db.run(
          `INSERT INTO crawls (id, domain_id, status, options, created_at, completed_at) VALUES ($id, $domain, $status, '{}', $createdAt, $completedAt)`,
          {
            id: crawlId(n),
            domain: DOMAIN,
            status: n === 4 ? "running" : "completed",
            createdAt: `2026-11-0${n}T00:00:00.000Z`,
            completedAt: n === 4 ? null : `2026-11-0${n}T01:00:00.000Z`,
          },
        );
      }
      for (let page = 0; page < 5; page++) {
        await db.run("INSERT INTO crawl_page_ids (crawl_id, url) VALUES ($crawl, $url)", { crawl: crawlId(1), url: `https://a.example/${page}` });
      }
      for (const [id, crawl, state, createdAt] of [
        ["01900000-0000-7000-8000-000000000001", crawlId(1), "delivered", "2026-11-01T02:00:00.000Z"],
        ["01900000-0000-7000-8000-000000000002", crawlId(1), "pending", "2026-11-01T02:00:00.000Z"],
        ["01900000-0000-7000-8000-000000000003", crawlId(2), "dead", "2026-11-02T02:00:00.000Z"],
        ["01900000-0000-7000-8000-000000000004", crawlId(3), "delivered", "2026-11-03T02:00:00.000Z"],
      ] as const) {
        await db.run(
          `INSERT INTO webhook_deliveries (id, webhook_id, event, payload, state, created_at) VALUES ($id, $hook, 'crawl.completed', $payload, $state, $createdAt)`,
          { id, hook: HOOK, payload: JSON.stringify({ id, event: "crawl.completed", data: { crawl_id: crawl } }), state, createdAt },
        );
        await db.run(`INSERT INTO webhook_attempts (delivery_id, attempt, duration_ms, response_body, attempted_at) VALUES ($id, 1, 5, '', $createdAt)`, {
          id,
          createdAt,
        });
      }
    });
    afterEach(() => store.close());

    test("ended crawls past the age or the count limit, oldest first; a running crawl never; a domain's ended crawls", async () => {
      expect(await repo.expiredCrawls({ endedBefore: null, keepLast: null }, 10)).toEqual([]);
      expect(await repo.expiredCrawls({ endedBefore: "2026-11-02T12:00:00.000Z", keepLast: null }, 10)).toEqual([crawlId(1), crawlId(2)]);
      expect(await repo.expiredCrawls({ endedBefore: null, keepLast: 1 }, 10)).toEqual([crawlId(1), crawlId(2)]);
      expect(await repo.expiredCrawls({ endedBefore: "2026-11-01T12:00:00.000Z", keepLast: 2 }, 10)).toEqual([crawlId(1)]);
      expect(await repo.expiredCrawls({ endedBefore: "2026-12-01T00:00:00.000Z", keepLast: null }, 2)).toEqual([crawlId(1), crawlId(2)]);
      expect(await repo.endedCrawlsOf(DOMAIN, 10)).toEqual([crawlId(1), crawlId(2), crawlId(3)]);
    });

    test("a crawl goes a chunk at a time, then itself with its ended deliveries; its pending delivery stays", async () => {
      expect(await repo.pruneStep(crawlId(1), 2)).toEqual({ deleted: 2, finished: false });
      expect(await repo.pruneStep(crawlId(1), 2)).toEqual({ deleted: 2, finished: false });
      expect(await repo.pruneStep(crawlId(1), 2)).toEqual({ deleted: 1, finished: false });
      expect(await repo.pruneStep(crawlId(1), 2)).toEqual({ deleted: 2, finished: true }); // a delivery and the crawl
      expect(await repo.endedCrawlsOf(DOMAIN, 10)).toEqual([crawlId(2), crawlId(3)]);
      const left = await store.db.all<{ id: string }>("SELECT id FROM webhook_deliveries ORDER BY id");
      expect(left.map((row) => row.id)).toEqual([
        "01900000-0000-7000-8000-000000000002",
        "01900000-0000-7000-8000-000000000003",
        "01900000-0000-7000-8000-000000000004",
      ]);
      expect(await repo.pruneStep(crawlId(4), 2)).toEqual({ deleted: 0, finished: true }); // still running: left alone
    });

    test("old ended deliveries go a chunk at a time, counted once each however many attempts they had", async () => {
      expect(await repo.pruneDeliveries("2026-11-03T00:00:00.000Z", 1)).toBe(1);
      expect(await repo.pruneDeliveries("2026-11-03T00:00:00.000Z", 1)).toBe(1);
      expect(await repo.pruneDeliveries("2026-11-03T00:00:00.000Z", 1)).toBe(0);
      expect((await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_attempts"))?.n).toBe(2);
    });

    test("free pages are SQLite's to count and give back; PostgreSQL reports none", async () => {
      if (dialect.name === "postgres") {
        expect(await repo.canReleasePages()).toBe(false);
        expect(await repo.freePages()).toBe(0);
      } else {
        expect(await repo.freePages()).toBeGreaterThanOrEqual(0);
      }
      await repo.releaseFreePages(8);
    });
  });
}
