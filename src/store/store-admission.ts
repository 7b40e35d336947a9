import type { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { lockPathOf } from "./service-lock.ts";
import { StoreFileError } from "./sqlite.ts";
import { readStoreRecord, storeIdOf, type StoreRecord } from "./store-record.ts";

/**
 * Whether a command may use the store it finds at storage.path, decided before anything writes to it. Only
 * first-run set-up creates a store: `serve` (and `migrate`) where nothing is and nothing was recorded beside it.
 * Where the lock file records a store (store/store-record.ts), a missing store, an empty file or another
 * store's file is refused, naming the file, until the operator puts the store back or says it is a new one
 * (`--new-store`). Everything else (the CLI's keys and domains commands, crawl workers, backups) opens an
 * existing file only (docs/decisions.md, "A store file deleted, moved or replaced under a running service").
 */

/** How a command may come to its store. */
export interface Admission {
  /** First-run set-up (serve, migrate): create the store when none is there and none was recorded. */
  mayCreate: boolean;
  /** The operator's `--new-store`: create the store, or take the one there, whatever the record says. */
  newStore: boolean;
}

/** What to do about the store file before it is opened. */
export interface FileAdmission {
  /** Create the file: it is missing and may be made. */
  create: boolean;
  /** What the lock file records of the store at the path, if anything. */
  record: StoreRecord | null;
  /** Where a WAL left at the path without its store was moved aside, before a new store is made there. */
  setAside: string | null;
}

const NEW_STORE_HINT = "to start over with a new, empty store instead, run `linkpatrol serve --new-store` (or `linkpatrol migrate --new-store`) once";

/** Whether the store at `path` may be opened, and created; throws StoreFileError naming the file when not. */
export function admitStoreFile(path: string, admission: Admission): FileAdmission {
  if (path === ":memory:") return { create: true, record: null, setAside: null };
  const lockPath = lockPathOf(path);
  const record = readStoreRecord(lockPath);
  if (existsSync(path)) return { create: false, record, setAside: null };
  if (admission.newStore) return { create: true, record, setAside: setAsideOrphanedWal(path) };
  if (record !== null) {
    throw new StoreFileError(
      path,
      `the store ${path} is missing, but a linkpatrol service used a store there (${recorded(lockPath, record)}): it was deleted or moved. Put it back, or restore a backup (docs/operations.md, "Backup"); ${NEW_STORE_HINT}`,
    );
  }
  if (admission.mayCreate) return { create: true, record, setAside: setAsideOrphanedWal(path) };
  throw new StoreFileError(
    path,
    `no store at ${path} (storage.path): \`linkpatrol serve\` creates it on its first start (or \`linkpatrol migrate\`); if one should be there, check --config and LINKPATROL_STORAGE_PATH`,
  );
}

/**
 * Refuses, before any migration writes to it, an opened store that is not the recorded one: an empty file (a
 * store recreated by something) or a store with another id (another install's, swapped in).
 */
export function admitOpenedStore(sqlite: Database, path: string, file: FileAdmission, admission: Admission): void {
  const { record } = file;
  if (path === ":memory:" || record === null || admission.newStore || file.create) return;
  const lockPath = lockPathOf(path);
  if (sqlite.query("SELECT 1 FROM sqlite_master LIMIT 1").get() === null) {
    throw new StoreFileError(
      path,
      `the store ${path} is an empty database, but a linkpatrol service used a store there (${recorded(lockPath, record)}): the store was deleted and an empty file made in its place. Put the store back, or restore a backup (docs/operations.md, "Backup"); ${NEW_STORE_HINT}`,
    );
  }
  const id = storeIdOf(sqlite);
  if (record.storeId !== null && id !== null && id !== record.storeId) {
    throw new StoreFileError(
      path,
      `the store ${path} is not the store a linkpatrol service used there (its id is ${id}; ${recorded(lockPath, record)}): another store was put in its place. Put the right store back, or restore a backup of it (docs/operations.md, "Backup"); to make this store the service's own, run \`linkpatrol serve --new-store\` (or \`linkpatrol migrate --new-store\`) once`,
    );
  }
}

/**
 * A WAL at the path of a missing store belongs to the store that was there (one deleted or moved while a
 * process had it open, which was then killed): SQLite would read its frames into the new store. It is moved
 * aside, not deleted, since a store moved away may need it back; an empty one and the index (-shm) go.
 */
function setAsideOrphanedWal(path: string): string | null {
  const wal = `${path}-wal`;
  rmSync(`${path}-shm`, { force: true });
  const size = statSync(wal, { throwIfNoEntry: false })?.size;
  if (size === undefined) return null;
  if (size === 0) {
    rmSync(wal, { force: true });
    return null;
  }
  const aside = `${wal}.orphaned-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  renameSync(wal, aside);
  return aside;
}

function recorded(lockPath: string, record: StoreRecord): string {
  const which = record.storeId === null ? "a store" : `store id ${record.storeId}`;
  return `${lockPath} records ${which} since ${record.recordedAt}`;
}
