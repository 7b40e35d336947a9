import { Database } from "bun:sqlite";
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { StoreFile, storeFileState, StoreFileLostError, type FileIdentity } from "./store-file.ts";
import { SqliteDb } from "./sqlite-db.ts";

/**
 * Opens the SQLite database file with the settings an appliance needs: WAL (readers never block the writer),
 * a busy timeout (a second process such as `linkpatrol keys create` waits instead of failing),
 * foreign keys enforced, and FULL sync: every commit is on disk before it returns, so not even a power
 * cut loses an acknowledged write (writers batch rows per transaction to keep that cheap).
 *
 * The service and CLI commands open the store with openStore, crawl workers their own connection with
 * openDatabase; the repos are SQL over it, and drizzle is only the schema and migrations tool (docs/decisions.md,
 * "Repos write SQL"). Neither creates a missing file unless asked (`create`): only first-run set-up makes a store
 * (store/store-admission.ts), so nothing opens a new empty store where one was deleted or moved.
 */

/** The store as the service uses it: its SQLite connection, closed with it. */
export interface Store {
  sqlite: Database;
  /** The same connection as the repos reach it (store/db.ts); statements wait while one of its transactions is open. */
  db: SqliteDb;
  /** The file opened, to tell whether its path still names it (null for ":memory:"). */
  file: StoreFile | null;
  close(): void;
}

/** The store's file cannot be used as a store; the message names the file and says why. */
export class StoreFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "StoreFileError";
  }
}

/** How a connection opens the store. */
export interface OpenOptions {
  busyTimeoutMs?: number;
  /**
   * The store is a file of this process alone, deleted when it ends (`check`): nothing of it outlives the
   * process, so commits are not synced and go straight to the file with the rollback journal in memory, not
   * once to a WAL and again at each checkpoint (bench/README.md, "check's store, unsynced"; "Check's store
   * without a WAL"). Its connections live in one thread, so none waits on WAL's concurrent readers; a read left
   * open (an iteration stopped early) would hold up the other connection's writes, so every read runs to its end.
   */
  temporary?: boolean;
  /** Create the file (and its directory) when missing; else a missing file fails with SQLITE_CANTOPEN. */
  create?: boolean;
  /** The file must be this one (the file the service opened): else StoreFileLostError, and nothing is opened. */
  expect?: FileIdentity;
  /** NORMAL instead of FULL for a WAL store: a crawl job's connection (crawler/crawl-job.ts says why). */
  synchronous?: "NORMAL";
  /** false: this connection does not enforce foreign keys (a crawl job's; crawler/crawl-job.ts says why). Others still do. */
  foreignKeys?: boolean;
}

/** Bytes a store's WAL file is cut back to after a checkpoint (SQLite's journal_size_limit). */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** Opens the store at `path` (creating it only with `create`), or an in-memory one for ":memory:". */
export function openStore(path: string, options: OpenOptions = {}): Store {
  const sqlite = openDatabase(path, options);
  const file = StoreFile.watch(path);
  if (path !== ":memory:" && file === null) {
    sqlite.close();
    throw new StoreFileLostError(path, "gone");
  }
  return { sqlite, db: new SqliteDb(sqlite), file, close: () => sqlite.close() };
}

/** Opens the database file at `path` (creating it only with `create`), or an in-memory one for ":memory:". */
export function openDatabase(path: string, options: OpenOptions = {}): Database {
  if (options.expect !== undefined) assertExpectedFile(path, options.expect);
  if (path !== ":memory:" && options.create) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new StoreFileError(path, `cannot create the directory of the store ${path}: ${(error as Error).message}`);
    }
  }
  let sqlite: Database | undefined;
  try {
    sqlite = new Database(path, { create: options.create === true, readwrite: true, strict: true });
    sqlite.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
    // The first statement that reads the file (the page count, or the journal mode): a file that is not a database fails here.
    if (options.temporary) {
      // A rollback still works (a failed batch, a full disk); only a crash could leave the file torn, and then
      // nothing reads it again.
      sqlite.exec("PRAGMA journal_mode = MEMORY");
      sqlite.exec("PRAGMA synchronous = OFF");
    } else {
      // Only a new, empty file takes this (it must come before WAL): big deletions can then give their pages back
      // to the file system (retention.ts). An existing store keeps its mode until rewritten (docs/operations.md);
      // asked of one, SQLite would write its header (refused on a read-only store, which assertWritable explains).
      const empty = sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count === 0;
      if (empty) sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL");
      sqlite.exec("PRAGMA journal_mode = WAL");
      sqlite.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
      // A WAL grown by one big transaction is cut back to this once it has been checkpointed, not kept at its peak.
      sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    }
    sqlite.exec(`PRAGMA foreign_keys = ${options.foreignKeys === false ? "OFF" : "ON"}`);
  } catch (error) {
    sqlite?.close();
    throw new StoreFileError(path, `cannot open the store ${path}: ${describeFailure(path, error)}`);
  }
  if (options.expect !== undefined) {
    try {
      // Checked again once open: the file may have been swapped while SQLite opened it.
      assertExpectedFile(path, options.expect);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }
  return sqlite;
}

function assertExpectedFile(path: string, expected: FileIdentity): void {
  const state = storeFileState(path, expected);
  if (state !== "same") throw new StoreFileLostError(path, state);
}

/**
 * Refuses a store this process cannot write: SQLite opens a file it may only read (a read-only file system, a
 * file of another owner) without a word, and the first write would fail much later. Rewrites the header's
 * user_version with its own value: one page written, no row and no change count touched.
 */
export function assertWritable(sqlite: Database, path: string): void {
  try {
    const version = sqlite.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
    sqlite.exec(`PRAGMA user_version = ${version}`);
  } catch (error) {
    throw new StoreFileError(
      path,
      `the store ${path} cannot be written: ${describeFailure(path, error)} (check the file's owner and mode, whether its file system is mounted read-only, and free space)`,
    );
  }
}

/** SQLite's message for `error`, with what it means for the file at `path` where SQLite says little. */
export function describeFailure(path: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "SQLITE_NOTADB") return `${message} (the file is not a SQLite database, or is damaged)`;
  if (code === "SQLITE_CANTOPEN" && path !== ":memory:" && isDirectory(path)) return `${message} (it is a directory)`;
  if (code === "SQLITE_CANTOPEN" && path !== ":memory:" && !exists(path)) return `${message} (there is no file at that path)`;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
