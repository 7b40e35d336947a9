import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { storeNow } from "../../src/store/store-clock.ts";
import { DIALECTS, forEachDialect, type TestDb } from "../helpers/dbs.ts";

/** The dialect's spellings run on their own engine: each member used in a statement the engine accepts. */

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`the ${dialect.name} dialect`, () => {
    let store: TestDb;
    beforeEach(async () => {
      store = await dialect.open();
    });
    afterEach(() => store.close());

    test("row locks: a taker's SELECT and a writer's check read the row, in a transaction", async () => {
      await store.db.run("INSERT INTO store_secrets (name, value) VALUES ('a', 'x')");
      const { skipLocked, shareLock } = store.db.dialect;
      expect([skipLocked, shareLock]).toEqual(dialect.name === "postgres" ? [" FOR UPDATE SKIP LOCKED", " FOR SHARE"] : ["", ""]);
      const rows = await store.db.transaction(async (tx) => [
        await tx.get(`SELECT value FROM store_secrets WHERE name = 'a'${skipLocked}`),
        await tx.get(`SELECT value FROM store_secrets WHERE name = 'a'${shareLock}`),
      ]);
      expect(rows).toEqual([{ value: "x" }, { value: "x" }]);
    });

    test("the store's clock: epoch milliseconds from the engine, close to this machine's", async () => {
      const before = Date.now();
      const now = await storeNow(store.db);
      expect(Math.abs(now.getTime() - before)).toBeLessThan(5_000);
      expect(Number.isInteger(now.getTime())).toBe(true);
    });

    test("a JSON list of strings as a condition", async () => {
      await store.db.run("INSERT INTO store_secrets (name, value) VALUES ('a', 'x'), ('b', 'y'), ('c', 'z')");
      const rows = await store.db.all<{ name: string }>(`SELECT name FROM store_secrets WHERE ${store.db.dialect.textIn("name", "names")} ORDER BY name`, {
        names: JSON.stringify(["a", "c"]),
      });
      expect(rows.map((row) => row.name)).toEqual(["a", "c"]);
      expect(await store.db.all(`SELECT name FROM store_secrets WHERE ${store.db.dialect.textIn("name", "names")}`, { names: "[]" })).toEqual([]);
    });

    test("a JSON list of integer ids as a condition", async () => {
      await store.db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
      await store.db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'running', '{}', '2026-01-01')");
      for (const n of [1, 2, 3, 4]) {
        await store.db.run("INSERT INTO crawl_targets (crawl_id, url, internal, depth) VALUES ('c1', $url, 1, 0)", { url: `http://example.test/${n}` });
      }
      const all = await store.db.all<{ id: number }>("SELECT id FROM crawl_targets ORDER BY id");
      const wanted = [all[1]!.id, all[3]!.id, 999_999];
      const rows = await store.db.all<{ url: string }>(`SELECT url FROM crawl_targets WHERE ${store.db.dialect.idIn("id", "ids")} ORDER BY id`, {
        ids: JSON.stringify(wanted),
      });
      expect(rows.map((row) => row.url)).toEqual(["http://example.test/2", "http://example.test/4"]);
      expect(await store.db.all(`SELECT id FROM crawl_targets WHERE ${store.db.dialect.idIn("id", "ids")}`, { ids: "[]" })).toEqual([]);
    });
  });
}

/**
 * What the two engines spell differently (store/dialect.ts), each spelling run on its own engine: the members
 * the crawls and results repos use give the same answers on SQLite and PostgreSQL.
 */

forEachDialect("the store's dialect", (store) => {
  test("position: 1-based, 0 when absent", async () => {
    const { dialect } = store();
    const row = await store().get<{ at: number; none: number }>(
      `SELECT ${dialect.position("$text", "'://'")} AS at, ${dialect.position("$text", "'#'")} AS none`,
      { text: "https://example.test/" },
    );
    expect(row).toEqual({ at: 6, none: 0 });
  });

  test("likeAnyCase matches ASCII letters of either case, with the escape character", async () => {
    const { dialect } = store();
    const matches = async (text: string, pattern: string) =>
      (await store().get<{ n: number }>(`SELECT COUNT(*) AS n FROM (SELECT 1 AS one) x WHERE $text ${dialect.likeAnyCase} $pattern ESCAPE '\\'`, {
        text,
        pattern,
      }))!.n === 1;
    expect(await matches("http://Example.TEST/Page", "%example.test/page%")).toBe(true);
    expect(await matches("http://example.test/100%", "%100\\%%")).toBe(true);
    expect(await matches("http://example.test/1000", "%100\\%%")).toBe(false);
  });

  test("textElements lists the strings of a JSON array column", async () => {
    const { dialect } = store();
    await store().run(
      `INSERT INTO webhooks (id, url, name, events, secret, created_at)
       VALUES ('w1', 'https://hooks.example/in', NULL, '["crawl.started","crawl.failed"]', 's', '2026-01-01T00:00:00.000Z')`,
    );
    const subscribed = async (event: string) =>
      (await store().all<{ id: string }>(`SELECT id FROM webhooks WHERE $event IN (${dialect.textElements("webhooks.events")})`, { event })).map(
        (row) => row.id,
      );
    expect(await subscribed("crawl.failed")).toEqual(["w1"]);
    expect(await subscribed("crawl.completed")).toEqual([]);
  });

  test("indexedBy names an index of the store where the engine takes the hint, and nothing where it does not", async () => {
    const { dialect } = store();
    const row = await store().get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM broken_links b ${dialect.indexedBy("broken_links_crawl_idx")} WHERE b.crawl_id = $id`,
      {
        id: "none",
      },
    );
    expect(row).toEqual({ n: 0 });
    expect(dialect.indexedBy("x")).toBe(dialect.name === "sqlite" ? "INDEXED BY x" : "");
  });

  test("skipLocked completes a claim's subquery on either engine", async () => {
    const { dialect } = store();
    const row = await store().get<{ id: string }>(
      `UPDATE crawls SET status = 'running' WHERE id = (SELECT id FROM crawls WHERE status = 'pending' ORDER BY created_at, id LIMIT 1${dialect.skipLocked}) RETURNING id`,
    );
    expect(row).toBeUndefined();
    expect(dialect.skipLocked).toBe(dialect.name === "postgres" ? " FOR UPDATE SKIP LOCKED" : "");
  });
});
