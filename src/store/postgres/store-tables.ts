import type { Database } from "bun:sqlite";
import type { Snapshot, SnapshotTable } from "./schema-from-snapshot.ts";

/**
 * The tables of an open SQLite store, read from the store itself (its PRAGMAs), in the shape of drizzle's snapshot
 * as far as a copy needs it: columns, which key numbers itself, the foreign keys that order the tables. The
 * executable carries no snapshot files, so `linkpatrol store copy` reads the store it copies; the copy refuses a
 * store not at this version's schema, so what is read here is the newest snapshot's tables (a test holds them equal).
 */

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

interface ForeignKeyInfo {
  id: number;
  table: string;
  from: string;
  to: string;
  on_update: string;
  on_delete: string;
}

/** Bookkeeping tables that are not the store's data: the migrations applied, SQLite's own. */
const NOT_DATA = new Set(["schema_migrations"]);

export function storeTables(sqlite: Database): Snapshot {
  const rows = sqlite
    .query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .filter((row) => !NOT_DATA.has(row.name));
  const tables: Record<string, SnapshotTable> = {};
  for (const { name, sql } of rows) {
    const columns = sqlite.query<ColumnInfo, []>(`PRAGMA table_info("${name}")`).all();
    const keyColumns = columns.filter((c) => c.pk > 0).length;
    const table: SnapshotTable = { name, columns: {}, indexes: {}, foreignKeys: {}, compositePrimaryKeys: {}, uniqueConstraints: {}, checkConstraints: {} };
    for (const c of columns) {
      const primaryKey = c.pk > 0 && keyColumns === 1;
      table.columns[c.name] = {
        name: c.name,
        type: c.type.toLowerCase(),
        primaryKey,
        notNull: c.notnull === 1,
        autoincrement: primaryKey && /\bAUTOINCREMENT\b/i.test(sql),
      };
    }
    for (const fk of sqlite.query<ForeignKeyInfo, []>(`PRAGMA foreign_key_list("${name}")`).all()) {
      const key = `${name}_fk_${fk.id}`;
      table.foreignKeys[key] ??= {
        name: key,
        tableTo: fk.table,
        columnsFrom: [],
        columnsTo: [],
        onDelete: fk.on_delete.toLowerCase(),
        onUpdate: fk.on_update.toLowerCase(),
      };
      const found = table.foreignKeys[key];
      found.columnsFrom.push(fk.from);
      found.columnsTo.push(fk.to);
    }
    tables[name] = table;
  }
  return { dialect: "sqlite", tables };
}
