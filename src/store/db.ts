import type { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";
import { openDatabase } from "./sqlite.ts";

/** The store as the service uses it: the SQLite connection (sqlite.ts) and drizzle over it. */

export type Db = BunSQLiteDatabase<typeof schema>;

export interface Store {
  db: Db;
  sqlite: Database;
  close(): void;
}

/** Opens (creating if needed) the database file at `path`, or an in-memory one for ":memory:". */
export function openStore(path: string, options: { busyTimeoutMs?: number } = {}): Store {
  const sqlite = openDatabase(path, options);
  const db = drizzle(sqlite, { schema });
  return { db, sqlite, close: () => sqlite.close() };
}
