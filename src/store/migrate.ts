import type { Database } from "bun:sqlite";
import { MIGRATIONS } from "./migrations/index.ts";

/**
 * Applies the embedded migrations that the database has not seen, each in its own transaction (all of them in
 * one on a new store), and records them in `schema_migrations`. A database that knows a migration this binary
 * does not ship (an older binary after an upgrade) is refused rather than run against a schema it does not
 * understand.
 */

const STATEMENT_BREAK = "--> statement-breakpoint";

export interface MigrationReport {
  applied: string[];
  current: string | null;
}

/** Thrown when the store was migrated by a newer linkpatrol. */
export class SchemaTooNewError extends Error {
  constructor(readonly unknownTags: string[]) {
    super(`the database was migrated by a newer linkpatrol (unknown migrations: ${unknownTags.join(", ")}); upgrade this binary`);
    this.name = "SchemaTooNewError";
  }
}

/** The migrations this binary ships that the database has not applied yet (read only). */
export function pendingMigrations(sqlite: Database, migrations: readonly { tag: string }[] = MIGRATIONS): string[] {
  const hasTable = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== null;
  const done = new Set(
    hasTable
      ? sqlite
          .query<{ tag: string }, []>("SELECT tag FROM schema_migrations")
          .all()
          .map((r) => r.tag)
      : [],
  );
  return migrations.map((m) => m.tag).filter((tag) => !done.has(tag));
}

/** Brings the schema up to date; returns which migrations ran. */
export function migrate(sqlite: Database, migrations: readonly { tag: string; sql: string }[] = MIGRATIONS): MigrationReport {
  sqlite.exec("CREATE TABLE IF NOT EXISTS schema_migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)");
  const done = new Set(
    sqlite
      .query<{ tag: string }, []>("SELECT tag FROM schema_migrations")
      .all()
      .map((r) => r.tag),
  );
  const known = new Set(migrations.map((m) => m.tag));
  const unknown = [...done].filter((tag) => !known.has(tag));
  if (unknown.length > 0) throw new SchemaTooNewError(unknown);

  const record = sqlite.prepare("INSERT INTO schema_migrations (tag, applied_at) VALUES (?, ?)");
  const apply = (migration: { tag: string; sql: string }) => {
    for (const statement of migration.sql.split(STATEMENT_BREAK)) {
      // A part of comments alone (a PostgreSQL-only migration's SQLite side) is no statement to bun:sqlite.
      if (statement.replace(/--.*$/gm, "").trim()) sqlite.exec(statement);
    }
    record.run(migration.tag, new Date().toISOString());
  };
  const pending = migrations.filter((migration) => !done.has(migration.tag));
  if (done.size === 0) {
    // A new store is built in one transaction, so one commit is synced instead of one per migration (a service's
    // first start waited for each); it ends the same, or stays empty.
    sqlite.transaction(() => pending.forEach(apply))();
  } else {
    for (const migration of pending) sqlite.transaction(() => apply(migration))();
  }
  return { applied: pending.map((migration) => migration.tag), current: migrations.at(-1)?.tag ?? null };
}
