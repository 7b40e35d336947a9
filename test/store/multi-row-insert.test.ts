import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { MultiRowInsert } from "../../src/store/multi-row-insert.ts";

test("rows go in groups with shared values bound once, and each group reports its consecutive rowids", () => {
  const db = new Database(":memory:", { strict: true });
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, n INTEGER NOT NULL, label TEXT)");
  db.exec("INSERT INTO t (owner, n) VALUES ('earlier', 0)");
  const insert = new MultiRowInsert(db, "INSERT INTO t (owner, n, label) VALUES", "(?1, ?, ?)", 1, "", 4);
  const groups: [number, number, number][] = [];
  const values = Array.from({ length: 10 }, (_, i) => [i + 1, `row ${i + 1}`]).flat();
  insert.run(["me"], values, (firstId, offset, rows) => groups.push([firstId, offset, rows]));
  expect(groups).toEqual([
    [2, 0, 4],
    [6, 4, 4],
    [10, 8, 2],
  ]);
  const rows = db.query("SELECT id, owner, n, label FROM t WHERE owner = 'me' ORDER BY id").all() as any[];
  expect(rows.map((row) => [row.id, row.n, row.label])).toEqual(Array.from({ length: 10 }, (_, i) => [i + 2, i + 1, `row ${i + 1}`]));
  expect(rows.every((row) => row.owner === "me")).toBe(true);
});

test("values that do not fill whole rows, or the wrong number of shared values, are refused before anything is written", () => {
  const db = new Database(":memory:", { strict: true });
  db.exec("CREATE TABLE t (a INTEGER, b INTEGER)");
  const insert = new MultiRowInsert(db, "INSERT INTO t (a, b) VALUES", "(?, ?)", 0);
  expect(() => insert.run([], [1, 2, 3])).toThrow(RangeError);
  expect(() => insert.run([7], [1, 2])).toThrow(RangeError);
  insert.run([], []);
  expect(db.query("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 0 });
});
