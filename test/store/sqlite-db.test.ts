import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SqliteDb } from "../../src/store/sqlite-db.ts";

/**
 * One SQLite connection serves every request, and a transaction's body may await: the Db holds the connection
 * for the transaction, so a statement of another caller waits for its end instead of landing inside it (and
 * being rolled back with it).
 */

let sqlite: Database;
let db: SqliteDb;

beforeEach(() => {
  sqlite = new Database(":memory:", { strict: true });
  sqlite.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  db = new SqliteDb(sqlite);
});

afterEach(() => sqlite.close());

const bodies = async () => (await db.all<{ body: string }>("SELECT body FROM notes ORDER BY id")).map((row) => row.body);

test("a write outside a transaction that yields waits for it, and is not rolled back with it", async () => {
  let inside!: () => void;
  const entered = new Promise<void>((resolve) => {
    inside = resolve;
  });
  let proceed!: () => void;
  const mayFail = new Promise<void>((resolve) => {
    proceed = resolve;
  });
  const failing = db.transaction(async (tx) => {
    await tx.run("INSERT INTO notes (body) VALUES ($body)", { body: "inside" });
    inside();
    await mayFail;
    throw new Error("the transaction fails");
  });
  await entered;
  let outsideDone = false;
  const outside = db.run("INSERT INTO notes (body) VALUES ($body)", { body: "outside" }).then((result) => {
    outsideDone = true;
    return result;
  });
  await Bun.sleep(5);
  expect(outsideDone).toBe(false);
  proceed();
  await expect(failing).rejects.toThrow("the transaction fails");
  expect((await outside).changes).toBe(1);
  expect(await bodies()).toEqual(["outside"]);
});

test("two transactions that yield run one after the other, each committed whole", async () => {
  const writer = (label: string) =>
    db.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) {
        await tx.run("INSERT INTO notes (body) VALUES ($body)", { body: `${label}${i}` });
        await Bun.sleep(1);
      }
      return label;
    });
  expect(await Promise.all([writer("a"), writer("b")])).toEqual(["a", "b"]);
  expect(await bodies()).toEqual(["a0", "a1", "a2", "b0", "b1", "b2"]);
});

test("a nested transaction is a savepoint: its failure undoes only its own writes", async () => {
  await db.transaction(async (tx) => {
    await tx.run("INSERT INTO notes (body) VALUES ('kept')");
    await expect(
      tx.transaction(async (inner) => {
        await inner.run("INSERT INTO notes (body) VALUES ('undone')");
        throw new Error("inner fails");
      }),
    ).rejects.toThrow("inner fails");
  });
  expect(await bodies()).toEqual(["kept"]);
});

test("a statement on a transaction's Db after it ended is refused", async () => {
  let leaked: import("../../src/store/db.ts").Db | undefined;
  await db.transaction(async (tx) => {
    leaked = tx;
  });
  await expect(leaked!.run("INSERT INTO notes (body) VALUES ('late')")).rejects.toThrow("transaction that has ended");
  expect(await bodies()).toEqual([]);
});

test("a failing statement rejects its promise; the connection goes on", async () => {
  await expect(db.run("INSERT INTO missing (x) VALUES (1)")).rejects.toThrow("no such table");
  await db.run("INSERT INTO notes (body) VALUES ($body)", { body: "after" });
  expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM notes")).toEqual({ n: 1 });
});
