import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";

/**
 * What the lock file beside the store (store/service-lock.ts) remembers of the store: that a service used one
 * at that path, and the id of that store (its `store_identity` row). The lock file outlives the store's own, so a
 * start can tell a first install (nothing recorded) from a store that was deleted, moved or swapped for another
 * one (docs/decisions.md, "A store file deleted, moved or replaced under a running service"). It is written only
 * by the holder of the lock; anyone may read it.
 */

/** A store recorded at the path; `storeId` null when a linkpatrol from before the record used it (id unknown). */
export interface StoreRecord {
  storeId: string | null;
  recordedAt: string;
}

const TABLE = "CREATE TABLE IF NOT EXISTS store (id INTEGER PRIMARY KEY CHECK (id = 1), store_id TEXT, recorded_at TEXT NOT NULL)";

/**
 * Makes the record table on a lock file being taken. A lock file that a linkpatrol from before the record has
 * held (a holder row, no record table) gets a record with no id: a store was used there, which one is unknown.
 * Runs inside the lock's write transaction.
 */
export function prepareStoreRecord(lock: Database): void {
  const hasRecord = lock.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store'").get() !== null;
  if (hasRecord) return;
  const heldBefore =
    lock.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'holder'").get() !== null && lock.query("SELECT 1 FROM holder").get() !== null;
  lock.exec(TABLE);
  if (heldBefore) lock.run("INSERT INTO store (id, store_id, recorded_at) VALUES (1, NULL, ?)", [new Date().toISOString()]);
}

/** The record in the lock file `lock` holds open, or null. */
export function storeRecordIn(lock: Database): StoreRecord | null {
  const row = lock.query<{ store_id: string | null; recorded_at: string }, []>("SELECT store_id, recorded_at FROM store WHERE id = 1").get();
  return row === null ? null : { storeId: row.store_id, recordedAt: row.recorded_at };
}

/** Records `storeId` as the store at the path; inside the lock's write transaction. */
export function writeStoreRecord(lock: Database, storeId: string): void {
  lock.run("INSERT OR REPLACE INTO store (id, store_id, recorded_at) VALUES (1, ?, ?)", [storeId, new Date().toISOString()]);
}

/** What the lock file at `lockPath` records, read without taking the lock; null when nothing is (or no file). */
export function readStoreRecord(lockPath: string): StoreRecord | null {
  if (!existsSync(lockPath)) return null;
  let db: Database;
  try {
    db = new Database(lockPath, { readonly: true });
  } catch {
    return null; // unreadable: taking the lock reports it, naming the file
  }
  try {
    db.exec("PRAGMA busy_timeout = 2000");
    const tables = new Set(
      db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => row.name),
    );
    if (tables.has("store")) return storeRecordIn(db);
    // Held by a linkpatrol from before the record: a store was used here.
    const held = tables.has("holder") ? db.query<{ since: string }, []>("SELECT since FROM holder WHERE id = 1").get() : null;
    return held === null ? null : { storeId: null, recordedAt: held.since };
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** The id the store itself carries (its `store_identity` row), or null for a store without one (empty, or older). */
export function storeIdOf(store: Database): string | null {
  const table = store.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_identity'").get();
  if (table === null) return null;
  return store.query<{ store_id: string }, []>("SELECT store_id FROM store_identity WHERE id = 1").get()?.store_id ?? null;
}
