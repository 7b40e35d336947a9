import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { withDefaultOptions } from "../../src/core/stored-options.ts";
import { noIgnoreRules } from "../../src/core/ignore-rules.ts";
import { claimNextCrawl } from "../../src/crawler/crawl-transitions.ts";
import { CrawlsRepo } from "../../src/store/crawls.repo.ts";
import type { Db } from "../../src/store/db.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * The crawls repo answers alike on SQLite and PostgreSQL (issue 43): one active crawl per domain decided by the
 * partial unique index, the oldest pending crawl claimed once, an end written once, the counters the API and
 * metrics read; and on PostgreSQL two nodes claiming at once never take the same crawl (FOR UPDATE SKIP LOCKED).
 */

const options = withDefaultOptions({});
const crawlId = (n: number) => `01a20460-0000-7000-8000-0000000000${String(n).padStart(2, "0")}`;

async function domain(db: Db, id: string): Promise<void> {
  await db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ($id, $name, $root, 'tok')", {
    id,
    name: `${id}.test`,
    root: `http://${id}.test/`,
  });
}

function pending(repo: CrawlsRepo, n: number, domainId: string, trigger: "api" | "schedule" = "api") {
  return repo.insertUnlessActive({
    id: crawlId(n),
    domainId,
    options,
    ignoreRules: noIgnoreRules(),
    trigger,
    createdAt: `2026-01-01T00:00:${String(n).padStart(2, "0")}.000Z`,
  });
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`crawls repo on ${dialect.name}`, () => {
    let store: TestDb;
    let repo: CrawlsRepo;
    beforeEach(async () => {
      store = await dialect.open();
      repo = new CrawlsRepo(store.db);
      await domain(store.db, "d1");
      await domain(store.db, "d2");
    });
    afterEach(() => store.close());

    test("a domain has one active crawl: a second insert is refused with the active one's id, until it ends", async () => {
      expect(await pending(repo, 1, "d1")).toEqual({ inserted: true });
      expect(await pending(repo, 2, "d1")).toEqual({ inserted: false, activeId: crawlId(1) });
      expect(await pending(repo, 3, "d2")).toEqual({ inserted: true });
      expect(await repo.activeCrawlId("d1")).toBe(crawlId(1));
      expect(await repo.markEnded(crawlId(1), { status: "failed", error: "cancelled", failure: "cancelled", now: "2026-01-01T01:00:00.000Z" })).toBe(true);
      expect(await repo.markEnded(crawlId(1), { status: "completed", error: null, failure: null, now: "2026-01-01T02:00:00.000Z" })).toBe(false);
      expect(await repo.activeCrawlId("d1")).toBeUndefined();
      expect(await pending(repo, 4, "d1")).toEqual({ inserted: true });
      // Each domain's newest crawl, in one statement; none for a domain without one.
      await domain(store.db, "d3");
      expect(await repo.lastCrawlIds(["d1", "d2", "d3", "unknown"])).toEqual(
        new Map([
          ["d1", crawlId(4)],
          ["d2", crawlId(3)],
        ]),
      );
      expect(await repo.lastCrawlIds([])).toEqual(new Map());
      expect(await repo.countByStatus()).toEqual({ pending: 2, failed: 1 });
    });

    test("a crawl reads back with its options, flags and counters as the API shows them", async () => {
      await pending(repo, 1, "d1", "schedule");
      const crawl = (await repo.findById(crawlId(1)))!;
      expect(crawl).toMatchObject({
        id: crawlId(1),
        domain_id: "d1",
        domain_name: "d1.test",
        root_url: "http://d1.test/",
        status: "pending",
        options,
        ignore_rules: noIgnoreRules(),
        full: false,
        trigger: "schedule",
        truncated: false,
        pages_crawled: 0,
        total_links: 0,
        new_broken_links: null,
        started_at: null,
      });
      expect(await repo.findById(crawlId(9))).toBeUndefined();
      expect(await repo.lastScheduledAt("d1")).toBe("2026-01-01T00:00:01.000Z");
      expect(await repo.lastScheduledAt("d2")).toBeUndefined();
      await repo.setNewBrokenLinks(crawlId(1), 3);
      await store.db.run("UPDATE crawls SET truncated = 1 WHERE id = $id", { id: crawlId(1) });
      expect(await repo.findById(crawlId(1))).toMatchObject({ new_broken_links: 3, truncated: true });
    });

    test("the oldest pending crawl is claimed once; running ones are listed oldest first; the previous completed one is found", async () => {
      await pending(repo, 1, "d1");
      await pending(repo, 2, "d2");
      expect(await repo.hasPending()).toBe(true);
      expect(await repo.claimOldestPending("2026-01-01T00:01:00.000Z")).toBe(crawlId(1));
      expect(await repo.claimOldestPending("2026-01-01T00:02:00.000Z")).toBe(crawlId(2));
      expect(await repo.claimOldestPending("2026-01-01T00:03:00.000Z")).toBeUndefined();
      expect(await repo.hasPending()).toBe(false);
      expect(await repo.runningIds()).toEqual([crawlId(1), crawlId(2)]);
      expect((await repo.findById(crawlId(1)))!.started_at).toBe("2026-01-01T00:01:00.000Z");

      await repo.markEnded(crawlId(1), { status: "completed", error: null, failure: null, now: "2026-01-01T01:00:00.000Z" });
      await pending(repo, 3, "d1");
      expect((await repo.previousCompleted(crawlId(3)))?.id).toBe(crawlId(1));
      expect(await repo.previousCompleted(crawlId(1))).toBeUndefined();
    });

    test("pages and counts of crawls, filtered by domain and status, newest first", async () => {
      await pending(repo, 1, "d1");
      await repo.claimOldestPending("2026-01-01T00:01:00.000Z");
      await repo.markEnded(crawlId(1), { status: "completed", error: null, failure: null, now: "2026-01-01T00:02:00.000Z" });
      await pending(repo, 2, "d1");
      await pending(repo, 3, "d2");
      expect((await repo.page({}, 0, 10)).map((crawl) => crawl.id)).toEqual([crawlId(3), crawlId(2), crawlId(1)]);
      expect((await repo.page({}, 1, 1)).map((crawl) => crawl.id)).toEqual([crawlId(2)]);
      expect((await repo.page({ domainId: "d1", status: "pending" }, 0, 10)).map((crawl) => crawl.id)).toEqual([crawlId(2)]);
      expect(await repo.count({})).toBe(3);
      expect(await repo.count({ domainId: "d1" })).toBe(2);
      expect(await repo.count({ status: "completed" })).toBe(1);
    });

    test("the frontier's counts and one target as a crawl's end reads them", async () => {
      await pending(repo, 1, "d1");
      const target = (url: string, state: string, status: number | null, broken: number | null) =>
        store.db.run(
          `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url)
           VALUES ($crawlId, $url, 1, 0, $state, $status, $broken, $url)`,
          { crawlId: crawlId(1), url, state, status, broken },
        );
      expect(await repo.hasQueued(crawlId(1))).toBe(false);
      await target("http://d1.test/", "done", 200, 0);
      await target("http://d1.test/a", "queued", null, null);
      await target("http://d1.test/b", "queued", null, null);
      await target("http://d1.test/c", "done", 404, 1);
      expect(await repo.hasQueued(crawlId(1))).toBe(true);
      expect(await repo.queuedCount(crawlId(1))).toBe(2);
      expect(await repo.frontierCounts(crawlId(1))).toEqual({ found: 4, queued: 2 });
      expect(await repo.target(crawlId(1), "http://d1.test/c")).toEqual({
        state: "done",
        status_code: 404,
        is_broken: true,
        error: null,
        warning: null,
        final_url: "http://d1.test/c",
      });
      expect(await repo.target(crawlId(1), "http://d1.test/a")).toMatchObject({ state: "queued", is_broken: false });
      expect(await repo.target(crawlId(1), "http://d1.test/none")).toBeUndefined();
    });

    test("deleting a crawl, alone or with its domain, deletes its links and no other crawl's", async () => {
      // On PostgreSQL a trigger does what the foreign key's cascade does on SQLite (migration 0018).
      for (const [n, domainId] of [
        [1, "d1"],
        [2, "d2"],
      ] as const) {
        await pending(repo, n, domainId);
        await store.db.run(
          `INSERT INTO crawl_targets (crawl_id, url, internal, depth, state, status_code, is_broken, final_url)
           VALUES ($crawlId, $url, 1, 0, 'done', 200, 0, $url)`,
          { crawlId: crawlId(n), url: `http://${domainId}.test/` },
        );
        const target = await store.db.get<{ id: number }>("SELECT id FROM crawl_targets WHERE crawl_id = $crawlId", { crawlId: crawlId(n) });
        for (const text of ["one", "two", "three"])
          await store.db.run("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ($crawlId, $source, $targetId, $text, 'anchor')", {
            crawlId: crawlId(n),
            source: `http://${domainId}.test/`,
            targetId: target!.id,
            text,
          });
      }
      const links = async (n: number) =>
        Number((await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM links WHERE crawl_id = $crawlId", { crawlId: crawlId(n) }))!.n);
      expect([await links(1), await links(2)]).toEqual([3, 3]);
      await store.db.run("DELETE FROM crawls WHERE id = $id", { id: crawlId(1) });
      expect([await links(1), await links(2)]).toEqual([0, 3]);
      await store.db.run("DELETE FROM domains WHERE id = 'd2'");
      expect([await links(1), await links(2)]).toEqual([0, 0]);
    });

    test("claiming queues crawl.started in the claim's transaction, for the webhooks subscribed to it", async () => {
      await store.db.run(
        `INSERT INTO webhooks (id, url, name, events, secret, created_at)
         VALUES ('w1', 'https://hooks.example/in', NULL, '["crawl.started","crawl.completed"]', 's', '2026-01-01T00:00:00.000Z'),
                ('w2', 'https://other.example/in', NULL, '["crawl.failed"]', 's', '2026-01-01T00:00:00.000Z')`,
      );
      expect(await claimNextCrawl(repo, "2026-01-01T00:05:00.000Z")).toBeUndefined();
      await pending(repo, 1, "d1");
      const claimed = await claimNextCrawl(repo, "2026-01-01T00:05:00.000Z");
      expect(claimed).toMatchObject({ id: crawlId(1), status: "running", started_at: "2026-01-01T00:05:00.000Z" });
      const deliveries = await store.db.all<{ webhook_id: string; event: string; payload: string }>(
        "SELECT webhook_id, event, payload FROM webhook_deliveries ORDER BY webhook_id",
      );
      expect(deliveries.map(({ webhook_id, event }) => ({ webhook_id, event }))).toEqual([{ webhook_id: "w1", event: "crawl.started" }]);
      expect(JSON.parse(deliveries[0]!.payload).data).toEqual({ crawl_id: crawlId(1), domain_name: "d1.test", started_at: "2026-01-01T00:05:00.000Z" });
    });
  });
}

describe.skipIf(!HAS_POSTGRES)("claiming on PostgreSQL from two nodes at once", () => {
  test("while one node's claim is open, another node claims the next pending crawl, never the same", async () => {
    const database = await freshDatabase();
    const first = await connectPostgres(database.url, { bigint: true, max: 2 });
    const second = await connectPostgres(database.url, { bigint: true, max: 2 });
    try {
      await migratePostgres(first);
      const nodeA = new CrawlsRepo(new PostgresDb(first));
      const nodeB = new CrawlsRepo(new PostgresDb(second));
      const db = new PostgresDb(first);
      for (const id of ["d1", "d2", "d3"]) await domain(db, id);
      await pending(nodeA, 1, "d1");
      await pending(nodeA, 2, "d2");
      await pending(nodeA, 3, "d3");

      let claimedByA!: () => void;
      const aClaimed = new Promise<void>((resolve) => (claimedByA = resolve));
      let bDone = false;
      // Node A claims and keeps its transaction open (bounded: 5 s) until node B has claimed too.
      const a = nodeA.transaction(async (crawls) => {
        const id = await crawls.claimOldestPending("2026-01-01T00:10:00.000Z");
        claimedByA();
        for (let i = 0; i < 250 && !bDone; i++) await Bun.sleep(20);
        return id;
      });
      await aClaimed;
      const b = await claimNextCrawl(nodeB, "2026-01-01T00:10:00.000Z");
      bDone = true;
      // Without SKIP LOCKED, B would wait on A's row lock, A on B: B would only answer after A's 5 s, with nothing.
      expect(b?.id).toBe(crawlId(2));
      expect(await a).toBe(crawlId(1));
      // And a third claim from either node takes the last one.
      expect((await claimNextCrawl(nodeB, "2026-01-01T00:11:00.000Z"))?.id).toBe(crawlId(3));
      expect(await claimNextCrawl(nodeA, "2026-01-01T00:11:00.000Z")).toBeUndefined();
      expect(await nodeA.runningIds()).toEqual([crawlId(1), crawlId(2), crawlId(3)]);
    } finally {
      await first.close();
      await second.close();
      await database.drop();
    }
  }, 30_000);

  test("many claims at once from two nodes take each pending crawl exactly once", async () => {
    const database = await freshDatabase();
    const first = await connectPostgres(database.url, { bigint: true, max: 4 });
    const second = await connectPostgres(database.url, { bigint: true, max: 4 });
    try {
      await migratePostgres(first);
      const nodes = [new CrawlsRepo(new PostgresDb(first)), new CrawlsRepo(new PostgresDb(second))];
      const db = new PostgresDb(first);
      for (let n = 1; n <= 12; n++) {
        await domain(db, `d${n}`);
        await pending(nodes[0]!, n, `d${n}`);
      }
      const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => claimNextCrawl(nodes[i % 2]!, "2026-01-01T00:10:00.000Z")));
      const ids = claims.filter((crawl) => crawl !== undefined).map((crawl) => crawl.id);
      expect(new Set(ids).size).toBe(ids.length);
      // A claim that found every pending row locked by the others takes none rather than waiting; retried, the rest go.
      for (let i = 0; i < 12 && (await nodes[0]!.hasPending()); i++) {
        const crawl = await claimNextCrawl(nodes[i % 2]!, "2026-01-01T00:11:00.000Z");
        if (crawl !== undefined) ids.push(crawl.id);
      }
      expect(ids.sort()).toEqual(Array.from({ length: 12 }, (_, i) => crawlId(i + 1)));
      const started = await db.all<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries");
      expect(started).toEqual([{ n: 0 }]);
    } finally {
      await first.close();
      await second.close();
      await database.drop();
    }
  }, 30_000);
});
