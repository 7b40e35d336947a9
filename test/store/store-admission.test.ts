import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../../src/store/migrate.ts";
import { acquireServiceLock, lockPathOf } from "../../src/store/service-lock.ts";
import { openStore, StoreFileError } from "../../src/store/sqlite.ts";
import { admitOpenedStore, admitStoreFile } from "../../src/store/store-admission.ts";
import { readStoreRecord, storeIdOf } from "../../src/store/store-record.ts";

/**
 * What a start decides about the store it finds (store/store-admission.ts), from the record in the lock file
 * beside it: the cases the process tests do not reach.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-admission-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SET_UP = { mayCreate: true, newStore: false };

test("the lock file records the store's id; another store with its own id is refused until newStore", () => {
  const path = join(dir, "recorded.db");
  const store = openStore(path, { create: true });
  migrate(store.sqlite);
  const id = storeIdOf(store.sqlite)!;
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  const lock = acquireServiceLock(path, "serve");
  lock.recordStore(id);
  // Readable beside the holder, which keeps the lock.
  expect(readStoreRecord(lockPathOf(path))?.storeId).toBe(id);
  expect(() => acquireServiceLock(path, "serve")).toThrow("in use by linkpatrol serve");
  lock.release();
  store.close();

  // Another store (another id) where the recorded one was.
  const other = new Database(path);
  other.run("UPDATE store_identity SET store_id = 'ffffffffffffffffffffffffffffffff'");
  const file = admitStoreFile(path, SET_UP);
  expect(file).toMatchObject({ create: false, record: { storeId: id } });
  expect(() => admitOpenedStore(other, path, file, SET_UP)).toThrow(/another store was put in its place/);
  expect(() => admitOpenedStore(other, path, file, { mayCreate: true, newStore: true })).not.toThrow();
  other.close();
});

test("a lock file left by a linkpatrol from before the record (a holder, no record) counts as a store used there", () => {
  const path = join(dir, "legacy.db");
  const legacy = new Database(lockPathOf(path));
  legacy.exec("CREATE TABLE holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, purpose TEXT NOT NULL, since TEXT NOT NULL)");
  legacy.run("INSERT INTO holder VALUES (1, 4242, 'serve', '2026-01-01T00:00:00.000Z')");
  legacy.close();
  expect(() => admitStoreFile(path, SET_UP)).toThrow(StoreFileError);
  expect(() => admitStoreFile(path, SET_UP)).toThrow(`the store ${path} is missing`);
  // Taking the lock keeps that knowledge: the record it makes has no id, yet says a store was there.
  acquireServiceLock(path, "serve").release();
  expect(readStoreRecord(lockPathOf(path))).toEqual({ storeId: null, recordedAt: expect.any(String) });
  expect(() => admitStoreFile(path, SET_UP)).toThrow("is missing");
  expect(admitStoreFile(path, { mayCreate: true, newStore: true }).create).toBe(true);
});

test("a lock file taken by a start that failed before making its store records nothing", () => {
  const path = join(dir, "never-made.db");
  acquireServiceLock(path, "serve").release();
  expect(readStoreRecord(lockPathOf(path))).toBeNull();
  expect(admitStoreFile(path, SET_UP).create).toBe(true);
  expect(() => admitStoreFile(path, { mayCreate: false, newStore: false })).toThrow(`no store at ${path}`);
});

test("a WAL left at the path without its store is moved aside, not read into the new store", () => {
  const path = join(dir, "orphan.db");
  writeFileSync(`${path}-wal`, "frames of a store that was there");
  writeFileSync(`${path}-shm`, "index");
  const file = admitStoreFile(path, SET_UP);
  expect(file.create).toBe(true);
  expect(file.setAside).toStartWith(`${path}-wal.orphaned-`);
  expect(readFileSync(file.setAside!, "utf8")).toBe("frames of a store that was there");
  expect(existsSync(`${path}-wal`)).toBe(false);
  expect(existsSync(`${path}-shm`)).toBe(false);
  // An empty one is simply removed.
  writeFileSync(`${path}-wal`, "");
  expect(admitStoreFile(path, SET_UP).setAside).toBeNull();
  expect(readdirSync(dir).filter((name) => name.startsWith("orphan.db-wal")).length).toBe(1);
});
