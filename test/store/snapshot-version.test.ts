import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import type { Bindings, Db } from "../../src/store/db.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { PostgresDb } from "../../src/store/postgres/postgres-db.ts";
import { SnapshotVersion } from "../../src/store/postgres/snapshot-version.ts";
import { freshDatabase, HAS_POSTGRES } from "../helpers/postgres.ts";

/**
 * The PostgreSQL store's version token (store/postgres/snapshot-version.ts): it moves with every commit of a
 * write, by any connection (another node's), and only then; callers share reads, but never one that began
 * before they asked.
 */

let database: Awaited<ReturnType<typeof freshDatabase>>;
let clients: SQL[] = [];
let node: Db;
let other: Db;

beforeAll(async () => {
  if (!HAS_POSTGRES) return;
  database = await freshDatabase();
  clients = [await connectPostgres(database.url, { bigint: true, max: 4 }), await connectPostgres(database.url, { bigint: true, max: 4 })];
  node = new PostgresDb(clients[0]!);
  other = new PostgresDb(clients[1]!);
  await other.run("CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL)");
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await database?.drop();
});

/** `db` with the reads of the token counted once their rows are in (the snapshot taken), each then held until `gate` opens. */
function gated(db: Db, reads: { count: number }, gate: () => Promise<void>): Db {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (text: string, params?: Bindings) => {
        const row = await target.get(text, params);
        reads.count++;
        await gate();
        return row;
      };
    },
  });
}

describe.skipIf(!HAS_POSTGRES)("SnapshotVersion", () => {
  test("reads leave it alone; a write committed by another connection moves it, an open one only at its commit", async () => {
    const version = new SnapshotVersion(node);
    const first = await version.current();
    await other.all("SELECT * FROM notes");
    await other.transaction(async (tx) => {
      await tx.all("SELECT count(*) FROM notes");
    });
    expect(await version.current()).toBe(first);

    await other.run("INSERT INTO notes (id, body) VALUES (1, 'one')");
    const afterInsert = await version.current();
    expect(afterInsert).not.toBe(first);

    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const open = other.transaction(async (tx) => {
      await tx.run("UPDATE notes SET body = 'two' WHERE id = 1");
      await held;
    });
    // Until the update commits, the token names a state where it is not seen; after, one where it is.
    const whileOpen = await version.current();
    expect((await node.get<{ body: string }>("SELECT body FROM notes WHERE id = 1"))!.body).toBe("one");
    release();
    await open;
    expect(await version.current()).not.toBe(whileOpen);
    expect(await version.current()).not.toBe(afterInsert);
  });

  test("a rolled-back write moves it too (never a false hit), and the same state gives the same token", async () => {
    const version = new SnapshotVersion(node);
    const before = await version.current();
    await other
      .transaction(async (tx) => {
        await tx.run("INSERT INTO notes (id, body) VALUES (2, 'gone')");
        throw new Error("roll back");
      })
      .catch(() => {});
    const after = await version.current();
    expect(after).not.toBe(before);
    expect(await version.current()).toBe(after);
  });

  test("callers at once share a read; one that asks while a read is under way gets the next, taken after it asked", async () => {
    const reads = { count: 0 };
    let open!: () => void;
    let gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const version = new SnapshotVersion(gated(node, reads, () => gate));
    // A read under way: its snapshot is taken, its answer held back.
    const early = version.current();
    for (let i = 0; i < 20 && reads.count === 0; i++) await Bun.sleep(5);
    expect(reads.count).toBe(1);
    // A write commits; then 50 callers ask while the first read is still out.
    await other.run("INSERT INTO notes (id, body) VALUES (3, 'three')");
    const late = Array.from({ length: 50 }, () => version.current());
    open();
    gate = Promise.resolve();
    const earlyToken = await early;
    const lateTokens = await Promise.all(late);
    // They shared one read, started after the first: it sees the write the first did not.
    expect(reads.count).toBe(2);
    expect(new Set(lateTokens).size).toBe(1);
    expect(lateTokens[0]).not.toBe(earlyToken);
    // And once both are done, a caller starts a read of its own.
    await version.current();
    expect(reads.count).toBe(3);
  });

  test("a failed read fails its callers, and the next caller reads again", async () => {
    let failing = true;
    const flaky = new Proxy(node, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "get") return typeof value === "function" ? value.bind(target) : value;
        return (text: string, params?: Bindings) => (failing ? Promise.reject(new Error("connection lost")) : target.get(text, params));
      },
    });
    const version = new SnapshotVersion(flaky);
    await expect(version.current()).rejects.toThrow("connection lost");
    failing = false;
    expect(await version.current()).toMatch(/^\d+:\d+:/);
  });
});
