import { expect, test } from "bun:test";
import { describeWarnings } from "../../src/core/crawl-warnings.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { openStore } from "../../src/store/sqlite.ts";
import { SqliteDb } from "../../src/store/sqlite-db.ts";
import { WarningsRepo } from "../../src/store/warnings.repo.ts";

/**
 * Migration *_crawl_warnings moves the warnings of existing crawls out of their rows: each text becomes an `other`
 * entry of crawl_warnings (cut like any sample), at most 32 per crawl with the rest counted in `omitted`, and the
 * column goes, so a crawl row that held megabytes of warnings holds none. The column goes without rebuilding
 * `crawls` (a rebuild inside the migration's transaction, where foreign keys stay on, would cascade-delete every
 * row that points at a crawl), so the crawls' targets, links, broken and unchecked links all stay.
 */

test("a crawl's stored warning texts become bounded entries of their own table", async () => {
  const store = openStore(":memory:");
  const before = MIGRATIONS.findIndex((m) => m.tag.endsWith("_crawl_warnings"));
  migrate(store.sqlite, MIGRATIONS.slice(0, before));
  const texts = Array.from({ length: 40 }, (_, i) => (i === 0 ? "x".repeat(500) : `warning ${i}`));
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  const insert = "INSERT INTO crawls (id, domain_id, status, options, created_at, warnings) VALUES (?, 'd1', 'completed', '{}', ?, ?)";
  store.sqlite.run(insert, ["c-many", "2026-01-01", JSON.stringify(texts)]);
  store.sqlite.run(insert, ["c-two", "2026-01-02", JSON.stringify(["one", "two"])]);
  store.sqlite.run(insert, ["c-none", "2026-01-03", "[]"]);
  store.sqlite.run(
    "INSERT INTO crawl_targets (id, crawl_id, url, state, internal, depth, status_code, is_broken) VALUES (1, 'c-two', 'http://example.test/gone', 'done', 1, 1, 404, 1)",
  );
  store.sqlite.run("INSERT INTO crawl_pages (crawl_id, url) VALUES ('c-two', 'http://example.test/')");
  store.sqlite.run("INSERT INTO links (id, crawl_id, source_url, target_id, link_text, kind) VALUES (1, 'c-two', 'http://example.test/', 1, 'Gone', 'anchor')");
  store.sqlite.run("INSERT INTO broken_links (link_id, crawl_id, target_id, broken_since) VALUES (1, 'c-two', 1, '2026-01-02')");
  store.sqlite.run(
    `INSERT INTO unchecked_links (crawl_id, source_url, url, kind, internal, link_text, status_code, cause, broken_since)
     VALUES ('c-none', 'http://example.test/', 'http://example.test/gone', 'anchor', 1, 'Gone', 404, 'answer', '2026-01-02')`,
  );
  const rowsOf = () =>
    Object.fromEntries(
      ["crawls", "crawl_targets", "crawl_pages", "links", "broken_links", "unchecked_links"].map((table) => [
        table,
        store.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n,
      ]),
    );
  const rowsBefore = rowsOf();

  migrate(store.sqlite);
  expect(rowsOf()).toEqual(rowsBefore);
  expect(store.sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
  const repo = new WarningsRepo(new SqliteDb(store.sqlite));
  const many = await repo.entries("c-many");
  expect(many).toHaveLength(33);
  expect(many[0]).toEqual({ cause: "other", message: `${"x".repeat(299)}…`, count: 1, samples: [] });
  expect(many.slice(1, 32).map((entry) => entry.message)).toEqual(texts.slice(1, 32));
  expect(many[32]).toEqual({ cause: "omitted", message: "", count: 8, samples: [] });
  expect(describeWarnings(await repo.entries("c-two"))).toEqual(["one", "two"]);
  expect(await repo.entries("c-none")).toEqual([]);
  const columns = store.sqlite
    .query<{ name: string }, []>("SELECT name FROM pragma_table_info('crawls')")
    .all()
    .map((c) => c.name);
  expect(columns).not.toContain("warnings");
  store.close();
});
