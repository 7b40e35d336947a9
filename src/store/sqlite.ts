import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Opens the SQLite database file with the settings an appliance needs: WAL (readers never block the writer),
 * a busy timeout (a second process such as `linkpatrol keys create` waits instead of failing),
 * foreign keys enforced, and FULL sync: every commit is on disk before it returns, so not even a power
 * cut loses an acknowledged write (writers batch rows per transaction to keep that cheap).
 *
 * Apart from db.ts so that crawl worker threads, which use plain SQL only, do not load drizzle and the
 * schema: that module graph costs a thread ~2.5 MiB (bench/README.md, "Memory").
 */

/** Opens (creating if needed) the database file at `path`, or an in-memory one for ":memory:". */
export function openDatabase(path: string, options: { busyTimeoutMs?: number } = {}): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  return sqlite;
}
