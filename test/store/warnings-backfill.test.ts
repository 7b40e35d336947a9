import { expect, test } from "bun:test";
import { describeWarnings } from "../../src/core/crawl-warnings.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { openStore } from "../../src/store/sqlite.ts";
import { WarningsRepo } from "../../src/store/warnings.repo.ts";

/**
 * Migration 0008 moves the warnings of existing crawls out of their rows: each text becomes an `other` entry of
 * crawl_warnings (cut like any sample), at most 32 per crawl with the rest counted in `omitted`, and the column
 * goes, so a crawl row that held megabytes of warnings holds none.
 */

test("a crawl's stored warning texts become bounded entries of their own table", () => {
  const store = openStore(":memory:");
  const before = MIGRATIONS.findIndex((m) => m.tag === "0008_crawl_warnings");
  migrate(store.sqlite, MIGRATIONS.slice(0, before));
  const texts = Array.from({ length: 40 }, (_, i) => (i === 0 ? "x".repeat(500) : `warning ${i}`));
  store.sqlite.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
  const insert = "INSERT INTO crawls (id, domain_id, status, options, created_at, warnings) VALUES (?, 'd1', 'completed', '{}', ?, ?)";
  store.sqlite.run(insert, ["c-many", "2026-01-01", JSON.stringify(texts)]);
  store.sqlite.run(insert, ["c-two", "2026-01-02", JSON.stringify(["one", "two"])]);
  store.sqlite.run(insert, ["c-none", "2026-01-03", "[]"]);

  migrate(store.sqlite);
  const repo = new WarningsRepo(store.sqlite);
  const many = repo.entries("c-many");
  expect(many).toHaveLength(33);
  expect(many[0]).toEqual({ cause: "other", message: `${"x".repeat(299)}…`, count: 1, samples: [] });
  expect(many.slice(1, 32).map((entry) => entry.message)).toEqual(texts.slice(1, 32));
  expect(many[32]).toEqual({ cause: "omitted", message: "", count: 8, samples: [] });
  expect(describeWarnings(repo.entries("c-two"))).toEqual(["one", "two"]);
  expect(repo.entries("c-none")).toEqual([]);
  const columns = store.sqlite.query<{ name: string }, []>("SELECT name FROM pragma_table_info('crawls')").all().map((c) => c.name);
  expect(columns).not.toContain("warnings");
  store.close();
});
