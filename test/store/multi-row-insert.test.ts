import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { MultiRowInsert } from "../../src/store/multi-row-insert.ts";
import { SQLITE, POSTGRES } from "../../src/store/dialect.ts";
import { DIALECTS, type TestDb } from "../helpers/dbs.ts";

/** Multi-row INSERTs with positional values write alike on SQLite and PostgreSQL (issue 43). */

const insertUnchecked = () =>
  new MultiRowInsert(
    "INSERT INTO unchecked_links (crawl_id, source_url, url, kind, internal, link_text, status_code, cause, broken_since) VALUES",
    "(?1, ?, ?, 'anchor', 1, ?, ?, 'answer', ?2)",
    2,
    "",
    4,
  );

test("the statement for a row count is built once per dialect, shared values first, then each row's in turn", () => {
  const insert = new MultiRowInsert("INSERT INTO t (owner, n, label) VALUES", "(?1, ?, ?)", 1);
  expect(insert.text(SQLITE, 2)).toBe("INSERT INTO t (owner, n, label) VALUES (?1, ?2, ?3), (?1, ?4, ?5) ");
  expect(insert.text(POSTGRES, 2)).toBe("INSERT INTO t (owner, n, label) VALUES ($1, $2, $3), ($1, $4, $5) ");
  expect(insert.text(SQLITE, 2)).toBe(insert.text(SQLITE, 2));
});

test("a row shape past SQLite's variables per statement is refused when it is declared", () => {
  expect(() => new MultiRowInsert("INSERT INTO t (a, b) VALUES", "(?, ?)", 0, "", 20_000)).toThrow(RangeError);
});

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`multi-row insert on ${dialect.name}`, () => {
    let store: TestDb;
    beforeEach(async () => {
      store = await dialect.open();
      await store.db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES ('d1', 'example.test', 'http://example.test/', 'tok')");
      await store.db.run("INSERT INTO crawls (id, domain_id, status, options, created_at) VALUES ('c1', 'd1', 'running', '{}', '2026-01-01')");
    });
    afterEach(() => store.close());

    test("rows go in groups with the shared values bound once each, in order", async () => {
      const values = Array.from({ length: 10 }, (_, i) => [`http://example.test/p${i}`, `http://example.test/t${i}`, `text ${i}`, 400 + i]).flat();
      await insertUnchecked().run(store.db, ["c1", "2026-01-01T00:00:00.000Z"], values);
      const rows = await store.db.all<{ source_url: string; link_text: string; status_code: number; broken_since: string; crawl_id: string }>(
        "SELECT crawl_id, source_url, link_text, status_code, broken_since FROM unchecked_links ORDER BY id",
      );
      expect(rows.map((row) => [row.source_url, row.link_text, row.status_code])).toEqual(
        Array.from({ length: 10 }, (_, i) => [`http://example.test/p${i}`, `text ${i}`, 400 + i]),
      );
      expect(rows.every((row) => row.crawl_id === "c1" && row.broken_since === "2026-01-01T00:00:00.000Z")).toBe(true);
    });

    test("values that do not fill whole rows, or the wrong number of shared values, are refused before anything is written", async () => {
      const insert = insertUnchecked();
      await expect(insert.run(store.db, ["c1", "x"], [1, 2, 3])).rejects.toThrow(RangeError);
      await expect(insert.run(store.db, ["c1"], ["a", "b", "c", 1])).rejects.toThrow(RangeError);
      await insert.run(store.db, ["c1", "x"], []);
      expect(await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM unchecked_links")).toEqual({ n: 0 });
    });

    test("100 rows of 13 values go in one statement within both engines' limits", async () => {
      const insert = new MultiRowInsert(
        "INSERT INTO unchecked_links (crawl_id, source_url, url, fragment, kind, internal, link_text, status_code, final_url, error, warning, cause, broken_since) VALUES",
        "(?1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        1,
      );
      const values = Array.from({ length: 250 }, (_, i) => [`s${i}`, `u${i}`, "", "anchor", 1, "t", 404, null, null, null, "answer", "2026"]).flat();
      await insert.run(store.db, ["c1"], values);
      expect(await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM unchecked_links")).toEqual({ n: 250 });
    });
  });
}
