import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";

/**
 * Opens the SQLite store with the settings an appliance needs: WAL (readers never block the writer),
 * a busy timeout (a second process such as `linkpatrol keys create` waits instead of failing),
 * foreign keys enforced, and FULL sync: every commit is on disk before it returns, so not even a power
 * cut loses an acknowledged write (writers batch rows per transaction to keep that cheap).
 */

export type Db = BunSQLiteDatabase<typeof schema>;

export interface Store {
  db: Db;
  sqlite: Database;
  close(): void;
}

/** Opens (creating if needed) the database file at `path`, or an in-memory one for ":memory:". */
export function openStore(path: string, options: { busyTimeoutMs?: number } = {}): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  const db = drizzle(sqlite, { schema });
  return { db, sqlite, close: () => sqlite.close() };
}
