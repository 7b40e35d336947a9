import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { pendingMigrations } from "../migrate.ts";
import { migratePostgres } from "./migrate.ts";
import { creationOrder, type Snapshot } from "./schema-from-snapshot.ts";

/**
 * Moving an appliance up: every row of a SQLite store copied into an empty PostgreSQL database, in one
 * transaction (all of it or nothing), parents before the rows that name them, rows streamed from SQLite in
 * batches so a store of millions of links is never held whole; identity columns continue after the highest
 * id SQLite handed out; then every table's count compared. The store's identity row goes with it: it is the same store.
 */

/** Rows sent to PostgreSQL per INSERT. */
const BATCH_ROWS = 500;

export interface CopyReport {
  tables: { name: string; rows: number }[];
}

/** Why a copy was refused before it began. */
export class StoreCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreCopyError";
  }
}

export async function copyStoreToPostgres(sqlite: Database, pg: SQL, snapshot: Snapshot): Promise<CopyReport> {
  const pending = pendingMigrations(sqlite);
  if (pending.length > 0)
    throw new StoreCopyError(`the SQLite store is not at this version's schema (pending: ${pending.join(", ")}); run \`linkpatrol migrate\` on it first`);
  const existing = (await pg`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`) as {
    table_name: string;
  }[];
  if (existing.length > 0)
    throw new StoreCopyError(`the PostgreSQL database is not empty (it has ${existing.map((t) => t.table_name).join(", ")}); copy into an empty database`);
  await migratePostgres(pg);

  const tables = creationOrder(Object.values(snapshot.tables));
  const report: CopyReport = { tables: [] };
  await pg.begin(async (tx) => {
    for (const table of tables) {
      const columns = Object.keys(table.columns);
      const select = sqlite.query<Record<string, unknown>, []>(`SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${table.name}"`);
      let batch: Record<string, unknown>[] = [];
      let rows = 0;
      const send = async (): Promise<void> => {
        if (batch.length === 0) return;
        await tx`INSERT INTO ${tx(table.name)} ${tx(batch, ...columns)}`;
        rows += batch.length;
        batch = [];
      };
      for (const row of select.iterate()) {
        batch.push(row);
        if (batch.length >= BATCH_ROWS) await send();
      }
      await send();
      for (const column of Object.values(table.columns).filter((c) => c.primaryKey && c.autoincrement === true)) {
        // Past SQLite's own sequence too: an id handed out once and deleted since is not handed out again.
        const given = Number(sequenceOf(sqlite, table.name));
        await tx`SELECT setval(pg_get_serial_sequence(${table.name}, ${column.name}), (SELECT GREATEST(COALESCE(MAX(${tx(column.name)}), 0), ${given}) + 1 FROM ${tx(table.name)}), false)`;
      }
      const [copied] = (await tx`SELECT COUNT(*)::int AS n FROM ${tx(table.name)}`) as { n: number }[];
      if (copied!.n !== rows) throw new Error(`${table.name}: ${rows} rows sent, ${copied!.n} in PostgreSQL`);
      report.tables.push({ name: table.name, rows });
    }
  });
  return report;
}

/** The highest id SQLite's AUTOINCREMENT handed out for `table` (0: none). */
function sequenceOf(sqlite: Database, table: string): number {
  const known = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== null;
  return known ? (sqlite.query<{ seq: number }, [string]>("SELECT seq FROM sqlite_sequence WHERE name = ?").get(table)?.seq ?? 0) : 0;
}
