import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderMigrationIndex } from "../../scripts/embed-migrations.ts";
import { openStore } from "../../src/store/sqlite.ts";
import { migrate, SchemaTooNewError } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";

const migrationsDir = join(import.meta.dir, "..", "..", "src", "store", "migrations");

describe("migrations", () => {
  test("the embedded index lists exactly drizzle-kit's journal", () => {
    const journal = readFileSync(join(migrationsDir, "meta", "_journal.json"), "utf8");
    expect(readFileSync(join(migrationsDir, "index.ts"), "utf8")).toBe(renderMigrationIndex(journal));
    for (const m of MIGRATIONS) expect(m.sql).toBe(readFileSync(join(migrationsDir, `${m.tag}.sql`), "utf8"));
  });

  test("apply once on an empty store, then nothing", () => {
    const store = openStore(":memory:");
    const first = migrate(store.sqlite);
    expect(first.applied).toEqual(MIGRATIONS.map((m) => m.tag));
    expect(migrate(store.sqlite).applied).toEqual([]);
    const tables = store.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["api_keys", "domains", "schema_migrations"]));
    store.close();
  });

  test("a store migrated by a newer binary is refused", () => {
    const store = openStore(":memory:");
    migrate(store.sqlite);
    store.sqlite.run("INSERT INTO schema_migrations (tag, applied_at) VALUES ('9999_future', 'x')");
    expect(() => migrate(store.sqlite)).toThrow(SchemaTooNewError);
    store.close();
  });

  test("0004 rebuilds links without reusing an id, even when every link of the old table was deleted", () => {
    const beforeLinksRebuild = MIGRATIONS.findIndex((m) => m.tag === "0004_waiting_and_broken_links");
    for (const deleteAll of [false, true]) {
      const store = openStore(":memory:");
      migrate(store.sqlite, MIGRATIONS.slice(0, beforeLinksRebuild));
      store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
      store.sqlite.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'completed', '{}', '2026-01-01')");
      store.sqlite.run(
        "INSERT INTO crawl_targets (crawl_id, url, state, internal, as_page, depth, status_code, is_broken) VALUES ('c1', 'http://example.test/', 'done', 1, 1, 0, 200, 0)",
      );
      for (let i = 0; i < 3; i++) {
        store.sqlite.run("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ('c1', 'http://example.test/', 1, ?, 'anchor')", [
          `l${i}`,
        ]);
      }
      // The newest link goes (a crawl pruned at the end of the table), or every one does (all crawls pruned).
      store.sqlite.run(deleteAll ? "DELETE FROM links" : "DELETE FROM links WHERE id = 3");
      migrate(store.sqlite);
      store.sqlite.run("INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES ('c1', 'http://example.test/', 1, 'new', 'anchor')");
      expect(store.sqlite.query("SELECT MAX(id) AS id FROM links").get()).toEqual({ id: 4 });
      store.close();
    }
  });

  test("0009 gives the broken links recorded before it the start of their own crawl as broken_since", () => {
    const before = MIGRATIONS.findIndex((m) => m.tag === "0009_open_links");
    const store = openStore(":memory:");
    migrate(store.sqlite, MIGRATIONS.slice(0, before));
    const db = store.sqlite;
    db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
    db.run(
      "INSERT INTO crawls (id, domain_id, status, options, created_at, started_at) VALUES ('c1', 'd1', 'completed', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:05.000Z')",
    );
    db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c2', 'd1', 'failed', '{}', '2026-01-02T00:00:00.000Z')");
    for (const crawl of ["c1", "c2"]) {
      const target = db
        .query<{ id: number }, [string]>(
          "INSERT INTO crawl_targets (crawl_id, url, state, internal, depth, status_code, is_broken) VALUES (?, 'http://example.test/x', 'done', 1, 1, 404, 1) RETURNING id",
        )
        .get(crawl)!.id;
      const link = db
        .query<{ id: number }, [string, number]>(
          "INSERT INTO links (crawl_id, source_url, target_id, link_text, kind) VALUES (?, 'http://example.test/', ?, 'x', 'anchor') RETURNING id",
        )
        .get(crawl, target)!.id;
      db.run("INSERT INTO broken_links (link_id, crawl_id, target_id) VALUES (?, ?, ?)", [link, crawl, target]);
    }
    db.run("INSERT INTO crawl_pages (crawl_id, url) VALUES ('c1', 'http://example.test/')");
    migrate(db);
    expect(db.query("SELECT crawl_id, broken_since FROM broken_links ORDER BY crawl_id").all()).toEqual([
      { crawl_id: "c1", broken_since: "2026-01-01T00:00:05.000Z" },
      { crawl_id: "c2", broken_since: "2026-01-02T00:00:00.000Z" }, // never started: its creation
    ]);
    expect(db.query("SELECT cut FROM crawl_pages").all()).toEqual([{ cut: 0 }]);
    store.close();
  });

  test("a failing migration leaves no trace of itself", () => {
    const store = openStore(":memory:");
    const broken = [{ tag: "0000_broken", sql: "CREATE TABLE t (a int);\n--> statement-breakpoint\nTHIS IS NOT SQL" }];
    expect(() => migrate(store.sqlite, broken)).toThrow();
    expect(store.sqlite.query("SELECT name FROM sqlite_master WHERE name = 't'").all()).toEqual([]);
    expect(store.sqlite.query("SELECT tag FROM schema_migrations").all()).toEqual([]);
    store.close();
  });

  const first = { tag: "0000_first", sql: "CREATE TABLE first_table (a int)" };
  const broken = { tag: "0001_broken", sql: "CREATE TABLE second_table (a int);\n--> statement-breakpoint\nTHIS IS NOT SQL" };
  const tableNames = (store: ReturnType<typeof openStore>) =>
    store.sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%_table' ORDER BY name")
      .all()
      .map((t) => t.name);

  test("a new store is built all at once: a failing migration leaves it empty", () => {
    const store = openStore(":memory:");
    expect(() => migrate(store.sqlite, [first, broken])).toThrow();
    expect(tableNames(store)).toEqual([]);
    expect(store.sqlite.query("SELECT tag FROM schema_migrations").all()).toEqual([]);
    store.close();
  });

  test("an upgrade applies each migration on its own: those before a failing one stay applied", () => {
    const store = openStore(":memory:");
    const third = { tag: "0002_third", sql: "CREATE TABLE third_table (a int)" };
    expect(migrate(store.sqlite, [third]).applied).toEqual(["0002_third"]);
    expect(() => migrate(store.sqlite, [first, broken, third])).toThrow();
    expect(tableNames(store)).toEqual(["first_table", "third_table"]);
    expect(
      store.sqlite
        .query<{ tag: string }, []>("SELECT tag FROM schema_migrations ORDER BY tag")
        .all()
        .map((r) => r.tag),
    ).toEqual(["0000_first", "0002_third"]);
    store.close();
  });
});
