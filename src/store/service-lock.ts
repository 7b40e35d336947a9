import { Database } from "bun:sqlite";
import { chownSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { migrate, pendingMigrations, type MigrationReport } from "./migrate.ts";
import { describeFailure, StoreFileError } from "./sqlite.ts";
import { prepareStoreRecord, storeIdOf, storeRecordIn, writeStoreRecord } from "./store-record.ts";

/**
 * One process serves a store: `serve` (and a migration) holds a lock on `<store>.lock`, a tiny SQLite database
 * beside the store, for as long as it runs. The lock is a write transaction left open (BEGIN IMMEDIATE, a
 * RESERVED lock in SQLite's rollback mode), which is an fcntl lock the kernel drops when the process dies, so a
 * SIGKILL never leaves the store locked. Other processes may still read the lock database, where the holder
 * wrote its pid before it took the lock: a refusal names it. Why this and not flock or a lease: docs/decisions.md.
 * The lock file also records which store was used at the path (store/store-record.ts).
 */

/** What holds the lock: the service, or a migration or a copy to PostgreSQL run by the CLI. */
export type LockPurpose = "serve" | "migrate" | "copy";

const REFUSAL: Record<LockPurpose, (storePath: string, who: string) => string> = {
  serve: (storePath, who) => `the store ${storePath} is in use by ${who}; only one linkpatrol serve may run on a store (lock: ${lockPathOf(storePath)})`,
  migrate: (storePath, who) =>
    `the store ${storePath} has migrations to apply, but ${who} is using it; stop the service first (it applies them itself when it starts)`,
  copy: (storePath, who) =>
    `the store ${storePath} is in use by ${who}; stop the service before copying the store, so nothing it writes afterwards is left behind`,
};

/** The store is held by another process (or by another lock in this one). */
export class StoreLockedError extends Error {
  constructor(
    readonly storePath: string,
    readonly purpose: LockPurpose,
    readonly holder: { pid: number; purpose: string } | null,
  ) {
    const who = holder === null ? "another linkpatrol process" : `linkpatrol ${holder.purpose} (pid ${holder.pid})`;
    super(REFUSAL[purpose](storePath, who));
    this.name = "StoreLockedError";
  }
}

/** A held lock; `release` gives it up (idempotent). */
export interface ServiceLock {
  readonly path: string;
  /** Records `storeId` as the store at the path (store/store-record.ts), keeping the lock. */
  recordStore(storeId: string): void;
  release(): void;
}

/** The lock file of the store at `storePath`. */
export function lockPathOf(storePath: string): string {
  return `${storePath}.lock`;
}

const WAIT_FOR_READERS_MS = 2_000;

/** Takes the store's lock without waiting, or throws StoreLockedError naming the holder. */
export function acquireServiceLock(storePath: string, purpose: LockPurpose): ServiceLock {
  const path = lockPathOf(storePath);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreFileError(storePath, `cannot create the directory of the store ${storePath}: ${(error as Error).message}`);
  }
  let db: Database;
  try {
    const created = !existsSync(path);
    db = new Database(path, { create: true, strict: true });
    if (created) giveToStoreOwner(path, storePath);
  } catch (error) {
    throw new StoreFileError(storePath, `cannot open ${path}, the lock of the store ${storePath}: ${describeFailure(path, error)}`);
  }
  try {
    if (!tryBegin(db)) throw new StoreLockedError(storePath, purpose, holderOf(db));
    // The holder's pid is committed first, so others can read it; the lock is then taken again at once.
    db.exec("CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, purpose TEXT NOT NULL, since TEXT NOT NULL)");
    prepareStoreRecord(db);
    db.run("INSERT OR REPLACE INTO holder (id, pid, purpose, since) VALUES (1, ?, ?, ?)", [process.pid, purpose, new Date().toISOString()]);
    commitAndHoldAgain(db, storePath, purpose);
  } catch (error) {
    db.close();
    if (error instanceof StoreLockedError) throw error;
    throw new StoreFileError(storePath, `cannot take ${path}, the lock of the store ${storePath}: ${describeFailure(path, error)}`);
  }
  let held = true;
  return {
    path,
    recordStore: (storeId) => {
      if (!held) throw new RangeError("the lock was released");
      if (storeRecordIn(db)?.storeId === storeId) return;
      try {
        writeStoreRecord(db, storeId);
        commitAndHoldAgain(db, storePath, purpose);
      } catch (error) {
        // Whatever failed, this process may no longer hold the lock: it must not go on as if it did.
        held = false;
        db.close();
        if (error instanceof StoreLockedError) throw error;
        throw new StoreFileError(storePath, `cannot record the store in ${path}, the lock of the store ${storePath}: ${describeFailure(path, error)}`);
      }
    },
    release: () => {
      if (!held) return;
      held = false;
      db.exec("ROLLBACK");
      db.close();
    },
  };
}

/**
 * Commits what the lock's transaction wrote, so others can read it, and takes the lock again at once. Two
 * processes racing through that gap cannot both end up holding it: a write transaction has one owner.
 */
function commitAndHoldAgain(db: Database, storePath: string, purpose: LockPurpose): void {
  db.exec(`PRAGMA busy_timeout = ${WAIT_FOR_READERS_MS}`);
  db.exec("COMMIT");
  if (!tryBegin(db)) throw new StoreLockedError(storePath, purpose, holderOf(db));
}

/**
 * A lock file created by root (an operator's `sudo linkpatrol migrate`) goes to the owner of the store, or of its
 * directory, as SQLite does with a store's -wal and -shm files: else the service user could not take it later.
 */
function giveToStoreOwner(path: string, storePath: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = statSync(existsSync(storePath) ? storePath : dirname(storePath));
  if (owner.uid !== 0 || owner.gid !== 0) chownSync(path, owner.uid, owner.gid);
}

/** BEGIN IMMEDIATE without waiting: false when another connection holds the write lock. */
function tryBegin(db: Database): boolean {
  db.exec("PRAGMA busy_timeout = 0");
  try {
    db.exec("BEGIN IMMEDIATE");
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") return false;
    throw error;
  }
}

/** The pid the holder recorded, when it can be read (readers wait briefly for a holder writing it). */
function holderOf(db: Database): { pid: number; purpose: string } | null {
  try {
    db.exec(`PRAGMA busy_timeout = ${WAIT_FOR_READERS_MS}`);
    return db.query<{ pid: number; purpose: string }, []>("SELECT pid, purpose FROM holder WHERE id = 1").get();
  } catch {
    return null;
  }
}

/**
 * Applies pending migrations, holding the lock while it does unless the caller already holds it (`serve`), so a
 * schema never changes under a running service. With nothing to apply it takes no lock and works beside one.
 * Holding the lock, it records the store's id in it (store/store-record.ts).
 */
export function migrateLocked(sqlite: Database, storePath: string, options: { lockHeld: boolean }): MigrationReport {
  if (options.lockHeld || storePath === ":memory:" || pendingMigrations(sqlite).length === 0) return migrate(sqlite);
  const lock = acquireServiceLock(storePath, "migrate");
  try {
    const report = migrate(sqlite);
    const storeId = storeIdOf(sqlite);
    if (storeId !== null) lock.recordStore(storeId);
    return report;
  } finally {
    lock.release();
  }
}
